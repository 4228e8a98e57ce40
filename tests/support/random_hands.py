"""Random legal play of a library hand to its end, for the tests that need real
hands of every kind (timeouts included) rather than scripted ones."""

from __future__ import annotations

import random

from poker_rules import DrawHand, StudHand
from poker_rules.randomplay import random_action


def play_out(hand: StudHand | DrawHand, rng: random.Random, *, timeout_rate: float) -> None:
    """Random legal actions to the end; a clock timeout instead of an action with
    probability ``timeout_rate`` (drawn first, so a run is the rng's alone)."""
    while not hand.is_over:
        if rng.random() < timeout_rate:
            hand.timeout()
            continue
        i = hand.to_act
        assert i is not None
        hand.act(random_action(hand.legal_actions(), list(hand.hand_cards(i)), rng))
