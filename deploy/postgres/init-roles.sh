#!/bin/sh
# Runs once, when the PostgreSQL container starts on an empty data directory, as the bootstrap superuser (docs/
# operations.md, "On a plain PostgreSQL server", says the same for a server of your own).
# - reddog_owner owns the database and runs the migrations (MIGRATE_DATABASE_URL); it may not create roles, so the
#   roles below are made here.
# - reddog_app_role is this deployment's app role: `reddog migrate` grants it only what the service needs (on the
#   audit log: INSERT and SELECT). It is the default for the database reddog (RD_APP_DB_ROLE unset).
# - reddog_service is the service's login (DATABASE_URL), a member of reddog_app_role and of nothing else.
# - reddog_app is only the name the migration files grant to; `reddog migrate` moves those grants onto
#   reddog_app_role in the same transaction, so it never holds a privilege.
set -eu
psql --set ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    --set owner_password="$RD_DB_OWNER_PASSWORD" --set app_password="$RD_DB_APP_PASSWORD" <<'SQL'
CREATE ROLE reddog_owner LOGIN PASSWORD :'owner_password';
CREATE DATABASE reddog OWNER reddog_owner;
CREATE ROLE reddog_app NOLOGIN;
CREATE ROLE reddog_app_role NOLOGIN;
CREATE ROLE reddog_service LOGIN PASSWORD :'app_password' IN ROLE reddog_app_role;
SQL
