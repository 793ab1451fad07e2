"""Swagger UI renders the operations with the network cut off: every file it loads comes from the service itself."""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.api.openapi.schema_site import FILES
from tests.support.browser import ORIGIN, browser, serve

SUMMARIES = ["Open a table", "Roll a round back: every transaction reversed (within the grace period)"]


async def test_swagger_ui_shows_every_operation_with_only_the_services_own_origin_reachable(
    http: AsyncTestClient[Litestar],
) -> None:
    doc = (await http.get("/schema/openapi.json")).json()
    documented = sum(m in ("get", "post", "put", "patch", "delete") for item in doc["paths"].values() for m in item)
    async with browser() as chromium:
        page = await chromium.new_page()
        asked = await serve(page, http)  # the service answers; every other origin is refused
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{ORIGIN}/schema/swagger")
        await page.wait_for_selector(".opblock", timeout=30_000)
        operations = await page.locator(".opblock").count()
        text = await page.inner_text("body")
    assert errors == []
    assert [u for u in asked if not u.startswith(ORIGIN + "/")] == []  # it never even tried another origin
    assert operations == documented  # every operation of the document
    for summary in SUMMARIES:
        assert summary in text
    assert {urlsplit(u).path.rsplit("/", 1)[-1] for u in asked if "/swagger-ui/" in u} <= set(FILES)


async def test_the_swagger_assets_are_served_and_nothing_else_of_the_package_is(
    http: AsyncTestClient[Litestar],
) -> None:
    for name, media_type in FILES.items():
        response = await http.get(f"/schema/swagger-ui/{name}")
        assert response.status_code == 200, name
        assert response.headers["content-type"].startswith(media_type)
        assert len(response.content) > 100
    assert (await http.get("/schema/swagger-ui/index.j2")).status_code == 404
    assert (await http.get("/schema/swagger-ui/..%2F__init__.py")).status_code == 404
    page = (await http.get("/schema/swagger")).text
    assert "cdn." not in page
    assert "https://" not in page.split("<body>")[0]
