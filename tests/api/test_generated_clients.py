"""Clients generated from the live /schema/openapi.json by third-party generators play real rounds, signed by the
hooks shipped in docs/clients: openapi-python-client (always) and openapi-typescript + tsc (when Node is here)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import shutil
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.support.threaded import served
from tests.support.tools import NODE_TOOLS, ROOT, node_bin, run_node_tool

CLIENTS = ROOT / "docs" / "clients"
# (tag, module) of the generated functions the round test calls: modules are named by operationId
OPERATIONS = [
    ("tables", "create_table"),
    ("rounds", "open_round"),
    ("rounds", "decide_round"),
    ("rounds", "get_round"),
    ("rounds", "list_rounds"),
    ("rounds", "rollback_round"),
]


def _load(path: Path, name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[tuple[str, str, str]]:
    from tests.conftest import make_settings

    settings: Settings = make_settings(database_url)
    operator, secret = next((op, s) for op, s in settings.operators.items() if op != "other")
    with served(settings) as url:
        yield url, operator, secret


@pytest.fixture(scope="module")
def document(server: tuple[str, str, str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("schema") / "openapi.json"
    path.write_bytes(httpx.get(f"{server[0]}/schema/openapi.json").content)
    return path


@pytest.fixture(scope="module")
def python_client(document: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The package openapi-python-client generates with the config docs/clients ships, importable for the module."""
    out = tmp_path_factory.mktemp("generated")
    config = out / "config.json"
    shipped = json.loads((CLIENTS / "openapi-python-client.json").read_text())
    config.write_text(json.dumps({**shipped, "post_hooks": [], "package_name_override": "reddog_generated"}))
    generator = Path(sys.executable).with_name("openapi-python-client")
    result = subprocess.run(  # noqa: S603 - the pinned dev dependency on the server's own document
        [str(generator), "generate", "--path", str(document), "--meta", "none", "--config", str(config),
         "--output-path", str(out / "reddog_generated")],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Warning" not in result.stdout, result.stdout  # nothing the generator had to leave out
    sys.path.insert(0, str(out))
    try:
        yield "reddog_generated", out / "reddog_generated"
    finally:
        sys.path.remove(str(out))
        for name in [m for m in sys.modules if m.startswith("reddog_generated")]:
            del sys.modules[name]


def _client(package: str, url: str, hooks: list[Any], request: pytest.FixtureRequest, **httpx_args: Any) -> Any:
    gen: Any = importlib.import_module(package)
    client = gen.Client(
        base_url=url, httpx_args={"event_hooks": {"request": hooks}, **httpx_args}, raise_on_unexpected_status=True
    )
    request.addfinalizer(client.get_httpx_client().close)
    return client


def _key() -> str:
    return str(uuid.uuid4())


def test_the_python_client_has_one_type_per_enum_field_no_signature_arguments_and_a_required_key(
    python_client: tuple[str, Path], document: Path
) -> None:
    _, folder = python_client
    models = sorted(p.stem for p in (folder / "models").glob("*.py"))
    for field in ("bet_out_result", "bet_out_decision", "round_out_outcome"):
        assert [m for m in models if m.startswith(field)] == [f"{field}_type_0"], models  # one enum, not three
    code = "\n".join(p.read_text() for p in (folder / "api").rglob("*.py"))
    for header in ("x_operator_id", "x_timestamp", "x_signature"):
        assert header not in code
    assert "idempotency_key: str | Unset" not in code
    signed_posts = [p for p in (folder / "api").rglob("*.py") if "idempotency_key" in p.read_text()]
    doc = json.loads(document.read_text())
    keyed = [p for p, item in doc["paths"].items() if "post" in item and not p.startswith("/v1/friends/")]
    assert len(signed_posts) == len(keyed) >= 10  # tables 2, rounds 5, recall 1, In Between games 2, and any newer
    assert all("    idempotency_key: str,\n" in p.read_text() for p in signed_posts)  # required, no default


def test_a_round_is_played_retried_listed_and_rolled_back_through_the_generated_python_functions(
    server: tuple[str, str, str], python_client: tuple[str, Path], request: pytest.FixtureRequest
) -> None:
    url, operator, secret = server
    package, _ = python_client
    models: Any = importlib.import_module(f"{package}.models")
    ops = {name: importlib.import_module(f"{package}.api.{tag}.{name}") for tag, name in OPERATIONS}
    signing = _load(CLIENTS / "reddog_signing.py", "reddog_signing")
    sent: list[httpx.Request] = []
    client = _client(package, url, [signing.signing_hook(operator, secret), sent.append], request)

    body = models.CreateTable(name="generated", paytable="standard/v1", currency="EUR", min_ante=100, max_ante=1000)
    table = ops["create_table"].sync(client=client, body=body, idempotency_key=_key())
    assert isinstance(table, models.TableOut), table
    assert table.currency_exponent == 2
    assert table.decks == 6  # left out, so the server's default (docs/api.md: six decks)
    bets = models.CreateRound(bets=[models.BetIn("alice", 500)])
    opening = _key()
    rnd = ops["open_round"].sync(table.table_id, client=client, body=bets, idempotency_key=opening)
    assert isinstance(rnd, models.RoundOut), rnd
    retried = ops["open_round"].sync_detailed(table.table_id, client=client, body=bets, idempotency_key=opening)
    assert retried.headers["Idempotent-Replayed"] == "true"
    assert retried.parsed.to_dict() == rnd.to_dict()  # the same key: the first reply, not a second round
    decided = rnd.status == models.RoundOutStatus.RAISE_WINDOW  # else it settled at open (consecutive or pair)
    if decided:
        choice = models.RaiseIn(action="raise", bet_id=rnd.bets[0].bet_id)
        rnd = ops["decide_round"].sync(rnd.round_id, client=client, body=choice, idempotency_key="gen-decide-1")
        assert isinstance(rnd, models.RoundOut), rnd
    again = ops["get_round"].sync(rnd.round_id, client=client)
    assert again.to_dict() == rnd.to_dict()
    assert isinstance(again.bets[0].result, models.BetOutResultType0)
    assert again.shoe.reveal is not None  # retired with its round, and parsed as a RevealOut
    page = ops["list_rounds"].sync(client=client, table_id=table.table_id, limit=5)
    assert [r.round_id for r in page.items] == [rnd.round_id]
    assert [t.currency for t in page.totals] == ["EUR"]
    undone = models.RollbackIn(reason="generated client's rollback")
    back = ops["rollback_round"].sync(rnd.round_id, client=client, body=undone, idempotency_key=_key())
    assert back.status == models.RoundOutStatus.ROLLED_BACK
    assert all("authorization" not in r.headers for r in sent)  # no pointless Bearer header
    assert decided == ("gen-decide-1" in {r.headers.get("idempotency-key") for r in sent})  # the key given is sent


def test_the_generated_python_client_reads_the_audit_export_as_json_lines(
    server: tuple[str, str, str], python_client: tuple[str, Path], request: pytest.FixtureRequest
) -> None:
    url, operator, secret = server
    package, _ = python_client
    models: Any = importlib.import_module(f"{package}.models")
    records: Any = importlib.import_module(f"{package}.api.audit.audit_records")
    create_table: Any = importlib.import_module(f"{package}.api.tables.create_table")
    signing = _load(CLIENTS / "reddog_signing.py", "reddog_signing")
    client = _client(package, url, [signing.signing_hook(operator, secret)], request)
    body = models.CreateTable(name="lines", paytable="standard/v1", currency="JPY", min_ante=1, max_ante=9)
    table = create_table.sync(client=client, body=body, idempotency_key=_key())
    export = records.sync(client=client, table_id=table.table_id)
    lines = [json.loads(line) for line in export.payload.read().splitlines()]  # as docs/clients/README.md reads it
    assert [line["type"] for line in lines] == ["table", "record"]  # its head, then table_created (docs/audit.md)
    assert (lines[1]["seq"], lines[1]["kind"]) == (1, "table_created")


def test_both_clients_take_a_problem_code_the_document_does_not_list(
    server: tuple[str, str, str], python_client: tuple[str, Path], request: pytest.FixtureRequest
) -> None:
    # A later server may add a code; a client generated today must still parse the problem. The reply is the real
    # server's 404 with its code changed on the way, as a newer server would send it.
    url, operator, secret = server
    package, _ = python_client
    models: Any = importlib.import_module(f"{package}.models")
    get_table: Any = importlib.import_module(f"{package}.api.tables.get_table")
    signing = _load(CLIENTS / "reddog_signing.py", "reddog_signing")
    absent = "00000000-0000-4000-8000-000000000000"
    today = _client(package, url, [signing.signing_hook(operator, secret)], request)
    known = get_table.sync(absent, client=today)
    assert (known.code, known.type_, known.status) == (models.ProblemCode.NOT_FOUND, "about:blank", 404)
    later = _client(package, url, [signing.signing_hook(operator, secret)], request, transport=LaterServer())
    problem = get_table.sync(absent, client=later)
    assert isinstance(problem, models.Problem)
    assert (problem.code, problem.status, problem.retryable) == ("SOME_NEW_CODE", 404, False)
    assert not isinstance(problem.code, models.ProblemCode)


class LaterServer(httpx.HTTPTransport):
    """The real server's replies, with NOT_FOUND renamed to a code the document does not list."""

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        reply = super().handle_request(request)
        body = reply.read().replace(b'"code":"NOT_FOUND"', b'"code":"SOME_NEW_CODE"')
        headers = [(k, v) for k, v in reply.headers.items() if k.lower() != "content-length"]
        return httpx.Response(reply.status_code, headers=headers, content=body)


def test_the_signing_hooks_refuse_a_post_without_an_idempotency_key(server: tuple[str, str, str]) -> None:
    import asyncio

    url, operator, secret = server
    signing = _load(CLIENTS / "reddog_signing.py", "reddog_signing")
    table = {"name": "a", "paytable": "standard/v1", "currency": "JPY", "min_ante": 1, "max_ante": 9}
    with httpx.Client(base_url=url, event_hooks={"request": [signing.signing_hook(operator, secret)]}) as client:
        with pytest.raises(signing.MissingIdempotencyKey, match="POST /v1/tables: send an Idempotency-Key"):
            client.post("/v1/tables", json=table)
        assert client.get("/v1/tables").status_code == 200  # a GET takes none

    async def tables() -> int:
        hooks = {"request": [signing.async_signing_hook(operator, secret)]}
        async with httpx.AsyncClient(base_url=url, event_hooks=hooks) as client:
            with pytest.raises(signing.MissingIdempotencyKey):
                await client.post("/v1/tables", json=table)
            made = await client.post("/v1/tables", json=table, headers={"Idempotency-Key": _key()})
            assert made.status_code == 201, made.text
            return (await client.get("/v1/tables")).status_code

    assert asyncio.run(tables()) == 200


def test_openapi_typescript_and_openapi_fetch_compile_with_default_settings_and_play_a_round(
    server: tuple[str, str, str], document: Path, tmp_path: Path
) -> None:
    url, operator, secret = server
    node_bin("tsc")
    target = str(tmp_path / "schema.d.ts")
    generated = run_node_tool("openapi-typescript", str(document), "--output", target)  # the generator's defaults
    assert generated.returncode == 0, generated.stdout + generated.stderr
    types = (tmp_path / "schema.d.ts").read_text()
    assert "type: string;" in types  # Problem.type: always sent, so required
    assert types.count('"win" | "lose" | "push" | "trips" | "void" | "rolled_back"') == 1  # BetOut.result only
    assert 'code: components["schemas"]["ProblemCode"] | string;' in types  # open: any later code type-checks
    assert '"Idempotency-Key": string;' in types
    assert '"Idempotency-Key"?: string;' not in types
    for name in ("play.ts", "run.mjs", "tsconfig.json"):
        shutil.copy(ROOT / "tests" / "ts" / name, tmp_path / name)
    shutil.copy(CLIENTS / "signed-fetch.ts", tmp_path / "signed-fetch.ts")
    (tmp_path / "node_modules").symlink_to(NODE_TOOLS / "node_modules")  # openapi-fetch, as tools/node pins it
    compiled = run_node_tool("tsc", "-p", str(tmp_path / "tsconfig.json"), cwd=tmp_path)
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
    (tmp_path / "build" / "package.json").write_text('{"type": "module"}')
    shutil.copy(tmp_path / "run.mjs", tmp_path / "build" / "run.mjs")
    node = shutil.which("node")
    assert node is not None
    played = subprocess.run(  # noqa: S603 - node on the files tsc just compiled
        [node, "run.mjs", url, operator, secret], cwd=tmp_path / "build", capture_output=True, text=True, timeout=60,
        check=False,
    )  # fmt: skip
    assert played.returncode == 0, played.stdout + played.stderr
    seen = json.loads(played.stdout)
    assert seen["round"]["status"] == "settled"
    assert seen["round"]["bets"][0]["result"] in {"win", "lose", "push", "trips"}
    assert seen["replayed"] is True  # the same Idempotency-Key: the stored reply
    assert seen["rolledBack"]["status"] == "rolled_back"
    assert seen["auditLines"] >= 4  # the table's head, table_opened, round_opened, cards...: one JSON document a line
    assert seen["unknownCode"] == "SOME_NEW_CODE"
