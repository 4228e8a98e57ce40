"""Policies for :meth:`tests.support.hand.Hand.play`: who answers a turn, and how.

A policy is ``(player, hand_id, turn) -> action``: :func:`passive` (stand pat,
check, call, bring in), :func:`script` (each seat's actions in order, like
``"raise 300"``; ``None`` lets the clock run out).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from tests.support.player import Player
from tests.support.wire import KINDS, action

Policy = Callable[["Player", str, tpb.YourTurn], "common.Action | str | None"]
"""(player, hand_id, turn) -> the answer; None = do not answer (let the clock run)."""


def passive(player: Player, hand_id: str, turn: tpb.YourTurn) -> common.Action:
    """Stay in as cheaply as possible: stand pat, check, call, bring in."""
    kinds = set(turn.legal.kinds)
    for kind in ("discard", "check", "call", "bring_in"):
        if KINDS[kind] in kinds:
            return action(kind)
    return action("fold")


def script(actions: Mapping[int, Sequence[str | None]], then: Policy = passive) -> Policy:
    """Each seat's actions in order (text as :func:`parse_action` reads it; None =
    let the clock run out); once a seat's list is used up, ``then`` decides."""
    queues = {seat: list(acts) for seat, acts in actions.items()}

    def policy(player: Player, hand_id: str, turn: tpb.YourTurn) -> common.Action | str | None:
        todo = queues.get(turn.legal.seat)
        if todo:
            return todo.pop(0)
        return then(player, hand_id, turn)

    return policy
