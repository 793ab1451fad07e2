"""/schema: the polished OpenAPI document, Swagger UI and ReDoc, each served with its own assets, so they work offline.

The Swagger UI files come from the pinned `swagger-ui-bundle-v2` package (Swagger UI 5, Apache-2.0, its licence in
the package's metadata); ReDoc's standalone bundle is `assets/redoc.standalone.js`, a copy of the one in the npm
package `redoc` that tools/node pins (MIT, `assets/redoc.LICENSE`; a test keeps the copy equal to the package's).
The pages load nothing from another origin, not even a favicon. Outside production Swagger UI signs "Try it out"
requests with an operator id and secret typed into the page (`assets/swagger-signing.js`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from litestar import Request, Response, Router, get
from litestar.enums import OpenAPIMediaType
from litestar.exceptions import NotFoundException
from litestar.openapi.plugins import OpenAPIRenderPlugin, RedocRenderPlugin, SwaggerRenderPlugin
from litestar.params import FromPath
from swagger_ui_bundle import swagger_ui_path

from service.api.openapi.openapi_polish import polish
from service.settings import Settings

# info.version: the major number moves when a client generated from the document must change (issue 28 renamed
# every operationId); CHANGELOG.md says what each version changed.
API_VERSION = "2.2.0"
ASSETS = "swagger-ui"  # under the schema path: /schema/swagger-ui/<file>
SCHEMA_PATH = "/schema"
FILES = {
    "swagger-ui-bundle.js": "text/javascript",
    "swagger-ui-standalone-preset.js": "text/javascript",
    "swagger-ui.css": "text/css",
    "favicon-32x32.png": "image/png",
}
OWN_ASSETS = Path(__file__).with_name("assets")
SIGNING = "swagger-signing.js"  # ours, served beside Swagger UI's files when signing is on
REDOC = "redoc.standalone.js"
# ReDoc's "API docs by Redocly" logo is an image on Redocly's CDN: an empty source fails at once and ReDoc drops it.
REDOC_LOGO = b'src:"https://cdn.redoc.ly/redoc/logo-mini.svg"'
FAVICON = f"<link rel='icon' type='image/png' href='{SCHEMA_PATH}/{ASSETS}/favicon-32x32.png'>"


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
    """/schema/swagger (and /schema): Swagger UI on the polished document, every asset from this server; outside
    production, a form for an operator id and secret and a request interceptor that signs with them."""

    def __init__(self, document: Document) -> None:
        assets = f"{SCHEMA_PATH}/{ASSETS}"
        super().__init__(
            js_url=f"{assets}/swagger-ui-bundle.js",
            css_url=f"{assets}/swagger-ui.css",
            standalone_preset_js_url=f"{assets}/swagger-ui-standalone-preset.js",
            favicon=FAVICON,
        )
        self.document = document

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        page = super().render(request, self.document.of(openapi_schema))
        if not signing_on(request):
            return page
        script = f'<script src="{SCHEMA_PATH}/{ASSETS}/{SIGNING}"></script></head>'.encode()
        interceptor = b"requestInterceptor: (request) => window.reddogSign(request),\n                  deepLinking:"
        for old, new in ((b"</head>", script), (b"deepLinking:", interceptor)):
            assert page.count(old) == 1, old  # Litestar's template, pinned: a new one needs a look
            page = page.replace(old, new)
        return page

    def receive_router(self, router: Router) -> None:
        super().receive_router(router)
        router.register(swagger_asset)


class OfflineRedoc(RedocRenderPlugin):
    """/schema/redoc: ReDoc on the polished document, its bundle from this server and no web fonts."""

    def __init__(self, document: Document) -> None:
        super().__init__(js_url=f"{SCHEMA_PATH}/redoc-assets/{REDOC}", google_fonts=False, favicon=FAVICON)
        self.document = document

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return super().render(request, self.document.of(openapi_schema))

    def receive_router(self, router: Router) -> None:
        super().receive_router(router)
        router.register(redoc_bundle)


CACHED = {"Cache-Control": "public, max-age=86400"}


def signing_on(request: Request[Any, Any, Any]) -> bool:
    """Swagger UI signs in every environment but production (the settings the app started with; an app is built
    once and may be started with other settings)."""
    settings = getattr(request.app.state, "settings", None)
    return isinstance(settings, Settings) and settings.env != "production"


@get(f"/{ASSETS}/{{name:str}}", include_in_schema=False, sync_to_thread=False)
def swagger_asset(request: Request[Any, Any, Any], name: FromPath[str]) -> Response[bytes]:
    """One of the few Swagger UI files the page loads (nothing else of the package), or the signing script."""
    if name == SIGNING and signing_on(request):
        return Response((OWN_ASSETS / SIGNING).read_bytes(), media_type="text/javascript", headers=CACHED)
    if name not in FILES:
        raise NotFoundException(f"no {name}")
    return Response((Path(swagger_ui_path) / name).read_bytes(), media_type=FILES[name], headers=CACHED)


@get(f"/redoc-assets/{REDOC}", include_in_schema=False, sync_to_thread=False)
def redoc_bundle() -> Response[bytes]:
    """ReDoc's bundle, its one reference to another origin (the Redocly logo) made empty."""
    return Response(redoc_served(), media_type="text/javascript", headers=CACHED)


def redoc_served() -> bytes:
    bundle = (OWN_ASSETS / REDOC).read_bytes()
    assert bundle.count(REDOC_LOGO) == 1, "a new ReDoc bundle: look at what it loads"
    return bundle.replace(REDOC_LOGO, b'src:""')


def render_plugins() -> list[OpenAPIRenderPlugin]:
    document = Document()
    return [OfflineSwagger(document), OfflineRedoc(document), PolishedJson(document)]
