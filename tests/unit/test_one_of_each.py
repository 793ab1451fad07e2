"""One rule in one place: one append to the audit log, one refusal -> status map, one OpenAPI responses builder, one
release loader, one import name for the round state machine. A second one written beside the first fails here."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paytables.inbetween.inbetween_actions import InBetweenError
from paytables.refusals import GameError
from service.errors import refusal_status

ROOT = Path(__file__).resolve().parents[2]
CODE = ("paytables", "shoe", "audit", "service")


def places(pattern: str) -> list[str]:
    """Every file of the project's code where the pattern occurs, with its count: `path:count`."""
    found = []
    for package in CODE:
        for path in sorted((ROOT / package).rglob("*.py")):
            if count := len(re.findall(pattern, path.read_text(encoding="utf-8"))):
                found.append(f"{path.relative_to(ROOT).as_posix()}:{count}")
    return found


def test_one_statement_appends_to_the_audit_log() -> None:
    assert places(r"INSERT INTO audit_(log|batches|rows)\b") == ["service/db/audit_sql.py:1"]


def test_one_builder_makes_the_openapi_responses_of_every_route() -> None:
    assert places(r"def responses\(") == ["service/api/openapi/openapi_docs.py:1"]


def test_one_loader_reads_the_released_toml_files_of_both_games() -> None:
    assert places(r"tomllib\.loads?\(") == ["paytables/releases.py:1"]


def test_the_round_state_machine_has_one_import_name() -> None:
    aliases = {
        m for p in CODE for f in (ROOT / p).rglob("*.py") for m in re.findall(r"import round as (\w+)", f.read_text())
    }
    assert aliases == {"red_dog_round"}


def test_one_map_gives_the_status_of_every_refusal_and_nothing_else_maps_a_refusal() -> None:
    assert places(r"\.get\([^)]*code, 409\)") == ["service/errors.py:1"]


@pytest.mark.parametrize(
    ("code", "status"),
    [
        # The rules' words: a value the rules refuse is unprocessable (422), a missing thing is not found (404), and a
        # move the game's state does not allow now conflicts with that state (409).
        ("RAISE_EXCEEDS_ANTE", 422),
        ("BET_OVER_POT", 422),
        ("IMPOSSIBLE_CALL", 422),
        ("NOT_FOUND", 404),
        ("NOT_YOUR_TURN", 409),
        ("ALREADY_DECIDED", 409),
        ("GAME_OVER", 409),
    ],
)
def test_both_games_refusals_take_their_status_from_the_one_map(code: str, status: int) -> None:
    assert refusal_status(code) == status


def test_in_between_refusals_are_game_errors_as_red_dog_s_are() -> None:
    assert issubclass(InBetweenError, GameError)  # what lets on_game_error and the use cases share the one map
