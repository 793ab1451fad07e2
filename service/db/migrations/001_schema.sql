-- Tables, rounds, idempotency keys and the hash-chained audit log.

CREATE TABLE game_tables (
    table_id             uuid PRIMARY KEY,
    operator_id          text        NOT NULL,
    name                 text        NOT NULL,
    paytable_id          text        NOT NULL,
    paytable_sha256      text        NOT NULL,
    decks                smallint    NOT NULL CHECK (decks BETWEEN 1 AND 8),
    shoe_policy          text        NOT NULL CHECK (shoe_policy IN ('per_round', 'cut_card')),
    penetration          smallint,
    currency             text        NOT NULL,
    min_ante             bigint      NOT NULL CHECK (min_ante > 0),
    max_ante             bigint      NOT NULL CHECK (max_ante >= min_ante),
    max_bets             smallint    NOT NULL CHECK (max_bets > 0),
    raise_window_seconds integer     NOT NULL CHECK (raise_window_seconds > 0),
    mode                 text        NOT NULL CHECK (mode IN ('live', 'test')),
    status               text        NOT NULL CHECK (status IN ('open', 'closed')),
    created_at           timestamptz NOT NULL,
    closed_at            timestamptz,
    shoe                 bytea,       -- cut_card: the shoe between rounds (secret: holds the undealt order)
    active_round_id      uuid,        -- cut_card: the one round in progress
    audit_seq            bigint      NOT NULL DEFAULT 0,  -- head of this table's audit chain
    audit_hash           bytea       NOT NULL
);
CREATE INDEX game_tables_by_operator ON game_tables (operator_id, created_at DESC, table_id DESC);

CREATE TABLE rounds (
    round_id         uuid PRIMARY KEY,
    table_id         uuid        NOT NULL REFERENCES game_tables (table_id),
    operator_id      text        NOT NULL,
    status           text        NOT NULL CHECK (status IN ('raise_window', 'settled', 'void')),
    test             boolean     NOT NULL,
    opened_at        timestamptz NOT NULL,
    window_closes_at timestamptz,
    settled_at       timestamptz,
    player_ids       text[]      NOT NULL,
    state            jsonb       NOT NULL,  -- the round aggregate as the game core sees it
    shoe             bytea       NOT NULL   -- secret until the round settles: holds the undealt order
);
CREATE INDEX rounds_by_operator ON rounds (operator_id, opened_at DESC, round_id DESC);
CREATE INDEX rounds_by_table ON rounds (table_id, opened_at DESC, round_id DESC);
CREATE INDEX rounds_by_player ON rounds USING gin (player_ids);
CREATE INDEX rounds_expiring ON rounds (window_closes_at) WHERE status = 'raise_window';

CREATE TABLE idempotency_keys (
    operator_id  text        NOT NULL,
    key          text        NOT NULL,
    request_hash bytea       NOT NULL,
    status_code  smallint,
    response     bytea,
    created_at   timestamptz NOT NULL,
    PRIMARY KEY (operator_id, key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);

CREATE TABLE audit_log (
    table_id    uuid        NOT NULL,
    seq         bigint      NOT NULL CHECK (seq > 0),
    prev_hash   bytea       NOT NULL,
    hash        bytea       NOT NULL UNIQUE,
    recorded_at timestamptz NOT NULL,
    kind        text        NOT NULL,
    round_id    uuid,
    bet_id      text,
    test        boolean     NOT NULL,
    body        bytea       NOT NULL,  -- the canonical record bytes the hash covers
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX audit_log_by_round ON audit_log (round_id) WHERE round_id IS NOT NULL;

CREATE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_log is append-only: % refused', TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();
