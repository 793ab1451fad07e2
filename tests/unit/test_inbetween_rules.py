"""The In Between rule-set files: every term validated, hashed canonically, pinned, and shipped with the package."""

from __future__ import annotations

import fnmatch
import hashlib
import tomllib
from pathlib import Path

import msgspec
import pytest

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_rules import (
    RULESETS_DIR,
    DealerBanks,
    PairPays,
    PostPenalty,
    RuleSetError,
    RuleTerms,
    load_file,
    parse,
)
from tests.unit.inbetween_oracle import RELEASED_SHA256, RULESET_IDS

ROOT = Path(__file__).resolve().parents[2]

NEPAL_TOML = """
id = "inbetween/nepal/v1"
description = "test copy"
min_players = 2
max_players = 8
starting_chips = 1000
antes = [5, 10, 20]
rounds = [5, 10, 15]
first_ace = "choice"
post = "double"
min_bet = "one"
adjacent = { rule = "pass" }
pair = { rule = "call" }
banking = { rule = "antes" }
"""


def test_the_released_rule_sets_are_exactly_the_ones_we_pinned() -> None:
    assert sorted(inbetween_rules.released()) == sorted(RULESET_IDS)


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_a_released_rule_set_still_hashes_to_its_pinned_sha256(ruleset_id: str) -> None:
    assert inbetween_rules.get(ruleset_id).sha256 == RELEASED_SHA256[ruleset_id]


def test_the_sha256_covers_the_terms_as_json_with_sorted_keys_and_no_whitespace() -> None:
    by_hand = (
        '{"adjacent":{"rule":"pass"},"antes":[5,10,20],"banking":{"rule":"antes"},"first_ace":"choice",'
        '"id":"inbetween/nepal/v1","max_players":8,"min_bet":"one","min_players":2,"pair":{"rule":"call"},'
        '"post":"double","rounds":[5,10,15],"starting_chips":1000}'
    )
    digest = hashlib.sha256(by_hand.encode()).hexdigest()
    assert digest == RELEASED_SHA256["inbetween/nepal/v1"]
    assert inbetween_rules.get("inbetween/nepal/v1").sha256 == digest


def test_a_nested_rule_with_chips_is_hashed_with_its_fields_sorted_too() -> None:
    by_hand = (
        '{"adjacent":{"chips":1,"rule":"lose"},"antes":[5,10,20],"banking":{"rule":"antes"},"first_ace":"high",'
        '"id":"inbetween/home/v1","max_players":8,"min_bet":"one","min_players":2,"pair":{"chips":2,"rule":"pays"},'
        '"post":"bet","rounds":[5,10,15],"starting_chips":1000}'
    )
    assert hashlib.sha256(by_hand.encode()).hexdigest() == RELEASED_SHA256["inbetween/home/v1"]


def test_a_new_term_is_hashed_under_its_own_name_and_a_term_at_its_default_is_left_out() -> None:
    # home/v2 sets `first_dealer` and `pass`; its other new terms are at their defaults and are not in the JSON.
    by_hand = (
        '{"adjacent":{"chips":1,"rule":"lose"},"antes":[5,10,20],"banking":{"rule":"antes"},"first_ace":"high",'
        '"first_dealer":"highest_card","id":"inbetween/home/v2","max_players":8,"min_bet":"one","min_players":2,'
        '"pair":{"chips":2,"rule":"pays"},"pass":"never","post":"bet","rounds":[5,10,15],"starting_chips":1000}'
    )
    assert hashlib.sha256(by_hand.encode()).hexdigest() == RELEASED_SHA256["inbetween/home/v2"]
    assert inbetween_rules.get("inbetween/home/v2").sha256 == RELEASED_SHA256["inbetween/home/v2"]


def test_a_new_term_written_at_its_default_hashes_as_if_it_were_absent() -> None:
    spelled_out = NEPAL_TOML + 'direction = "left"\npass = "allowed"\nfirst_dealer = "seat"\nfirst_round_bet = "pot"\n'
    assert parse(spelled_out, "x").sha256 == RELEASED_SHA256["inbetween/nepal/v1"]


def test_the_docs_list_every_term_with_the_page_it_comes_from_and_every_release() -> None:
    text = (ROOT / "docs" / "inbetween.md").read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `")}
    names = [field.encode_name for field in msgspec.structs.fields(RuleTerms) if field.name != "id"]
    for name in names:
        row = next((r for first, r in rows.items() if f"`{name}`" in first), None)
        assert row is not None, f"docs/inbetween.md has no row for the term {name}"
        assert any(page in row.split("|")[3] for page in ("pagat", "home", "Nepali")), row
    for ruleset_id in RULESET_IDS:
        assert f"| `{ruleset_id.removeprefix('inbetween/')}`" in text, ruleset_id


def test_layout_comments_and_the_description_do_not_change_the_hash() -> None:
    shuffled = "\n".join(reversed(NEPAL_TOML.strip().splitlines())).replace("test copy", "another words")
    assert parse("# a comment\n" + shuffled, "x").sha256 == RELEASED_SHA256["inbetween/nepal/v1"]


def test_the_released_terms_read_as_the_issue_describes_them() -> None:
    banker = inbetween_rules.get("inbetween/pagat-banker/v1").terms.banking
    home = inbetween_rules.get("inbetween/home/v1").terms
    assert isinstance(banker, DealerBanks)
    assert (banker.stake_antes, banker.orbits) == (10, 2)
    assert isinstance(home.pair, PairPays)
    assert home.pair.chips == 2
    assert inbetween_rules.get("inbetween/sheets/v1").terms.rounds == ["until_empty"]


@pytest.mark.parametrize(("penalty", "multiple"), [("bet", 1), ("double", 2), ("triple", 3)])
def test_a_post_penalty_names_its_multiple_of_the_bet(penalty: str, multiple: int) -> None:
    assert PostPenalty(penalty).multiple == multiple


BANKER = 'banking = { rule = "dealer", stake_antes = 10, orbits = 2 }'


@pytest.mark.parametrize(
    ("edits", "message"),
    [
        ({'pair = { rule = "call" }': 'pair = { rule = "call", chips = 2 }'}, "pair"),
        ({'pair = { rule = "call" }': 'pair = { rule = "pays" }'}, "chips"),
        ({'pair = { rule = "call" }': 'pair = { rule = "toss" }'}, "pair"),
        ({'post = "double"': 'post = "quadruple"'}, "post"),
        ({"max_players = 8": "max_players = 9"}, "max_players"),
        ({"min_players = 2": "min_players = 5", "max_players = 8": "max_players = 3"}, "max_players"),
        ({"antes = [5, 10, 20]": "antes = [5, 5]"}, "antes repeat"),
        ({"antes = [5, 10, 20]": "antes = [0]"}, "antes"),
        ({"rounds = [5, 10, 15]": 'rounds = ["forever"]'}, "rounds"),
        ({"rounds = [5, 10, 15]": "rounds = [5, 5]"}, "rounds repeat"),
        ({'banking = { rule = "antes" }': BANKER, "rounds = [5, 10, 15]": 'rounds = ["until_empty"]'}, "until_empty"),
        ({"starting_chips = 1000": "starting_chips = 1000\nbonus = 1"}, "bonus"),
        ({'id = "inbetween/nepal/v1"': 'id = "nepal/v1"'}, "id"),
        ({'description = "test copy"': "description = 3"}, "description"),
        ({"antes = [5, 10, 20]": "antes = [5, 10"}, "bad.toml"),
        ({"rounds = [5, 10, 15]": "rounds = [5, 10, 15]\ndefault_rounds = 7"}, "default_rounds"),
        ({"rounds = [5, 10, 15]": 'rounds = [5, 10, 15]\ndirection = "up"'}, "direction"),
        ({"rounds = [5, 10, 15]": 'rounds = [5, 10, 15]\npass = "sometimes"'}, "pass"),
        ({"rounds = [5, 10, 15]": 'rounds = [5, 10, 15]\nfirst_dealer = "oldest"'}, "first_dealer"),
        ({"rounds = [5, 10, 15]": 'rounds = [5, 10, 15]\nfirst_round_bet = "third_pot"'}, "first_round_bet"),
        (
            {'banking = { rule = "antes" }': BANKER, 'pair = { rule = "call" }': 'pair = { rule = "return_ante" }'},
            "ante",
        ),
        (
            {'banking = { rule = "antes" }': 'banking = { rule = "dealer", stake_antes = 10, orbits = "thrice" }'},
            "orbits",
        ),
    ],
)
def test_a_rule_set_with_a_bad_term_is_refused_naming_the_term(edits: dict[str, str], message: str) -> None:
    text = NEPAL_TOML
    for old, new in edits.items():
        assert old in text
        text = text.replace(old, new)
    with pytest.raises(RuleSetError, match=message):
        parse(text, "bad.toml")


def test_a_file_whose_id_disagrees_with_its_place_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "nepal" / "v2.toml"
    path.parent.mkdir()
    path.write_text(NEPAL_TOML, encoding="utf-8")
    with pytest.raises(RuleSetError, match="file's place says 'inbetween/nepal/v2'"):
        load_file(path)


def test_a_missing_file_or_an_unknown_id_is_a_rule_set_error(tmp_path: Path) -> None:
    with pytest.raises(RuleSetError):
        load_file(tmp_path / "nope" / "v1.toml")
    with pytest.raises(RuleSetError, match="no released"):
        inbetween_rules.get("inbetween/nope/v1")


def test_every_released_file_is_shipped_as_package_data() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["paytables"]
    files = sorted(RULESETS_DIR.glob("*/*.toml"))
    assert len(files) == len(RULESET_IDS)
    for path in files:
        relative = path.relative_to(ROOT / "paytables").as_posix()
        assert any(fnmatch.fnmatch(relative, pattern) for pattern in globs), relative
