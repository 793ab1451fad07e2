"""Swagger UI renders the operations with the network cut off (every file it loads comes from the service itself),
and outside production signs "Try it out" with an operator id and secret typed into the page, storing neither."""

from __future__ import annotations

from urllib.parse import urlsplit

from litestar import Litestar
from litestar.testing import AsyncTestClient
from playwright.async_api import Locator, Page

from service.api.openapi.schema_site import FILES, SIGNING
from service.settings import Settings
from tests.support.browser import ORIGIN, browser, serve
from tests.support.client import Signed

SUMMARIES = ["Open a table", "Roll a round back: every transaction reversed (within the grace period)"]


async def test_swagger_ui_shows_every_operation_offline_and_signs_try_it_out_with_what_was_typed(
    http: AsyncTestClient[Litestar], settings: Settings, api: Signed
) -> None:
    # One page for both: Swagger UI takes seconds to render the document in a headless browser.
    doc = (await http.get("/schema/openapi.json")).json()
    documented = sum(m in ("get", "post", "put", "patch", "delete") for item in doc["paths"].values() for m in item)
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    async with browser() as chromium:
        page = await chromium.new_page()
        asked = await serve(page, http, forward=True)  # the service answers, with the page's headers: its signature
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        await page.goto(f"{ORIGIN}/schema/swagger")
        await page.wait_for_selector(".opblock", timeout=30_000)
        operations = await page.locator(".opblock").count()
        text = await page.inner_text("body")
        statuses = await _try_it_out(page, operator, secret)
        stored = await page.evaluate("() => JSON.stringify([{...localStorage}, {...sessionStorage}, document.cookie])")
    assert errors == []
    assert [u for u in asked if not u.startswith(ORIGIN + "/")] == []  # it never even tried another origin
    assert operations == documented  # every operation of the document
    for summary in SUMMARIES:
        assert summary in text
    assert {urlsplit(u).path.rsplit("/", 1)[-1] for u in asked if "/swagger-ui/" in u} <= {*FILES, SIGNING}
    # Unsigned until an id and secret are typed, then signed as the service checks: a GET, then a POST's body and key.
    assert statuses == ["401", "200", "201"]
    assert [t["name"] for t in (await api.ok("GET", "/v1/tables"))["items"]] == ["from swagger"]
    assert secret not in stored
    assert operator not in stored


async def _try_it_out(page: Page, operator: str, secret: str) -> list[str]:
    """GET /v1/tables before and after typing the id and secret, then POST /v1/tables: the statuses shown."""
    statuses = []
    listing = page.locator("#operations-tables-listTables")
    await listing.locator(".opblock-summary").click()
    await listing.locator(".try-out__btn").click()
    for typed in (False, True):
        if typed:
            await page.fill("#reddog-signing input[name=operatorId]", operator)
            await page.fill("#reddog-signing input[name=secret]", secret)
        statuses.append(await _execute(listing))
        await listing.locator(".btn-clear").click()
    create = page.locator("#operations-tables-createTable")
    await create.locator(".opblock-summary").click()
    await create.locator(".try-out__btn").click()
    await create.locator("tr[data-param-name='Idempotency-Key'] input").fill("swagger-key-1")
    table = '{"name": "from swagger", "paytable": "standard/v1", "currency": "EUR", "min_ante": 100, "max_ante": 500}'
    await create.locator("textarea.body-param__text").fill(table)
    statuses.append(await _execute(create))
    return statuses


async def _execute(operation: Locator) -> str:
    await operation.locator(".execute").click()
    status = operation.locator(".live-responses-table td.response-col_status:not(.col_header)")
    await status.wait_for(timeout=30_000)
    return (await status.inner_text()).split()[0]


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
