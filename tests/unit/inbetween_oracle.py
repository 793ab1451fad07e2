"""An independent model of an In Between turn, written from the English rules; the engine is checked against it."""

from __future__ import annotations

from dataclasses import dataclass, replace

ORDER = "23456789TJQKA"  # index + 2 is the rank; a called-low ace counts as 1

# Deliberate pins, computed by hand from the canonical JSON below and copied from `reddog inbetween rulesets`:
# editing a released file must fail the suite.
RELEASED_SHA256 = {
    "inbetween/home/v1": "0ce4c3a43a1f875d997de10b9a1fd19d769578a7dc4b41f8e0e1d1bca490dfbd",
    "inbetween/nepal/v1": "011439793f32a9df9c54c8dc6fa777b68e8f184c99f970786a7515fa767ee727",
    "inbetween/pagat-banker/v1": "8d24b413278fdb6559c849475f6b18922d724839fa1a9a498562a80a744e3a57",
    "inbetween/pay-the-bet/v1": "88a77910d5e7a648cdefa0771786886ffc02b33e586759f738903c5b8107640a",
    "inbetween/sheets/v1": "ea8cbf78e925563056015cf748b413856e59e22d0eeb61f239a07e6a895d58e6",
    # issue 23: the source pages' terms, each a new release (the five above are unchanged, byte for byte)
    "inbetween/nepal/v2": "b107189d9359e982bc2199de95b8b1ef6a728fe428c9971cecd3bea84275931e",
    "inbetween/nepal-half-pot/v1": "83c206c5c869351cff08fc579113b9cc0a0faae3278befe2434d78eb235e7725",
    "inbetween/pagat-ante/v1": "90602b08157d30c4837865a7c5a140e314b62c7dd3c59822cfb20ed4da0f74a1",
    "inbetween/pagat-push/v1": "a76e074c95f1354e6f4fa13714fb51a9d9f0fe724afc4fe2a752410668b3bc29",
    "inbetween/pagat-min-ante/v1": "65f4f91bbcbd9e24f88651eef755aff0a54c6c9f6a449c7724b3ded15748d9e7",
    "inbetween/home/v2": "c1f18941830d608c5edcab743ddc9e2792141ab9f9844bc4457f624d3ed81b06",
    "inbetween/home-three/v1": "c3bcca3ef90e4cb3404c2a57a9ee191239a478753d04e82520818f46a39f1b1c",
    "inbetween/pagat-twice/v1": "a13835227fad9df4574ca37624a5282eeec6b8b6a971530b30e27dbd2f2effec",
    # issue 26: the moves the earlier terms did not need
    "inbetween/pagat-split/v1": "164b268ba33edacc53ecf19b188978340ab57d3280ec68b7f39d3543c7d5261d",
    "inbetween/pagat-ante/v2": "724cf848369e76485c6650d5d94a16d9248a72bc224483ff621dc13bc0102f69",
    "inbetween/pagat-down/v1": "69085018b57d5c3b94e89bd8c38e2cca11843c9b71dff16bcc9f7cc0014a289a",
    "inbetween/pagat-bank/v1": "864ea14e084b7a5da59450e68b28cef5210b506531ab6b7e7f0ddb1629da2e0a",
}
RULESET_IDS = tuple(RELEASED_SHA256)
# The first five releases all seat the dealer at seat 0 and play to its left; the forced-card tests of their terms
# (test_inbetween_house_rules.py) count on that. The later releases choose their dealer or direction by the source
# pages, and their terms are tested card by card in test_inbetween_source_pages.py; every release is in the property
# test and the oracle.
FIRST_RELEASES = RULESET_IDS[:5]


@dataclass(frozen=True)
class HouseRules:
    """The released terms written out by hand, never read from the code's RuleSet."""

    post_multiple: int
    adjacent_loses: int  # chips; 0: the turn passes
    pair: str  # "call", "pays" or "push"
    pair_pays: int
    ace_choice: bool
    min_bet_is_ante: bool
    banker: bool
    ante_back: bool = False  # equal or adjacent posts: the player's ante comes back (capped by the pot)
    may_pass: bool = True
    half_pot_first_round: bool = False
    right: bool = False  # play and the deal go to the dealer's right
    split_antes: int = 0  # a pair of first two cards may be split into two hands for this many antes; 0: never
    stop_by_agreement: bool = False  # the players may agree to stop and share the pot
    face_down: bool = False  # "deal two cards face down": fold unseen, or show both and bet
    game_bank: bool = False  # one dealer banks the whole game, a fresh pack and first cards every round
    buy_limit: int = 0  # the most chips a player may buy in a game; 0: nobody buys


_PAGAT_ANTE = HouseRules(2, 0, "push", 0, ace_choice=False, min_bet_is_ante=False, banker=False)
_HOME_V2 = HouseRules(1, 1, "pays", 2, ace_choice=False, min_bet_is_ante=False, banker=False, may_pass=False)
_NEPAL_V2 = HouseRules(2, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=False, right=True)
HOUSE_RULES = {
    "inbetween/nepal/v1": HouseRules(2, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=False),
    "inbetween/pay-the-bet/v1": HouseRules(1, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=False),
    "inbetween/pagat-banker/v1": HouseRules(2, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=True),
    "inbetween/home/v1": HouseRules(1, 1, "pays", 2, ace_choice=False, min_bet_is_ante=False, banker=False),
    "inbetween/sheets/v1": HouseRules(3, 0, "push", 0, ace_choice=True, min_bet_is_ante=True, banker=False),
    "inbetween/nepal/v2": _NEPAL_V2,
    "inbetween/nepal-half-pot/v1": replace(_NEPAL_V2, half_pot_first_round=True),
    "inbetween/pagat-ante/v1": _PAGAT_ANTE,
    "inbetween/pagat-push/v1": replace(_PAGAT_ANTE, pair="ante", ante_back=True),
    "inbetween/pagat-min-ante/v1": replace(_PAGAT_ANTE, min_bet_is_ante=True),
    "inbetween/home/v2": _HOME_V2,
    "inbetween/home-three/v1": replace(_HOME_V2, pair_pays=3),
    "inbetween/pagat-twice/v1": HouseRules(2, 0, "call", 0, ace_choice=True, min_bet_is_ante=False, banker=True),
    "inbetween/pagat-split/v1": replace(_PAGAT_ANTE, split_antes=1),
    "inbetween/pagat-ante/v2": replace(_PAGAT_ANTE, stop_by_agreement=True),
    "inbetween/pagat-down/v1": replace(_PAGAT_ANTE, face_down=True),
    "inbetween/pagat-bank/v1": replace(_PAGAT_ANTE, banker=True, game_bank=True, buy_limit=1000),
}


def value(card: str, *, low_ace: bool = False) -> int:
    if card[0] == "A" and low_ace:
        return 1
    return ORDER.index(card[0]) + 2


@dataclass(frozen=True)
class TurnFacts:
    first: str
    second: str
    low_ace: bool  # the first post is an ace called low
    pair_call: str | None  # "higher" or "lower"
    bet: int | None
    third: str | None
    chips: int  # the player's chips before the turn's own payment
    pot: int
    ante: int = 0


def expected_delta(rules: HouseRules, turn: TurnFacts) -> int:
    """What the turn moves from the pot to the player (negative: to the pot), from the rules in words."""
    a, b = value(turn.first, low_ace=turn.low_ace), value(turn.second)
    if abs(a - b) <= 1 and rules.ante_back:  # "equal or adjacent ... the player's ante is returned"
        return min(turn.ante, turn.pot)
    if abs(a - b) == 1:  # posts side by side: nothing can fall between
        return -min(rules.adjacent_loses, turn.chips)
    if a == b and rules.pair == "pays":
        return min(rules.pair_pays, turn.pot)
    if (a == b and rules.pair == "push") or turn.bet is None:
        return 0
    assert turn.third is not None
    c = value(turn.third)
    hits_post = turn.third[0] in (turn.first[0], turn.second[0])
    if hits_post:
        return -min(rules.post_multiple * turn.bet, turn.chips)
    if a != b:
        return turn.bet if min(a, b) < c < max(a, b) else -turn.bet
    beyond = c > a if turn.pair_call == "higher" else c < a
    return turn.bet if beyond else -turn.bet
