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
    "audit/shoe_checks.py",
    "audit/replay_stats.py",
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
    source = "import os.path\nfrom litestar import Litestar\nfrom . import sibling\ndef f():\n    import service.cli\n"
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
    path = ROOT / "paytables" / "round.py"
    for forbidden in ("time", "random", "os", "service", "audit", "asyncpg"):
        assert forbidden not in allowed(path, "paytables")
    assert "os" in allowed(ROOT / "shoe" / "random_source.py", "shoe")
    assert "os" not in allowed(ROOT / "shoe" / "shoe.py", "shoe")
    assert "paytables" not in allowed(ROOT / "audit" / "chain.py", "audit")


def test_nothing_outside_the_api_layer_imports_the_wire_types() -> None:
    def imports_wire(path: Path) -> bool:
        text = path.read_text(encoding="utf-8")
        return "from service.api import wire" in text or "service.api.wire" in text

    users = [str(p.relative_to(ROOT)) for p in modules("service") if "/api/" not in str(p) and imports_wire(p)]
    assert users == []


def test_module_names_are_unique_across_the_project() -> None:
    names = [path.name for package in sorted(PROJECT) for path in modules(package) if path.name != "__init__.py"]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []
