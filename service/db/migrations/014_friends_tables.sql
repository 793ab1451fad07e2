-- In Between with friends: a table with a short code, a seat per phone, and the game it is playing (play chips only).
-- The games themselves are ordinary inbetween_games rows of the reserved operator 'friends', each on its own audit
-- chain; these rows hold only what the table adds: the code, the seats and their hashed tokens, the turn deadline.
CREATE TABLE friends_tables (
    table_id        uuid PRIMARY KEY,
    code            text        NOT NULL CHECK (code ~ '^[2-9A-HJKMNPQRTV-Y]{8}$'),
    status          text        NOT NULL CHECK (status IN ('waiting', 'playing', 'over', 'closed')),
    ruleset         text        NOT NULL,
    rounds          integer     NOT NULL,
    ante            integer     NOT NULL,
    seats           integer     NOT NULL CHECK (seats BETWEEN 2 AND 8),
    turn_seconds    integer     NOT NULL CHECK (turn_seconds BETWEEN 15 AND 120),
    host_seat       integer     NOT NULL,
    game_id         uuid        REFERENCES inbetween_games (game_id),
    version         bigint      NOT NULL,  -- every change to the table or its game moves it on: what a push names
    turn_deadline   timestamptz,           -- the awaited person's move, else NULL; the sweeper plays the default
    created_at      timestamptz NOT NULL,
    active_at       timestamptz NOT NULL,  -- the last request a person made; idle tables close
    closed_at       timestamptz
);
-- A code names one open table; a closed table's code is free for a new one.
CREATE UNIQUE INDEX friends_tables_open_code ON friends_tables (code) WHERE status <> 'closed';
CREATE INDEX friends_tables_deadline ON friends_tables (turn_deadline) WHERE turn_deadline IS NOT NULL;
CREATE INDEX friends_tables_active ON friends_tables (active_at) WHERE status <> 'closed';

-- A person's seat from the moment they join; at the start every seat still empty gets a row of its own, a computer's
-- (no name, no token). The computer plays a person's seat too while `held_by` says why.
CREATE TABLE friends_seats (
    table_id     uuid        NOT NULL REFERENCES friends_tables (table_id),
    seat         integer     NOT NULL CHECK (seat BETWEEN 0 AND 7),
    name         text,                   -- display text as typed (any script), never an id; NULL: a computer's seat
    token_hash   bytea       UNIQUE,     -- sha256 of the seat token (never the token); NULL: a computer's, or left
    joined_at    timestamptz NOT NULL,
    held_by      text        CHECK (held_by IN ('host', 'missed', 'left')),  -- why the computer plays a person's seat
    missed       integer     NOT NULL DEFAULT 0,  -- decisions in a row its timer made
    personality  text        NOT NULL DEFAULT 'steady' CHECK (personality IN ('cautious', 'steady', 'bold')),
    endgame_tip  boolean     NOT NULL DEFAULT true,
    PRIMARY KEY (table_id, seat)
);

-- Fixed-window counters for the limits on creating and joining tables (by address, by code): in PostgreSQL, so
-- every replica counts against the same window.
CREATE TABLE friends_limits (
    bucket       text        NOT NULL,
    window_start timestamptz NOT NULL,
    hits         integer     NOT NULL,
    PRIMARY KEY (bucket, window_start)
);

GRANT SELECT, INSERT, UPDATE ON friends_tables TO reddog_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON friends_seats, friends_limits TO reddog_app;
