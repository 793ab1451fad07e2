"""/schema: the polished OpenAPI document, and Swagger UI served with its own assets, so it works offline.

The Swagger UI files come from the pinned `swagger-ui-bundle-v2` package (Swagger UI 5, Apache-2.0, its licence in
the package's metadata); the page loads nothing from another origin, not even a favicon.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, Router, get
from litestar.enums import OpenAPIMediaType
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import OpenAPIRenderPlugin, SwaggerRenderPlugin
from litestar.params import FromPath
from swagger_ui_bundle import swagger_ui_path

from service.api.openapi.openapi_polish import polish

ASSETS = "swagger-ui"  # under the schema path: /schema/swagger-ui/<file>
SCHEMA_PATH = "/schema"
FILES = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
}


class Document:
    """The polished document, made once per app from Litestar's (which Litestar itself builds once)."""

    def __init__(self) -> None:
        self._raw: dict[str, Any] | None = None
        self._polished: dict[str, Any] = {}

    def of(self, raw: dict[str, Any]) -> dict[str, Any]:
        if raw is not self._raw:
            self._polished, self._raw = polish(raw), raw
        return self._polished


class PolishedJson(OpenAPIRenderPlugin):
    """/schema/openapi.json: the document a client generator reads."""

    def __init__(self, document: Document) -> None:
        super().__init__(path="/openapi.json", media_type=OpenAPIMediaType.OPENAPI_JSON)
        self.document = document

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return self.render_json(request, self.document.of(openapi_schema))


class OfflineSwagger(SwaggerRenderPlugin):
    """/schema/swagger (and /schema): Swagger UI on the polished document, every asset from this server."""

    def __init__(self, document: Document) -> None:
        assets = f"{SCHEMA_PATH}/{ASSETS}"
        super().__init__(
            js_url=f"{assets}/swagger-ui-bundle.js",
            css_url=f"{assets}/swagger-ui.css",
            standalone_preset_js_url=f"{assets}/swagger-ui-standalone-preset.js",
            favicon=f"<link rel='icon' type='image/png' href='{assets}/favicon-32x32.png'>",
        )
        self.document = document

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, self.document.of(openapi_schema))

    def receive_router(self, router: Router) -> None:
        super().receive_router(router)
        router.register(swagger_asset)


@get(f"/{ASSETS}/{{name:str}}", include_in_schema=False, sync_to_thread=False)
def swagger_asset(name: FromPath[str]) -> Response[bytes]:
    """One of the few Swagger UI files the page loads; nothing else from the package is served."""
    if name not in FILES:
        raise NotFoundException(f"no {name}")
    body = (swagger_ui_path / name).read_bytes()
    return Response(body, media_type=FILES[name], headers={"Cache-Control": "public, max-age=86400"})


def render_plugins() -> list[OpenAPIRenderPlugin]:
    document = Document()
    return [OfflineSwagger(document), PolishedJson(document)]
