# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs)
"""The standalone betting logic (``poker_rules.betting``) is the hand's betting.

Random hands of every game are played on ``StudHand``/``DrawHand``.  At every
decision the hand's betting state is snapshot (and round-tripped through
``to_dict``/``from_dict``), the same action (or timeout, S10) is run through the
standalone functions from that snapshot alone, and the result must equal what the
hand itself does: the next state, field for field, the next legal menu, the action
the clock applied, and at the end the uncalled bet, the pots and (uncontested) the
awards and final stacks.  Where the hand deals (stud streets), the standalone
state is carried on with ``start_round`` and the hand's upcards.
"""

from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker_rules import (
    Action,
    ActionKind,
    DrawConfig,
    DrawHand,
    LegalActions,
    Phase,
    Structure,
    StudConfig,
    StudHand,
    TimeoutPolicy,
)
from poker_rules.betting import (
    BettingOutcome,
    BettingState,
    apply_action,
    apply_timeout,
    legal_actions,
    new_state,
    snapshot,
    start_round,
)

pytestmark = pytest.mark.slow

HANDS_PER_GAME = int(os.environ.get("POKER_EQUIVALENCE_HANDS", "2000"))
SETTINGS = settings(
    max_examples=HANDS_PER_GAME,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
TIMEOUT_RATE = 0.08


def pick(legal: LegalActions, rng: random.Random) -> Action:
    kind = rng.choice(legal.kinds)
    if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
        assert legal.min_to is not None and legal.max_to is not None
        if legal.to_choices:
            return Action(kind, rng.choice(legal.to_choices))
        return Action(
            kind, rng.choice((legal.min_to, legal.max_to, rng.randint(legal.min_to, legal.max_to)))
        )
    if kind is ActionKind.DISCARD:
        return Action.discard(())  # the cards are the dealer's; the turn is the same
    return Action(kind)


def roundtrip(state: BettingState) -> BettingState:
    again = BettingState.from_dict(json.loads(json.dumps(state.to_dict())))
    assert again == state
    return again


def play(hand: StudHand | DrawHand, rng: random.Random) -> int:
    """Play ``hand`` to the end, checking every decision; returns the decisions."""
    decisions = 0
    state = roundtrip(snapshot(hand))
    while not hand.is_over:
        assert hand.to_act is not None
        assert state == snapshot(hand)
        legal = hand.legal_actions()
        assert legal_actions(state) == legal
        outcome: BettingOutcome
        if rng.random() < TIMEOUT_RATE:
            outcome = apply_timeout(state)
            assert outcome.applied == hand.timeout()
        else:
            action = pick(legal, rng)
            if action.kind is ActionKind.DISCARD and isinstance(hand, DrawHand):
                held = hand.hands[hand.to_act]
                action = Action.discard(rng.sample(held, rng.randint(0, 3)))
            outcome = apply_action(state, action, hand.to_act)
            hand.act(action, hand.to_act)
        decisions += 1
        now = snapshot(hand)
        if hand.is_over:
            result = hand.result
            assert result is not None
            assert outcome.round_complete
            assert outcome.uncalled == result.uncalled
            assert outcome.pots == result.pots
            if outcome.hand_complete:  # uncontested: settled on both sides alike
                assert outcome.state == now
                assert outcome.awards == result.awards
                assert outcome.final_stacks == result.final_stacks
            else:  # the showdown: chips stop moving until the pots are awarded
                assert outcome.state.to_act is None
                assert outcome.state.phase is not Phase.COMPLETE
            break
        state = roundtrip(outcome.state)
        if state.to_act is None:  # stud: the hand dealt the next street
            assert isinstance(hand, StudHand) and outcome.round_complete
            assert not outcome.betting_closed
            state = start_round(state, hand.street, hand.boards).state
        assert state == now
    return decisions


@st.composite
def stud_hands(draw: st.DrawFn, hi_lo: bool) -> tuple[StudHand, random.Random]:
    bring_in, small, big = draw(
        st.sampled_from(((50, 100, 200), (1, 2, 4), (100, 100, 200), (2, 5, 5)))
    )
    config = StudConfig(
        hi_lo=hi_lo,
        ante=draw(st.sampled_from((0, 1, 25))),
        bring_in=bring_in,
        small_bet=small,
        big_bet=big,
        max_raises=draw(st.sampled_from((1, 3, 4))),
        timeout_policy=draw(st.sampled_from(tuple(TimeoutPolicy))),
    )
    n = draw(st.integers(2, 8))
    stacks = [draw(st.sampled_from((1, 30, 120, 400, 2_000, 50_000))) for _ in range(n)]
    seed = draw(st.integers(0, 2**32 - 1))
    hand = StudHand(config, stacks, seed=seed)
    opened = start_round(new_state(config, stacks), 0, [[c[2]] for c in hand.cards])
    if not hand.is_over:
        assert opened.state == snapshot(hand)
    return hand, random.Random(seed)


@st.composite
def draw_hands(draw: st.DrawFn) -> tuple[DrawHand, random.Random]:
    config = DrawConfig(
        structure=draw(st.sampled_from(tuple(Structure))),
        small_bet=(small := draw(st.sampled_from((2, 100)))),
        big_bet=small * draw(st.sampled_from((1, 2))),
        ante=draw(st.sampled_from((0, 0, 10))),
        max_raises=draw(st.sampled_from((1, 3))),
        timeout_policy=draw(st.sampled_from(tuple(TimeoutPolicy))),
    )
    n = draw(st.integers(2, 5))
    stacks = [draw(st.sampled_from((1, 60, 150, 700, 5_000, 100_000))) for _ in range(n)]
    seed = draw(st.integers(0, 2**32 - 1))
    hand = DrawHand(config, stacks, seed=seed)
    opened = start_round(new_state(config, stacks), 0)
    if not hand.is_over:
        assert opened.state == snapshot(hand)
    return hand, random.Random(seed)


@SETTINGS
@given(stud_hands(hi_lo=False))
def test_standalone_betting_equals_stud_hand__S5_S6_S7a_S8_S10(
    setup: tuple[StudHand, random.Random],
) -> None:
    play(*setup)


@SETTINGS
@given(stud_hands(hi_lo=True))
def test_standalone_betting_equals_stud_hilo_hand__H(
    setup: tuple[StudHand, random.Random],
) -> None:
    play(*setup)


@SETTINGS
@given(draw_hands())
def test_standalone_betting_equals_draw_hand__D2_D3_D5_D7(
    setup: tuple[DrawHand, random.Random],
) -> None:
    play(*setup)
