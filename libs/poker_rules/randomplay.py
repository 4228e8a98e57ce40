"""Random legal play: the random-legal reference bot's brain, and the driver of the
property tests and benchmarks.  Pure: the caller passes the ``random.Random``.
"""

from __future__ import annotations

import random

from .actions import Action, ActionKind, LegalActions
from .cards import Card
from .errors import InvalidConfigError


def pick(n: int, rng: random.Random) -> int:
    """A uniform index below ``n`` from one C-level ``random()`` call.

    ``randrange`` runs several Python-level calls per pick; a bot making dozens of
    decisions a hand spends more time there than the engine spends on the rules.
    The bias of scaling a 53-bit float is below 2**-40 for any menu size here.
    """
    return int(rng.random() * n)


def random_action(legal: LegalActions, hand_cards: list[Card], rng: random.Random) -> Action:
    """Pick uniformly among the kinds on the menu, then a legal amount or discard."""
    kinds = legal.kinds
    kind = kinds[pick(len(kinds), rng)]
    if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
        choices = legal.to_choices
        if choices:
            if len(choices) == 1:
                return Action(kind, choices[0])
            return Action(kind, choices[pick(len(choices), rng)])
        if legal.min_to is None or legal.max_to is None:
            raise InvalidConfigError(f"the menu offers {kind.value} without min_to and max_to")
        roll = rng.random()
        if roll < 0.25:
            amount = legal.min_to
        elif roll < 0.4:
            amount = legal.max_to  # all-in often: side pots need exercising
        else:
            amount = legal.min_to + pick(legal.max_to - legal.min_to + 1, rng)
        return Action(kind, amount)
    if kind is ActionKind.DISCARD:
        if legal.max_discards is None:
            raise InvalidConfigError("the menu offers discard without max_discards")
        k = rng.randint(0, min(legal.max_discards, len(hand_cards)))
        return Action(kind, 0, tuple(rng.sample(hand_cards, k)))
    return Action(kind)
