"""The RTP report as the API shows it: money in minor units, exact figures as decimal strings beside "p/q"."""

from __future__ import annotations

from datetime import datetime
from typing import Literal
from uuid import UUID

import msgspec

ModeName = Literal["live", "test"]


class OutcomeOut(msgspec.Struct, kw_only=True):
    outcome: str  # consecutive, pair_push, trips, spread_1 .. spread_11
    observed: int
    expected: str  # rounds x probability, decimal
    probability: str  # exact, from a fresh shoe of this many decks, decimal
    probability_fraction: str


class ChiSquareOut(msgspec.Struct, kw_only=True):
    statistic: float
    degrees_of_freedom: int
    p_value: float


class RtpLineOut(msgspec.Struct, kw_only=True):
    paytable: str
    decks: int
    currency: str
    rounds: int  # settled
    voided_rounds: int
    bets: int  # of settled rounds
    voided_bets: int
    wagered: int  # every debit: ante, raise, post penalty
    paid: int  # every payout, stake included
    refunded: int  # by voided rounds
    net: int  # paid - wagered, the players' side
    observed_rtp: str | None  # paid / wagered
    observed_rtp_fraction: str | None
    expected_paid: str  # exact, given each round's posts, shoe and decisions
    expected_paid_fraction: str
    expected_wagered: str
    expected_wagered_fraction: str
    expected_rtp: str | None
    expected_rtp_fraction: str | None
    net_variance: str
    net_variance_fraction: str
    integrity_z: float | None  # (net - expected net) / sqrt(variance); null when nothing was at risk
    theoretical_rtp: str  # expected paid / expected wagered at optimal play from a fresh shoe
    theoretical_rtp_fraction: str
    outcomes: list[OutcomeOut]  # every ended round, voided spreads too: the posts decide the outcome
    chi_square: ChiSquareOut


class RtpReportOut(msgspec.Struct, kw_only=True):
    from_: datetime | None = msgspec.field(name="from")
    to: datetime | None
    mode: ModeName
    paytable: str | None
    table_id: UUID | None
    lines: list[RtpLineOut]
