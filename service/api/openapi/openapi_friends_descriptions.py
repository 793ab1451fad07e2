"""What the friends' tables' routes and bodies say in the OpenAPI document, gathered by `openapi_descriptions` with
the others (a test keeps them equal to the document). The prose is docs/friends-api.md."""

# ruff: noqa: E501 - a description per line reads better than wrapped strings
from __future__ import annotations

from service.api.openapi.openapi_inbetween_descriptions import AGREE_STOP, BUY, KEEP_PAIR, SHOW, SPLIT

TIME = "an RFC 3339 time in UTC, with `Z`"
NAME = "display text in any script (`राम`, `Sita`, emoji), 1-32 characters, no control or format characters (ZWJ and ZWNJ allowed): shown, escaped, never an id; two players may share one"
BEARER = "true: the seat's token comes back in the body for a client without cookies (send it as `Authorization: Bearer`), and no cookie is set; false (default): it is set as the HttpOnly cookie `rd_seat` only"
VERSION = "the game's `version` (GameOut.version) this move answers; a move for a version no longer current is refused (STALE_VERSION)"
PERSONALITY = "how much of Kelly's share of its chips the computer bets, from the exact odds of the unseen cards: `cautious` half, `steady` all, `bold` twice"
TIP = 'the Nepali table\'s end-game tip, "Late in the game, the leader can pass more often": in the last round, the seat that leads passes any bet it wins less than two times in three'

PROPERTIES: dict[str, dict[str, str]] = {
    "CreateFriendsTable": {
        "name": f"the host's name: {NAME}",
        "ruleset": "a released rule set's whole id (any of `GET /v1/inbetween/rulesets`); absent: the Nepali table as it plays (`inbetween/nepal/v2`)",
        "rounds": "rounds to play: 5, 10 (default) or 15",
        "ante": "the ante in play chips: 5, 10 (default) or 20",
        "seats": "seats at the table, 2..8 (default 4); those still empty when the host starts are the computer's",
        "turn_seconds": "how long each person has to act, 15..120 s (default 30); then the timer plays the default move",
        "bearer": BEARER,
    },
    "JoinFriendsTable": {
        "name": NAME,
        "bearer": BEARER,
        "join_key": "random (a UUID will do), made by the phone once per join it means and sent again with every "
        "retry: a retried join gets the seat and token the first took, never a second seat; with another name or "
        "`bearer` it is refused",
    },
    "ComputerIn": {"personality": PERSONALITY, "endgame_tip": TIP},
    "SeatComputerIn": {"seat": "the empty seat it plays, 0..seats-1", "personality": PERSONALITY, "endgame_tip": TIP},
    "StartFriendsGame": {
        "computers": "how the computer plays empty seats; a seat not named plays steady, cautious or bold by its number",
        "forced_cards": "a server run with RD_ALLOW_TEST_TABLES=true only (else 403 FORCED_CARDS_NOT_ALLOWED): the "
        "first pack's first cards, in order, and the game is marked `test`; for tests that need a pair or an ace",
    },
    "CallAceMove": {"version": VERSION, "call": "a first-post ace is `high` or `low`", "action": "`call_ace`"},
    "CallPairMove": {
        "version": VERSION,
        "call": "the third card will be `higher` or `lower` than the pair",
        "action": "`call_pair`",
    },
    "BetMove": {"version": VERSION, "amount": "the bet, `turn.min_bet..turn.max_bet` chips", "action": "`bet`"},
    "PassMove": {"version": VERSION, "action": "`pass`: instead of a pair call or a bet"},
    "SplitMove": {"version": VERSION, "action": SPLIT},
    "KeepPairMove": {"version": VERSION, "action": KEEP_PAIR},
    "AgreeStopMove": {"version": VERSION, "action": AGREE_STOP},
    "ShowMove": {"version": VERSION, "action": SHOW},
    "BuyMove": {
        "version": VERSION,
        "amount": "the chips bought, 1 up to what the rule set's limit leaves the seat",
        "action": BUY,
    },
    "FriendsSeatOut": {
        "seat": "the seat's number, from 0",
        "name": "the name its player typed, as display text; null for a computer's seat",
        "player_id": "the seat in the game and its records: `seat-<n>`",
        "computer_plays": "true while the computer plays the seat: a computer's seat, or a person's held by the computer",
        "held_by": "why the computer plays a person's seat: `host` (handed over), `missed` (two missed turns in a row), `left` (the player left); null otherwise",
        "missed": "turns in a row the timer played for this seat",
        "personality": PERSONALITY,
        "endgame_tip": TIP,
        "host": "true for the host's seat",
    },
    "YouOut": {
        "seat": "your seat",
        "host": "true when you are the host",
        "to_act": "true when the game waits for your seat",
        "tip": "`leader_may_pass` when the end-game tip speaks to you now (the last round, and you lead); null otherwise",
    },
    "FriendsTableOut": {
        "code": "the table's code: 8 of `23456789ABCDEFGHJKMNPQRTVWXY`",
        "display_code": "the code to read aloud, in two groups of four (`ABCD-EFGH`)",
        "share_url": "the link to send: RD_PUBLIC_URL + `/play/inbetween?code=<code>`",
        "status": "`waiting` (for the host to start), `playing`, `over` (a rematch may start) or `closed` (idle too long)",
        "version": "the table's version: every change moves it on, and every push names it",
        "ruleset": "the rule set the table plays",
        "rounds": "rounds a game plays",
        "ante": "the ante, in play chips",
        "seats": "seats at the table",
        "turn_seconds": "how long each person has to act",
        "turn_deadline": f"when the awaited person's time runs out, {TIME}; null when no person is awaited",
        "you": "your seat, as the token says; null for a spectator",
        "players": "every seat taken, in seat order (every seat once the game starts)",
        "game": "the game, once started; null while waiting",
        "records": "the game's records after the `after` the request named, in order (empty without one)",
    },
    "ReactionIn": {
        "reaction": "one of a fixed few, by name (the page draws the emoji): `clap` 👏, `laugh` 😂, `wow` 😮, `sad` 😢, `fire` 🔥, `namaste` 🙏; never free text"
    },
    "ReactionOut": {
        "code": "the table's code",
        "seat": "the seat that sent it (yours)",
        "reaction": "the reaction's name, as sent",
    },
    "FriendsJoinedOut": {
        "seat": "your seat",
        "token": "your seat's token, only with `bearer: true`: send it as `Authorization: Bearer`; keep it to rejoin",
        "table": "the table as your seat sees it",
    },
}

TABLE = "/v1/friends/tables/{code}"
SEATED = (
    "Acts by the seat's token: the HttpOnly cookie `rd_seat` set when it joined, or `Authorization: Bearer <token>`."
)
OPERATIONS: dict[tuple[str, str], str] = {
    (
        "post",
        "/v1/friends/tables",
    ): "Open a friends' table for play chips: a code to read aloud and a link to send (from RD_PUBLIC_URL, never the Host header). The host takes seat 0 and gets its token. Public: no operator signs it; limited per address.",
    (
        "get",
        TABLE,
    ): f"The table as your seat sees it, or as a spectator sees it without a token. With `after` (the game version you last saw) it carries the game's records since then: what a phone that reconnects reads to catch up. {SEATED}",
    (
        "post",
        f"{TABLE}/join",
    ): "Take the lowest free seat of a waiting table by its code, with your name; the reply holds your seat's token. A started table refuses (TABLE_STARTED): watch it instead. Limited per address and per code.",
    (
        "post",
        f"{TABLE}/start",
    ): f"The host starts the game; every empty seat is the computer's. Once a game is over, the same starts a rematch with the same seats. {SEATED}",
    (
        "post",
        f"{TABLE}/moves",
    ): f"Your seat's call, bet or pass, tagged by `action`, on the game version it saw; then the computer plays its seats until a person must act. {SEATED}",
    (
        "post",
        f"{TABLE}/leave",
    ): f"Leave the table: your token stops working. Before the game your seat is free again; during it the computer keeps it. A leaving host passes the role to the next person. {SEATED}",
    (
        "post",
        f"{TABLE}/back",
    ): f"Take your seat back from the computer (after two missed turns, or a host's hand-over). {SEATED}",
    (
        "post",
        f"{TABLE}/seats/{{seat}}/computer",
    ): f"The host hands a seat to the computer, which plays it as asked until it is given back (a computer's own seat just changes how it plays). {SEATED}",
    (
        "post",
        f"{TABLE}/seats/{{seat}}/person",
    ): f"The host gives a seat the computer holds back to its player. {SEATED}",
    (
        "post",
        f"{TABLE}/reactions",
    ): f"Your seat sends an emoji reaction, one of a fixed few by name, to every phone at the table: pushed as an `event: reaction` on the event stream, kept nowhere, and no change of the table or its game (no version moves, no record is written). A few per seat in ten seconds (RD_FRIENDS_REACTIONS_PER_10S, 5); spectators cannot react. {SEATED}",
    (
        "get",
        f"{TABLE}/events",
    ): 'Server-Sent Events, one `table` event per change: `id` is the table\'s version, `data` is `{"code", "version", "game_version", "status"}`. The first event is the table as it is when the stream starts. A hint only: fetch the state with `after` to see what changed. A seat\'s reaction comes as an `event: reaction` with no `id`, `data` `{"code", "seat", "reaction"}`. A keep-alive comment every 15 s; the stream ends after 10 minutes (EventSource reconnects).',
    (
        "get",
        f"{TABLE}/records",
    ): "The table's game's audit records in order, a page at a time, while the table is open: public and read-only, so anyone at the table can check the deal against the pack's commitment and its reveal.",
}

PARAMETERS: dict[str, str] = {
    "code": "the table's code, as printed or typed: `ABCD-EFGH`, `abcdefgh` (case, a dash and spaces do not matter)",
    "seat": "the seat's number, from 0",
}
