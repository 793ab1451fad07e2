"""ISO 4217 currencies a table may use, with their minor-unit exponent: amounts are integers of 10**-exponent.

The active codes of ISO 4217 list one that have a minor unit. Codes without one (precious metals, XDR, XTS, XXX and
the other X-codes of funds and testing) are left out: a table's amounts must be whole minor units of something.
Withdrawn codes (HRK, SLL, ZWL, ANG, CUC, ...) are left out too: a new table should not be opened in them.
"""

from __future__ import annotations

_BY_EXPONENT = {
    0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
    2: (
        "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE "
        "CHF CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD "
        "HNL HTG HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP "
        "MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD "
        "SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS "
        "VED VES WST XCD XCG YER ZAR ZMW ZWG"
    ),
    3: "BHD IQD JOD KWD LYD OMR TND",
    4: "CLF UYW",
}

MINOR_UNIT_EXPONENT: dict[str, int] = {code: e for e, codes in _BY_EXPONENT.items() for code in codes.split()}


def minor_unit_exponent(code: str) -> int | None:
    """How many decimal places the currency's minor unit has (EUR 2, JPY 0, BHD 3); None when it is not one."""
    return MINOR_UNIT_EXPONENT.get(code)
