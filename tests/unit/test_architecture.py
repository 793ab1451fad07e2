"""The dependency rule, enforced: a pure core that does no I/O, packages that point inward, a shell around them."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROJECT = {"paytables", "shoe", "audit", "service"}
# Standard-library modules the pure core may not use: time, randomness, the network, processes, the OS.
IMPURE_STDLIB = {"time", "random", "socket", "subprocess", "os", "asyncio", "threading", "urllib", "http", "shutil"}
OS_ALLOWED = {"shoe/random_source.py"}  # the one CSPRNG source: os.urandom
THIRD_PARTY = {"paytables": {"msgspec"}, "shoe": {"msgspec"}, "audit": {"msgspec", "cryptography"}}
# Which project packages each pure package may import. audit's chain stays generic; only the modules that read
# records back as the game's typed events (records, replay) know the game core.
PROJECT_ALLOWED = {"paytables": {"paytables", "shoe"}, "shoe": {"shoe"}, "audit": {"audit"}}
AUDIT_READERS = {
    "audit/records.py",
    "audit/replay.py",
    "audit/round_rerun.py",
    "audit/round_checks.py",
    "audit/shoe_checks.py",
    "audit/replay_stats.py",
    "audit/round_fast.py",  # the usual round re-run as the game core would: its events, its rules
    "audit/game_fold.py",  # folds In Between records through the game's reducer, as replay does Red Dog's
    "audit/game_replay.py",  # re-plays In Between games through their engine, as replay re-runs Red Dog rounds
}


def imported_top_level_names(source: str) -> set[str]:
    """The top-level package of every absolute import anywhere in the module, function bodies included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names.add(node.module.split(".")[0])
    return names


def modules(package: str) -> list[Path]:
    found = sorted((ROOT / package).rglob("*.py"))
    assert found, f"{package}/ has no modules"
    return found


def allowed(path: Path, package: str) -> set[str]:
    relative = str(path.relative_to(ROOT))
    stdlib = set(sys.stdlib_module_names) - IMPURE_STDLIB | ({"os"} if relative in OS_ALLOWED else set())
    project = PROJECT_ALLOWED[package] | ({"paytables", "shoe"} if relative in AUDIT_READERS else set())
    return stdlib | THIRD_PARTY[package] | project


def test_the_import_scan_sees_imports_inside_functions_and_ignores_relative_ones() -> None:
    source = (
        "import os.path\nfrom litestar import Litestar\nfrom . import sibling\ndef f():\n    import service.cli.cli\n"
    )
    assert imported_top_level_names(source) == {"os", "litestar", "service"}


@pytest.mark.parametrize("package", sorted(PROJECT_ALLOWED))
def test_a_pure_package_imports_only_what_its_rule_allows(package: str) -> None:
    outside = {
        str(path.relative_to(ROOT)): sorted(names - allowed(path, package))
        for path in modules(package)
        if (names := imported_top_level_names(path.read_text(encoding="utf-8"))) - allowed(path, package)
    }
    assert outside == {}


def test_the_rule_would_catch_a_clock_read_a_seeded_generator_or_the_service_in_the_core() -> None:
    # The rule itself, tried on what must fail: a test of the scan that cannot pass by accident.
    path = ROOT / "paytables" / "red_dog" / "round.py"
    for forbidden in ("time", "random", "os", "service", "audit", "asyncpg"):
        assert forbidden not in allowed(path, "paytables")
    assert "os" in allowed(ROOT / "shoe" / "random_source.py", "shoe")
    assert "os" not in allowed(ROOT / "shoe" / "shoe.py", "shoe")
    assert "paytables" not in allowed(ROOT / "audit" / "chain.py", "audit")


def wire_modules() -> set[str]:
    """Every wire module of the API layer, found by its name, so a new one is guarded without being listed here."""
    api = ROOT / "service" / "api"
    return {module_name(p) for p in api.rglob("*wire*.py")}


def wire_imports(source: str, wire: set[str]) -> set[str]:
    """The wire modules a module imports anywhere in it, as a module (`from service.api import wire`) or from one."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names = {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
        else:
            continue
        found |= {w for w in wire for name in names if name == w or name.startswith(w + ".")}
    return found


def test_nothing_outside_the_api_layer_imports_the_wire_types() -> None:
    wire = wire_modules()
    users = {
        str(path.relative_to(ROOT)): sorted(found)
        for path in modules("service")
        if path.relative_to(ROOT / "service").parts[0] != "api"
        and (found := wire_imports(path.read_text(encoding="utf-8"), wire))
    }
    assert users == {}


def test_the_wire_guard_knows_every_wire_module_and_catches_each_imported_any_way() -> None:
    wire = wire_modules()
    assert {"service.api.wire", "service.api.inbetween_wire", "service.api.report_wire"} <= wire
    for module in sorted(wire):
        package, name = module.rsplit(".", 1)
        for source in (
            f"import {module}\n",
            f"import {module} as w\n",
            f"from {package} import {name}\n",
            f"from {package} import presenters, {name} as w\n",
            f"from {module} import Thing\n",
            f"def f() -> None:\n    from {module} import Thing\n",
        ):
            assert wire_imports(source, wire) == {module}, source
    assert wire_imports("import service.api\nfrom service.api import presenters, wires_elsewhere\n", wire) == set()


def test_module_names_are_unique_across_the_project() -> None:
    names = [path.name for package in sorted(PROJECT) for path in modules(package) if path.name != "__init__.py"]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


# The shell's floors, highest first: a module may import its own folder and any floor below its own, never one above.
# app.py is the composition root above them all; the other modules at service/'s top level are the base every floor
# stands on (settings, the clock, the one error map); observability is at the bottom, where everything may use it.
SHELL_FLOORS = ["app", "cli", "api", "web", "runtime", "use_cases", "chains", "db", "base", "observability"]
# The core's wings: Red Dog and In Between share only the modules at paytables/'s top level; Red Dog's analysis
# stands on Red Dog, and the round path never imports the analysis.
CORE_ROOMS = {
    "paytables": {"paytables", "shoe"},
    "paytables/red_dog": {"paytables/red_dog", "paytables", "shoe"},
    "paytables/red_dog/analysis": {"paytables/red_dog/analysis", "paytables/red_dog", "paytables", "shoe"},
    "paytables/inbetween": {"paytables/inbetween", "paytables", "shoe"},
}
MAX_TOP_LEVEL_SERVICE_MODULES = 12


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_imports(path: Path) -> set[str]:
    """Every project module the file imports, anywhere in it; `from pkg import mod` counts as importing pkg.mod."""
    known = {module_name(p) for package in PROJECT for p in modules(package)}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name in known)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in known:
            submodules = {f"{node.module}.{alias.name}" for alias in node.names} & known
            found.update(submodules or {node.module})
    return found - {module_name(path)}


def shell_floor(module: str) -> str:
    """The floor of a service module: its folder under service/, or app / base for the top-level modules."""
    parts = module.split(".")
    if len(parts) == 2:
        return "app" if parts[1] == "app" else "base"
    return parts[1] if len(parts) > 2 else "base"


def floor_violations(edges: dict[str, set[str]]) -> list[str]:
    """Each service import that runs up a floor, or into a folder that has no floor."""
    found = []
    for module, targets in sorted(edges.items()):
        if not module.startswith("service."):
            continue
        mine = shell_floor(module)
        for target in sorted(t for t in targets if t.startswith("service.")):
            theirs = shell_floor(target)
            if mine not in SHELL_FLOORS or theirs not in SHELL_FLOORS:
                found.append(f"{module} -> {target}: a folder without a floor")
            elif mine != theirs and SHELL_FLOORS.index(theirs) <= SHELL_FLOORS.index(mine):
                found.append(f"{module} ({mine}) -> {target} ({theirs})")
    return found


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of two or more modules (Tarjan's algorithm): each is an import circle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while (top := stack.pop()) != node:
                component.append(top)
            component.append(node)
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def project_edges() -> dict[str, set[str]]:
    return {module_name(path): project_imports(path) for package in sorted(PROJECT) for path in modules(package)}


def test_no_two_modules_of_the_project_import_each_other_even_by_way_of_others() -> None:
    assert circles(project_edges()) == []


def test_the_circle_search_finds_a_circle_through_three_modules_and_none_in_a_chain() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_every_folder_of_the_shell_has_a_floor() -> None:
    folders = {
        path.parent.relative_to(ROOT / "service").parts[0]
        for path in modules("service")
        if path.parent != ROOT / "service"
    }
    assert sorted(folders - set(SHELL_FLOORS)) == []


def test_no_import_in_the_shell_runs_up_a_floor() -> None:
    assert floor_violations(project_edges()) == []


def test_the_floor_rule_catches_an_import_up_a_floor_and_into_a_folder_without_one() -> None:
    edges = {
        "service.db.round_sql": {"service.use_cases.round_use_cases", "service.observability.metrics"},
        "service.api.auth": {"service.api.bodies", "service.settings", "service.cli.client"},
        "service.attic.old": {"service.db.round_sql"},
        "service.errors": {"service.app"},
    }
    assert floor_violations(edges) == [
        "service.api.auth (api) -> service.cli.client (cli)",
        "service.attic.old -> service.db.round_sql: a folder without a floor",
        "service.db.round_sql (db) -> service.use_cases.round_use_cases (use_cases)",
        "service.errors (base) -> service.app (app)",
    ]


def core_room(path: Path) -> str:
    relative = path.parent.relative_to(ROOT).as_posix()
    return relative


def test_red_dog_and_in_between_are_rooms_of_their_own_that_share_only_the_core_s_top_level() -> None:
    outside = {}
    for path in modules("paytables"):
        room = core_room(path)
        assert room in CORE_ROOMS, f"{room} is a room of the core without a rule"
        rooms = {".".join(t.split(".")[:-1]).replace(".", "/") for t in project_imports(path)}
        rooms = {r if r in CORE_ROOMS or r == "shoe" else r.split("/")[0] for r in rooms}
        if stray := rooms - CORE_ROOMS[room]:
            outside[str(path.relative_to(ROOT))] = sorted(stray)
    assert outside == {}


def test_the_service_keeps_at_most_twelve_modules_at_its_top_level() -> None:
    top = sorted(path.name for path in (ROOT / "service").glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_SERVICE_MODULES, top


# Framework internals (litestar's and uvicorn's private modules, uvicorn's protocol and supervisor classes, the ASGI
# scope's "route_handler" that Litestar keeps there) live in one room, pinned to the tested minor series
# (tests/unit/test_framework_pins.py) and compared with the framework's own path (tests/api/test_lean_path.py).
INTERNALS_ROOM = ROOT / "service" / "runtime"
FRAMEWORKS = {"litestar", "uvicorn"}
INTERNAL_MODULES = ("uvicorn.protocols", "uvicorn.supervisors")
SCOPE_KEYS = {"route_handler"}


def is_internal(dotted: str) -> bool:
    """A dotted name inside a framework's internals: a private module or name, or uvicorn's protocols/supervisors."""
    parts = dotted.split(".")
    private = any(part.startswith("_") for part in parts[1:])
    inside = any(dotted == module or dotted.startswith(module + ".") for module in INTERNAL_MODULES)
    return parts[0] in FRAMEWORKS and (private or inside)


def dotted_name(node: ast.AST) -> str | None:
    """`a.b.c` for an attribute chain on a plain name (`uvicorn.protocols.http`), else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := dotted_name(node.value)) is not None:
        return f"{base}.{node.attr}"
    return None


def internal_names(node: ast.AST) -> list[str]:
    """The framework internals one syntax node names: by import, by attribute chain, or as a string."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if is_internal(alias.name)]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
        if is_internal(node.module):
            return [node.module]
        return [f"{node.module}.{alias.name}" for alias in node.names if is_internal(f"{node.module}.{alias.name}")]
    if isinstance(node, ast.Attribute) and (name := dotted_name(node)) is not None and is_internal(name):
        entered = not is_internal(dotted_name(node.value) or "")  # a chain is named once, where it enters them
        return [name] if entered else []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if node.value in SCOPE_KEYS or is_internal(node.value) else []
    return []


def framework_internals(source: str) -> list[str]:
    """Every use of a framework's internals in a module, with its line, in line order."""
    found = [
        (getattr(node, "lineno", 0), name) for node in ast.walk(ast.parse(source)) for name in internal_names(node)
    ]
    return [f"{line}: {name}" for line, name in sorted(found)]


def test_framework_internals_are_used_only_in_the_runtime_room() -> None:
    outside = {
        str(path.relative_to(ROOT)): uses
        for path in modules("service")
        if INTERNALS_ROOM not in path.parents and (uses := framework_internals(path.read_text(encoding="utf-8")))
    }
    assert outside == {}


def test_the_internals_scan_finds_the_runtime_room_s_own_uses_and_each_kind_of_use() -> None:
    def uses(name: str) -> list[str]:
        return framework_internals((INTERNALS_ROOM / name).read_text(encoding="utf-8"))

    assert any("litestar._asgi.utils" in use for use in uses("lean_routes.py"))
    assert any(use.endswith(": route_handler") for use in uses("lean_routes.py"))
    assert any("uvicorn.protocols.http.httptools_impl" in use for use in uses("http_protocol.py"))
    assert any("uvicorn.supervisors.multiprocess" in use for use in uses("workers.py"))
    source = (
        "import uvicorn.supervisors\nfrom litestar import _signature\nfrom litestar.middleware._internal import x\n"
        "import uvicorn\nuvicorn.protocols.http.h11_impl.H11Protocol\nscope['route_handler']; litestar.app._x\n"
        "importlib.import_module('litestar._kwargs')\nfrom litestar import Litestar\nimport uvicorn.config\n"
    )
    assert framework_internals(source) == [
        "1: uvicorn.supervisors",
        "2: litestar._signature",
        "3: litestar.middleware._internal",
        "5: uvicorn.protocols",
        "6: litestar.app._x",
        "6: route_handler",
        "7: litestar._kwargs",
    ]
