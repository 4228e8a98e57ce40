"""Complete random hands per second, single thread: our engines against PokerKit.

Why: the table service runs every hand through ``poker_rules``, and the property
tests and bots play millions of random hands, so the engine's speed is a budget.
PokerKit (a full, independent rules engine in pure Python) is the anchor: the
target is our Stud Hi-Lo at 30x PokerKit's rate or more.

Both sides play the same kind of hand the same way: six players, antes, bring-in
and fixed-limit stakes of 25/50/100/200, stacks of 5 to 100 big bets (so some
players go all-in and side pots form, and many hands reach the showdown), and at
each decision a uniformly random choice among the kinds of action on the menu.
PokerKit runs with every automation that is not a decision (antes, bet
collection, burning, dealing, showing, hand killing, chips pushing and pulling).

Measured: ``stud_hilo_6max_hands_per_sec`` and its PokerKit anchor and ratio,
``stud_6max_hands_per_sec`` and ``draw_nl_5max_hands_per_sec`` (no-limit 7-A
draw, five players, so the 36-card deck with sixes).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable

from poker_rules import DrawConfig, DrawHand, Structure, StudConfig, StudHand
from poker_rules.randomplay import random_action

ANTE, BRING_IN, SMALL_BET, BIG_BET = 25, 50, 100, 200


def _stacks(rng: random.Random, n: int) -> list[int]:
    return [rng.randint(5, 100) * BIG_BET for _ in range(n)]


def _play(hand: StudHand | DrawHand, rng: random.Random) -> None:
    """Random legal actions until the hand is over (no timeouts)."""
    act, legal_actions, cards_of = hand.act, hand.legal_actions, hand.hand_cards
    while hand.to_act is not None:
        act(random_action(legal_actions(), cards_of(hand.to_act), rng))


def _rates(
    players: list[Callable[[random.Random], object]], seconds: float, seed: int
) -> list[float]:
    """Hands per second of each ``play_one``, about ``seconds`` each (after a warm-up).

    The engines take turns in short slices, so a busy machine slows them alike and
    the ratio between them stays fair.
    """
    rngs = [random.Random(seed) for _ in players]
    for play_one, rng in zip(players, rngs, strict=True):
        for _ in range(20):
            play_one(rng)
    slices = max(1, round(seconds / 0.5))
    hands = [0] * len(players)
    spent = [0.0] * len(players)
    for _ in range(slices):
        for k, (play_one, rng) in enumerate(zip(players, rngs, strict=True)):
            start = now = time.perf_counter()
            deadline = start + seconds / slices
            while now < deadline:
                for _ in range(5):
                    play_one(rng)
                hands[k] += 5
                now = time.perf_counter()
            spent[k] += now - start
    return [h / t for h, t in zip(hands, spent, strict=True)]


def _stud(hi_lo: bool) -> Callable[[random.Random], object]:
    config = StudConfig(
        hi_lo=hi_lo, ante=ANTE, bring_in=BRING_IN, small_bet=SMALL_BET, big_bet=BIG_BET
    )

    def play_one(rng: random.Random) -> object:
        hand = StudHand(config, _stacks(rng, 6), seed=rng.getrandbits(64))
        _play(hand, rng)
        return hand.result

    return play_one


def _draw_nl() -> Callable[[random.Random], object]:
    config = DrawConfig(structure=Structure.NO_LIMIT, small_bet=SMALL_BET, big_bet=BIG_BET)

    def play_one(rng: random.Random) -> object:
        hand = DrawHand(config, _stacks(rng, 5), seed=rng.getrandbits(64))
        _play(hand, rng)
        return hand.result

    return play_one


def _pokerkit_stud_hilo() -> Callable[[random.Random], object] | None:
    """PokerKit's Stud Hi-Lo with every non-decision automated, or None if absent."""
    try:
        from pokerkit import Automation, FixedLimitSevenCardStudHighLowSplitEightOrBetter
    except ImportError:  # the bench extra is not installed
        return None
    automations = (
        Automation.ANTE_POSTING,
        Automation.BET_COLLECTION,
        Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING,
        Automation.HOLE_DEALING,
        Automation.BOARD_DEALING,
        Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
        Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING,
        Automation.CHIPS_PULLING,
    )
    game = FixedLimitSevenCardStudHighLowSplitEightOrBetter

    def play_one(rng: random.Random) -> object:
        state = game.create_state(
            automations, True, ANTE, BRING_IN, SMALL_BET, BIG_BET, _stacks(rng, 6), 6
        )
        while state.status:
            # The same policy as ours: a uniform choice among the kinds on the menu.
            choices: list[Callable[[], object]] = []
            if state.can_fold():
                choices.append(state.fold)
            if state.can_check_or_call():
                choices.append(state.check_or_call)
            if state.can_post_bring_in():
                choices.append(state.post_bring_in)
            if state.can_complete_bet_or_raise_to():
                choices.append(state.complete_bet_or_raise_to)
            if not choices:  # pragma: no cover - every decision is automated
                raise RuntimeError("PokerKit is waiting for something we do not automate")
            choices[int(rng.random() * len(choices))]()  # as randomplay.pick
        return state.stacks

    return play_one


def run(seconds: float = 5.0) -> dict[str, float]:
    """Measure each engine for about ``seconds``; rates in complete hands per second."""
    results: dict[str, float] = {}
    pokerkit = _pokerkit_stud_hilo()
    if pokerkit is None:
        (ours,) = _rates([_stud(hi_lo=True)], seconds, seed=1)
    else:
        ours, anchor = _rates([_stud(hi_lo=True), pokerkit], seconds, seed=1)
        results["stud_hilo_6max_pokerkit_hands_per_sec"] = round(anchor, 1)
        results["stud_hilo_ratio_vs_pokerkit"] = round(ours / anchor, 1)
    results["stud_hilo_6max_hands_per_sec"] = round(ours, 1)
    (stud,) = _rates([_stud(hi_lo=False)], seconds, seed=2)
    results["stud_6max_hands_per_sec"] = round(stud, 1)
    (draw,) = _rates([_draw_nl()], seconds, seed=3)
    results["draw_nl_5max_hands_per_sec"] = round(draw, 1)
    return results


if __name__ == "__main__":
    print(json.dumps(run(), indent=2, sort_keys=True))
