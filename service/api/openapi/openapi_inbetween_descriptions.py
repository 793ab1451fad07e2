"""What the In Between routes and bodies say in the OpenAPI document: the fields and operations `openapi_descriptions`
gathers with the Red Dog ones (a test keeps them equal to the document). The prose is docs/inbetween-api.md."""

# ruff: noqa: E501 - a description per line reads better than wrapped strings
from __future__ import annotations

UUID_ID = "a UUID (version 4), lowercase with hyphens"
TIME = "an RFC 3339 time in UTC, with `Z`"
CARD = "a card code: rank `2-9TJQKA` then suit `CDHS` (`TD` is the ten of diamonds)"
VERSION = "the game's `version` this move answers; a move for a version no longer current is refused (STALE_VERSION)"
PLAYER = "the player's id: 1-64 of `A-Za-z0-9._:@-`; it must be the player the game waits for (`to_act`)"
RULE = "the rule's tag"

PROPERTIES: dict[str, dict[str, str]] = {
    "RuleSetList": {"items": "every released In Between rule set"},
    "RuleSetOut": {
        "id": "`inbetween/<name>/v<N>`: the id a game names",
        "description": "the house rules in words",
        "sha256": "sha256 (hex) of `terms` as canonical JSON (keys sorted, no whitespace); every game records it",
    },
    "RuleTerms": {
        "id": "the rule set's id",
        "min_players": "the fewest seats a game takes, 2..8",
        "max_players": "the most seats a game takes, 2..8",
        "starting_chips": "the play chips each player starts with",
        "antes": "the antes a game may choose from, in chips",
        "rounds": "the round counts a game may choose from; `until_empty`: until a bet takes the whole pot",
        "adjacent": "posts next to each other: the turn passes (`pass`) or the player pays `chips` into the pot (`lose`)",
        "pair": "posts of one rank: the player calls higher or lower (`call`), takes `chips` from the pot (`pays`), or the turn passes (`push`)",
        "banking": "who banks: everyone antes into a shared pot (`antes`), or the dealer stakes the pot (`dealer`)",
    },
    "AdjacentPasses": {"rule": f"{RULE}: `pass`, no card fits and nothing is paid"},
    "AdjacentLoses": {"rule": f"{RULE}: `lose`", "chips": "what the player pays into the pot (or all they have left)"},
    "PairIsCalled": {"rule": f"{RULE}: `call`, higher or lower, then a bet; a third of the pair's rank hits the post"},
    "PairPays": {
        "rule": f"{RULE}: `pays`, no third card",
        "chips": "what the player takes from the pot (or all of it)",
    },
    "PairPushes": {"rule": f"{RULE}: `push`, nothing is paid and the turn passes"},
    "EveryoneAntes": {"rule": f"{RULE}: `antes`, everyone with chips antes each round into the shared pot"},
    "DealerBanks": {
        "rule": f"{RULE}: `dealer`, a round is one bank",
        "stake_antes": "the dealer stakes this many antes as the pot (or all they have)",
        "orbits": "the dealer plays every other player this many times round, or until the pot is empty",
    },
    "GameSeatIn": {
        "player_id": "a human seat's player id (1-64 of `A-Za-z0-9._:@-`, one seat each); a computer seat's name, optional (`computer-<seat>` by default)",
        "computer": "true: the computer plays this seat",
    },
    "CreateGame": {
        "ruleset": "a released rule set's whole id (`inbetween/nepal/v1`)",
        "rounds": "one of the rule set's `rounds`: a number, or `until_empty` where the rule set offers it",
        "seats": "in seat order, the rule set's `min_players..max_players`; seat 0 deals the first round",
        "mode": "`live`, or `test` (forced cards allowed, every record says test; needs RD_ALLOW_TEST_TABLES=true)",
    },
    "CallAceIn": {
        "player_id": PLAYER,
        "version": VERSION,
        "call": "a first-post ace is `high` or `low`",
        "action": "`call_ace`",
    },
    "CallPairIn": {
        "player_id": PLAYER,
        "version": VERSION,
        "call": "the third card will be `higher` or `lower` than the pair",
        "action": "`call_pair`",
    },
    "PlaceBetIn": {"player_id": PLAYER, "version": VERSION, "action": "`bet`"},
    "PassIn": {"player_id": PLAYER, "version": VERSION, "action": "`pass`: instead of a pair call or a bet"},
    "GameSeatOut": {
        "seat": "the seat's number, from 0",
        "player_id": "who sits there (`computer-<seat>` for a computer, unless named)",
        "computer": "true when the computer plays the seat",
        "chips": "the chips the seat holds",
    },
    "GameTurnOut": {
        "seat": "the seat whose turn it is",
        "player_id": "its player",
        "first_post": f"the first post, {CARD}; null before it is dealt",
        "ace_call": "a first-post ace called `high` or `low`; null otherwise",
        "second_post": f"the second post, {CARD}; null before it is dealt",
        "pair_call": "posts of one rank called `higher` or `lower`; null otherwise",
        "min_bet": "the least bet allowed, once a bet is awaited; null before",
        "max_bet": "the most bet allowed (the pot, or the player's chips if fewer), once a bet is awaited; null before",
        "bet": "the bet placed; null before, and when the player passed",
        "passed": "true when the player passed",
        "third_card": f"the third card, {CARD}; null until dealt",
        "outcome": "once the turn is over: `win`, `lose`, `post`, `passed`, `adjacent_passed`, `adjacent_lost`, `pair_paid` or `pair_pushed`; null before",
    },
    "OddsOut": {
        "win": "unseen cards that win",
        "post": "unseen cards that hit a post",
        "lose": "unseen cards that lose",
        "unseen": "cards not yet seen; each is equally likely to come next, so `win / unseen` is the exact chance",
    },
    "PairCallOddsOut": {"call": "the pair call these odds follow"},
    "GameShoeOut": {
        "number": "the pack's number in the game, from 1",
        "commitment": "sha256 (hex) over salt + order, published before the pack's first card",
        "reveal": "null until the game is over (or the pack is retired)",
    },
    "GameOut": {
        "game_id": f"the game's id, {UUID_ID}; its audit chain's id too",
        "version": "the seq of the game's last audit record: the next move names it; `records?after=version` is what"
        " comes after",
        "ruleset": "the rule set's id",
        "ruleset_sha256": "the rule set's sha256",
        "ante": "the ante, in chips",
        "rounds": "rounds to play; null: until a bet takes the whole pot",
        "starting_chips": "the chips each player started with",
        "test": "true for a test game",
        "status": "`awaiting_ace_call`, `awaiting_pair_call`, `awaiting_bet` or `game_over` (the engine's `turn_over` and `round_over` never rest)",
        "round": "the round being played, from 1",
        "dealer": "the dealer's seat",
        "order": "this round's turns, as seats in playing order (a dealer's bank repeats the players once per orbit)",
        "pot": "chips in the pot; with every seat's chips it adds up to players x `starting_chips`",
        "seats": "every seat, in seat order",
        "to_act": "the player the game waits for; null once it is over",
        "awaiting": "the decision awaited: `ace_call`, `pair_call` or `bet`; null once the game is over",
        "turn": "the turn on the table (over a finished game: the last one played); null before the first",
        "count": "cards dealt from the current pack since its shuffle (the public count)",
        "seen": "the cards out of the current pack: dealt from it, or on the table when it was shuffled",
        "odds": "while a bet is awaited: how the unseen cards fall; null otherwise",
        "pair_call_odds": "while a pair call is awaited: the odds after each possible call; empty otherwise",
        "started_at": f"when the antes were taken, {TIME}",
        "ended_at": f"when the game ended, {TIME}; null while it runs",
        "ended_reason": "`rounds_played`, `pot_emptied` or `one_player_left`; null while it runs",
        "winners": "the seats with the most chips at the end; empty while the game runs",
    },
    "GameRecordOut": {
        "seq": "the record's place in the game's chain, from 1, gap-free",
        "prev_hash": "the previous record's hash, hex (32 zero bytes before the first)",
        "hash": "sha256(bytes.fromhex(prev_hash) + body as UTF-8), hex",
        "body": "the record's canonical JSON text, exactly as hashed",
    },
    "GameRecordPage": {
        "items": "records in `seq` order",
        "next_after": "pass it back as `after` for the next page; null on the last",
    },
}

OPERATIONS: dict[tuple[str, str], str] = {
    (
        "get",
        "/v1/inbetween/rulesets",
    ): "Every released In Between rule set with its terms and sha256. Public: no signature.",
    (
        "get",
        "/v1/inbetween/rulesets/{name}/{version}",
    ): "One released rule set: the last two parts of its id as two path segments (`/v1/inbetween/rulesets/nepal/v1` is `inbetween/nepal/v1`). Public: no signature.",
    (
        "post",
        "/v1/inbetween/games",
    ): "Start an In Between game for play chips (never money): seat the players, take the antes, deal, and play every computer seat until a human must act. `forced_cards` only in a test game.",
    (
        "post",
        "/v1/inbetween/games/{game_id}/actions",
    ): "The player the game waits for calls an ace or a pair, bets or passes, tagged by `action`; the turn finishes and the game goes on, computer seats included, until a human must act again or it is over. A refused move writes nothing.",
    (
        "get",
        "/v1/inbetween/games/{game_id}",
    ): "The game's whole public state, with the exact odds of the next card for the player to act.",
    (
        "get",
        "/v1/inbetween/games/{game_id}/records",
    ): "The game's audit records in order, a page at a time: every card, call, bet, pass, chip movement, shuffle and reveal, hash-chained. They replay the game.",
}
