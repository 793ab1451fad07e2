"""Clients generated from the live /schema/openapi.json by third-party generators play real rounds, signed by the
hooks shipped in docs/clients: openapi-python-client (always) and openapi-typescript + tsc (when Node is here)."""

from __future__ import annotations

import importlib
import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from service.settings import Settings
from tests.support.threaded import served
from tests.support.tools import ROOT, node_bin, run_node_tool

CLIENTS = ROOT / "docs" / "clients"


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
    """The package openapi-python-client generates, importable for the module's tests."""
    out = tmp_path_factory.mktemp("generated")
    config = out / "config.json"
    config.write_text(json.dumps({"post_hooks": [], "package_name_override": "reddog_generated"}))
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


def test_the_python_client_has_one_type_per_enum_field_and_no_signature_arguments(
    python_client: tuple[str, Path],
) -> None:
    _, folder = python_client
    models = sorted(p.stem for p in (folder / "models").glob("*.py"))
    for field in ("bet_out_result", "bet_out_decision", "round_out_outcome"):
        assert [m for m in models if m.startswith(field)] == [f"{field}_type_0"], models  # one enum, not three
    code = "\n".join(p.read_text() for p in (folder / "api").rglob("*.py"))
    for header in ("x_operator_id", "x_timestamp", "x_signature"):
        assert header not in code
    assert "idempotency_key: str | Unset = UNSET" in code  # optional: the hook makes one


def test_a_round_is_played_through_the_generated_python_functions_with_the_shipped_signing_hook(
    server: tuple[str, str, str], python_client: tuple[str, Path], request: pytest.FixtureRequest
) -> None:
    url, operator, secret = server
    package, _ = python_client
    gen: Any = importlib.import_module(package)
    models: Any = importlib.import_module(f"{package}.models")
    api = {name: importlib.import_module(f"{package}.api.{name}") for name in ("tables", "rounds")}
    tables: Any = importlib.import_module(f"{package}.api.tables.v1_tables_create_table")
    open_round: Any = importlib.import_module(f"{package}.api.rounds.v1_tables_table_id_rounds_create_round")
    decide: Any = importlib.import_module(f"{package}.api.rounds.v1_rounds_round_id_decisions_decide")
    get_round: Any = importlib.import_module(f"{package}.api.rounds.v1_rounds_round_id_get_round")
    list_rounds: Any = importlib.import_module(f"{package}.api.rounds.v1_rounds_list_rounds")
    assert api
    signing = _load(CLIENTS / "reddog_signing.py", "reddog_signing")
    sent: list[httpx.Request] = []
    hooks = {"request": [signing.signing_hook(operator, secret), sent.append]}
    client = gen.Client(base_url=url, httpx_args={"event_hooks": hooks}, raise_on_unexpected_status=True)
    request.addfinalizer(client.get_httpx_client().close)

    body = models.CreateTable(name="generated", paytable="standard/v1", currency="EUR", min_ante=100, max_ante=1000)
    table = tables.sync(client=client, body=body)
    assert isinstance(table, models.TableOut), table
    assert table.currency_exponent == 2
    rnd = open_round.sync(table.table_id, client=client, body=models.CreateRound(bets=[models.BetIn("alice", 500)]))
    assert isinstance(rnd, models.RoundOut), rnd
    decided = rnd.status == models.RoundOutStatus.RAISE_WINDOW  # else it settled at open (consecutive or pair)
    if decided:
        choice = models.RaiseIn(action="raise", bet_id=rnd.bets[0].bet_id)
        rnd = decide.sync(rnd.round_id, client=client, body=choice, idempotency_key="gen-decide-1")
        assert isinstance(rnd, models.RoundOut), rnd
    again = get_round.sync(rnd.round_id, client=client)
    assert again.to_dict() == rnd.to_dict()
    result = again.bets[0].result
    assert isinstance(result, models.BetOutResultType0)
    assert again.shoe.reveal is not None  # retired with its round, and parsed as a RevealOut
    page = list_rounds.sync(client=client, table_id=table.table_id, limit=5)
    assert [r.round_id for r in page.items] == [rnd.round_id]
    assert [t.currency for t in page.totals] == ["EUR"]
    assert all("authorization" not in r.headers for r in sent)  # no pointless Bearer header
    assert all(r.headers["idempotency-key"] for r in sent if r.method == "POST")
    assert decided == ("gen-decide-1" in {r.headers.get("idempotency-key") for r in sent})  # a key given is kept


def test_the_python_client_parses_a_problem_with_its_code_as_an_enum(
    server: tuple[str, str, str], python_client: tuple[str, Path], request: pytest.FixtureRequest
) -> None:
    url, operator, secret = server
    package, _ = python_client
    gen: Any = importlib.import_module(package)
    models: Any = importlib.import_module(f"{package}.models")
    get_table: Any = importlib.import_module(f"{package}.api.tables.v1_tables_table_id_get_table")
    signing = _load(CLIENTS / "reddog_signing.py", "reddog_signing")
    client = gen.Client(base_url=url, httpx_args={"event_hooks": {"request": [signing.signing_hook(operator, secret)]}})
    request.addfinalizer(client.get_httpx_client().close)
    problem = get_table.sync("00000000-0000-4000-8000-000000000000", client=client)
    assert isinstance(problem, models.Problem)
    assert (problem.code, problem.type_, problem.status) == (models.ProblemCode.NOT_FOUND, "about:blank", 404)


def test_the_async_signing_hook_signs_like_the_sync_one(server: tuple[str, str, str]) -> None:
    import asyncio

    url, operator, secret = server
    signing = _load(CLIENTS / "reddog_signing.py", "reddog_signing")

    async def tables() -> int:
        hooks = {"request": [signing.async_signing_hook(operator, secret)]}
        async with httpx.AsyncClient(base_url=url, event_hooks=hooks) as client:
            made = await client.post("/v1/tables", json={"name": "a", "paytable": "standard/v1", "currency": "JPY",
                                                          "min_ante": 1, "max_ante": 9})  # fmt: skip
            assert made.status_code == 201, made.text
            return (await client.get("/v1/tables")).status_code

    assert asyncio.run(tables()) == 200


def test_openapi_typescript_types_and_the_fetch_wrapper_compile_with_tsc_and_play_a_round(
    server: tuple[str, str, str], document: Path, tmp_path: Path
) -> None:
    url, operator, secret = server
    node_bin("tsc")
    # --default-non-nullable=false: a request field with a default (decks, shoe_policy) stays optional; with the
    # generator's default setting every such field of a request body would be required.
    target = str(tmp_path / "schema.d.ts")
    generated = run_node_tool("openapi-typescript", str(document), "--output", target, "--default-non-nullable=false")
    assert generated.returncode == 0, generated.stdout + generated.stderr
    types = (tmp_path / "schema.d.ts").read_text()
    assert "type: string;" in types  # Problem.type: always sent, so required
    assert types.count('"win" | "lose" | "push" | "trips" | "void" | "rolled_back"') == 1  # BetOut.result only
    for name in ("play.ts", "run.mjs", "tsconfig.json"):
        shutil.copy(ROOT / "tests" / "ts" / name, tmp_path / name)
    shutil.copy(CLIENTS / "signed-fetch.ts", tmp_path / "signed-fetch.ts")
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
    rnd = json.loads(played.stdout)
    assert rnd["status"] == "settled"
    assert rnd["bets"][0]["result"] in {"win", "lose", "push", "trips"}
