"""The Play stream's vocabulary for test clients: actions from text, events unpacked.

Shared by the scripted players of :mod:`tests.support.player` and the in-process
e2e runner: :func:`action` / :func:`parse_action` build an ``Action`` from a kind
name or text like ``"raise 300"``; :func:`unpack` flattens batched events;
:func:`turn_of` and :func:`hand_of` read a turn and a hand id off any event.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb

KINDS = {
    "fold": common.ACTION_KIND_FOLD,
    "check": common.ACTION_KIND_CHECK,
    "call": common.ACTION_KIND_CALL,
    "bring_in": common.ACTION_KIND_BRING_IN,
    "complete": common.ACTION_KIND_COMPLETE,
    "bet": common.ACTION_KIND_BET,
    "raise": common.ACTION_KIND_RAISE,
    "discard": common.ACTION_KIND_DISCARD,
}
KIND_NAMES = {v: k for k, v in KINDS.items()}


def action(kind: str, amount: int = 0, cards: Iterable[str] = ()) -> common.Action:
    """An Action from a kind name (``"call"``, ``"raise"``...), a to-amount and discards."""
    return common.Action(kind=KINDS[kind], amount=amount, cards=list(cards))


def parse_action(text: str, legal: common.LegalActions) -> common.Action:
    """``"call"``, ``"raise 300"``, ``"bet"`` (the smallest legal amount),
    ``"discard 7c 8d"``, ``"discard"`` (stand pat) -> an Action."""
    kind, *rest = text.split()
    if kind == "discard":
        return action("discard", cards=rest)
    if kind in ("bet", "raise", "complete"):
        amount = int(rest[0]) if rest else (min(legal.to_choices) if legal.to_choices else 0)
        if not rest and not legal.to_choices:
            amount = legal.min_to
        return action(kind, amount)
    if rest:
        raise ValueError(f"{kind} takes no amount: {text!r}")
    return action(kind)


def unpack(event: tpb.TableEvent) -> Iterator[tpb.TableEvent]:
    """The events of one stream message: itself, or a batch's events in order."""
    if event.WhichOneof("event") == "batch":
        for inner in event.batch.events:
            yield from unpack(inner)
    else:
        yield event


def turn_of(event: tpb.TableEvent) -> tpb.YourTurn | None:
    """The turn an event offers: a YourTurn, or a Snapshot's ``your_turn``."""
    if event.HasField("your_turn"):
        return event.your_turn
    if event.HasField("snapshot") and event.snapshot.HasField("your_turn"):
        return event.snapshot.your_turn
    return None


def hand_of(event: tpb.TableEvent) -> str:
    """The hand an event belongs to (a Snapshot carries it in its own field)."""
    return event.snapshot.hand_id if event.HasField("snapshot") else event.hand_id
