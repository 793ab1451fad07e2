"""The server's `reddog` subcommands: serve, migrate, play, audit-keygen, report; the audit tools and the PAR sheet
register theirs."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import os
import shutil
import signal
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from service.cli.database_setup import (
    check_role_or_exit,
    check_signing_key_or_exit,
    database_url,
    dev_app_password,
    embedded_server,
    migrate_or_exit,
    serving_url,
    settings_or_exit,
)
from service.observability import log_streams
from service.settings import Settings, SettingsError, check_can_serve, environment

if TYPE_CHECKING:
    import uvicorn


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="serve the API (embedded PostgreSQL under .data/ when DATABASE_URL is unset)")
    p.set_defaults(handler=cmd_serve)
    p = sub.add_parser("migrate", help="apply the database migrations as the owner (MIGRATE_DATABASE_URL)")
    p.add_argument(
        "--wait",
        type=_seconds,
        default=0,
        metavar="SECONDS",
        help="wait up to SECONDS for a database that is not up yet (a pod's init container on first apply)",
    )
    p.set_defaults(handler=cmd_migrate)
    p = sub.add_parser("play", help="play one round against a running server and print it")
    p.add_argument("--url", default="http://127.0.0.1:8000", help="the server's base URL (default: %(default)s)")
    p.add_argument("--operator", default="demo", help="the operator id to sign as (default: %(default)s)")
    p.add_argument("--secret", default="demo-secret", help="that operator's signing secret (default: the dev one)")
    p.add_argument(
        "--table",
        default=None,
        help="a table id; by default the newest open standard/v1 live table is reused, or one is opened",
    )
    p.set_defaults(handler=cmd_play)
    p = sub.add_parser("audit-keygen", help="make a checkpoint signing key file (mode 0600); print its verifier key")
    p.add_argument("--name", required=True, help="the log's name, e.g. rd.example.com/audit (origins start with it)")
    p.add_argument("--out", required=True, help="the key file to create (never overwritten)")
    p.set_defaults(handler=cmd_audit_keygen)
    from service.cli import audit_commands

    audit_commands.register(sub)
    p = sub.add_parser("report", help="reports from the database")
    reports = p.add_subparsers(required=True, metavar="REPORT")
    p = reports.add_parser("rtp", help="RTP against the exact expectation of the decisions taken, and the outcome mix")
    _report_arguments(p)
    p.set_defaults(handler=cmd_report_rtp)
    from service.cli import par_sheet_html  # the exact figures only: no database, no prometheus-client

    par_sheet_html.register(reports)


def _report_arguments(p: argparse.ArgumentParser) -> None:
    # Here rather than in report_cli: importing it would import prometheus-client before `serve` may set it up.
    p.add_argument("--from", dest="ended_from", type=_aware_time, help="rounds ended at or after (ISO 8601, zoned)")
    p.add_argument("--to", dest="ended_to", type=_aware_time, help="rounds ended before")
    p.add_argument("--paytable", help="one paytable id, such as standard/v1")
    p.add_argument("--table", dest="table_id", type=UUID, help="one table id")
    p.add_argument("--operator", help="one operator's tables (by default every operator's, as an auditor sees)")
    p.add_argument("--mode", choices=("live", "test"), default="live")
    p.add_argument("--json", action="store_true", help="the lines as the API shows them, one JSON array")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1
    if not 0 <= value <= 86_400:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0 to 86400")
    return value


def _aware_time(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    if value.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} has no time zone (add Z or +00:00)")
    return value


def cmd_migrate(args: argparse.Namespace) -> int:
    """Migrate as the owner: MIGRATE_DATABASE_URL, else DATABASE_URL, else the embedded server (with a dev login).
    Exits 0 migrated, 1 the database unreachable (after --wait) or refusing, 2 a bad setting."""
    settings = settings_or_exit()
    url, _server = settings.migrate_database_url or settings.database_url, None
    password = settings.app_db_password
    if url is None:
        url, _server = embedded_server(settings)
        password = dev_app_password(settings)
    # Without a password the login is only taken along from the shared reddog_app of earlier releases.
    applied = migrate_or_exit(url, (settings.app_db_user, password), settings.app_db_role, args.wait)
    print(f"applied: {', '.join(applied) if applied else 'nothing (up to date)'}")
    return 0


def cmd_audit_keygen(args: argparse.Namespace) -> int:
    from audit.signed_note import NoteError
    from service.chains.audit_keys import write_key_file

    try:
        pair = write_key_file(args.out, args.name)
    except (OSError, NoteError) as exc:
        print(f"reddog: cannot make {args.out}: {exc}", file=sys.stderr)
        return 1
    print(pair.verifier_key)
    return 0


def _development_signing_key(settings: Settings) -> None:
    """Outside production, a server without RD_AUDIT_SIGNING_KEY signs with a key of its own under the data dir."""
    if settings.production or settings.audit_signing_key is not None:
        return
    from service.chains.audit_keys import development_key

    path, verifier_key = development_key(settings.data_dir)
    os.environ["RD_AUDIT_SIGNING_KEY"] = str(path)  # the workers build their settings from the environment
    print(f"audit checkpoints signed with the development key {path} ({verifier_key})", file=sys.stderr)


def _exit_on_sigterm(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # the shell's status for a process ended by the signal


def cmd_serve(_: argparse.Namespace) -> int:
    # uvicorn shuts down on SIGTERM and then raises it again under the handler it found: the default one would end
    # the process before any `finally` or atexit ran, leaving the embedded PostgreSQL running and the metrics
    # directory behind. As SystemExit it unwinds like Ctrl-C's KeyboardInterrupt.
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    with contextlib.suppress(SettingsError):  # a bad RD_ENV is reported as text: no JSON was asked for
        if environment(os.environ) == "production":  # first: from here on every line on stderr is JSON
            log_streams.take_over()
    settings = settings_or_exit()
    _development_signing_key(settings)
    try:
        check_can_serve(settings)
    except SettingsError as exc:
        log_streams.say("bad_setting", f"reddog: bad setting: {exc}", level="error")
        return 2
    url, _server = serving_url(settings)
    check_role_or_exit(url, settings)
    check_signing_key_or_exit(url, settings)
    os.environ["DATABASE_URL"] = url  # the workers build their settings from the environment too
    with metrics_directory(settings.data_dir):
        metrics_port = _serve_metrics(settings)
        _announce(settings, metrics_port)
        from service.runtime import workers

        workers.serve(server_config(settings))
    return 0


def _announce(settings: Settings, metrics_port: int) -> None:
    """Where the service serves: for a developer, three lines and what to try; in production one JSON line, and no
    hint about a checkout's .venv that a container does not have."""
    api, metrics = f"http://{settings.host}:{settings.port}", f"http://{settings.metrics_host}:{metrics_port}/metrics"
    if log_streams.json_stderr():
        message, operators = f"Red Dog table service on {api}", sorted(settings.operators)
        log_streams.say(
            "serving", message, api_url=api, metrics_url=metrics, operators=operators, workers=settings.workers
        )
        return
    ops = ", ".join(f"{op}:{secret}" if op == "demo" else op for op, secret in settings.operators.items())
    print(f"Red Dog table service on {api}  (OpenAPI at /schema)", file=sys.stderr)
    print(f"metrics on {metrics}", file=sys.stderr)
    print(f"operators: {ops}" + ("   try: .venv/bin/reddog play" if settings.development else ""), file=sys.stderr)


def server_config(settings: Settings) -> uvicorn.Config:
    """How uvicorn serves the app. X-Forwarded-For and -Proto are read only from RD_TRUSTED_PROXIES: uvicorn on its
    own trusts them from 127.0.0.1, so anyone on the host (or a proxy of anyone's) could name any client address."""
    import uvicorn  # here, not at the top: the other commands never load the server

    from service.runtime.http_protocol import Limits, bounded

    trusted = ",".join(settings.trusted_proxies)
    limits = Limits(settings.header_timeout_seconds, settings.body_timeout_seconds, settings.max_connections)
    return uvicorn.Config(
        "service.app:app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_level="warning",
        access_log=False,
        http=bounded(limits),
        proxy_headers=bool(trusted),
        forwarded_allow_ips=trusted,
        # Production: no handlers of uvicorn's own, so its records reach log_streams' JSON ones (uvicorn's would write
        # text, and a traceback over many lines).
        log_config=None if settings.production else uvicorn.config.LOGGING_CONFIG,
    )


def _serve_metrics(settings: Settings) -> int:
    """Serve /metrics on RD_METRICS_PORT; the port it serves on. Only where no port was asked for (development) does
    a taken one give way to a free one: a second `make run`, or a node_exporter, must not stop the first."""
    from service.runtime import metrics_server  # only now: prometheus-client reads the directory when first imported

    host, port = settings.metrics_host, settings.metrics_port
    try:
        server, _thread = metrics_server.start(host, port)
    except OSError as exc:
        if not (settings.metrics_port_fallback and exc.errno == errno.EADDRINUSE):
            message = f"reddog: cannot serve metrics on {host}:{port} (RD_METRICS_HOST, RD_METRICS_PORT): {exc}"
            log_streams.say("cannot_serve_metrics", message, level="error")
            raise SystemExit(1) from None
        server, _thread = metrics_server.start(host, 0)
        print(f"reddog: metrics port {port} is taken; RD_METRICS_PORT is unset, so a free one", file=sys.stderr)
    return server.server_port


@contextlib.contextmanager
def metrics_directory(data_dir: str) -> Iterator[Path]:
    """A fresh directory where every worker writes its metrics (prometheus-client's multiprocess mode, used for one
    worker too so one code path serves both), set in the environment the workers inherit; removed afterwards.

    One per server process: two servers on one data dir never add up each other's rounds, and a restart starts from
    zero (Prometheus handles the counter reset)."""
    if "prometheus_client" in sys.modules:
        raise RuntimeError("prometheus_client was imported before its multiprocess directory was set")
    folder = Path(data_dir, "prometheus", str(os.getpid())).resolve()
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(folder)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def cmd_play(args: argparse.Namespace) -> int:
    from service.cli.play import play

    return play(args.url, args.operator, args.secret, args.table)


def cmd_report_rtp(args: argparse.Namespace) -> int:
    from service.cli import report_cli

    settings = settings_or_exit()
    url, _server = database_url(settings)
    report_cli.print_report(asyncio.run(report_cli.rtp_report(url, settings, args)), args.json)
    return 0
