-- Least privilege: reddog_app gets exactly what the service's SQL does, and a function to make its login role.
-- The service never deletes a round or a table, and only appends to and reads the audit log. (UPDATE is granted on
-- whole tables, not columns: a later migration adds columns the service updates, such as 004's audit_tree, and a
-- grant cannot name a column before it exists.)
REVOKE ALL ON game_tables, rounds, idempotency_keys, audit_log FROM reddog_app;
GRANT SELECT, INSERT ON audit_log TO reddog_app;
GRANT SELECT, INSERT, UPDATE ON game_tables, rounds TO reddog_app;
-- A refused request's key is deleted (so a retry is evaluated afresh), and the sweeper purges expired keys.
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO reddog_app;
-- Read-only: a replica's readiness compares the applied migrations with its own.
GRANT SELECT ON schema_migrations TO reddog_app;

-- `reddog migrate` calls this when RD_APP_DB_PASSWORD is set: create (or update) the service's login role as a
-- member of reddog_app. It takes a SCRAM-SHA-256 verifier made by the client, so the password itself never reaches
-- the server or its statement log. It refuses a role that could do more than reddog_app: a superuser, the role
-- running the migrations, or an owner of the tables.
CREATE FUNCTION reddog_app_login(login name, verifier text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    found_role pg_roles%ROWTYPE;
BEGIN
    IF verifier NOT LIKE 'SCRAM-SHA-256$%' THEN
        RAISE EXCEPTION 'reddog_app_login takes a SCRAM-SHA-256 verifier, never a password';
    END IF;
    SELECT * INTO found_role FROM pg_roles WHERE rolname = login;
    IF NOT FOUND THEN
        BEGIN
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', login, verifier);
        EXCEPTION
            -- Roles belong to the whole server: a migration of another database may have just made it.
            WHEN duplicate_object OR unique_violation THEN
                EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', login, verifier);
        END;
    ELSIF found_role.rolsuper OR login = current_user
        OR pg_has_role(login, (SELECT relowner FROM pg_class WHERE oid = 'audit_log'::regclass), 'MEMBER') THEN
        RAISE EXCEPTION 'refusing to make % the service login: it could do more than reddog_app', login
            USING ERRCODE = 'insufficient_privilege';
    ELSE
        EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', login, verifier);
    END IF;
    EXECUTE format('GRANT reddog_app TO %I', login);
END;
$$;
REVOKE ALL ON FUNCTION reddog_app_login(name, text) FROM PUBLIC;
