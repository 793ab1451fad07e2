"""Random legal play under every rule set: chips are conserved at every step, every turn pays what the rules in words
say (the independent oracle), every pack is revealed as committed, and the events alone replay the final game."""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paytables.inbetween import inbetween_rules
from paytables.inbetween.inbetween_actions import (
    AgreeToStop,
    BuyChips,
    CallAce,
    CallPair,
    InBetweenAction,
    InBetweenError,
    KeepPair,
    PassTurn,
    PlaceBet,
    ShowCards,
    SplitPair,
    bet_limits,
    buy_room,
)
from paytables.inbetween.inbetween_events import (
    AceCall,
    ChipReason,
    EndReason,
    InBetweenBetPlaced,
    InBetweenCardDealt,
    InBetweenCardDealtDown,
    InBetweenCardsShown,
    InBetweenChipsBought,
    InBetweenChipsMoved,
    InBetweenEvent,
    InBetweenGameEnded,
    InBetweenHandEnded,
    InBetweenShoeRevealed,
    InBetweenTurnEnded,
    PairCall,
    SeatSpec,
    decode_events,
    encode_events,
)
from paytables.inbetween.inbetween_game import InBetweenStep, act, advance, start_game
from paytables.inbetween.inbetween_posts import possible_pair_calls
from paytables.inbetween.inbetween_rules import RuleSet
from paytables.inbetween.inbetween_state import Game, GameStatus, Hand, Turn, replay
from shoe.shoe import Reveal, new_shoe, verify_reveal
from tests.unit.inbetween_oracle import HOUSE_RULES, RULESET_IDS, TurnFacts, expected_delta
from tests.unit.inbetween_table import NOW

# make test plays a short run; RD_PROPERTY_GAMES=1000 (make bench does) plays the long one.
GAMES_PER_RULESET = int(os.environ.get("RD_PROPERTY_GAMES", "150"))
TURN_PAYMENTS = {ChipReason.WIN, ChipReason.LOSE, ChipReason.POST, ChipReason.PAIR_PAID, ChipReason.ADJACENT_LOST}


@dataclass(frozen=True)
class Style:
    """How a random player plays: how often it passes, how often it bets everything it may."""

    seed: int
    pass_rate: float
    all_in_rate: float
    mistake_rate: float


styles = st.builds(
    Style,
    seed=st.integers(0, 2**32 - 1),
    pass_rate=st.sampled_from([0.0, 0.3, 0.8]),
    all_in_rate=st.sampled_from([0.0, 0.2, 0.6]),
    mistake_rate=st.sampled_from([0.0, 0.1]),
)


def random_action(game: Game, rules: RuleSet, rng: random.Random, style: Style) -> InBetweenAction:
    player, turn = game.to_act, game.turn
    assert player is not None
    assert turn is not None
    if game.status is GameStatus.AWAITING_ACE_CALL:
        return CallAce(player_id=player, call=rng.choice(list(AceCall)))
    if game.status is GameStatus.AWAITING_SPLIT:
        return SplitPair(player_id=player) if rng.random() < 0.5 else KeepPair(player_id=player)
    if game.status is GameStatus.AWAITING_SHOW:  # "fold without showing their cards, or expose their two cards"
        return PassTurn(player_id=player) if rng.random() < style.pass_rate else ShowCards(player_id=player)
    # a player who showed face-down posts places a bet: no fold after showing
    may_pass = HOUSE_RULES[rules.id].may_pass and not turn.down
    if game.status is GameStatus.AWAITING_PAIR_CALL:
        assert turn.posts is not None
        if may_pass and rng.random() < style.pass_rate / 2:
            return PassTurn(player_id=player)
        return CallPair(player_id=player, call=rng.choice(possible_pair_calls(turn.posts.first)))
    if may_pass and rng.random() < style.pass_rate:
        return PassTurn(player_id=player)
    least, most = bet_limits(game, rules)
    return PlaceBet(player_id=player, amount=most if rng.random() < style.all_in_rate else rng.randint(least, most))


def mistake(game: Game, rng: random.Random) -> InBetweenAction:
    """A move the rules refuse: out of turn, over the pot, under one chip, or a call the state does not wait for."""
    others = [s.player_id for s in game.seats if s.player_id != game.to_act]
    player = game.to_act or others[0]
    moves: list[InBetweenAction] = [
        PlaceBet(player_id=rng.choice(others), amount=1),
        PlaceBet(player_id=player, amount=game.pot + 1),
        PlaceBet(player_id=player, amount=0),
    ]
    if not HOUSE_RULES[game.ruleset].may_pass and game.status is not GameStatus.AWAITING_ACE_CALL:
        moves.append(PassTurn(player_id=player))  # "they have to usually bet a minimal of a single chip"
    if game.turn is not None and game.turn.down and game.turn.first_post is not None:
        moves.append(PassTurn(player_id=player))  # shown face-down posts are bet on
    if game.status is not GameStatus.AWAITING_SHOW:
        moves.append(ShowCards(player_id=player))
    limit = HOUSE_RULES[game.ruleset].buy_limit
    moves.append(BuyChips(player_id=player, amount=limit + 1 if limit else 1))  # over the limit, or no buying
    if HOUSE_RULES[game.ruleset].half_pot_first_round and game.round == 1 and game.pot >= 2:
        moves.append(PlaceBet(player_id=player, amount=game.pot // 2 + 1))  # "only half the pot in the first round"
    if game.status is not GameStatus.AWAITING_PAIR_CALL:
        moves.append(CallPair(player_id=player, call=PairCall.HIGHER))
    if game.status is not GameStatus.AWAITING_ACE_CALL:
        moves.append(CallAce(player_id=player, call=AceCall.LOW))
    if game.status is not GameStatus.AWAITING_SPLIT:
        moves.append(SplitPair(player_id=player))  # a split is a move only for a pair, where the rule set offers it
    return rng.choice(moves)


def check_step(game: Game, step: InBetweenStep, rules: RuleSet, bought: int) -> None:
    """The invariants after every step: conservation (with every chip bought so far), the public count, no card dealt
    face down in the game until shown, and each turn's payment by the oracle."""
    after = step.game
    assert after.total_chips == len(after.seats) * rules.terms.starting_chips + bought
    assert all(seat.chips >= 0 for seat in after.seats)
    assert after.pot >= 0
    assert after.shoe_commitment == step.shoe.commitment
    left = step.shoe.size - step.shoe.position
    hidden = after.down_out
    assert after.unseen().total() == (left + hidden if left else 52 - len(after.table_cards))
    if after.turn is not None and after.turn.down and after.turn.first_post is None:
        down = {step.shoe.card_at(place) for place in after.turn.down}
        assert not down & set(msgspec.json.encode(after).decode().split('"')), "a face-down card in the game"
    since = 0  # the step's events since the last hand or turn that ended in it
    for place, event in enumerate(step.events):
        if isinstance(event, InBetweenHandEnded):
            assert after.turn is not None
            check_turn(after, after.turn.hands[event.hand - 1], step.events[since:place], rules)
            since = place
        if isinstance(event, InBetweenTurnEnded):
            assert after.turn is not None
            check_turn(after, after.turn, step.events[since:place], rules)
        if isinstance(event, InBetweenGameEnded) and event.reason is EndReason.AGREED:
            assert HOUSE_RULES[rules.id].stop_by_agreement  # "when the players agree to stop playing"
        if isinstance(event, InBetweenChipsMoved) and event.reason is ChipReason.SPLIT:
            # "pay an extra ante ... to the pot to split them into two hands"
            assert event.delta == -HOUSE_RULES[rules.id].split_antes * game.ante != 0
        # every turn of the first round (one each) may take at most half the pot, by the rule
        if isinstance(event, InBetweenBetPlaced) and HOUSE_RULES[rules.id].half_pot_first_round and game.round == 1:
            assert event.amount <= max(game.pot // 2, 1)


def check_turn(game: Game, turn: Turn | Hand, events: tuple[InBetweenEvent, ...], rules: RuleSet) -> None:
    """A turn's (or a split pair's hand's) payment is the oracle's, for the cards on the table."""
    paid = [e for e in events if isinstance(e, InBetweenChipsMoved) and e.reason in TURN_PAYMENTS]
    if isinstance(turn, Turn) and turn.down and turn.first_post is None:  # "fold without showing their cards"
        assert turn.passed
        assert not paid
        return
    assert turn.first_post is not None
    assert turn.second_post is not None
    paid = [e for e in events if isinstance(e, InBetweenChipsMoved) and e.reason in TURN_PAYMENTS]
    assert len(paid) <= 1
    assert game.turn is not None
    chips = paid[0].chips - paid[0].delta if paid else game.seats[game.turn.seat].chips
    pot = paid[0].pot + paid[0].delta if paid else 0
    facts = TurnFacts(
        first=turn.first_post,
        second=turn.second_post,
        low_ace=isinstance(turn, Turn) and turn.ace_call is AceCall.LOW,
        pair_call=None if turn.pair_call is None else turn.pair_call.value,
        bet=turn.bet,
        third=turn.third_card,
        chips=chips,
        pot=pot,
        ante=game.ante,
    )
    assert (paid[0].delta if paid else 0) == expected_delta(HOUSE_RULES[rules.id], facts)


def check_packs(events: list[InBetweenEvent]) -> None:
    """Every pack is revealed as committed, every card dealt from it is the card at its place in that order, and
    every face-down pair shown is the pair dealt at its places."""
    reveals = {e.shoe_number: e for e in events if isinstance(e, InBetweenShoeRevealed)}
    for reveal in reveals.values():
        assert verify_reveal(reveal.commitment, Reveal(salt=reveal.salt, order=reveal.order))
    for card in (e for e in events if isinstance(e, InBetweenCardDealt)):
        order = reveals[card.shoe_number].order
        assert order[2 * card.shoe_index : 2 * card.shoe_index + 2] == card.card
    down: list[InBetweenCardDealtDown] = []
    for event in events:
        if isinstance(event, InBetweenCardDealtDown):
            down = [*down[-1:], event]
        if isinstance(event, InBetweenCardsShown):
            order = reveals[down[0].shoe_number].order
            assert tuple(order[2 * d.shoe_index : 2 * d.shoe_index + 2] for d in down) == event.cards


def play(rules: RuleSet, players: int, ante: int, rounds: int | str, dealer: int, style: Style) -> None:
    rng = random.Random(style.seed)
    seats = [SeatSpec(player_id=f"p{i}", computer=i % 2 == 1) for i in range(players)]
    step = start_game(
        game_id="prop", ruleset=rules, ante=ante, rounds=rounds, seats=seats, dealer=dealer,
        shoe=new_shoe(1, rng), source=rng, now=NOW,
    )  # fmt: skip
    events = list(step.events)
    check_step(step.game, step, rules, 0)
    game, shoe = step.game, step.shoe
    limit = HOUSE_RULES[rules.id].buy_limit
    while game.status is not GameStatus.GAME_OVER:
        if game.to_act is not None and rng.random() < style.mistake_rate:
            with pytest.raises(InBetweenError):
                act(game, shoe, mistake(game, rng), ruleset=rules, source=rng, now=NOW)
            continue
        agreeing = [s.player_id for i, s in enumerate(game.seats) if s.chips and i not in game.agreed]
        buyer = rng.randrange(len(game.seats))
        if HOUSE_RULES[rules.id].stop_by_agreement and agreeing and rng.random() < 0.01:
            step = act(game, shoe, AgreeToStop(player_id=rng.choice(agreeing)), ruleset=rules, source=rng, now=NOW)
        elif limit and rng.random() < 0.03 and buy_room(game, rules, buyer) > 0:
            # "Players may introduce money into the game (buy more chips) whenever they wish to"
            amount = rng.randint(1, buy_room(game, rules, buyer))
            step = act(game, shoe, BuyChips(player_id=f"p{buyer}", amount=amount), ruleset=rules, source=rng, now=NOW)
        elif game.to_act is None:
            step = advance(game, shoe, ruleset=rules, source=rng, now=NOW)
        else:
            step = act(game, shoe, random_action(game, rules, rng, style), ruleset=rules, source=rng, now=NOW)
        events.extend(step.events)
        # every chip bought, counted from the records alone: chips + pot = seats x starting chips + every buy
        check_step(game, step, rules, sum(e.amount for e in events if isinstance(e, InBetweenChipsBought)))
        game, shoe = step.game, step.shoe
    assert game.pot == 0
    check_packs(events)
    assert replay(decode_events(encode_events(events))) == game


@pytest.mark.parametrize("ruleset_id", RULESET_IDS)
def test_random_games_conserve_chips_pay_by_the_rules_and_replay_from_their_events(ruleset_id: str) -> None:
    rules = inbetween_rules.get(ruleset_id)

    @settings(max_examples=GAMES_PER_RULESET, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(
        players=st.integers(rules.terms.min_players, rules.terms.max_players),
        ante=st.sampled_from(rules.terms.antes),
        rounds=st.sampled_from(rules.terms.rounds),
        dealer=st.integers(0, 7),
        style=styles,
    )
    def games(players: int, ante: int, rounds: int | str, dealer: int, style: Style) -> None:
        play(rules, players, ante, rounds, dealer % players, style)

    games()
