"""Swagger UI renders the operations with the network cut off: every file it loads comes from the service itself."""

from __future__ import annotations

from urllib.parse import urlsplit

import httpx

from service.api.schema_site import FILES
from service.settings import Settings
from tests.support.browser import chromium
from tests.support.server import served

SUMMARIES = ["Open a table", "Roll a round back: every transaction reversed (within the grace period)"]


def test_swagger_ui_shows_every_operation_with_only_the_services_own_origin_reachable(settings: Settings) -> None:
    with served(settings) as url, chromium() as browser:
        origin = urlsplit(url).netloc
        page = browser.new_page()
        asked: list[str] = []
        blocked: list[str] = []

        def route(r):  # type: ignore[no-untyped-def]  # playwright's Route
            asked.append(r.request.url)
            if urlsplit(r.request.url).netloc == origin:
                r.continue_()
            else:  # the network: nothing but this server answers
                blocked.append(r.request.url)
                r.abort()

        page.route("**/*", route)
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        doc = httpx.get(f"{url}/schema/openapi.json").json()
        documented = sum(m in ("get", "post", "put", "patch", "delete") for item in doc["paths"].values() for m in item)
        page.goto(f"{url}/schema/swagger")
        page.wait_for_selector(".opblock", timeout=30_000)
        operations = page.locator(".opblock").count()
        text = page.inner_text("body")
        page.close()
    assert errors == []
    assert blocked == []  # it never even tried another origin
    assert operations == documented  # every operation of the document
    for summary in SUMMARIES:
        assert summary in text
    assert {urlsplit(u).path.rsplit("/", 1)[-1] for u in asked if "/swagger-ui/" in u} <= set(FILES)


def test_the_swagger_assets_are_served_and_nothing_else_of_the_package_is(settings: Settings) -> None:
    with served(settings) as url:
        for name, media_type in FILES.items():
            response = httpx.get(f"{url}/schema/swagger-ui/{name}")
            assert response.status_code == 200, name
            assert response.headers["content-type"].startswith(media_type)
            assert len(response.content) > 100
        assert httpx.get(f"{url}/schema/swagger-ui/index.j2").status_code == 404
        assert httpx.get(f"{url}/schema/swagger-ui/..%2F__init__.py").status_code == 404
        page = httpx.get(f"{url}/schema/swagger").text
        assert "cdn." not in page
        assert "https://" not in page.split("<body>")[0]
