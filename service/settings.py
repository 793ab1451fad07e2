"""One frozen settings object, built once from RD_* environment variables and passed down."""

from __future__ import annotations

import ipaddress
import os
import stat
from collections.abc import Callable, Mapping
from urllib.parse import urlsplit

import msgspec

from audit.signed_note import NoteError, parse_signer
from service.outbox_settings import OutboxSettings, OutboxSettingsError, parse_outbox
from service.role_names import app_role_problem, role_name_problem

DEV_OPERATORS = "demo:demo-secret"
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
ENVIRONMENTS = ("development", "staging", "production")
# Secrets that ship with the project (the dev default, the docs, deploy/.env.example): public, so never real.
DEMO_SECRETS = frozenset({"demo-secret", "replace-with-a-long-random-secret", "replace-me"})
MIN_SECRET_BYTES = 32  # 256 bits, the HMAC-SHA256 key size: required of every secret in production
DEFAULT_MAX_BODY_BYTES = 64 * 1024
DEFAULT_AUTH_FAILURE_RECORDS_PER_MINUTE = 60  # at most 86,400 records a day, whatever the attacker sends
# Outside 9090-9999, Prometheus' own ports and the range its wiki allocates to exporters (node_exporter's is its first),
# and not a common server's default near the API's 8000 (8001 kubectl proxy, 8002-8004 Kong, 8005 Tomcat, 8006-8007
# Proxmox, 8008 and 8080 HTTP alternates, 8009 AJP, 8010 Buildbot).
DEFAULT_METRICS_PORT = 8012
# A slow client's bounds: a request's headers within 10 s of its first byte (or of the connection), its body within
# 30 s of its headers (64 KiB at 2 KiB/s), and at most 2,048 connections a worker (uvicorn's listen backlog).
DEFAULT_HEADER_TIMEOUT_SECONDS = 10
DEFAULT_BODY_TIMEOUT_SECONDS = 30
DEFAULT_MAX_CONNECTIONS = 2048
APP_DB_USER = "reddog_service"  # the service's login role, a member of the deployment's app role
# The name `make run` gives the key it writes under the data directory: that file is no secret kept for production.
DEVELOPMENT_KEY_NAME = "reddog.dev/audit"
FRIENDS_OPERATOR = "friends"  # the reserved operator the friends' tables' games belong to: never a configured id
PUSH_BACKENDS = ("postgres", "redis")
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"


class SettingsError(ValueError):
    """A setting that cannot be used; the message names the variable."""


class FriendsSettings(msgspec.Struct, frozen=True, kw_only=True):
    """The public friends' tables (/v1/friends): whether they are served, how pushes travel, and their limits."""

    enabled: bool = True  # RD_FRIENDS: on by default in development only
    push: str = "postgres"  # RD_FRIENDS_PUSH: the channels backend, PostgreSQL LISTEN/NOTIFY or Redis pub/sub
    redis_url: str = DEFAULT_REDIS_URL  # RD_REDIS_URL, for push=redis
    idle_seconds: int = 1800  # a table nobody has touched for this long closes and its code is free again
    tables_per_hour: int = 10  # tables one address may create in a clock hour
    joins_per_minute: int = 20  # joins one address may make in a clock minute
    code_joins_per_minute: int = 30  # joins of one code in a clock minute, from every address together
    misses_per_minute: int = 10  # codes one address may look up and not find in a clock minute
    reactions_per_10s: int = 5  # emoji reactions one seat may send in ten seconds (friends_reactions)
    stream_seconds: float = 600.0  # a push stream ends after this long (EventSource reconnects by itself)


class Settings(msgspec.Struct, frozen=True, kw_only=True):
    database_url: str | None = None  # the service's: a login role in the deployment's app role
    migrate_database_url: str | None = None  # the owner's, for `reddog migrate`; else database_url
    app_db_user: str = APP_DB_USER
    app_db_password: str | None = None  # `reddog migrate` creates or updates the app login with it when set
    # The deployment's own app role, which `reddog migrate` grants the service's privileges to; None: the one the
    # database already has, else `<database>_app_role`.
    app_db_role: str | None = None
    host: str = "127.0.0.1"
    port: int = 8000
    metrics_host: str = "127.0.0.1"  # /metrics shows gross gaming revenue: its own port, local by default
    metrics_port: int = DEFAULT_METRICS_PORT
    metrics_port_fallback: bool = False  # development with RD_METRICS_PORT unset: a taken port gives way to a free one
    env: str = "development"
    operators: dict[str, str] = msgspec.field(default_factory=lambda: {"demo": "demo-secret"})
    auditors: dict[str, str] = msgspec.field(default_factory=dict)  # read-only, every operator's records
    allow_test_tables: bool = False
    log_level: str = "INFO"
    workers: int = 1
    pool_min_size: int = 2
    pool_max_size: int = 10
    idempotency_retention_days: int = 120
    signature_tolerance_seconds: int = 300
    sweep_interval_seconds: float = 1.0
    rollback_grace_seconds: int = 300  # how long after opening a round the aggregator may still roll it back
    data_dir: str = ".data"
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES
    header_timeout_seconds: int = DEFAULT_HEADER_TIMEOUT_SECONDS
    body_timeout_seconds: int = DEFAULT_BODY_TIMEOUT_SECONDS
    max_connections: int = DEFAULT_MAX_CONNECTIONS  # per worker
    # The signer key text (c2sp.org/signed-note) read from the file RD_AUDIT_SIGNING_KEY names; None: no checkpoints.
    audit_signing_key: str | None = None
    checkpoint_every_records: int = 100  # a table's checkpoint in the append that takes it past each multiple
    checkpoint_every_seconds: int = 60  # and, for what is left unanchored, a checkpoint at most this much later
    # RD_CHECKPOINT_STORE: a directory that outlives the database (a volume of its own) keeping each chain's latest
    # published checkpoint, which the fork guard compares the database with (service/chains/fork_guard.py); None: off.
    checkpoint_store: str | None = None
    recall_link_ttl_seconds: int = 86_400  # how long a player's recall link works
    public_url: str | None = None  # the base of the links handed out (e.g. https://rd.example.com); see link_base
    # Peers whose X-Forwarded-For names the client (addresses or CIDR networks); none: every peer is the client.
    trusted_proxies: tuple[str, ...] = ()
    # Records of failed signatures on the system chain in any one clock minute, over every replica; the failures
    # past it are counted into later records, never dropped.
    auth_failure_records_per_minute: int = DEFAULT_AUTH_FAILURE_RECORDS_PER_MINUTE
    git_revision: str | None = None  # RD_GIT_REVISION (set by the image build); else asked of git at start-up
    friends: FriendsSettings = msgspec.field(default_factory=lambda: FriendsSettings())
    outbox: OutboxSettings = msgspec.field(default_factory=lambda: OutboxSettings())  # notifications' delivery

    @property
    def production(self) -> bool:
        return self.env == "production"

    @property
    def development(self) -> bool:
        return self.env == "development"

    @property
    def link_base(self) -> str:
        """Where every link the service hands out starts: RD_PUBLIC_URL, else the server's own configured address,
        never a request's Host header, which the caller writes and no signature covers."""
        if self.public_url is not None:
            return self.public_url
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"


def environment(environ: Mapping[str, str]) -> str:
    """RD_ENV, checked: what `reddog serve` needs before the other settings, to know how to report them."""
    return _choice(environ, "RD_ENV", "development", ENVIRONMENTS, case=str.lower)


def from_env(environ: Mapping[str, str] | None = None) -> Settings:
    """Read the settings from the environment; a bad value fails here, at start-up, naming the variable."""
    env = os.environ if environ is None else environ
    rd_env = environment(env)
    operators = parse_operators(env.get("RD_OPERATORS", DEV_OPERATORS))
    auditors = parse_operators(env["RD_AUDITORS"], name="RD_AUDITORS") if env.get("RD_AUDITORS") else {}
    if both := sorted(set(operators) & set(auditors)):
        raise SettingsError(f"RD_AUDITORS: {both[0]!r} is an operator too; an auditor id must be its own")
    pool_min = _int(env, "RD_POOL_MIN_SIZE", 2, 1, 100)
    settings = Settings(
        database_url=env.get("DATABASE_URL") or None,
        migrate_database_url=env.get("MIGRATE_DATABASE_URL") or None,
        app_db_user=_role_name(env, "RD_APP_DB_USER", APP_DB_USER),
        app_db_password=env.get("RD_APP_DB_PASSWORD") or None,
        app_db_role=_app_role(env),
        host=env.get("RD_HOST", "127.0.0.1"),
        port=_int(env, "RD_PORT", 8000, 1, 65535),
        metrics_host=env.get("RD_METRICS_HOST", "127.0.0.1"),
        metrics_port=_int(env, "RD_METRICS_PORT", DEFAULT_METRICS_PORT, 1, 65535),
        metrics_port_fallback=rd_env == "development" and not env.get("RD_METRICS_PORT"),
        env=rd_env,
        operators=operators,
        auditors=auditors,
        allow_test_tables=_bool(env, "RD_ALLOW_TEST_TABLES", False),
        log_level=_choice(env, "RD_LOG_LEVEL", "INFO", LOG_LEVELS),
        workers=_int(env, "RD_WORKERS", 1, 1, 64),
        pool_min_size=pool_min,
        pool_max_size=_int(env, "RD_POOL_MAX_SIZE", max(10, pool_min), pool_min, 500),
        idempotency_retention_days=_int(env, "RD_IDEMPOTENCY_RETENTION_DAYS", 120, 1, 3650),
        data_dir=env.get("RD_DATA_DIR", ".data"),
        rollback_grace_seconds=_int(env, "RD_ROLLBACK_GRACE_SECONDS", 300, 0, 7 * 24 * 3600),
        max_body_bytes=_int(env, "RD_MAX_BODY_BYTES", DEFAULT_MAX_BODY_BYTES, 1024, 16 * 1024 * 1024),
        header_timeout_seconds=_int(env, "RD_HEADER_TIMEOUT_SECONDS", DEFAULT_HEADER_TIMEOUT_SECONDS, 1, 300),
        body_timeout_seconds=_int(env, "RD_BODY_TIMEOUT_SECONDS", DEFAULT_BODY_TIMEOUT_SECONDS, 1, 3600),
        max_connections=_int(env, "RD_MAX_CONNECTIONS", DEFAULT_MAX_CONNECTIONS, 16, 1_000_000),
        audit_signing_key=_signing_key(env, rd_env == "production"),
        checkpoint_every_records=_int(env, "RD_CHECKPOINT_EVERY_RECORDS", 100, 1, 1_000_000),
        checkpoint_every_seconds=_int(env, "RD_CHECKPOINT_EVERY_SECONDS", 60, 1, 86_400),
        recall_link_ttl_seconds=_int(env, "RD_RECALL_LINK_TTL_SECONDS", 86_400, 60, 90 * 86_400),
        public_url=_public_url(env),
        trusted_proxies=_networks(env, "RD_TRUSTED_PROXIES"),
        auth_failure_records_per_minute=_int(
            env, "RD_AUTH_FAILURE_RECORDS_PER_MINUTE", DEFAULT_AUTH_FAILURE_RECORDS_PER_MINUTE, 1, 1_000_000
        ),
        git_revision=env.get("RD_GIT_REVISION") or None,
        checkpoint_store=env.get("RD_CHECKPOINT_STORE") or None,
        friends=_friends(env, rd_env),
        outbox=_outbox(env, operators, rd_env == "production"),
    )
    if FRIENDS_OPERATOR in operators or FRIENDS_OPERATOR in auditors:
        raise SettingsError(f"RD_OPERATORS: {FRIENDS_OPERATOR!r} is reserved for the friends' tables' games")
    if settings.metrics_port == settings.port:
        raise SettingsError("RD_METRICS_PORT: /metrics needs its own port, not the API's RD_PORT")
    if settings.allow_test_tables and settings.production:
        raise SettingsError("RD_ALLOW_TEST_TABLES: test tables are refused when RD_ENV=production")
    return settings


def _outbox(env: Mapping[str, str], operators: dict[str, str], production: bool) -> OutboxSettings:
    try:
        return parse_outbox(env, operators, production)
    except OutboxSettingsError as exc:
        raise SettingsError(str(exc)) from None


def _friends(env: Mapping[str, str], rd_env: str) -> FriendsSettings:
    """RD_FRIENDS and its limits: the public tables are served by default in development only."""
    return FriendsSettings(
        enabled=_bool(env, "RD_FRIENDS", rd_env == "development"),
        push=_choice(env, "RD_FRIENDS_PUSH", "postgres", PUSH_BACKENDS, case=str.lower),
        redis_url=env.get("RD_REDIS_URL") or DEFAULT_REDIS_URL,
        idle_seconds=_int(env, "RD_FRIENDS_IDLE_SECONDS", 1800, 60, 7 * 86_400),
        tables_per_hour=_int(env, "RD_FRIENDS_TABLES_PER_HOUR", 10, 1, 100_000),
        joins_per_minute=_int(env, "RD_FRIENDS_JOINS_PER_MINUTE", 20, 1, 100_000),
        code_joins_per_minute=_int(env, "RD_FRIENDS_CODE_JOINS_PER_MINUTE", 30, 1, 100_000),
        misses_per_minute=_int(env, "RD_FRIENDS_MISSES_PER_MINUTE", 10, 1, 100_000),
        reactions_per_10s=_int(env, "RD_FRIENDS_REACTIONS_PER_10S", 5, 1, 1000),
        stream_seconds=_int(env, "RD_FRIENDS_STREAM_SECONDS", 600, 10, 86_400),
    )


def _check_production_secrets(credentials: dict[str, str], name: str) -> None:
    """A published demo secret under any id, or one too short to resist guessing, is refused in production."""
    for cred_id, secret in credentials.items():
        if secret.strip().lower() in DEMO_SECRETS:
            raise SettingsError(f"{name}: {cred_id!r} uses a published demo secret, refused when RD_ENV=production")
        if len(secret.encode()) < MIN_SECRET_BYTES:
            raise SettingsError(
                f"{name}: {cred_id!r} has a secret of {len(secret.encode())} bytes; RD_ENV=production needs at least "
                f"{MIN_SECRET_BYTES} (openssl rand -hex 32)"
            )


def check_can_serve(settings: Settings) -> None:
    """What serving needs beyond valid settings, checked only by what serves (a migration or a report needs neither):
    in production, credentials nobody else knows, a key of its own to sign checkpoints and the base of the links it
    hands out."""
    if not settings.production:
        return
    _check_production_secrets(settings.operators, "RD_OPERATORS")
    _check_production_secrets(settings.auditors, "RD_AUDITORS")
    if settings.audit_signing_key is None:
        raise SettingsError("RD_AUDIT_SIGNING_KEY: production serves only with the checkpoint signing key file")
    if is_development_key(settings.audit_signing_key):
        raise SettingsError(
            f"RD_AUDIT_SIGNING_KEY: the development key ({DEVELOPMENT_KEY_NAME}) that `make run` writes is refused when"
            " RD_ENV=production; make one with `reddog audit-keygen --name <your host>/audit --out FILE`"
        )
    if settings.public_url is None:
        raise SettingsError(
            "RD_PUBLIC_URL: production serves only with the public base URL of the links it hands out (such as"
            " https://rd.example.com): its own RD_HOST:RD_PORT is not where players reach it, and a request's Host"
            " header is never used"
        )


def is_development_key(signer_key: str) -> bool:
    """Whether a signer key is one `make run` made: its name says so."""
    return parse_signer(signer_key).name == DEVELOPMENT_KEY_NAME


def _public_url(env: Mapping[str, str]) -> str | None:
    """RD_PUBLIC_URL without its trailing slash: http(s), a host, an optional port and path, nothing after."""
    text = env.get("RD_PUBLIC_URL") or ""
    if not text:
        return None
    try:
        parts = urlsplit(text)
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or "@" in parts.netloc or not port_ok:
        raise SettingsError(f"RD_PUBLIC_URL: expected http(s)://host[:port][/path], got {text!r}")
    if parts.query or parts.fragment or "?" in text or "#" in text or any(c.isspace() for c in text):
        raise SettingsError(f"RD_PUBLIC_URL: a base URL takes no query, fragment or spaces, got {text!r}")
    return text.rstrip("/")


def _signing_key(env: Mapping[str, str], production: bool) -> str | None:
    """The checkpoint signer key, read and checked now, when RD_AUDIT_SIGNING_KEY names its file."""
    path = env.get("RD_AUDIT_SIGNING_KEY")
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as file:
            if production:
                _check_private(path, os.fstat(file.fileno()).st_mode)  # the file opened, not a path swapped since
            text = file.read().strip()
    except OSError as exc:
        raise SettingsError(f"RD_AUDIT_SIGNING_KEY: cannot read {path}: {exc.strerror}") from None
    try:
        parse_signer(text)
    except NoteError as exc:
        raise SettingsError(f"RD_AUDIT_SIGNING_KEY: {path} holds no signer key: {exc}") from None
    return text


def _check_private(path: str, mode: int) -> None:
    """Refuse a key file its group or others may open, as ssh refuses an unprotected private key: whoever reads it
    can sign checkpoints and recall links as the service."""
    if mode & 0o077:
        raise SettingsError(
            f"RD_AUDIT_SIGNING_KEY: {path} has mode 0{stat.S_IMODE(mode):o}, open to its group or others; "
            f"RD_ENV=production takes only a key file its owner alone may read: chmod 600 {path}"
        )


def _networks(env: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Comma-separated addresses or CIDR networks, each written out as a network (10.0.0.5 is 10.0.0.5/32)."""
    networks = []
    for item in filter(None, (i.strip() for i in env.get(name, "").split(","))):
        try:
            networks.append(str(ipaddress.ip_network(item, strict=False)))
        except ValueError:
            message = f"{name}: expected IP addresses or CIDR networks, comma separated, got {item!r}"
            raise SettingsError(message) from None
    return tuple(networks)


def parse_operators(text: str, name: str = "RD_OPERATORS") -> dict[str, str]:
    """`id:secret` pairs, comma separated."""
    operators: dict[str, str] = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        op_id, sep, secret = pair.partition(":")
        if not sep or not op_id or not secret:
            raise SettingsError(f"{name}: expected id:secret pairs, got {pair.split(':')[0]!r}...")
        if op_id in operators:
            raise SettingsError(f"{name}: {op_id!r} is listed twice")
        operators[op_id] = secret
    if not operators:
        raise SettingsError(f"{name}: at least one id:secret pair is needed")
    return operators


def _int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    text = env.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        raise SettingsError(f"{name}: expected a whole number, got {text!r}") from None
    if not low <= value <= high:
        raise SettingsError(f"{name}: must be {low}..{high}, got {value}")
    return value


def _bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    text = env.get(name, "").strip().lower()
    if text == "":
        return default
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"{name}: expected true or false, got {text!r}")


def _choice(
    env: Mapping[str, str], name: str, default: str, choices: tuple[str, ...], case: Callable[[str], str] = str.upper
) -> str:
    value = case((env.get(name) or default).strip())
    if value not in choices:
        raise SettingsError(f"{name}: must be one of {', '.join(choices)}, got {value!r}")
    return value


def _role_name(env: Mapping[str, str], name: str, default: str) -> str:
    value = env.get(name) or default
    if problem := role_name_problem(value):
        raise SettingsError(f"{name}: {problem}")
    return value


def _app_role(env: Mapping[str, str]) -> str | None:
    value = env.get("RD_APP_DB_ROLE") or None
    if value is not None and (problem := app_role_problem(value)):
        raise SettingsError(f"RD_APP_DB_ROLE: {problem}")
    if value is not None and value == (env.get("RD_APP_DB_USER") or APP_DB_USER):
        raise SettingsError(
            "RD_APP_DB_ROLE: the app role holds the grants and the login RD_APP_DB_USER is its member: name two roles"
        )
    return value
