"""ReDoc renders offline from the service's own copy of its bundle; Swagger UI's signing form is there outside
production only (tests/api/test_swagger_offline.py signs with it)."""

from __future__ import annotations

import msgspec
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.api.openapi.openapi_polish import operations
from service.api.openapi.schema_site import OWN_ASSETS, REDOC, REDOC_LOGO, SIGNING
from tests.support.browser import ORIGIN, browser, serve
from tests.support.tools import NODE_TOOLS, node_bin


async def test_redoc_shows_every_operation_with_only_the_services_own_origin_reachable(
    http: AsyncTestClient[Litestar],
) -> None:
    doc = (await http.get("/schema/openapi.json")).json()
    ids = sorted(op["operationId"] for _, _, op in operations(doc))
    async with browser() as chromium:
        page = await chromium.new_page()
        asked = await serve(page, http)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{ORIGIN}/schema/redoc")
        await page.wait_for_selector("[data-section-id$='/operation/rollbackRound']", timeout=30_000)
        sections = await page.eval_on_selector_all(
            "[data-section-id*='/operation/']", "els => els.map(e => e.dataset.sectionId.split('/operation/')[1])"
        )
        text = await page.inner_text("body")
    assert errors == []
    assert [u for u in asked if not u.startswith(ORIGIN + "/")] == []  # not a font, not a logo
    assert sorted(set(sections)) == ids  # every operation, by its short id
    assert "Roll a round back" in text


async def test_the_redoc_bundle_is_the_pinned_packages_with_only_its_logo_link_emptied(
    http: AsyncTestClient[Litestar],
) -> None:
    node_bin("tsc")  # tools/node installed: the package the copy was taken from
    package = NODE_TOOLS / "node_modules" / "redoc"
    pinned = msgspec.json.decode((NODE_TOOLS / "package.json").read_bytes())["devDependencies"]["redoc"]
    assert msgspec.json.decode((package / "package.json").read_bytes())["version"] == pinned
    copy = (OWN_ASSETS / REDOC).read_bytes()
    assert copy == (package / "bundles" / REDOC).read_bytes(), "cp tools/node/node_modules/redoc/bundles/* ..."
    served = await http.get(f"/schema/redoc-assets/{REDOC}")
    assert served.headers["content-type"].startswith("text/javascript")
    assert served.content == copy.replace(REDOC_LOGO, b'src:""')
    page = (await http.get("/schema/redoc")).text
    assert "https://" not in page.split("<body>")[0]  # no web fonts


async def test_swagger_ui_has_no_signing_form_in_production(http: AsyncTestClient[Litestar], app: Litestar) -> None:
    assert (await http.get(f"/schema/swagger-ui/{SIGNING}")).status_code == 200  # development: served
    assert SIGNING in (await http.get("/schema/swagger")).text
    # The settings the app started with decide, as `reddog serve` with RD_ENV=production starts it.
    app.state.settings = msgspec.structs.replace(app.state.settings, env="production")
    page = (await http.get("/schema/swagger")).text
    assert SIGNING not in page
    assert "requestInterceptor" not in page
    assert (await http.get(f"/schema/swagger-ui/{SIGNING}")).status_code == 404
