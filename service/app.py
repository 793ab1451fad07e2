"""create_app(settings) -> Litestar: the pool and the sweeper live in the lifespan, on app.state."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
from collections.abc import AsyncIterator

import asyncpg
import msgspec
from litestar import Litestar, Router
from litestar.openapi import OpenAPIConfig

from service.api import (
    audit_record_routes,
    audit_routes,
    auth_failures,
    friends_routes,
    health_routes,
    inbetween_routes,
    outbox_routes,
    paytable_routes,
    play_routes,
    recall_routes,
    report_routes,
    round_routes,
    table_routes,
)
from service.api.auth import authenticate
from service.api.openapi import schema_site
from service.api.openapi.operation_ids import short_operation_id
from service.chains import checkpoints, fork_guard, system_chain
from service.chains.key_continuity import SigningKeyChanged
from service.clock import Clock, system_clock
from service.db import storage_forms
from service.db.app_login import unsafe_role
from service.db.recent_rows import RecentRows
from service.db.unit_of_work import Runner
from service.errors import exception_handlers
from service.observability import configuration_metrics, log_streams, logs, metrics
from service.runtime import database_probe, friends_push, lean_routes, metrics_server, outbox_delivery, sweeper
from service.settings import Settings, check_can_serve


async def create_pool(settings: Settings) -> asyncpg.Pool:
    if not settings.database_url:
        raise ValueError("DATABASE_URL is not set (reddog serve starts an embedded PostgreSQL when it is unset)")
    pool: asyncpg.Pool = await asyncpg.create_pool(
        settings.database_url,
        min_size=settings.pool_min_size,
        max_size=settings.pool_max_size,
        command_timeout=30,
        reset=_keep_session,
        init=fork_guard.connection_hook(settings),  # each new server is checked against the checkpoint store
        server_settings={"application_name": storage_forms.APPLICATION_NAME},  # which forms it reads
    )
    return pool


async def _keep_session(conn: asyncpg.Connection) -> None:
    """Release without asyncpg's RESET ALL round trip: requests set no session state (an open transaction is
    still rolled back by the pool before this runs)."""
    del conn


class UnsafeDatabaseRole(RuntimeError):
    """The service would run as a role that could rewrite the audit log (`reddog serve` says so in one line first)."""


async def _refuse_unsafe_role(pool: asyncpg.Pool) -> None:
    async with pool.acquire() as conn:
        problem = await unsafe_role(conn)
    if problem is not None:
        await pool.close()
        raise UnsafeDatabaseRole(f"refusing to serve: {problem}")


def create_app(settings: Settings, *, clock: Clock = system_clock, sweep: bool = True, lean: bool = True) -> Litestar:
    """The whole service for one set of settings and one clock; tests build it the same way with a clock they move.
    `lean=False` answers the hot routes by their Litestar handlers, for the test that compares the two paths."""
    check_can_serve(settings)
    log_streams.configure(settings.log_level)  # before the build: the request log binds its logger then
    app = build_app(settings.max_body_bytes, lean=lean)
    app.state.wiring = Wiring(settings=settings, clock=clock, sweep=sweep)
    return app


class Wiring(msgspec.Struct, frozen=True, kw_only=True):
    """What a built app starts with: its settings, its clock, and whether it runs the background loops."""

    settings: Settings
    clock: Clock
    sweep: bool


def rewire(app: Litestar, settings: Settings, *, clock: Clock = system_clock, sweep: bool = True) -> None:
    """Make a built app that has stopped what `create_app(settings, ...)` would build, without building Litestar's
    routes again (about 0.1 s; the test suite reuses apps this way). Its body size limit and the log level its
    request log bound are fixed at the build: reuse an app only with the same ones."""
    if app.request_max_body_size != settings.max_body_bytes:
        raise ValueError("an app is built for one body size limit: build another for this one")
    check_can_serve(settings)
    log_streams.configure(settings.log_level)
    app.state.wiring = Wiring(settings=settings, clock=clock, sweep=sweep)


def build_app(max_body_bytes: int, *, lean: bool = True) -> Litestar:
    """The routes, middleware and lifespan; the settings and clock it starts with are on `app.state.wiring`."""
    rounds = round_routes.handlers if lean else [lean_routes.by_handler(handler) for handler in round_routes.handlers]

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        wiring: Wiring = app.state.wiring
        settings, clock, sweep = wiring.settings, wiring.clock, wiring.sweep
        app.state.settings = settings
        app.state.clock = clock
        app.state.pool = await create_pool(settings)
        if not settings.development:
            await _refuse_unsafe_role(app.state.pool)
        app.state.runner = Runner(app.state.pool, settings, clock, RecentRows())
        await storage_forms.look(app.state.pool)  # compact forms only once no older replica is connected
        metrics.observe_pool_size(app.state.pool.get_size())
        metrics.observe_database(True, clock().timestamp())  # the pool's first connections just opened
        metrics.publish_build(system_chain.version(), system_chain.git_revision(settings))
        await configuration_metrics.open_tables_seen(app.state.pool)
        await checkpoints.observe_newest(app.state.pool)
        try:
            await system_chain.service_started(app.state.runner)
        except SigningKeyChanged:
            await app.state.pool.close()  # refused: nothing may be left running (reddog serve said so in one line)
            raise
        push = contextlib.AsyncExitStack()
        app.state.push = None
        if settings.friends.enabled:  # each app starts its own plugin: a rewired app may have another database
            app.state.push = await push.enter_async_context(friends_push.running(settings))
        sweep_forever = functools.partial(sweeper.run_forever, push=app.state.push)
        background = (sweep_forever, checkpoints.run_forever, auth_failures.run_forever, database_probe.run_forever)
        loops = (*background, outbox_delivery.run_forever) if sweep else ()
        tasks = [asyncio.create_task(loop(app.state.runner)) for loop in loops]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await push.aclose()
            await system_chain.service_stopped(app.state.runner)
            await app.state.pool.close()
            metrics.observe_pool_size(0)
            metrics_server.worker_exits()

    # Signing is documented as security schemes (api/openapi/openapi_polish.py), not as parameters of every route.
    signed = Router(
        path="/v1",
        route_handlers=[
            Router(path="/", route_handlers=table_routes.handlers, tags=["tables"]),
            Router(path="/", route_handlers=rounds, tags=["rounds"]),
            Router(path="/", route_handlers=[*audit_routes.handlers, *audit_record_routes.handlers], tags=["audit"]),
            Router(path="/", route_handlers=recall_routes.handlers, tags=["recall"]),
            Router(path="/", route_handlers=report_routes.handlers, tags=["reports"]),
            Router(path="/", route_handlers=outbox_routes.handlers, tags=["notifications"]),
        ],
        before_request=authenticate,
        security=[{"signature": []}],
    )
    app = Litestar(
        route_handlers=[
            *inbetween_routes.routers,
            friends_routes.router,
            paytable_routes.router,
            audit_routes.public_router,
            recall_routes.recall_page,
            *play_routes.handlers,
            signed,
            *health_routes.handlers,
        ],
        lifespan=[lifespan],
        exception_handlers=exception_handlers(),
        middleware=[logs.request_logging],
        # None: Litestar would give the root logger a text handler of its own; log_streams.configure routes Python
        # logging instead (JSON on stderr in production).
        logging_config=None,
        openapi_config=_openapi(),
        request_max_body_size=max_body_bytes,
        state=None,
        debug=False,
    )
    return app


def _openapi() -> OpenAPIConfig:
    return OpenAPIConfig(
        title="Red Dog table service",
        version=schema_site.API_VERSION,
        path=schema_site.SCHEMA_PATH,
        operation_id_creator=short_operation_id,
        render_plugins=schema_site.render_plugins(),
    )


def app_from_env() -> Litestar:
    """The uvicorn factory: settings from the environment, validated at start-up."""
    from service.settings import from_env

    app = create_app(from_env())
    # A worker's modules and app live as long as it does: frozen, the collector never scans them again; and a
    # request makes thousands of short-lived containers, so the youngest generation is collected less often.
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)
    return app
