"""The pure core imports only the standard library, msgspec and itself, and never the service around it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PURE = ("paytables", "shoe", "audit")
ALLOWED = set(sys.stdlib_module_names) | {"msgspec", *PURE}
ALSO_ALLOWED = {"audit": {"cryptography"}}  # Ed25519 for signed checkpoints, and only there


def imported_top_level_names(source: str) -> set[str]:
    """The top-level package of every absolute import anywhere in the module, function bodies included."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module is not None:
            names.add(node.module.split(".")[0])
    return names


def test_the_import_scan_sees_imports_inside_functions_and_ignores_relative_ones() -> None:
    source = "import os.path\nfrom litestar import Litestar\nfrom . import sibling\ndef f():\n    import service.cli\n"
    assert imported_top_level_names(source) == {"os", "litestar", "service"}


@pytest.mark.parametrize("package", PURE)
def test_a_pure_package_imports_nothing_but_the_standard_library_and_msgspec(package: str) -> None:
    directory = ROOT / package
    if not directory.is_dir():
        pytest.skip(f"{package}/ is not written yet")
    modules = sorted(directory.rglob("*.py"))
    assert modules, f"{package}/ has no modules"
    allowed = ALLOWED | ALSO_ALLOWED.get(package, set())
    outside = {
        str(path.relative_to(ROOT)): names - allowed
        for path in modules
        if (names := imported_top_level_names(path.read_text(encoding="utf-8"))) - allowed
    }
    assert outside == {}
    assert not any("service" in imported_top_level_names(p.read_text(encoding="utf-8")) for p in modules)
