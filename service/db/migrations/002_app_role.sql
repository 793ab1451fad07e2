-- The role the service runs as: everything it needs, and on the audit log only INSERT and SELECT.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'reddog_app') THEN
        CREATE ROLE reddog_app NOLOGIN;
    END IF;
EXCEPTION
    -- Roles belong to the whole server: another database migrating at the same moment may have just made it.
    WHEN duplicate_object OR unique_violation THEN NULL;
END;
$$;
GRANT SELECT, INSERT, UPDATE, DELETE ON game_tables, rounds, idempotency_keys TO reddog_app;
REVOKE ALL ON audit_log FROM reddog_app;
GRANT SELECT, INSERT ON audit_log TO reddog_app;
