-- A message's body in a table of its own (issue 32). An outbox row is written once and then updated: its listing
-- position always, and a delivered message's claim and mark too. PostgreSQL writes a whole new version of the row
-- on each update (none of them can be HOT: each changes an indexed column), and the body, the ~750 bytes a
-- notification carries, was most of every version. Now the body is written once, beside the row, and never again;
-- the row each update copies is its columns alone.
--
-- Messages written before keep their body in outbox.body (now NULL for new ones); readers take that one first.
CREATE TABLE outbox_bodies (
    message_id uuid  PRIMARY KEY,  -- outbox.message_id: the same message on every attempt
    body       bytea NOT NULL      -- the exact bytes sent and signed
);
ALTER TABLE outbox ALTER COLUMN body DROP NOT NULL;

-- Never changed, as outbox.body never was; purged only with its message, by purge_outbox.
GRANT SELECT, INSERT ON outbox_bodies TO reddog_app;

CREATE OR REPLACE FUNCTION purge_outbox(before timestamptz, most integer) RETURNS integer
LANGUAGE plpgsql SECURITY DEFINER AS $$
DECLARE
    gone integer;
BEGIN
    IF before > now() - interval '1 day' THEN
        RAISE EXCEPTION 'outbox rows younger than a day are never purged (asked for rows before %)', before
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    WITH purged AS (
        DELETE FROM outbox WHERE seq IN (
            SELECT seq FROM outbox
            WHERE status IN ('delivered', 'resolved', 'unsent') AND created_at < before
            ORDER BY seq LIMIT most
        ) RETURNING message_id
    ), bodies AS (
        DELETE FROM outbox_bodies WHERE message_id IN (SELECT message_id FROM purged)
    )
    SELECT count(*) INTO gone FROM purged;
    RETURN gone;
END $$;
-- As migration 022 set it: a definer's function must not find another `outbox` first.
DO $$ BEGIN
    EXECUTE format('ALTER FUNCTION purge_outbox(timestamptz, integer) SET search_path = %I, pg_temp', current_schema());
END $$;
