"""Replay: a hand is reproducible from (configuration, stacks, seed, action list).

The action list is ``BettingHand.actions``: ``(player, Action)`` pairs, with
``(player, None)`` where the action clock ran out (S10).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from .actions import Action
from .config import DrawConfig, StudConfig
from .draw import DrawHand
from .engine import BettingHand
from .stud import StudHand


def new_hand(
    config: StudConfig | DrawConfig, stacks: Sequence[int], seed: int | None = None
) -> StudHand | DrawHand:
    """Start a hand of the game ``config`` describes."""
    if isinstance(config, StudConfig):
        return StudHand(config, stacks, seed=seed)
    return DrawHand(config, stacks, seed=seed)


def apply_all(hand: BettingHand, actions: Iterable[tuple[int, Action | None]]) -> None:
    """Apply a recorded action list (``None`` = timeout) to a hand."""
    for player, action in actions:
        if action is None:
            if hand.to_act != player:
                raise ValueError(f"recorded timeout for player {player}, but {hand.to_act} acts")
            hand.timeout()
        else:
            hand.act(action, player)


def replay(
    config: StudConfig | DrawConfig,
    stacks: Sequence[int],
    seed: int,
    actions: Iterable[tuple[int, Action | None]],
) -> StudHand | DrawHand:
    """Rebuild a hand from its configuration, seed and action list.

    A hand is its configuration, stacks, seed and actions (timeouts included, S10):
    the same four give the same hand, card for card.

    >>> from poker_rules import Action, StudConfig, StudHand
    >>> hand = StudHand(StudConfig(), [1000, 1000], seed=5)
    >>> hand.act(Action.bring_in())
    >>> hand.timeout()  # S10: no chips in by choice, the hand is folded
    Action(kind=<ActionKind.FOLD: 'fold'>, amount=0, cards=())
    >>> again = replay(StudConfig(), [1000, 1000], 5, hand.actions)
    >>> again.events == hand.events and again.stacks == hand.stacks
    True
    """
    hand = new_hand(config, stacks, seed)
    apply_all(hand, actions)
    return hand
