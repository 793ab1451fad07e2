-- A request's records, stored together (issue 32). One row a record cost PostgreSQL a heap tuple, its header and
-- two B-tree entries each, about 9.5 times a round: 42% of the WAL a round wrote. Now the records one append writes
-- for one round (or for no round: a game's, the system's) are one row of audit_batches, with one pair of index
-- entries, and a row past about 2 KB is compressed by PostgreSQL (TOAST) before it is logged. Every record keeps its
-- own seq, hashes and body, byte for byte: the view audit_log shows them one row a record, exactly as the table of
-- that name held them, so every reader, the export and every verifier see the same records.
--
-- The rows written before this migration stay where they are, in audit_rows (the table audit_log was, renamed with
-- its keys, triggers and grants); the view shows both. A release older than this one writes one row a record into
-- the view, which puts it into audit_rows: a rolling upgrade's older replicas keep working.
ALTER TABLE audit_log RENAME TO audit_rows;

CREATE TABLE audit_batches (
    table_id    uuid        NOT NULL,
    first_seq   bigint      NOT NULL CHECK (first_seq > 0),
    prev_hash   bytea       NOT NULL,  -- the hash the batch's first record chains from
    recorded_at timestamptz NOT NULL,
    round_id    uuid,                  -- every record of a batch names this round, or none does
    test        boolean     NOT NULL,
    -- Record i (from 1) is seq first_seq + i - 1 with kinds[i], bet_ids[i], hashes[i] and bodies[i]: the canonical
    -- bytes its hash covers. A batch holds 1 to 64 records, so a reader bounds first_seq by a record's seq.
    kinds       text[]      NOT NULL,
    bet_ids     text[]      NOT NULL,
    hashes      bytea[]     NOT NULL,
    bodies      bytea[]     NOT NULL,
    PRIMARY KEY (table_id, first_seq),
    CHECK (cardinality(bodies) BETWEEN 1 AND 64 AND cardinality(hashes) = cardinality(bodies)
           AND cardinality(kinds) = cardinality(bodies) AND cardinality(bet_ids) = cardinality(bodies))
);
CREATE INDEX audit_batches_by_round ON audit_batches (round_id) WHERE round_id IS NOT NULL;
-- lz4 where the server has it: as small as pglz here, and cheaper to compress (the default stays otherwise).
DO $$ BEGIN
    ALTER TABLE audit_batches ALTER COLUMN bodies SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL;
END $$;

-- As append-only as audit_log was, by the same function.
CREATE TRIGGER audit_batches_no_update BEFORE UPDATE OR DELETE ON audit_batches
    FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();
CREATE TRIGGER audit_batches_no_truncate BEFORE TRUNCATE ON audit_batches
    FOR EACH STATEMENT EXECUTE FUNCTION audit_log_refuse_change();

-- Every record, one row each. batch_seq is the first seq of the row that stores it (its own seq for audit_rows): a
-- reader of a range of seqs bounds it too, which the planner can take to the primary keys (a record's batch_seq is
-- at most its seq and more than its seq - 64).
CREATE VIEW audit_log AS
    SELECT table_id, seq, prev_hash, hash, recorded_at, kind, round_id, bet_id, test, body, seq AS batch_seq
    FROM audit_rows
    UNION ALL
    SELECT b.table_id, b.first_seq + r.i - 1, r.prev_hash, r.hash, b.recorded_at, r.kind, b.round_id, r.bet_id,
           b.test, r.body, b.first_seq
    FROM audit_batches b,
         unnest(b.bodies, b.kinds, b.bet_ids, b.hashes, trim_array(array_prepend(b.prev_hash, b.hashes), 1))
             WITH ORDINALITY AS r(body, kind, bet_id, hash, prev_hash, i);

-- A row written into the view (an older release, a tool that loads records) goes into audit_rows as before.
CREATE FUNCTION audit_log_insert_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audit_rows (table_id, seq, prev_hash, hash, recorded_at, kind, round_id, bet_id, test, body)
    VALUES (NEW.table_id, NEW.seq, NEW.prev_hash, NEW.hash, NEW.recorded_at, NEW.kind, NEW.round_id, NEW.bet_id,
            NEW.test, NEW.body);
    RETURN NEW;
END;
$$;
CREATE TRIGGER audit_log_insert_row INSTEAD OF INSERT ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_insert_row();

-- Changing a record through the view is refused as changing one in either table is (TRUNCATE names a table).
CREATE TRIGGER audit_log_no_update INSTEAD OF UPDATE OR DELETE ON audit_log
    FOR EACH ROW EXECUTE FUNCTION audit_log_refuse_change();

GRANT SELECT, INSERT ON audit_log, audit_batches TO reddog_app;
