-- The transactional outbox: every message the service owes the outside world (a settlement notification now, a
-- wallet call later) is a row written in the transaction of the change that owes it. A delivery worker in any
-- replica claims due rows after COMMIT (SKIP LOCKED), sends them and marks them; the same row, the same message id,
-- on every attempt.
CREATE TABLE outbox (
    seq             bigserial   PRIMARY KEY,  -- the order rows were written in: one ordering key's rows go in it
    message_id      uuid        NOT NULL UNIQUE,  -- the event id a receiver deduplicates by
    operator_id     text        NOT NULL,
    channel         text        NOT NULL CHECK (channel IN ('notification')),
    ordering_key    text        NOT NULL,  -- a round's messages are delivered one after another, in seq order
    kind            text        NOT NULL,
    body            bytea       NOT NULL,  -- the exact bytes sent and signed
    created_at      timestamptz NOT NULL,
    -- pending: owed; delivered; dead: parked after too many attempts or too long; resolved: an operator settled a
    -- dead letter by hand; unsent: owed to no one (its operator has no URL), only listed.
    status          text        NOT NULL CHECK (status IN ('pending', 'delivered', 'dead', 'resolved', 'unsent')),
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL,  -- also the lease of a claimed attempt: due again if its worker died
    last_error      text,
    delivered_at    timestamptz,
    parked_at       timestamptz,
    retried_at      timestamptz,  -- an operator's retry of a dead letter: its age counts from here
    -- Its place in GET /v1/notifications, given after COMMIT by one replica at a time in seq order, so a reader
    -- paging with ?after= never misses a row that committed after a later one.
    position        bigint      UNIQUE
);
CREATE INDEX outbox_due ON outbox (next_attempt_at) WHERE status = 'pending';
CREATE INDEX outbox_waiting ON outbox (ordering_key, seq) WHERE status IN ('pending', 'dead');
CREATE INDEX outbox_unlisted ON outbox (seq) WHERE position IS NULL;
CREATE INDEX outbox_listed ON outbox (operator_id, position) WHERE position IS NOT NULL;
CREATE INDEX outbox_dead ON outbox (operator_id, seq) WHERE status = 'dead';

-- The worker writes only what an attempt changes; a message's id, body and order are never rewritten, nor deleted.
GRANT SELECT, INSERT ON outbox TO reddog_app;
GRANT UPDATE (status, attempts, next_attempt_at, last_error, delivered_at, parked_at, retried_at, position) ON outbox TO reddog_app;
GRANT USAGE ON SEQUENCE outbox_seq_seq TO reddog_app;
