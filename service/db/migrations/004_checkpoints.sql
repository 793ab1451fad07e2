-- Signed checkpoints of every chain, each table's Merkle tree head kept as it grows, the system chain, and the
-- counters that rate-limit its failed-authentication records.

-- A chain's tree head (audit.merkle.CompactRange): the roots of the perfect subtrees over its records, largest
-- first, their 32-byte hashes concatenated. Every append extends it in the same statement that moves the chain's
-- head, so signing a checkpoint never re-hashes history. This function computes it from the records alone: it fills
-- the column for tables older than this migration, and lets a test compare it with the code that keeps it.
CREATE FUNCTION audit_compact_range(chain uuid) RETURNS bytea LANGUAGE plpgsql STABLE AS $$
DECLARE
    stack bytea[] := '{}';
    size bigint := 0;
    carry bigint;
    node bytea;
    leaf record;
BEGIN
    FOR leaf IN SELECT hash FROM audit_log WHERE table_id = chain ORDER BY seq LOOP
        node := sha256('\x00'::bytea || leaf.hash);
        carry := size;
        WHILE carry & 1 = 1 LOOP  -- equal-sized neighbours merge, like a binary counter's carries
            node := sha256('\x01'::bytea || stack[cardinality(stack)] || node);
            stack := stack[1:cardinality(stack) - 1];
            carry := carry >> 1;
        END LOOP;
        stack := stack || node;
        size := size + 1;
    END LOOP;
    RETURN (SELECT coalesce(string_agg(h, ''::bytea ORDER BY i), ''::bytea) FROM unnest(stack) WITH ORDINALITY AS s(h, i));
END;
$$;

ALTER TABLE game_tables ADD COLUMN audit_tree bytea;
UPDATE game_tables SET audit_tree = audit_compact_range(table_id);
ALTER TABLE game_tables ALTER COLUMN audit_tree SET NOT NULL;

-- The system chain's head: one row, under the reserved chain id (the nil UUID) its records carry in audit_log.
CREATE TABLE system_chain (
    table_id   uuid        PRIMARY KEY CHECK (table_id = '00000000-0000-0000-0000-000000000000'),
    audit_seq  bigint      NOT NULL DEFAULT 0,
    audit_hash bytea       NOT NULL,
    audit_at   timestamptz,
    audit_tree bytea       NOT NULL DEFAULT ''
);
INSERT INTO system_chain (table_id, audit_hash)
    VALUES ('00000000-0000-0000-0000-000000000000', decode(repeat('00', 32), 'hex'));

-- Every checkpoint ever signed, as the exact note text published: the API and the export hand them to auditors,
-- whose copies are the anchor. (table_id, tree_size) is unique: replicas signing the same head write one row.
CREATE TABLE audit_checkpoints (
    table_id   uuid        NOT NULL,
    tree_size  bigint      NOT NULL CHECK (tree_size > 0),
    root       bytea       NOT NULL CHECK (length(root) = 32),
    note       text        NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (table_id, tree_size)
);

CREATE FUNCTION audit_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
CREATE TRIGGER audit_checkpoints_no_update BEFORE UPDATE OR DELETE ON audit_checkpoints
    FOR EACH ROW EXECUTE FUNCTION audit_refuse_change();
CREATE TRIGGER audit_checkpoints_no_truncate BEFORE TRUNCATE ON audit_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION audit_refuse_change();

-- Failed signatures per (operator id as sent, address): when the last system record for the pair was written and
-- how many failures since are not in one yet.
CREATE TABLE auth_failures (
    operator_id      text        NOT NULL,
    remote_address   text        NOT NULL,
    recorded_at      timestamptz NOT NULL,
    pending          integer     NOT NULL DEFAULT 0,
    first_pending_at timestamptz,
    last_pending_at  timestamptz,
    PRIMARY KEY (operator_id, remote_address)
);
CREATE INDEX auth_failures_pending ON auth_failures (recorded_at) WHERE pending > 0;

REVOKE ALL ON audit_checkpoints FROM reddog_app;
GRANT SELECT, INSERT ON audit_checkpoints TO reddog_app;
GRANT SELECT, UPDATE ON system_chain TO reddog_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON auth_failures TO reddog_app;
