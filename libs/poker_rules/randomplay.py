"""Random legal play: the random-legal reference bot's brain, and the driver of the
property tests and benchmarks.  Pure: the caller passes the ``random.Random``.
"""

from __future__ import annotations

import random

from .actions import Action, ActionKind, LegalActions
from .cards import Card


def random_action(legal: LegalActions, hand_cards: list[Card], rng: random.Random) -> Action:
    """Pick uniformly among the kinds on the menu, then a legal amount or discard."""
    kind = legal.kinds[rng.randrange(len(legal.kinds))]
    if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
        choices = legal.to_choices
        if choices:
            if len(choices) == 1:
                return Action(kind, choices[0])
            return Action(kind, choices[rng.randrange(len(choices))])
        assert legal.min_to is not None and legal.max_to is not None
        roll = rng.random()
        if roll < 0.25:
            amount = legal.min_to
        elif roll < 0.4:
            amount = legal.max_to  # all-in often: side pots need exercising
        else:
            amount = rng.randint(legal.min_to, legal.max_to)
        return Action(kind, amount)
    if kind is ActionKind.DISCARD:
        assert legal.max_discards is not None
        k = rng.randint(0, min(legal.max_discards, len(hand_cards)))
        return Action(kind, 0, tuple(rng.sample(hand_cards, k)))
    return Action(kind)
