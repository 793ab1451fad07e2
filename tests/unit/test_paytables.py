"""Released paytables: loading validates every field, and a released file's sha256 never changes."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from paytables.red_dog import loader
from paytables.red_dog.paytable import PostRule
from tests.unit.oracle import LOSE_DOUBLE_ON_POST, PAYTABLE_IDS, RELEASED_SHA256, SPREAD_ODDS, TRIPS_ODDS

GOOD_FIELDS = {
    "id": '"house/v1"',
    "description": '"A test table."',
    "spread_odds": "[5, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1]",
    "trips_odds": "11",
    "post_rule": '"lose"',
    "max_raise_multiple": "1",
}


def write_paytable(root: Path, fields: dict[str, str], place: str = "house/v1") -> Path:
    """A TOML paytable at root/name/vN.toml, the layout the loader reads its id from."""
    path = root / f"{place}.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{key} = {value}\n" for key, value in fields.items()), encoding="utf-8")
    return path


def test_a_well_formed_file_loads_with_its_terms(tmp_path: Path) -> None:
    table = loader.load_file(write_paytable(tmp_path, GOOD_FIELDS))
    assert (table.id, table.name, table.version, table.description) == ("house/v1", "house", 1, "A test table.")
    assert [table.spread_odds(s) for s in range(1, 12)] == [5, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1]
    assert (table.terms.trips_odds, table.terms.post_rule) == (11, PostRule.LOSE)


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("trips_odds", None),
        ("spread_odds", None),
        ("trips_odds", '"11"'),
        ("trips_odds", "0"),
        ("trips_odds", "11.5"),
        ("spread_odds", "[5, 4, 2, 1, 1, 1, 1, 1, 1, 1]"),
        ("spread_odds", "[5, 4, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1]"),
        ("spread_odds", '"5, 4, 2"'),
        ("post_rule", '"lose_triple"'),
        ("post_rule", "1"),
        ("max_raise_multiple", "2"),
        ("description", "5"),
        ("id", '"other/v1"'),
        ("id", '"house/v2"'),
        ("bonus_odds", "3"),
    ],
    ids=lambda value: str(value),
)
def test_a_bad_file_is_refused_with_a_message_naming_the_file_and_the_field(
    tmp_path: Path, field: str, change: str | None
) -> None:
    fields = dict(GOOD_FIELDS)
    if change is None:
        del fields[field]
    else:
        fields[field] = change
    path = write_paytable(tmp_path, fields)
    with pytest.raises(loader.PaytableError) as caught:
        loader.load_file(path)
    assert str(path) in str(caught.value)
    assert f"`{field}`" in str(caught.value)


def test_a_file_that_is_not_toml_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "house" / "v1.toml"
    path.parent.mkdir()
    path.write_text("id = [unclosed\n", encoding="utf-8")
    with pytest.raises(loader.PaytableError, match=re.escape(str(path))):
        loader.load_file(path)


def test_a_missing_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "house" / "v1.toml"
    with pytest.raises(loader.PaytableError, match=re.escape(str(path))):
        loader.load_file(path)


def test_the_three_paytables_are_released() -> None:
    assert sorted(loader.released()) == sorted(PAYTABLE_IDS)


@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_a_released_paytable_has_the_terms_its_rules_promise(paytable_id: str) -> None:
    terms = loader.get(paytable_id).terms
    assert terms.spread_odds == [SPREAD_ODDS[paytable_id][s] for s in range(1, 12)]
    assert terms.trips_odds == TRIPS_ODDS[paytable_id]
    assert (terms.post_rule is PostRule.LOSE_DOUBLE) == LOSE_DOUBLE_ON_POST[paytable_id]
    assert terms.max_raise_multiple == 1


@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_a_released_paytable_keeps_the_sha256_it_was_released_with(paytable_id: str) -> None:
    # Pinned on purpose: if this fails, a released file was edited. Release new terms as a new version instead.
    assert loader.get(paytable_id).sha256 == RELEASED_SHA256[paytable_id]


@pytest.mark.parametrize(
    ("paytable_id", "canonical_json"),
    [
        (
            "standard/v1",
            '{"id":"standard/v1","max_raise_multiple":1,"post_rule":"lose",'
            '"spread_odds":[5,4,2,1,1,1,1,1,1,1,1],"trips_odds":11}',
        ),
        (
            "generous/v1",
            '{"id":"generous/v1","max_raise_multiple":1,"post_rule":"lose",'
            '"spread_odds":[5,4,3,1,1,1,1,1,1,1,1],"trips_odds":11}',
        ),
        (
            "post-double/v1",
            '{"id":"post-double/v1","max_raise_multiple":1,"post_rule":"lose_double",'
            '"spread_odds":[5,4,2,1,1,1,1,1,1,1,1],"trips_odds":11}',
        ),
    ],
)
def test_the_sha256_covers_the_terms_as_json_with_sorted_keys_and_no_spaces(
    paytable_id: str, canonical_json: str
) -> None:
    by_hand = hashlib.sha256(canonical_json.encode("ascii")).hexdigest()
    assert by_hand == RELEASED_SHA256[paytable_id]
    assert loader.get(paytable_id).sha256 == by_hand


def test_the_sha256_ignores_the_description_comments_and_the_order_of_the_fields(tmp_path: Path) -> None:
    path = tmp_path / "standard" / "v1.toml"
    path.parent.mkdir()
    path.write_text(
        "# laid out differently from the released file\n"
        'post_rule = "lose"\n'
        "trips_odds = 11\n"
        "max_raise_multiple = 1\n"
        "spread_odds = [\n  5, 4, 2,\n  1, 1, 1, 1, 1, 1, 1, 1,\n]\n"
        'description = "another description"\n'
        'id = "standard/v1"\n',
        encoding="utf-8",
    )
    assert loader.load_file(path).sha256 == RELEASED_SHA256["standard/v1"]


def test_changing_any_term_changes_the_sha256(tmp_path: Path) -> None:
    base = loader.load_file(write_paytable(tmp_path / "a", GOOD_FIELDS)).sha256
    for field, change in [
        ("trips_odds", "12"),
        ("post_rule", '"lose_double"'),
        ("spread_odds", "[5,4,2,1,1,1,1,1,1,1,2]"),
    ]:
        changed = loader.load_file(write_paytable(tmp_path / field, {**GOOD_FIELDS, field: change})).sha256
        assert changed != base, field


def test_asking_for_an_unreleased_paytable_names_it() -> None:
    with pytest.raises(loader.PaytableError, match="nosuch/v1"):
        loader.get("nosuch/v1")
