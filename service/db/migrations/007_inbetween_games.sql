-- In Between pot games (play chips only; nothing here touches the Red Dog tables, rounds or wallet movements).
-- A game row holds the `Game` value as jsonb, its secret pack, and the head of the game's own audit chain. The chain
-- itself lives in audit_log with table_id = game_id: one uuid4 per chain, so a game's chain never meets a table's.
CREATE TABLE inbetween_games (
    game_id        uuid PRIMARY KEY,
    operator_id    text        NOT NULL,
    ruleset        text        NOT NULL,
    ruleset_sha256 text        NOT NULL,
    status         text        NOT NULL CHECK (status IN ('awaiting_ace_call', 'awaiting_pair_call', 'awaiting_bet',
                                                          'turn_over', 'round_over', 'game_over')),
    test           boolean     NOT NULL,
    started_at     timestamptz NOT NULL,
    ended_at       timestamptz,
    state          jsonb       NOT NULL,  -- the public game as the engine sees it
    shoe           bytea       NOT NULL,  -- secret until revealed: the pack in play with its undealt order
    audit_seq      bigint      NOT NULL CHECK (audit_seq > 0),  -- head of the game's audit chain
    audit_hash     bytea       NOT NULL,
    audit_at       timestamptz NOT NULL
);
CREATE INDEX inbetween_games_by_operator ON inbetween_games (operator_id, started_at DESC, game_id DESC);

-- The app plays games and never deletes one; its audit records it may only INSERT and SELECT (granted in 002).
GRANT SELECT, INSERT, UPDATE ON inbetween_games TO reddog_app;
