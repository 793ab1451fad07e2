"""What the RTP report's fields and operation, and the audit records' stream, mean (see `openapi_descriptions.py`)."""

# ruff: noqa: E501 - a description per line reads better than wrapped strings
from __future__ import annotations

MONEY = "integer minor units of the line's currency"
DECIMAL = "a decimal string to 10 places: parse it with a decimal type, not a float"
FRACTION = "the same figure exactly, as a fraction string `p/q` in lowest terms"

PROPERTIES: dict[str, dict[str, str]] = {
    "OutcomeOut": {
        "outcome": "as `reddog rtp` names it: `consecutive`, `pair_push`, `trips`, `spread_1` .. `spread_11` (shared-deal rounds only)",
        "observed": "rounds of this line that came to it, voided spreads too (the posts decide the outcome)",
        "expected": f"observed rounds x probability, {DECIMAL}",
        "probability": f"its exact probability from a fresh shoe of this many decks, {DECIMAL}",
        "probability_fraction": FRACTION,
    },
    "ChiSquareOut": {
        "statistic": "Pearson's chi-square of the outcome counts against their exact probabilities",
        "degrees_of_freedom": "the outcomes counted, less one",
        "p_value": "the chance of a statistic at least this large from a fair game: a tiny value means the mix is off",
    },
    "RtpLineOut": {
        "paytable": "the released paytable id",
        "decks": "1..8",
        "currency": "ISO 4217 code: minor units only add up within a currency",
        "rounds": "settled rounds",
        "voided_rounds": "voided rounds",
        "bets": "bets of the settled rounds",
        "voided_bets": "bets of the voided rounds",
        "wagered": f"every debit: ante, raise, post penalty ({MONEY}); a per-seat void's hands settled at the deal included",
        "paid": f"every payout, stake included ({MONEY})",
        "refunded": f"what voids credited back ({MONEY})",
        "net": f"paid - wagered, the players' side ({MONEY})",
        "observed_rtp": f"paid / wagered, {DECIMAL}; null before anything was wagered",
        "observed_rtp_fraction": FRACTION,
        "expected_paid": f"the exact expected payout given each round's posts, the cards left in its shoe and the decisions taken, {DECIMAL}",
        "expected_paid_fraction": FRACTION,
        "expected_wagered": f"the exact expected debits (post penalties are random), {DECIMAL}",
        "expected_wagered_fraction": FRACTION,
        "expected_rtp": f"expected paid / expected wagered, {DECIMAL}; what a fair game pays for the decisions players took",
        "expected_rtp_fraction": FRACTION,
        "net_variance": f"the exact variance of the players' net (minor units squared), {DECIMAL}",
        "net_variance_fraction": FRACTION,
        "integrity_z": "(net - expected net) / sqrt(variance): near 0 for a fair game whatever the players decide; null when nothing was at risk",
        "theoretical_rtp": f"expected paid / expected wagered at optimal play from a fresh shoe, {DECIMAL}",
        "theoretical_rtp_fraction": FRACTION,
        "outcomes": "the round outcome mix of the line's shared-deal rounds against the exact probabilities (a per-seat round's hands each have their own outcome and are left out)",
    },
    "RtpReportOut": {
        "from": "the report covers rounds that ended at or after this time; null: from the first",
        "to": "... and before this time; null: up to now",
        "mode": "`live` play, or `test` (forced-card rounds): never mixed",
        "paytable": "only this paytable, as asked; null: every paytable",
        "table_id": "only this table, as asked; null: every table the caller may see",
        "lines": "one line per paytable, deck count and currency",
    },
}

OPERATIONS: dict[tuple[str, str], str] = {
    (
        "get",
        "/v1/audit/records",
    ): "The audit records of your tables' chains as JSON Lines (`application/x-ndjson`), byte for byte: each table's head and the checkpoints a page reaches, then its records after `after_seq`, a page at a time with a `Link: <...>; rel=\"next\"` header. Auditor credentials read every operator's chains and the system chain. The line format is in docs/audit.md.",
    (
        "get",
        "/v1/reports/rtp",
    ): "The authoritative RTP report, from the database: rounds, bets, wagered and paid, the exact expectation of the decisions taken and the integrity z-score, the outcome mix against its exact odds with a chi-square p-value, and the theoretical RTP at optimal play. Operators see their own tables; auditor credentials every operator's.",
}
