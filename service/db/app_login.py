"""The service's login role: made by `reddog migrate` as a member of the deployment's app role, and refused when it
could do more."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from urllib.parse import quote, urlsplit, urlunsplit

from service.db import Conn

SCRAM_ITERATIONS = 4096  # PostgreSQL's own default (scram_iterations)
# The tables whose owner could rewrite history; those a migration has not made yet are simply not found.
SERVICE_TABLES = (
    "game_tables",
    "rounds",
    "audit_log",
    "audit_rows",
    "audit_batches",
    "idempotency_keys",
    "audit_checkpoints",
    "system_chain",
    "auth_failures",
    "auth_failure_quota",
    "inbetween_games",
)


def scram_verifier(password: str, *, salt: bytes | None = None, iterations: int = SCRAM_ITERATIONS) -> str:
    """The SCRAM-SHA-256 verifier PostgreSQL stores for `password` (RFC 5802/7677), made here so the password itself
    never travels to the server, where a statement log could keep it."""
    if not (password.isascii() and password.isprintable()):
        # Printable ASCII is unchanged by SASLprep, which PostgreSQL applies to a password before hashing it.
        raise ValueError("the app database password must be printable ASCII")
    salt = secrets.token_bytes(16) if salt is None else salt
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, iterations)
    stored_key = hashlib.sha256(hmac.digest(salted, b"Client Key", "sha256")).digest()
    server_key = hmac.digest(salted, b"Server Key", "sha256")
    b64 = base64.b64encode
    return f"SCRAM-SHA-256${iterations}:{b64(salt).decode()}${b64(stored_key).decode()}:{b64(server_key).decode()}"


async def ensure_app_login(conn: Conn, login: str, password: str) -> None:
    """Create or update `login` with `password` as a member of the app role (reddog_app_login, as of migration 013)."""
    await conn.execute("SELECT reddog_app_login($1, $2)", login, scram_verifier(password))


def login_url(url: str, user: str, password: str) -> str:
    """The same server and database, logged in as `user`."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{quote(user, safe='')}:{quote(password, safe='')}@{host}"))


async def unsafe_role(conn: Conn) -> str | None:
    """Why the connected role must not serve requests (it could rewrite the audit log), or None when it may."""
    found = await conn.fetchrow(
        "SELECT r.rolname, r.rolsuper, r.rolcreaterole,"
        " pg_has_role(d.datdba, 'MEMBER') AS owns_database,"
        " (SELECT string_agg(c.relname, ', ' ORDER BY c.relname) FROM pg_class c"
        "   WHERE c.relname = ANY($1::text[])"
        "   AND c.relnamespace = to_regnamespace(current_schema()) AND pg_has_role(c.relowner, 'MEMBER')) AS owned"
        " FROM pg_roles r, pg_database d WHERE r.rolname = current_user AND d.datname = current_database()",
        list(SERVICE_TABLES),
    )
    assert found is not None  # the connected role and database always exist
    name = found["rolname"]
    if found["rolsuper"]:
        return f"the database role {name!r} is a superuser"
    if found["owned"]:
        return f"the database role {name!r} owns (or is a member of the owner of) {found['owned']}"
    if found["owns_database"]:
        return f"the database role {name!r} owns the database"
    if found["rolcreaterole"]:
        return f"the database role {name!r} may create roles"
    return None
