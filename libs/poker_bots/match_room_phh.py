"""One hand's record with every player's cards, from the players' own histories.

Why merged: the room's ``GetHandHistory`` gives each player the hand as that
player saw it (their own down cards and draws, ``??`` for the others'), and its
PHH is written from those events (``poker_wire.phh_view``).  A duplicate match
compares what each bot did with the cards it held, so its record of a hand needs
every player's cards.  Each viewer's history is the same list of facts, one
event each (``facts.views``), differing only in the events private to one seat (a
seat's down cards, its draw); taking each such event from that seat's own
history gives the hand as the players held it (burned cards, which nobody saw,
stay out), and the same writer turns it into PHH.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from poker.common.v1 import common_pb2
from poker.table.v1 import table_pb2
from poker_wire.phh_view import history_phh

__all__ = ["dealt_cards", "merge_views", "merged_phh"]


def _kind(event: table_pb2.TableEvent) -> str | None:
    """The fact an event tells (a turn is ``your_turn`` to its seat, ``to_act`` to
    everyone else)."""
    kind = event.WhichOneof("event")
    return "to_act" if kind == "your_turn" else kind


def _owner(event: table_pb2.TableEvent) -> int:
    """The seat that sees ``event`` differently from the others (0: none)."""
    kind = event.WhichOneof("event")
    if kind == "cards_dealt":
        dealt = event.cards_dealt
        return 0 if dealt.up or dealt.community_card else dealt.seat
    if kind == "draw_taken":
        return event.draw_taken.seat
    return 0


def merge_views(
    views: Mapping[int, Sequence[table_pb2.TableEvent]],
) -> list[table_pb2.TableEvent]:
    """The hand's events with each private one as its own seat saw it.

    ``views`` maps a dealt-in seat to its history's events (a seat missing from it
    keeps its private events hidden).  ValueError when the histories are not the
    same hand's facts (different lengths or kinds of events)."""
    if not views:
        return []
    lists = list(views.values())
    first = lists[0]
    for other in lists[1:]:
        if len(other) != len(first) or any(
            _kind(a) != _kind(b) for a, b in zip(first, other, strict=True)
        ):
            raise ValueError("the histories to merge are not views of the same hand")
    merged = []
    for k, event in enumerate(first):
        owner = _owner(event)
        own = views.get(owner) if owner else None
        merged.append(own[k] if own is not None else event)
    return merged


def merged_phh(
    config: common_pb2.GameConfig,
    views: Mapping[int, Sequence[table_pb2.TableEvent]],
    *,
    hand_id: str = "",
    table_id: str = "",
) -> str:
    """The PHH of the merged hand (``merge_views``): every player's cards."""
    return history_phh(config, merge_views(views), hand_id=hand_id, table_id=table_id)


def dealt_cards(events: Sequence[table_pb2.TableEvent]) -> dict[int, list[str]]:
    """The cards each seat received, in the order dealt (a draw's replacements
    after its five), as far as ``events`` show them."""
    cards: dict[int, list[str]] = {}
    for event in events:
        kind = event.WhichOneof("event")
        if kind == "cards_dealt" and event.cards_dealt.seat:
            cards.setdefault(event.cards_dealt.seat, []).extend(event.cards_dealt.cards)
        elif kind == "draw_taken":
            cards.setdefault(event.draw_taken.seat, []).extend(event.draw_taken.received)
    return cards
