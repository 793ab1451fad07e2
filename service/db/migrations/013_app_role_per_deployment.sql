-- One app role per deployment. Roles belong to the whole server, so a fixed reddog_app granted in two databases let
-- one deployment's login write the other's rounds and audit log. From here on, reddog_app is only the name the
-- migration files grant to: `reddog migrate` runs every pending migration and then moves whatever reddog_app holds
-- in this database onto the deployment's own role (RD_APP_DB_ROLE), in one transaction, so reddog_app never holds a
-- committed privilege here. Before running a later migration it moves them back, so each file meets the grants it
-- was written against and its GRANTs and REVOKEs keep their meaning.

-- The deployment's app role, recorded by `reddog migrate` (one row).
CREATE TABLE app_role (
    one       boolean PRIMARY KEY DEFAULT true CHECK (one),
    role_name name    NOT NULL
);

-- Every privilege `from_role` holds on this schema's tables, sequences, their columns and its functions becomes
-- `to_role`'s (the same privileges, the same grant options), and `from_role` keeps none of them.
CREATE FUNCTION reddog_move_privileges(from_role name, to_role name) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    item record;
    kind text;
BEGIN
    IF from_role = to_role OR to_regrole(quote_ident(from_role)) IS NULL THEN
        RETURN;
    END IF;
    FOR item IN
        SELECT c.oid::regclass AS relation, c.relkind, a.privilege_type, a.is_grantable
        FROM pg_class c, aclexplode(c.relacl) a
        WHERE c.relnamespace = current_schema()::regnamespace AND a.grantee = to_regrole(quote_ident(from_role))
    LOOP
        kind := CASE WHEN item.relkind = 'S' THEN 'SEQUENCE' ELSE 'TABLE' END;
        EXECUTE format('GRANT %s ON %s %s TO %I%s', item.privilege_type, kind, item.relation, to_role,
                       CASE WHEN item.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
        EXECUTE format('REVOKE %s ON %s %s FROM %I', item.privilege_type, kind, item.relation, from_role);
    END LOOP;
    FOR item IN
        SELECT c.oid::regclass AS relation, t.attname, a.privilege_type, a.is_grantable
        FROM pg_class c JOIN pg_attribute t ON t.attrelid = c.oid, aclexplode(t.attacl) a
        WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.attisdropped
            AND a.grantee = to_regrole(quote_ident(from_role))
    LOOP
        EXECUTE format('GRANT %s (%I) ON TABLE %s TO %I%s', item.privilege_type, item.attname, item.relation, to_role,
                       CASE WHEN item.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
        EXECUTE format('REVOKE %s (%I) ON TABLE %s FROM %I', item.privilege_type, item.attname, item.relation,
                       from_role);
    END LOOP;
    FOR item IN
        SELECT p.oid::regprocedure AS routine, a.is_grantable
        FROM pg_proc p, aclexplode(p.proacl) a
        WHERE p.pronamespace = current_schema()::regnamespace AND a.grantee = to_regrole(quote_ident(from_role))
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %I%s', item.routine, to_role,
                       CASE WHEN item.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
        EXECUTE format('REVOKE EXECUTE ON FUNCTION %s FROM %I', item.routine, from_role);
    END LOOP;
END;
$$;
REVOKE ALL ON FUNCTION reddog_move_privileges(name, name) FROM PUBLIC;

-- Make the existing role `login` a member of this deployment's app role. It refuses a role that could do more: a
-- superuser, the role running the migrations, an owner of the tables, or a member of any other role but the shared
-- reddog_app of earlier releases (another deployment's app role above all: a login serves one deployment). Once
-- reddog_app holds nothing in any database of the server, the login leaves it (when the migrating role may say so).
CREATE FUNCTION reddog_app_member(login name) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    app name := (SELECT role_name FROM app_role);
    found_role pg_roles%ROWTYPE;
    other name;
BEGIN
    IF app IS NULL THEN
        RAISE EXCEPTION 'this database has no app role yet: reddog migrate records it';
    END IF;
    SELECT * INTO found_role FROM pg_roles WHERE rolname = login;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'role % does not exist', login USING ERRCODE = 'undefined_object';
    END IF;
    IF found_role.rolsuper OR login = current_user
        OR pg_has_role(login, (SELECT relowner FROM pg_class WHERE oid = 'audit_log'::regclass), 'MEMBER') THEN
        RAISE EXCEPTION 'refusing to make % the service login: it could do more than %', login, app
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    SELECT r.rolname INTO other FROM pg_auth_members m JOIN pg_roles r ON r.oid = m.roleid
        WHERE m.member = found_role.oid AND r.rolname NOT IN (app, 'reddog_app') ORDER BY r.rolname LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'refusing to make % the service login of database %: it is a member of %, and a login '
            'serves one deployment (give this one its own RD_APP_DB_USER)', login, current_database(), other
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_auth_members WHERE member = found_role.oid AND roleid = to_regrole(quote_ident(app)))
    THEN
        EXECUTE format('GRANT %I TO %I', app, login);
    END IF;
    IF EXISTS (SELECT FROM pg_auth_members WHERE member = found_role.oid AND roleid = to_regrole('reddog_app'))
        AND NOT EXISTS (SELECT FROM pg_shdepend WHERE refclassid = 'pg_authid'::regclass
                        AND refobjid = to_regrole('reddog_app'))
        AND pg_has_role(current_user, 'reddog_app', 'MEMBER WITH ADMIN OPTION') THEN
        EXECUTE format('REVOKE reddog_app FROM %I', login);
    END IF;
END;
$$;
REVOKE ALL ON FUNCTION reddog_app_member(name) FROM PUBLIC;

-- 003's function, now making the login a member of this deployment's app role rather than of reddog_app: create (or
-- update) it from a SCRAM-SHA-256 verifier made by the client, so the password never reaches the server. The checks
-- come first, so a refused role keeps its password.
CREATE OR REPLACE FUNCTION reddog_app_login(login name, verifier text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF verifier NOT LIKE 'SCRAM-SHA-256$%' THEN
        RAISE EXCEPTION 'reddog_app_login takes a SCRAM-SHA-256 verifier, never a password';
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = login) THEN
        BEGIN
            EXECUTE format('CREATE ROLE %I LOGIN PASSWORD %L', login, verifier);
        EXCEPTION
            -- Roles belong to the whole server: a migration of another database may have just made it.
            WHEN duplicate_object OR unique_violation THEN NULL;
        END;
    END IF;
    PERFORM reddog_app_member(login);
    EXECUTE format('ALTER ROLE %I LOGIN PASSWORD %L', login, verifier);
END;
$$;
