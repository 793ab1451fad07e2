-- A table row's audit head is the version of everything a request reads from it and its rounds: every state change
-- of the table or of one of its rounds appends to the table's chain. A write that extends the chain names the head
-- it read; finding another one there means someone changed the table since, and the whole statement fails with a
-- serialization failure (SQLSTATE 40001), which the service retries. This lets a request read without a lock and
-- write in one statement, with no BEGIN or COMMIT: the check runs on the row version the UPDATE is about to replace,
-- after waiting for any transaction that holds it.
CREATE FUNCTION reddog_expect_head(actual bigint, expected bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF actual IS DISTINCT FROM expected THEN
        RAISE EXCEPTION 'audit head moved from % to % since it was read', expected, actual
            USING ERRCODE = 'serialization_failure';
    END IF;
    RETURN true;
END
$$;
