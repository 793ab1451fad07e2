"""Every two-post deal against every third card, checked against the oracle; then worked examples by hand."""

from __future__ import annotations

import pytest

from paytables.red_dog import loader
from paytables.red_dog.red_dog import Outcome, Result, RuleError, Settlement, TransactionKind, classify, settle
from tests.unit.oracle import PAYTABLE_IDS, RANKS, Expected, expected, third_card_class

ANTE = 10
BET_ID = "round-7:seat-1"


def transaction_rows(settlement: Settlement) -> list[tuple[str, str, str, int]]:
    return [(m.id, m.kind, m.type, m.amount) for m in settlement.transactions]


def expected_transaction_rows(ante: int, raised: int, want: Expected) -> list[tuple[str, str, str, int]]:
    rows = [(f"{BET_ID}:ante", "ante", "debit", ante)]
    if raised:
        rows.append((f"{BET_ID}:raise", "raise", "debit", raised))
    if want.penalty:
        rows.append((f"{BET_ID}:post_penalty", "post_penalty", "debit", want.penalty))
    rows.append((f"{BET_ID}:payout", "payout", "credit", want.paid))  # listed even when 0
    return rows


def deals(first: int) -> list[tuple[int, int, int | None, int]]:
    """(second, third, raise) for every second post and every third card; a consecutive deal has no third card."""
    cases: list[tuple[int, int, int | None, int]] = []
    for second in RANKS:
        if abs(first - second) == 1:
            cases.append((first, second, None, 0))
            continue
        raises = (0, 1, ANTE) if first != second else (0,)
        cases.extend((first, second, third, raised) for third in RANKS for raised in raises)
    return cases


@pytest.mark.parametrize("first", RANKS)
@pytest.mark.parametrize("paytable_id", PAYTABLE_IDS)
def test_every_deal_settles_as_the_english_rules_say(paytable_id: str, first: int) -> None:
    paytable = loader.get(paytable_id)
    wrong = []
    for first_rank, second, third, raised in deals(first):
        got = settle(paytable, first_rank, second, third, ANTE, raised, bet_id=BET_ID)
        want = expected(paytable_id, first_rank, second, third, ANTE, raised)
        if (got.result, got.payout, got.net) != (want.result, want.paid, want.net):
            wrong.append(f"{first_rank}-{second} then {third} raise {raised}: got {got}, want {want}")
        elif transaction_rows(got) != expected_transaction_rows(ANTE, raised, want):
            wrong.append(f"{first_rank}-{second} then {third} raise {raised}: movements {got.transactions}")
    assert wrong == []


ALL_CLASSES = {
    "below the low post",
    "equal to the low post",
    "strictly between",
    "equal to the high post",
    "above the high post",
}


@pytest.mark.parametrize(
    ("first", "second", "classes"),
    [
        (5, 9, ALL_CLASSES),
        (2, 5, ALL_CLASSES - {"below the low post"}),
        (14, 2, ALL_CLASSES - {"below the low post", "above the high post"}),
        (8, 8, {"below the low post", "equal to the low post", "above the high post"}),
    ],
)
def test_the_exhaustive_walk_meets_every_third_card_class_a_deal_has(
    first: int, second: int, classes: set[str]
) -> None:
    seen = {third_card_class(f, s, t) for f, s, t, _ in deals(first) if s == second and t is not None}
    assert seen == classes


def test_a_five_and_a_nine_with_a_seven_and_a_full_raise_pays_two_to_one_on_standard() -> None:
    got = settle(loader.get("standard/v1"), 5, 9, 7, ante=10, raise_amount=10)
    assert (got.result, got.payout, got.net, got.wagered) == (Result.WIN, 60, 40, 20)


def test_the_generous_table_pays_three_to_one_on_a_spread_of_three() -> None:
    got = settle(loader.get("generous/v1"), 5, 9, 7, ante=10, raise_amount=10)
    assert (got.result, got.payout, got.net) == (Result.WIN, 80, 60)


def test_a_spread_of_one_pays_five_to_one() -> None:
    got = settle(loader.get("standard/v1"), 4, 6, 5, ante=10)
    assert (got.result, got.payout, got.net) == (Result.WIN, 60, 50)


def test_a_pair_followed_by_a_matching_card_pays_eleven_to_one() -> None:
    got = settle(loader.get("standard/v1"), 8, 8, 8, ante=10)
    assert (got.result, got.payout, got.net) == (Result.TRIPS, 120, 110)


def test_a_pair_followed_by_any_other_card_returns_the_ante() -> None:
    got = settle(loader.get("standard/v1"), 8, 8, 3, ante=10)
    assert (got.result, got.payout, got.net) == (Result.PUSH, 10, 0)


def test_a_king_and_an_ace_are_consecutive_and_push_without_a_third_card() -> None:
    paytable = loader.get("standard/v1")
    assert classify(13, 14, paytable).outcome is Outcome.CONSECUTIVE
    assert not classify(13, 14, paytable).needs_third_card
    got = settle(paytable, 14, 13, None, ante=10)
    assert (got.result, got.payout, got.net) == (Result.PUSH, 10, 0)


def test_an_ace_and_a_two_make_the_widest_spread_of_eleven() -> None:
    paytable = loader.get("standard/v1")
    assert classify(14, 2, paytable).spread == 11
    assert classify(2, 14, paytable).odds == 1
    assert settle(paytable, 14, 2, 13, ante=10).payout == 20


def test_hitting_the_post_on_the_post_double_table_loses_twice_the_wager() -> None:
    got = settle(loader.get("post-double/v1"), 5, 9, 9, ante=10, raise_amount=10, bet_id=BET_ID)
    assert (got.result, got.payout, got.net, got.wagered) == (Result.LOSE, 0, -40, 40)
    assert transaction_rows(got) == [
        (f"{BET_ID}:ante", TransactionKind.ANTE, "debit", 10),
        (f"{BET_ID}:raise", TransactionKind.RAISE, "debit", 10),
        (f"{BET_ID}:post_penalty", TransactionKind.POST_PENALTY, "debit", 20),
        (f"{BET_ID}:payout", TransactionKind.PAYOUT, "credit", 0),
    ]


def test_hitting_the_post_on_the_standard_table_loses_only_the_wager() -> None:
    got = settle(loader.get("standard/v1"), 5, 9, 5, ante=10, raise_amount=10)
    assert (got.result, got.payout, got.net, got.wagered) == (Result.LOSE, 0, -20, 20)
    assert TransactionKind.POST_PENALTY not in {m.kind for m in got.transactions}


def test_a_card_outside_the_posts_on_the_post_double_table_loses_only_the_wager() -> None:
    got = settle(loader.get("post-double/v1"), 5, 9, 12, ante=10)
    assert (got.result, got.net, got.wagered) == (Result.LOSE, -10, 10)


def test_a_call_lists_no_raise_debit() -> None:
    got = settle(loader.get("standard/v1"), 5, 9, 2, ante=10, raise_amount=0)
    assert [m.kind for m in got.transactions] == [TransactionKind.ANTE, TransactionKind.PAYOUT]


def test_a_spread_or_a_pair_without_a_third_card_is_refused() -> None:
    paytable = loader.get("standard/v1")
    with pytest.raises(RuleError, match="third card"):
        settle(paytable, 5, 9, None, ante=10)
    with pytest.raises(RuleError, match="third card"):
        settle(paytable, 8, 8, None, ante=10)


@pytest.mark.parametrize("ante", [0, -5])
def test_an_ante_below_one_is_refused(ante: int) -> None:
    with pytest.raises(RuleError, match="ante"):
        settle(loader.get("standard/v1"), 5, 9, 7, ante=ante)
