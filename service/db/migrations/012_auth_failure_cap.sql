-- Failed signatures are bounded twice: unknown operator ids share one bucket per address (the service decides which
-- ids are known, so auth_failures is unchanged but for the rows it no longer grows), and the records of any one clock
-- minute, over every replica, stay under RD_AUTH_FAILURE_RECORDS_PER_MINUTE. A pair whose first failure found that
-- cap reached has no record yet: its recorded_at is NULL and it is due at once, oldest waiting first.
ALTER TABLE auth_failures ALTER COLUMN recorded_at DROP NOT NULL;
DROP INDEX auth_failures_pending;
CREATE INDEX auth_failures_waiting ON auth_failures (first_pending_at) WHERE pending > 0;

-- The records of failed signatures written in `minute`: one row, locked by whoever writes such a record.
CREATE TABLE auth_failure_quota (
    one     boolean     PRIMARY KEY DEFAULT true CHECK (one),
    minute  timestamptz NOT NULL,
    records integer     NOT NULL
);
INSERT INTO auth_failure_quota (minute, records) VALUES ('epoch', 0);
GRANT SELECT, UPDATE ON auth_failure_quota TO reddog_app;
