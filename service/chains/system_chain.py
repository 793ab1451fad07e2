"""Significant events of the service itself, recorded on the system chain: start and stop (with the version, the git
revision and the settings in force) and failed authentications (rate-limited in `auth_failures.py`)."""

from __future__ import annotations

import functools
import os
import socket
import subprocess
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import structlog

from audit.system_events import ServiceStarted, ServiceStopped, SettingsInForce, SystemEvent
from paytables.red_dog import loader
from service.chains import checkpoints, fork_guard, key_continuity
from service.db import system_sql
from service.db.unit_of_work import Runner, UnitOfWork, run
from service.settings import Settings

log = structlog.get_logger("reddog.system")
SYSTEM = "system"  # the unit of work's operator for the service's own records
ROOT = Path(__file__).resolve().parents[1]


async def append(unit: UnitOfWork, events: Sequence[SystemEvent]) -> None:
    """Append to the system chain in the unit's transaction (a checkpoint too when it passes a multiple of N)."""
    head = await system_sql.lock_system_chain(unit.conn)
    guard = fork_guard.guard_of(unit.settings)
    if guard is not None and guard.refusal(system_sql.SYSTEM_CHAIN, head) is not None:
        # The system chain itself is behind its published checkpoint: its records wait for the operator's decision
        # (`reddog audit accept-fork --table system`) rather than fork it; the tables go on serving.
        log.error("system_records_withheld", kinds=[type(e).__name__ for e in events])
        return
    appended = checkpoints.append(unit, system_sql.SYSTEM_CHAIN, head, events, test=False)
    unit.defer([*appended.writes, system_sql.update_system_chain(appended.head)])


def instance() -> str:
    """This process among the replicas and workers: host and process id."""
    return f"{socket.gethostname()}:{os.getpid()}"


def version() -> str:
    try:
        return metadata.version("reddog")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.lru_cache(maxsize=1)
def _git_head() -> str:
    try:
        found = subprocess.run(  # noqa: S603 - a fixed command, no input
            ["git", "-C", str(ROOT), "rev-parse", "HEAD"],  # noqa: S607 - git from PATH, as a developer runs it
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return found.stdout.strip() if found.returncode == 0 else "unknown"


def git_revision(settings: Settings) -> str:
    """RD_GIT_REVISION (an image knows it at build time), else the checkout's HEAD, else "unknown"."""
    return settings.git_revision or _git_head()


def settings_in_force(settings: Settings) -> SettingsInForce:
    """The settings that change how games are played, checked and anchored; ids, never secrets."""
    signer = checkpoints.signer_of(settings)
    return SettingsInForce(
        env=settings.env,
        allow_test_tables=settings.allow_test_tables,
        signature_tolerance_seconds=settings.signature_tolerance_seconds,
        sweep_interval_ms=round(settings.sweep_interval_seconds * 1000),  # no float in a hashed record
        idempotency_retention_days=settings.idempotency_retention_days,
        checkpoint_every_records=settings.checkpoint_every_records,
        checkpoint_every_seconds=settings.checkpoint_every_seconds,
        recall_link_ttl_seconds=settings.recall_link_ttl_seconds,
        operators=tuple(sorted(settings.operators)),
        auditors=tuple(sorted(settings.auditors)),
        audit_key=None if signer is None else signer.verifier.key,
        paytables={p.id: p.sha256 for p in loader.released().values()},
        rollback_grace_seconds=settings.rollback_grace_seconds,
    )


async def service_started(runner: Runner) -> None:
    """Record the start, its settings and its signing key; refused (SigningKeyChanged) when the key is not the one
    last recorded, outside development (`key_continuity.py`)."""

    async def work(unit: UnitOfWork) -> None:
        settings = unit.settings
        await system_sql.lock_system_chain(unit.conn)  # held to the commit: the key checked is the key last recorded
        refusal = await key_continuity.key_refusal(unit.conn, settings)
        if refusal is not None and key_continuity.enforced(settings):
            raise key_continuity.SigningKeyChanged(f"refusing to serve: {refusal}")
        if refusal is not None:
            log.warning("signing_key_changed", detail=refusal, allowed_because="RD_ENV=development")
        started = ServiceStarted(
            instance=instance(),
            version=version(),
            git_revision=git_revision(settings),
            started_at=unit.now,
            settings=settings_in_force(settings),
        )
        await append(unit, [started])

    await run(runner, SYSTEM, work)


async def service_stopped(runner: Runner) -> None:
    """Recorded on a clean shutdown; a database already gone is logged, not raised (the process is stopping)."""

    async def work(unit: UnitOfWork) -> None:
        stopped = ServiceStopped(
            instance=instance(), version=version(), git_revision=git_revision(unit.settings), stopped_at=unit.now
        )
        await append(unit, [stopped])

    try:
        await run(runner, SYSTEM, work)
    except Exception as exc:  # the stop record is best effort: a crash or a lost database records no stop either
        log.warning("service_stop_not_recorded", error=type(exc).__name__)
