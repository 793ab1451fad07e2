"""Every operation has a short, stable operationId, exactly the ones committed in docs/operation-ids.txt: a generated
client names its functions by them, so a rename must be a decision (a major info.version and a changelog entry)."""

from __future__ import annotations

import re
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.api.openapi.openapi_polish import operations
from service.api.openapi.operation_ids import camel
from tests.support.tools import ROOT

COMMITTED = ROOT / "docs" / "operation-ids.txt"
SHORT = re.compile(r"^[a-z][A-Za-z]{2,29}$")  # camelCase letters, at most 30: no path or tag folded in


def committed() -> dict[str, tuple[str, str]]:
    """id -> (METHOD, path), from the committed list (`#` lines are comments)."""
    lines = [line.split() for line in COMMITTED.read_text().splitlines() if line.strip() and not line.startswith("#")]
    assert all(len(parts) == 3 for parts in lines), [p for p in lines if len(p) != 3]
    ids = {oid: (method, path) for oid, method, path in lines}
    assert len(ids) == len(lines), "an id is listed twice"
    return ids


async def served(http: AsyncTestClient[Litestar]) -> dict[str, Any]:
    response = await http.get("/schema/openapi.json")
    assert response.status_code == 200, response.text
    doc: dict[str, Any] = response.json()
    return doc


async def test_every_operation_id_is_the_committed_one_for_its_method_and_path(
    http: AsyncTestClient[Litestar],
) -> None:
    doc = await served(http)
    documented = {op["operationId"]: (method.upper(), path) for path, method, op in operations(doc)}
    assert len(documented) == sum(1 for _ in operations(doc))  # one id per operation
    listed = committed()
    unlisted = [f"{oid} {m} {p}" for oid, (m, p) in sorted(documented.items()) if listed.get(oid) != (m, p)]
    gone = [f"{oid} {m} {p}" for oid, (m, p) in sorted(listed.items()) if documented.get(oid) != (m, p)]
    assert not unlisted, f"operations not in {COMMITTED.name} as served (add or fix these lines): {unlisted}"
    assert not gone, f"lines of {COMMITTED.name} no operation has any more (a rename breaks clients): {gone}"


async def test_every_operation_id_is_short_camel_case(http: AsyncTestClient[Litestar]) -> None:
    long = [op["operationId"] for _, _, op in operations(await served(http)) if not SHORT.match(op["operationId"])]
    assert long == []


def test_an_id_made_from_a_handler_name_is_its_camel_case() -> None:
    # The rule docs/operation-ids.txt's ids follow where a handler names none: words joined, each after the first
    # capitalised, nothing from the path or the method.
    assert camel("rollback_round") == "rollbackRound"
    assert camel("hand_seat_to_computer") == "handSeatToComputer"
    assert camel("list_paytables") == "listPaytables"
    assert camel("act") == "act"


async def test_the_document_version_names_the_rename_and_the_changelog_says_so(http: AsyncTestClient[Litestar]) -> None:
    version = (await served(http))["info"]["version"]
    assert version.split(".")[0] == "2"  # 1.x had Litestar's long ids (v1RoundsRoundIdRollbackRollbackRound)
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## API {version}" in changelog  # every version served has its entry
    major = f"## API {version.split('.')[0]}.0.0"  # and the major version that renamed the ids says so
    assert "operationId" in changelog.split(major)[1].split("\n## ")[0]
