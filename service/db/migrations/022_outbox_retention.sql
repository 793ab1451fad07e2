-- Issue 27: the outbox kept every row for ever (a row a settled round: millions a day on a busy service). Rows no
-- one is owed any more (delivered, resolved by an operator, or unsent: an operator without a URL, listed only) go
-- after RD_OUTBOX_RETENTION_DAYS; pending messages and dead letters are never purged. The app role still may not
-- DELETE an outbox row: it may only call this function, which keeps every row younger than a day whatever it is
-- asked, so a stolen app login cannot erase what an aggregator has not had the chance to read.
CREATE FUNCTION purge_outbox(before timestamptz, most integer) RETURNS integer
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
        ) RETURNING 1
    )
    SELECT count(*) INTO gone FROM purged;
    RETURN gone;
END $$;
-- A definer's function runs with the owner's rights, so it must not find another `outbox` first: its path is the
-- schema this migration ran in, then pg_temp last (pg_catalog is searched first when it is not named).
DO $$ BEGIN
    EXECUTE format('ALTER FUNCTION purge_outbox(timestamptz, integer) SET search_path = %I, pg_temp', current_schema());
END $$;
REVOKE ALL ON FUNCTION purge_outbox(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION purge_outbox(timestamptz, integer) TO reddog_app;
