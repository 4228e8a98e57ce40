"""What a duplicate match and the tables that play its hands say to each other.

A match (:mod:`poker_bots.match`) decides *which* hands are played: the deals
(:class:`Deal`, a deck order each) and, for each deal, the seatings.  A backend
(:class:`HandsBackend`) decides *where*: in process against the rules library
(:class:`poker_bots.local.LocalBackend`) or through the room's services
(``poker_bots.match_room``).  Both take the same plan and give back the same
:class:`HandPlayed` records, so the statistics never know which one played.

Kept in a module of its own, with no logic, so that both backends depend on it
and on nothing of each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from poker.common.v1 import common_pb2

from .sdk import Bot

__all__ = ["Deal", "HandPlayed", "HandsBackend"]


@dataclass(frozen=True, slots=True)
class Deal:
    """One deck of the match, replayed once per seating."""

    number: int  # the deal's index in the match, 0..
    order: tuple[str, ...]  # the deck, first dealt first ("As", "Td", ...)


@dataclass(frozen=True, slots=True)
class HandPlayed:
    """One hand as a backend played it."""

    deal: int  # Deal.number
    # Bot names by dealing position (position 0 gets the deck's first card of each
    # round, as the rules library numbers players: stud, the first seat left of the
    # dealer; draw, the first player left of the button).
    seating: tuple[str, ...]
    net: Mapping[str, int]  # chips won (+) or lost (-) per bot name this hand; sums to 0
    phh: str  # the hand as PHH text


class HandsBackend(Protocol):
    """Plays a match's hands: each entry of ``plan`` is one hand, the deal's deck
    dealt to the bots seated in that order, every bot starting the hand with
    ``stack`` chips.  Returns one :class:`HandPlayed` per entry, in plan order."""

    async def play(
        self,
        config: common_pb2.GameConfig,
        bots: Mapping[str, Bot],
        plan: Sequence[tuple[Deal, tuple[str, ...]]],
        *,
        stack: int,
    ) -> list[HandPlayed]: ...
