#!/bin/sh
# Runs once, when the PostgreSQL container starts on an empty data directory, as the bootstrap superuser.
# reddog_owner owns the database and runs the migrations (MIGRATE_DATABASE_URL); reddog_service is the service's
# login role (DATABASE_URL), a member of reddog_app, to which the migrations grant only what the service needs
# (on the audit log: INSERT and SELECT).
set -eu
psql --set ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
    --set owner_password="$RD_DB_OWNER_PASSWORD" --set app_password="$RD_DB_APP_PASSWORD" <<'SQL'
CREATE ROLE reddog_owner LOGIN PASSWORD :'owner_password';
CREATE DATABASE reddog OWNER reddog_owner;
CREATE ROLE reddog_app NOLOGIN;
CREATE ROLE reddog_service LOGIN PASSWORD :'app_password' IN ROLE reddog_app;
SQL
