"""The frameworks whose internals service/runtime/ uses are allowed only in the minor series constraints.txt tests."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
# lean_routes.py (litestar._asgi, scope["route_handler"]), http_protocol.py and workers.py (uvicorn's protocol and
# supervisor): a release outside the tested minor series may change what they lean on without a word.
INTERNALS_USED = ("litestar", "uvicorn")


def declared_bounds() -> dict[str, SpecifierSet]:
    """Each runtime dependency's version bounds, as pyproject.toml declares them."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    requirements = [Requirement(line) for line in project["dependencies"]]
    return {canonicalize_name(r.name): r.specifier for r in requirements}


def pinned_versions() -> dict[str, Version]:
    """Each `name==version` line of constraints.txt: the versions `make install` installs and `make test` tests."""
    pins: dict[str, Version] = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        name, separator, version = line.split("#")[0].strip().partition("==")
        if separator:
            pins[canonicalize_name(name)] = Version(version)
    return pins


def bound_problems(bounds: SpecifierSet, pin: Version) -> list[str]:
    """What is wrong with `bounds` for a pin: they must admit the pin's whole minor series and nothing else."""
    major, minor = pin.major, pin.minor
    series = [Version(f"{major}.{minor}.0"), pin, Version(f"{major}.{minor}.9999")]
    before = Version(f"{major}.{minor - 1}.9999") if minor else Version(f"{major - 1}.9999.9999") if major else None
    others = [Version(f"{major}.{minor + 1}.0"), Version(f"{major + 1}.0.0"), *([before] if before else [])]
    problems = [f"{v} is refused" for v in series if not bounds.contains(v, prereleases=True)]
    problems += [f"{v} is admitted" for v in others if bounds.contains(v, prereleases=True)]
    return problems


@pytest.mark.parametrize("name", INTERNALS_USED)
def test_the_declared_bounds_admit_exactly_the_minor_series_that_is_pinned_and_tested(name: str) -> None:
    bounds, pins = declared_bounds(), pinned_versions()
    assert name in bounds, f"{name} is not a declared dependency"
    assert name in pins, f"{name} is not pinned in constraints.txt"
    assert bound_problems(bounds[name], pins[name]) == [], f"{name}{bounds[name]} against the pin {pins[name]}"


@pytest.mark.parametrize(
    ("bounds", "pin", "problems"),
    [
        (">=2.12,<3", "2.25.0", ["2.26.0 is admitted", "2.24.9999 is admitted"]),  # what pyproject said before
        (">=0.30", "0.54.0", ["0.55.0 is admitted", "1.0.0 is admitted", "0.53.9999 is admitted"]),
        (
            ">=2.25,<2.26",
            "2.26.1",
            ["2.26.0 is refused", "2.26.1 is refused", "2.26.9999 is refused", "2.25.9999 is admitted"],
        ),
        (">=2.25.1,<2.26", "2.25.3", ["2.25.0 is refused"]),
        (">=2.25,<2.26", "2.25.0", []),
        (">=0.54,<0.55", "0.54.0", []),
    ],
)
def test_the_check_names_a_bound_too_wide_a_pin_outside_and_a_series_cut_short(
    bounds: str, pin: str, problems: list[str]
) -> None:
    assert bound_problems(SpecifierSet(bounds), Version(pin)) == problems
