"""The RTP report as the API and `reddog report rtp --json` both show it: exact fractions as strings and decimals."""

from __future__ import annotations

import math
from fractions import Fraction

from paytables.red_dog.analysis.rtp import decimal_string, fraction_string
from paytables.red_dog.analysis.rtp_report import RtpLine
from service.api.report_wire import ChiSquareOut, OutcomeOut, RtpLineOut


def rtp_line_out(line: RtpLine) -> RtpLineOut:
    t, e = line.totals, line.totals.expectation
    return RtpLineOut(
        paytable=line.paytable,
        decks=line.decks,
        currency=line.currency,
        rounds=t.rounds,
        voided_rounds=t.voided_rounds,
        bets=t.bets,
        voided_bets=t.voided_bets,
        wagered=t.wagered,
        paid=t.paid,
        refunded=t.refunded,
        net=t.paid - t.wagered,
        observed_rtp=_decimal(line.observed_rtp),
        observed_rtp_fraction=_fraction(line.observed_rtp),
        expected_paid=decimal_string(e.expected_paid),
        expected_paid_fraction=fraction_string(e.expected_paid),
        expected_wagered=decimal_string(e.expected_wagered),
        expected_wagered_fraction=fraction_string(e.expected_wagered),
        expected_rtp=_decimal(line.expected_rtp),
        expected_rtp_fraction=_fraction(line.expected_rtp),
        net_variance=decimal_string(e.variance),
        net_variance_fraction=fraction_string(e.variance),
        integrity_z=line.integrity_z if line.integrity_z is None or math.isfinite(line.integrity_z) else None,
        theoretical_rtp=decimal_string(line.theoretical_rtp),
        theoretical_rtp_fraction=fraction_string(line.theoretical_rtp),
        outcomes=[
            OutcomeOut(
                outcome=o.outcome,
                observed=o.observed,
                expected=decimal_string(o.expected, 4),
                probability=decimal_string(o.probability),
                probability_fraction=fraction_string(o.probability),
            )
            for o in line.outcomes
        ],
        chi_square=ChiSquareOut(
            statistic=line.chi_square.statistic,
            degrees_of_freedom=line.chi_square.degrees_of_freedom,
            p_value=line.chi_square.p_value,
        ),
    )


def _decimal(value: Fraction | None) -> str | None:
    return None if value is None else decimal_string(value)


def _fraction(value: Fraction | None) -> str | None:
    return None if value is None else fraction_string(value)
