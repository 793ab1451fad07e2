"""What every field, parameter and operation of the OpenAPI document means, kept apart from the wire Structs so
they stay short (a description here wins over a wire one); a test checks that every property and parameter has a
description and that none here names a field that no longer exists. The audit, recall and In Between fields and
operations are in their own modules, gathered here; every parameter is here, since routes share names."""

# ruff: noqa: E501 - a description per line reads better than wrapped strings
from __future__ import annotations

from typing import Any

from service.api.openapi import (
    openapi_audit_descriptions,
    openapi_friends_descriptions,
    openapi_inbetween_descriptions,
    openapi_outbox_descriptions,
    openapi_report_descriptions,
)

UUID_ID = "a UUID (version 4), lowercase with hyphens"
MONEY = "integer minor units of the table's currency (see `currency_exponent`)"
CARD = "a card code: rank `2-9TJQKA` then suit `CDHS`, pattern `^[2-9TJQKA][CDHS]$` (`TD` is the ten of diamonds)"
TIME = "an RFC 3339 time in UTC, with `Z`"
DECIMAL = "an exact figure as a decimal string, rounded to 10 places (`0.0354117647`): parse it with a decimal type, not a float"
FRACTION = "the same figure exactly, as a fraction string `p/q` in lowest terms (`301/8500`)"

RED_DOG_PROPERTIES: dict[str, dict[str, str]] = {
    "BetIn": {
        "player_id": "the aggregator's player id: 1-64 of `A-Za-z0-9._:@-`; one bet per player a round",
        "ante": f"the ante, {MONEY}, within the table's `min_ante..max_ante`",
    },
    "BetOut": {
        "bet_id": "`{round_id}.{n}`, n counting the round's bets from 1 in the order they were sent",
        "player_id": "the player, as sent",
        "ante": f"the ante, {MONEY}",
        "raise": f"the raise, {MONEY}; 0 before a decision and for a call",
        "decision": "`raise`, `call`, `timeout_call` (the window closed first); null until decided, and for rounds that had no raise window",
        "result": "`win`, `lose`, `push`, `trips`, `void` or `rolled_back`; null while the round is open",
        "payout": f"everything credited to the player, stake included ({MONEY}); null while open",
        "net": f"payout minus everything debited ({MONEY}); null while open; 0 for a void or rolled-back bet",
        "transactions": "the wallet movements, in the order to apply them; listed once the round ends",
        "cards": "the hand this bet plays: its own on a per-seat round (`seat` set), the round's `cards` on a shared one",
        "outcome": "what this bet's hand came to (`consecutive`, `pair`, `trips`, `spread`); a shared round's bets repeat the round's",
        "spread": "the ranks strictly between this bet's posts, for a spread",
        "payout_odds": "the paytable's \"X to 1\" for this bet's spread",
    },
    "RaiseIn": {
        "bet_id": "the bet deciding (`BetOut.bet_id`)",
        "amount": f"the raise, 1..ante ({MONEY}); absent: the whole ante",
        "action": "`raise`",
    },
    "CallIn": {
        "bet_id": "the bet deciding (`BetOut.bet_id`)",
        "amount": "only 0, or absent: a call raises nothing",
        "action": "`call`",
    },
    "CardOut": {
        "position": "1 and 2 are the posts, 3 the third card",
        "card": CARD,
        "shoe_index": "the card's place in the shoe's committed order, from 0: `order[2*i:2*i+2]` of the reveal",
    },
    "CreateRound": {
        "bets": "one bet per player, 1..the table's `max_bets`",
        "forced_cards": f"test tables only: the next cards to deal, in dealing order (shared: 2 or 3; per_seat: up to 3 a bet); each {CARD}",
    },
    "CreateTable": {
        "name": "a label for people, 1-100 characters",
        "paytable": "a released paytable id, `name/vN` (GET /v1/paytables lists them)",
        "currency": "an ISO 4217 code with a minor unit (`EUR`, `JPY`, `BHD`); `ZZZ` and the X-codes of metals and tests are refused",
        "min_ante": f"the smallest ante, {MONEY}",
        "max_ante": f"the largest ante, {MONEY}; at least `min_ante`",
        "decks": "decks in the shoe, 1..8",
        "shoe_policy": "`per_round`: a fresh shoe each round, rounds side by side; `cut_card`: one shoe across rounds, one round at a time",
        "penetration": "cut_card only: where the cut card goes, percent of the shoe, 10..90 (default 75)",
        "max_bets": "bets a round may take, 1..7",
        "raise_window_seconds": "how long the raise window stays open, 1..300 s",
        "mode": "`live`, or `test` (forced cards allowed, every record says test; needs RD_ALLOW_TEST_TABLES=true)",
    },
    "CurrencyTotals": {
        "currency": "the ISO 4217 code these sums are in",
        "rounds": "rounds on the page in this currency",
        "wagered": f"every debit listed on the page's rounds (ante, raise, post penalty, rollback of a credit), {MONEY}",
        "paid": f"every credit listed (payout, refund, rollback of a debit), {MONEY}",
        "net": "paid - wagered: what the page's rounds did to the players' balances",
    },
    "PaytableList": {"items": "every released paytable"},
    "PaytableOut": {
        "id": "`name/vN`: the id a table names",
        "name": "the paytable family",
        "version": "its version; released versions never change",
        "sha256": "sha256 (hex) of the canonical JSON of its terms; every round stores it",
        "description": "the terms in a sentence",
        "spread_odds": "payout odds for spreads 1..11, each `X to 1`",
        "trips_odds": "payout odds of trips, `X to 1`, on the ante",
        "post_rule": "`lose`: a third card equal to a post loses the wager; `lose_double`: it loses twice the wager",
        "max_raise_multiple": "a raise may be up to this many antes",
        "theoretical": "with `?decks=N`: the exact figures for that many decks",
    },
    "Problem": {
        "type": "always `about:blank`: the status says what kind of problem it is",
        "title": "the status's name (`Conflict`)",
        "status": "the HTTP status, repeated",
        "detail": "what went wrong, for people: do not parse it",
        "retryable": "true when the same request may succeed later (after `Retry-After`)",
    },
    "RevealOut": {
        "salt": "the shoe's secret salt, hex: `sha256(bytes.fromhex(salt) + order)` is the commitment",
        "order": "every card of the shoe in dealing order, card codes concatenated (`TD5S...`)",
    },
    "RollbackIn": {},
    "VoidIn": {"reason": "why the round is voided; kept in the round and its audit record"},
    "RoundOut": {
        "round_id": f"the round's id, {UUID_ID}",
        "table_id": f"its table's id, {UUID_ID}",
        "status": "`raise_window` (waiting for decisions), `settled`, `void` or `rolled_back`",
        "deal": "`shared` (one set of cards for the round) or `per_seat` (each bet its own hand), the table's",
        "paytable": "the paytable id it is played on",
        "paytable_sha256": "that paytable's sha256",
        "decks": "decks in its shoe",
        "cards": "the cards dealt so far, in order; the third never appears before settlement",
        "outcome": "`consecutive`, `pair`, `trips` or `spread`; null only before the posts are classified",
        "spread": "for a spread: ranks strictly between the posts (A-2 is 11)",
        "payout_odds": "for a spread: what a win pays, `X to 1`",
        "raise_window_closes_at": f"for a spread: the deadline for decisions, {TIME}",
        "opened_at": f"when the antes were taken, {TIME}",
        "settled_at": f"when it ended (settled, voided, or rolled back while open), {TIME}",
        "void_reason": "the reason given to void it",
        "test": "true on a test table: forced cards were allowed",
        "shoe": "the shoe's commitment, and its reveal once retired",
        "bets": "the bets, in the order they were sent",
        "currency": "the table's ISO 4217 currency: every amount of the round is in its minor units",
        "rolled_back_at": f"when it was rolled back, {TIME}",
        "rollback_reason": "the reason given to roll it back",
        "recall_link": "the path of this round's `POST .../recall-link`: a signed POST there returns a link to the round's replay page, for support staff or the player, that opens without credentials until it expires",
    },
    "RoundPage": {
        "items": "rounds, newest first",
        "next_cursor": "opaque: pass it back as `cursor` for the next page; null on the last page",
        "totals": "per currency, what this page's rounds moved (not the whole history): for reconciliation",
    },
    "ShoeOut": {
        "commitment": "sha256 (hex) over salt + order, published before the first card is dealt",
        "reveal": "null until the shoe is retired (a per-round shoe when its round ends, a cut-card shoe when replaced)",
    },
    "TableList": {"items": "the operator's tables, newest first"},
    "TableOut": {
        "table_id": f"the table's id, {UUID_ID}",
        "name": "its label",
        "status": "`open` or `closed` (no new rounds)",
        "deal": "`shared` (one set of cards every bet plays) or `per_seat` (each bet its own hand: Red Dog Poker)",
        "paytable": "the paytable id",
        "paytable_sha256": "that paytable's sha256",
        "decks": "decks in a shoe",
        "shoe_policy": "`per_round` or `cut_card`",
        "penetration": "cut_card: the cut card's place, percent; null for per_round",
        "currency": "ISO 4217 code",
        "currency_exponent": "the currency's ISO 4217 minor unit: an amount n is n / 10^currency_exponent of the currency (EUR 2, JPY 0, BHD 3)",
        "min_ante": f"the smallest ante, {MONEY}",
        "max_ante": f"the largest ante, {MONEY}",
        "max_bets": "bets a round may take",
        "raise_window_seconds": "how long a raise window stays open",
        "mode": "`live` or `test`",
        "created_at": f"when it was opened, {TIME}",
        "closed_at": f"when it was closed, {TIME}; null while open",
        "theoretical": "the exact figures of its paytable and deck count",
    },
    "Theoretical": {
        "paytable": "the paytable id",
        "paytable_sha256": "its sha256",
        "decks": "decks in a fresh shoe",
        "house_edge": f"expected loss per ante at optimal play, {DECIMAL}",
        "house_edge_fraction": FRACTION,
        "rtp_per_total_bet": f"expected return per unit wagered (ante + raise) at optimal play, {DECIMAL}",
        "rtp_per_total_bet_fraction": FRACTION,
        "min_raise_spread": "optimal play raises from this spread up; null if never",
        "raise_spreads": "the spreads optimal play raises on",
        "never_raise_house_edge": f"the house edge of a player who always calls, {DECIMAL}",
        "never_raise_house_edge_fraction": FRACTION,
        "std_dev_per_ante": f"standard deviation of the net per ante at optimal play, {DECIMAL}",
        "outcome_probabilities": "exact probability of each outcome (consecutive, pair_push, trips, spread_1..spread_11), as fractions `p/q`",
    },
    "TransactionOut": {
        "id": "stable and unique: `{bet_id}:{kind}`, and `{id}:rollback` for a reversal; apply each id once",
        "kind": "`ante`, `raise`, `post_penalty` (debits), `payout`, `refund` (credits), or `rollback` (reverses another)",
        "type": "`debit` (from the player) or `credit` (to the player)",
        "amount": f"{MONEY}; a payout of 0 is listed so the wallet can close the round",
        "currency": "the table's ISO 4217 currency",
        "reverses": "for a `rollback`: the id of the transaction it reverses; null otherwise",
    },
}

# A name means one thing everywhere, or (a dict) one thing per operation that takes it: (method, path) -> text.
PARAMETERS: dict[str, str | dict[tuple[str, str], str]] = {
    "table_id": {
        ("get", "/v1/reports/rtp"): f"only this table, {UUID_ID}",
        ("get", "/v1/tables/{table_id}"): f"the table's id, {UUID_ID}",
        ("post", "/v1/tables/{table_id}/close"): f"the table's id, {UUID_ID}",
        ("post", "/v1/tables/{table_id}/rounds"): f"the table's id, {UUID_ID}",
        ("get", "/v1/rounds"): f"only rounds of this table, {UUID_ID}",
        (
            "get",
            "/v1/audit/checkpoints/latest",
        ): f"the table's id, {UUID_ID}; auditors: the nil UUID for the system chain",
        ("get", "/v1/audit/consistency"): f"the table's id, {UUID_ID}; auditors: the nil UUID for the system chain",
    },
    "round_id": f"a round's id, {UUID_ID}",
    "game_id": f"an In Between game's id, {UUID_ID}",
    "player_id": {
        ("get", "/v1/rounds"): "only rounds with a bet by this player",
        ("get", "/v1/players/{player_id}/rounds"): "the player, as the rounds name them (1-64 characters)",
    },
    "status": "only rounds in this status",
    "from": {
        (
            "get",
            "/v1/rounds",
        ): "only rounds opened at or after this RFC 3339 date-time; one without a zone is read as UTC; a bare date (`2020-01-01`) is refused",
        (
            "get",
            "/v1/audit/consistency",
        ): "the size of a log you hold an anchor of (a checkpoint's `tree_size`, a reply's `checkpoint_size`); 0..the checkpoint's size",
    },
    "to": {
        ("get", "/v1/rounds"): "only rounds opened before this date-time (same rules as `from`)",
        ("get", "/v1/audit/consistency"): "the `tree_size` of a checkpoint to prove against; absent: the latest",
    },
    "settled_from": "only rounds that ended at or after this date-time (same rules as `from`); open rounds never match",
    "settled_to": "only rounds that ended before this date-time (same rules as `from`)",
    "limit": {
        ("get", "/v1/rounds"): "rounds per page, 1..200",
        ("get", "/v1/audit/records"): "lines per page (records, heads and checkpoints), 1..the server's limit",
        ("get", "/v1/players/{player_id}/rounds"): "how many of the player's last rounds, 1..100",
        ("get", "/v1/inbetween/games/{game_id}/records"): "records per page, 1..1000",
        ("get", "/v1/friends/tables/{code}/records"): "records per page, 1..1000",
    },
    "cursor": "the `next_cursor` of the previous page, as it was; anything else is refused",
    "after": "the last `seq` already read (0: from the start); a page's `next_after`",
    "after_table": f"resume after this chain (with `after_seq`): the `Link` header of the previous page gives both, {UUID_ID}",
    "after_seq": "resume after this record of `after_table` (0: from its start)",
    "name": {
        ("get", "/v1/paytables/{name}/{version}"): "the paytable family (`standard`)",
        ("get", "/v1/inbetween/rulesets/{name}/{version}"): "the rule set's name, the middle of its id (`nepal`)",
    },
    "version": {
        ("get", "/v1/paytables/{name}/{version}"): "the version (`v1`)",
        ("get", "/v1/inbetween/rulesets/{name}/{version}"): "the rule set's version (`v1`)",
    },
    "decks": "1..8: include the exact theoretical figures for that many decks",
    "paytable": "only rounds played on this released paytable id (`standard/v1`)",
    "mode": "`live` (default) or `test`: forced-card rounds are reported apart, never mixed with live play",
    "expires": "the link's expiry, unix seconds, as the link gives it",
    "sig": "the link's signature, as the link gives it (64 hex digits)",
    "player": "as the link gives it: show only this player's bet",
    "Idempotency-Key": "Required by the server on every POST (1-128 printable ASCII characters, scoped to your operator, and signed). "
    "Make a fresh one (a UUID) for each new request and keep it to retry: the same key and request return the first reply byte for byte.",
}

PARAMETERS.update(openapi_friends_descriptions.PARAMETERS)
_LIMITS = PARAMETERS["limit"]
assert isinstance(_LIMITS, dict)  # one description per route
_LIMITS.update(openapi_outbox_descriptions.LIMITS)

RED_DOG_OPERATIONS: dict[tuple[str, str], str] = {
    ("get", "/v1/paytables"): "Every released paytable with its sha256. Public: no signature.",
    (
        "get",
        "/v1/paytables/{name}/{version}",
    ): "One released paytable; with `?decks=N` also its exact theoretical figures (house edge, RTP, optimal raises, outcome probabilities). Public: no signature.",
    (
        "post",
        "/v1/tables",
    ): "Open a table: its paytable, ISO 4217 currency, ante limits, decks and shoe policy are fixed for its life. The reply includes the exact theoretical figures.",
    ("get", "/v1/tables"): "Your tables, newest first.",
    ("get", "/v1/tables/{table_id}"): "One of your tables.",
    (
        "post",
        "/v1/tables/{table_id}/close",
    ): "Close the table to new rounds; rounds in flight finish. An idle cut-card shoe is retired and revealed.",
    (
        "post",
        "/v1/tables/{table_id}/rounds",
    ): "Take the antes and deal the two posts. Consecutive posts and pairs settle in this call; a spread opens the raise window. `forced_cards` only on a test table.",
    (
        "post",
        "/v1/rounds/{round_id}/decisions",
    ): "A player's raise or call, tagged by `action`. The last open bet's decision deals the third card and settles every bet in this call.",
    (
        "post",
        "/v1/rounds/{round_id}/close",
    ): "The dealer closes the raise window now: undecided bets `timeout_call`, the third card is dealt and every bet settles.",
    (
        "post",
        "/v1/rounds/{round_id}/void",
    ): "Void a round still in its raise window (a dealer or system fault): every stake taken is credited back as one `refund` per bet.",
    (
        "post",
        "/v1/rounds/{round_id}/rollback",
    ): "Undo a round whose wallet debit failed, whatever it came to (open, settled at open, settled, void), within RD_ROLLBACK_GRACE_SECONDS of its opening: each of its transactions is reversed by a `rollback` transaction of its own; nothing is deleted; the round becomes `rolled_back`. Unlike void, it works after settlement and reverses movement by movement. Rolling back a rolled-back round returns it unchanged.",
    (
        "get",
        "/v1/rounds/{round_id}",
    ): "One round. A round whose raise window has passed is settled (by timeout) before the reply.",
    (
        "get",
        "/v1/rounds",
    ): "Your rounds, newest first, filtered and paged by cursor, with per-currency totals of each page. Rounds are shown as stored: one whose window passed a moment ago may read `raise_window` until the sweeper settles it.",
}

PROPERTIES = (
    RED_DOG_PROPERTIES
    | openapi_audit_descriptions.PROPERTIES
    | openapi_inbetween_descriptions.PROPERTIES
    | openapi_report_descriptions.PROPERTIES
    | openapi_friends_descriptions.PROPERTIES
    | openapi_outbox_descriptions.PROPERTIES
)
OPERATIONS = (
    RED_DOG_OPERATIONS
    | openapi_audit_descriptions.OPERATIONS
    | openapi_inbetween_descriptions.OPERATIONS
    | openapi_report_descriptions.OPERATIONS
    | openapi_friends_descriptions.OPERATIONS
    | openapi_outbox_descriptions.OPERATIONS
)


def describe(doc: dict[str, Any]) -> None:
    """Fill in the descriptions above wherever Litestar left none."""
    schemas = doc["components"]["schemas"]
    for name, fields in PROPERTIES.items():
        for field, text in fields.items():
            schemas[name]["properties"][field]["description"] = text
    for path, item in doc["paths"].items():
        for method, op in item.items():
            if (method, path) in OPERATIONS:
                op["description"] = OPERATIONS[(method, path)]
            for param in op.get("parameters", []):
                described = _parameter(param["name"], method, path)
                if described is not None:  # else left bare, which a test reports
                    param["description"] = described
                    param["schema"].pop("description", None)


def _parameter(name: str, method: str, path: str) -> str | None:
    described = PARAMETERS.get(name)
    return described.get((method, path)) if isinstance(described, dict) else described
