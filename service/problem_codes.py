"""Every problem `code` the service can answer, with its status and when: the one list the OpenAPI enum, the
per-endpoint error descriptions and the error table of docs/api.md are checked against."""

# ruff: noqa: E501 - one row of the table per line, as in the docs, reads better than wrapped strings
from __future__ import annotations

import msgspec


class ProblemCode(msgspec.Struct, frozen=True):
    code: str
    status: int
    when: str


PROBLEM_CODES = (
    ProblemCode("VALIDATION_ERROR", 400, "malformed JSON, unknown field, wrong type, out-of-range value, a control character or trailing newline where the [limits](#limits) allow none, bad query, cursor or time"),
    ProblemCode("VALIDATION_ERROR", 422, "well-formed but refused: unknown paytable or rule set, a currency that is not ISO 4217, `max_ante < min_ante`, a player twice in a round, an In Between seat with neither `player_id` nor `computer`, forced cards the shoe cannot hold"),
    ProblemCode("IDEMPOTENCY_KEY_REQUIRED", 400, "a POST without a valid `Idempotency-Key`"),
    ProblemCode("DUPLICATE_HEADER", 400, "a security header (`X-Operator-Id`, `X-Timestamp`, `X-Signature`, `Idempotency-Key`) sent twice"),
    ProblemCode("DUPLICATE_JSON_KEY", 400, "a JSON object gives one key twice"),
    ProblemCode("UNAUTHENTICATED", 401, "missing or wrong signature, unknown operator, stale timestamp"),
    ProblemCode("SEAT_TOKEN_REQUIRED", 401, "Friends' tables: a seat's request without its token (the `rd_seat` cookie, or `Authorization: Bearer`)"),
    ProblemCode("SEAT_TOKEN_INVALID", 401, "Friends' tables: a token that acts for no seat of this table (another table's, or one whose player left)"),
    ProblemCode("NOT_HOST", 403, "Friends' tables: starting, or handing a seat over, by a seat that is not the host's"),
    ProblemCode("AUDITOR_READ_ONLY", 403, "auditor credentials on a route that is not theirs, or on a POST"),
    ProblemCode("FORCED_CARDS_NOT_ALLOWED", 403, "forced cards on a live table or game, or a test table or game on a server without `RD_ALLOW_TEST_TABLES=true`"),
    ProblemCode("RECALL_LINK_INVALID", 403, "a recall link whose signature does not check (changed, or not ours)"),
    ProblemCode("NOT_FOUND", 404, "no such table, round, bet, paytable, game, rule set or checkpoint for your operator"),
    ProblemCode("FRIENDS_DISABLED", 404, "Friends' tables: this server does not serve them (`RD_FRIENDS`; off by default outside development)"),
    ProblemCode("METHOD_NOT_ALLOWED", 405, "a method the path does not take (a GET of `/v1/rounds/{id}/void`)"),
    ProblemCode("REQUEST_TIMEOUT", 408, "the request's headers did not arrive within `RD_HEADER_TIMEOUT_SECONDS` (10 s by default) of its first byte, or its body within `RD_BODY_TIMEOUT_SECONDS` (30 s) of its headers; the connection is closed; retryable"),
    ProblemCode("IDEMPOTENCY_CONFLICT", 409, "the key was used for a different request"),
    ProblemCode("NOT_IN_RAISE_WINDOW", 409, "a decision, close or void on a round that is not in its raise window"),
    ProblemCode("RAISE_WINDOW_CLOSED", 409, "a decision after the deadline (the round is settled with `timeout_call` first)"),
    ProblemCode("ALREADY_DECIDED", 409, "the bet already raised or called"),
    ProblemCode("TABLE_CLOSED", 409, "a new round on a closed table, or closing it twice"),
    ProblemCode("ROUND_IN_PROGRESS", 409, "a new round on a `cut_card` table while one is open"),
    ProblemCode("ROLLBACK_GRACE_EXPIRED", 409, "a rollback more than `RD_ROLLBACK_GRACE_SECONDS` after the round opened"),
    ProblemCode("CHAIN_TRUNCATED", 409, "records a checkpoint signed are missing from the database (a proof cannot be built)"),
    ProblemCode("STALE_VERSION", 409, "In Between: the move names a game `version` that is no longer current (another move landed first)"),
    ProblemCode("NOT_YOUR_TURN", 409, "In Between: the game waits for another player (or the player has no seat)"),
    ProblemCode("WRONG_ACTION", 409, "In Between: not the move the game waits for (a bet while an ace call is awaited, a call while a bet is)"),
    ProblemCode("GAME_OVER", 409, "In Between: any move once the game has ended"),
    ProblemCode("TABLE_STARTED", 409, "Friends' tables: a join once the game has started (watch it instead), or a start while a game is being played"),
    ProblemCode("TABLE_FULL", 409, "Friends' tables: a join when every seat is taken"),
    ProblemCode("GAME_NOT_STARTED", 409, "Friends' tables: a move before the host has started the game"),
    ProblemCode("SEAT_NOT_HELD", 409, "Friends' tables: giving back a seat the computer is not playing for a person"),
    ProblemCode("SEAT_LEFT", 409, "Friends' tables: handing over a seat whose player has left (the computer already keeps it)"),
    ProblemCode("RECALL_LINK_EXPIRED", 410, "a recall link past its `expires`"),
    ProblemCode("BODY_TOO_LARGE", 413, "a body over `RD_MAX_BODY_BYTES` (64 KiB by default), refused before it is read"),
    ProblemCode("UNSUPPORTED_MEDIA_TYPE", 415, "a JSON body not sent as `Content-Type: application/json`"),
    ProblemCode("CLIENT_ERROR", 400, "any other refusal of the HTTP layer that has no code of its own (none is known)"),
    ProblemCode("BET_LIMIT", 422, "an ante outside the table's `min_ante..max_ante`, or more bets than `max_bets`"),
    ProblemCode("RAISE_EXCEEDS_ANTE", 422, "a raise above the ante (or below 1), or a call with an amount"),
    ProblemCode("INVALID_GAME", 422, "In Between: seats, ante or rounds the rule set does not offer; a player in two seats"),
    ProblemCode("BET_OVER_POT", 422, "In Between: a bet larger than the pot"),
    ProblemCode("BET_OVER_CHIPS", 422, "In Between: a bet larger than the player's chips"),
    ProblemCode("BET_BELOW_MINIMUM", 422, "In Between: a bet under the least bet (the ante, where the rule set's `min_bet` is `ante`)"),
    ProblemCode("IMPOSSIBLE_CALL", 422, "In Between: higher than a pair of aces, or lower than a pair of twos"),
    ProblemCode("PASS_NOT_ALLOWED", 422, "In Between: a pass where the rule set's `pass` is `never` (every player must bet), or after face-down posts were shown"),
    ProblemCode("STOP_NOT_ALLOWED", 422, "In Between: an agreement to stop where the rule set's `stop_by_agreement` is not set"),
    ProblemCode("BUY_NOT_ALLOWED", 422, "In Between: a buy of chips where the rule set has no `buy_chips`"),
    ProblemCode("BUY_OVER_LIMIT", 422, "In Between: a buy under 1 chip, or over what the rule set's `buy_chips.limit` leaves the player"),
    ProblemCode("RATE_LIMITED", 429, "Friends' tables: too many tables created from the address this hour, joins this minute (from the address or of the code), or codes not found this minute; `Retry-After` says when to try again; retryable"),
    ProblemCode("CLIENT_DISCONNECTED", 499, "never sent: what the request log and the metrics record for a request whose client closed the connection before the reply (logged at info)"),
    ProblemCode("INTERNAL_ERROR", 500, "a bug: logged with the request id; `retryable: false` (resending the same request is unlikely to help)"),
    ProblemCode("SERVICE_UNAVAILABLE", 503, "the database is unreachable or too contended, or a worker holds `RD_MAX_CONNECTIONS` connections and none is idle; retryable"),
    ProblemCode("CHAIN_BEHIND_CHECKPOINT", 503, "the table's audit chain in the database is behind (or differs from) a checkpoint already published, after a failover or a restore: nothing is added to it until an operator runs `reddog audit accept-fork`; the other tables serve; not retryable until then"),
    ProblemCode("CHECKPOINTS_DISABLED", 503, "a development server run without `RD_AUDIT_SIGNING_KEY` signs no checkpoints"),
    ProblemCode("RECALL_LINKS_DISABLED", 503, "a development server run without `RD_AUDIT_SIGNING_KEY` issues no recall links"),
)  # fmt: skip

CODES: tuple[str, ...] = tuple(dict.fromkeys(p.code for p in PROBLEM_CODES))


def when(code: str, status: int) -> str:
    """What a code means at a status, as the docs say it."""
    return next(p.when for p in PROBLEM_CODES if p.code == code and p.status == status)
