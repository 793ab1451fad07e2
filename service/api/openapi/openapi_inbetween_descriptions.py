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
SPLIT = "`split`: pay the rule set's `split.cost` into the pot and play the pair as two hands, each dealt its own second post"
AGREE_STOP = "`agree_stop`: agree to stop the game and share the pot, whoever's turn it is (a player with chips, once; where the rule set has `stop_by_agreement`); the last of them ends the game"
KEEP_PAIR = "`keep_pair`: decline the split; the pair is played as the rule set's `pair` says"
SHOW = (
    "`show`: show both face-down posts (where the rule set has `face_down`); a bet follows, and a pass is then refused"
)
BUY = "`buy`: bring `amount` new chips into the game, whoever's turn it is (where the rule set has `buy_chips`, up to its `limit` a player in a game)"
HAND = "once a pair is split: the hand being played, 1 or 2; 0 when no pair was split"

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
        "adjacent": "posts next to each other: the turn passes (`pass`), the player pays `chips` into the pot (`lose`), or takes back the ante (`return_ante`)",
        "pair": "posts of one rank: the player calls higher or lower (`call`), takes `chips` from the pot (`pays`), the turn passes (`push`), or the player takes back the ante (`return_ante`)",
        "banking": "who banks: everyone antes into a shared pot (`antes`), or the dealer stakes the pot (`dealer`)",
        "direction": "which way play and the deal go, seats numbered clockwise: `left` (seat + 1) or `right` (seat - 1); absent: `left`",
        "default_rounds": "the rounds a game plays when it is created without `rounds`; absent: the first of `rounds`",
        "pass": "`allowed`: a player may pass instead of betting; `never`: every player must bet; absent: `allowed`",
        "first_dealer": "who deals first: seat 0 (`seat`), the highest card drawn from the committed pack (`highest_card`), or a card's place in it (`random`); absent: `seat`",
        "split": "a pair of first two cards may be split into two hands for `cost`: `ante` (one more ante) or a number of chips; absent: pairs are never split",
        "stop_by_agreement": "true: the players may stop the game by agreement (`agree_stop`, one each) and share the pot; absent: false",
        "face_down": "true: each player's two posts are dealt face down at their turn; they fold them unseen (`pass`) or show them (`show`) and bet; absent: false",
        "buy_chips": "players may buy chips whenever they wish (`buy`), at most `limit` each in a game; absent: nobody buys",
        "first_round_bet": "the most a bet may take until every player has had a turn: the `pot`, or `half_pot` (rounded down, at least 1 chip); absent: `pot`",
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
        "orbits": "the dealer plays every other player this many times round, or until the pot is empty; `twice_through`: round after round until the deck has run out twice",
    },
    "DealerBanksGame": {
        "rule": f"{RULE}: `dealer_game`, one dealer banks the whole game",
        "stake_antes": "the dealer stakes this many antes once, at the start (or all they have); every round a fresh pack, a first card to each player, then their turns; a bet that wins the whole pot ends the game, and after the rounds the dealer takes what is left",
    },
    "BuyChips": {"limit": "the most chips one player may buy in a game"},
    "ShowIn": {"player_id": PLAYER, "version": VERSION, "action": SHOW},
    "BuyIn": {
        "player_id": "the player's id: any player, whoever's turn it is",
        "version": VERSION,
        "amount": "the chips bought, 1 up to what the rule set's `buy_chips.limit` leaves the player",
        "action": BUY,
    },
    "AdjacentReturnsAnte": {"rule": f"{RULE}: `return_ante`, a push: the player's ante comes back from the pot"},
    "SplitPairs": {"cost": "what a split costs, paid into the pot: `ante`, or a number of chips"},
    "PairReturnsAnte": {"rule": f"{RULE}: `return_ante`, a push: the player's ante comes back from the pot"},
    "GameSeatIn": {
        "player_id": "a human seat's player id (1-64 of `A-Za-z0-9._:@-`, one seat each); a computer seat's name, optional (`computer-<seat>` by default, or `computer-<seat>-2`, ... when a seat asks for that name)",
        "computer": "true: the computer plays this seat",
    },
    "CreateGame": {
        "ruleset": "a released rule set's whole id (`inbetween/nepal/v1`)",
        "rounds": "one of the rule set's `rounds`: a number, or `until_empty` where the rule set offers it; omitted: the rule set's default",
        "seats": "in seat order (clockwise), the rule set's `min_players..max_players`, at most 8; seat 0 deals the first round unless the rule set draws for it",
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
    "SplitIn": {"player_id": PLAYER, "version": VERSION, "action": SPLIT},
    "KeepPairIn": {"player_id": PLAYER, "version": VERSION, "action": KEEP_PAIR},
    "AgreeStopIn": {
        "player_id": "the player's id: any player with chips who has not agreed yet, whoever's turn it is",
        "version": VERSION,
        "action": AGREE_STOP,
    },
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
        "outcome": "once the turn is over: `win`, `lose`, `post`, `passed`, `adjacent_passed`, `adjacent_lost`, `adjacent_pushed` (the ante came back), `pair_paid` `pair_pushed` or `folded` (face-down posts folded unseen); null before",
        "hand": HAND,
        "split_card": f"a split pair's other card, {CARD}, waiting as the second hand's first post; null otherwise",
        "hands": "a split pair's first hand once it is settled (the turn's own fields are then the second hand's)",
        "down": "face-down posts: their places in the pack in play, never the cards (`first_post` and `second_post` stay null until they are shown); empty otherwise",
    },
    "GameHandOut": {
        "first_post": f"the hand's first post, {CARD}: one card of the split pair",
        "second_post": f"the hand's second post, {CARD}",
        "pair_call": "posts of one rank called `higher` or `lower`; null otherwise",
        "bet": "the bet placed; null when the hand passed or needed none",
        "passed": "true when the player passed on this hand",
        "third_card": f"the third card, {CARD}; null when none was dealt",
        "outcome": "how the hand ended, as a turn's `outcome`",
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
        "status": "`awaiting_ace_call`, `awaiting_pair_call`, `awaiting_bet`, `awaiting_split`, `awaiting_show` or `game_over` (the engine's `turn_over` and `round_over` never rest)",
        "round": "the round being played, from 1",
        "dealer": "the dealer's seat",
        "order": "this round's turns, as seats in playing order (a dealer's bank repeats the players once per orbit)",
        "pot": "chips in the pot; with every seat's chips it adds up to players x `starting_chips` plus every chip `bought`",
        "seats": "every seat, in seat order",
        "to_act": "the player the game waits for; null once it is over",
        "awaiting": "the decision awaited: `ace_call`, `pair_call`, `bet`, `split` (split the pair, or keep it) or `show` (show face-down posts, or fold them); null once the game is over",
        "turn": "the turn on the table (over a finished game: the last one played); null before the first",
        "count": "cards dealt from the current pack since its shuffle (the public count)",
        "seen": "the cards out of the current pack: dealt from it, or on the table when it was shuffled",
        "odds": "while a bet is awaited (or, in a seat's own view, while it decides to show its face-down posts): how the cards that seat has not seen fall; null otherwise",
        "pair_call_odds": "while a pair call is awaited: the odds after each possible call; empty otherwise",
        "started_at": f"when the antes were taken, {TIME}",
        "ended_at": f"when the game ended, {TIME}; null while it runs",
        "ended_reason": "`rounds_played`, `pot_emptied`, `one_player_left` or `agreed` (every player with chips agreed to stop); null while it runs",
        "agreed": "the seats that agreed to stop the game, in the order they did",
        "bought": "the chips each seat bought into the game, in seat order; empty while nobody has bought",
        "own_cards": "the viewing seat's own face-down posts while it holds them unshown (`?seat=` here; the seat's token at a friends' table); empty for anyone else",
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
    ): "The player the game waits for calls an ace or a pair, bets or passes, splits a pair or keeps it, or shows face-down posts, tagged by `action` (any player may agree to stop or buy chips whoever's turn it is); the turn finishes and the game goes on, computer seats included, until a human must act again or it is over. A refused move writes nothing.",
    (
        "get",
        "/v1/inbetween/games/{game_id}",
    ): "The game's whole public state, with the exact odds of the next card for the player to act; with `seat`, that seat's view: its own face-down posts and the odds from the cards it may see.",
    (
        "get",
        "/v1/inbetween/games/{game_id}/records",
    ): "The game's audit records in order, a page at a time: every card, call, bet, pass, chip movement, shuffle and reveal, hash-chained. They replay the game.",
}
