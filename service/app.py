"""create_app(settings) -> Litestar: the pool and the sweeper live in the lifespan, on app.state."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator

import asyncpg
from litestar import Litestar, MediaType, Response, Router, get
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import SwaggerRenderPlugin
from litestar.openapi.spec import Components, SecurityScheme
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest, multiprocess

from service import auth_failures, checkpoints, logs, sweeper, system_chain
from service.api import audit_routes, inbetween_routes, paytable_routes, recall_routes, round_routes, table_routes
from service.api.openapi_docs import SIGNATURE_HEADERS, name_body_union, optional_body
from service.auth import authenticate
from service.clock import Clock, system_clock
from service.db.app_login import unsafe_role
from service.errors import exception_handlers
from service.settings import Settings, check_can_serve
from service.unit_of_work import Runner


async def create_pool(settings: Settings) -> asyncpg.Pool:
    if not settings.database_url:
        raise ValueError("DATABASE_URL is not set (reddog serve starts an embedded PostgreSQL when it is unset)")
    pool: asyncpg.Pool = await asyncpg.create_pool(
        settings.database_url,
        min_size=settings.pool_min_size,
        max_size=settings.pool_max_size,
        command_timeout=30,
        reset=_keep_session,
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


def create_app(settings: Settings, *, clock: Clock = system_clock, sweep: bool = True) -> Litestar:
    """The whole service for one set of settings and one clock; tests build it the same way with a clock they move."""
    check_can_serve(settings)
    logs.configure(settings.log_level)

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        app.state.settings = settings
        app.state.clock = clock
        app.state.pool = await create_pool(settings)
        if not settings.development:
            await _refuse_unsafe_role(app.state.pool)
        app.state.runner = Runner(app.state.pool, settings, clock)
        await system_chain.service_started(app.state.runner)
        loops = (sweeper.run_forever, checkpoints.run_forever, auth_failures.run_forever) if sweep else ()
        tasks = [asyncio.create_task(loop(app.state.runner)) for loop in loops]
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await system_chain.service_stopped(app.state.runner)
            await app.state.pool.close()

    signed = Router(
        path="/v1",
        route_handlers=[
            *table_routes.handlers,
            *round_routes.handlers,
            *audit_routes.handlers,
            *recall_routes.handlers,
        ],
        before_request=authenticate,
        parameters=SIGNATURE_HEADERS,
        security=[{"signature": []}],
        tags=["rounds and tables"],
    )
    app = Litestar(
        route_handlers=[
            *inbetween_routes.routers,
            paytable_routes.router,
            audit_routes.public_router,
            recall_routes.recall_page,
            signed,
            health,
            ready,
            metrics,
        ],
        lifespan=[lifespan],
        exception_handlers=exception_handlers(),
        middleware=[logs.request_logging],
        openapi_config=_openapi(),
        request_max_body_size=settings.max_body_bytes,
        state=None,
        debug=False,
    )
    name_body_union(app.openapi_schema, "DecisionIn", "/v1/rounds/{round_id}/decisions", "action")
    name_body_union(app.openapi_schema, "ActionIn", "/v1/inbetween/games/{game_id}/actions", "action")
    optional_body(app.openapi_schema, "/v1/rounds/{round_id}/close")
    optional_body(app.openapi_schema, "/v1/rounds/{round_id}/recall-link")
    return app


def _openapi() -> OpenAPIConfig:
    scheme = SecurityScheme(
        type="apiKey",
        name="X-Signature",
        security_scheme_in="header",
        description="HMAC-SHA256 (lowercase hex) with the operator secret over "
        "timestamp \\n METHOD \\n path_with_query \\n idempotency_key \\n raw_body (the key line is empty for a "
        "GET); send X-Operator-Id and X-Timestamp (unix seconds) too. Every POST also needs an Idempotency-Key "
        "header (1-128 printable characters), which the signature covers.",
    )
    return OpenAPIConfig(
        title="Red Dog table service",
        version="1.0.0",
        path="/schema",
        render_plugins=[SwaggerRenderPlugin()],
        components=Components(security_schemes={"signature": scheme}),
    )


@get("/health", include_in_schema=False)
async def health() -> dict[str, str]:
    return {"status": "ok"}


@get("/ready", include_in_schema=False)
async def ready(state: State) -> Response[dict[str, str]]:
    try:
        async with state.pool.acquire(timeout=2) as conn:
            await conn.fetchval("SELECT 1")
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError):
        return Response({"status": "database unavailable"}, status_code=503)
    return Response({"status": "ready"})


@get("/metrics", include_in_schema=False, media_type=MediaType.TEXT)
async def metrics() -> Response[bytes]:
    if "PROMETHEUS_MULTIPROC_DIR" not in os.environ:
        return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
    registry = CollectorRegistry()  # several workers: add up every worker's files
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)


def app_from_env() -> Litestar:
    """The uvicorn factory: settings from the environment, validated at start-up."""
    from service.settings import from_env

    return create_app(from_env())
