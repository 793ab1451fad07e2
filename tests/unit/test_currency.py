"""The ISO 4217 list: codes a table may use, with exponents checked against ones known by heart."""

from __future__ import annotations

import pytest

from paytables.currency import MINOR_UNIT_EXPONENT, minor_unit_exponent

KNOWN = {"EUR": 2, "USD": 2, "GBP": 2, "JPY": 0, "KRW": 0, "ISK": 0, "CLP": 0, "BHD": 3, "KWD": 3, "TND": 3,
         "CLF": 4, "UYW": 4, "XOF": 0, "XAF": 0, "CHF": 2, "VND": 0}  # fmt: skip


@pytest.mark.parametrize(("code", "exponent"), sorted(KNOWN.items()))
def test_well_known_currencies_have_their_minor_unit_exponent(code: str, exponent: int) -> None:
    assert minor_unit_exponent(code) == exponent


@pytest.mark.parametrize("code", ["ZZZ", "XAU", "XAG", "XDR", "XTS", "XXX", "HRK", "eur", "EU", "EURO", ""])
def test_codes_that_are_no_current_currency_with_a_minor_unit_have_none(code: str) -> None:
    assert minor_unit_exponent(code) is None


def test_every_code_is_three_capital_letters_with_an_exponent_iso_4217_uses() -> None:
    assert all(len(c) == 3 and c.isascii() and c.isupper() for c in MINOR_UNIT_EXPONENT)
    assert set(MINOR_UNIT_EXPONENT.values()) == {0, 2, 3, 4}
    assert 150 <= len(MINOR_UNIT_EXPONENT) <= 180  # list one has about 165 such codes
