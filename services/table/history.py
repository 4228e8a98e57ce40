"""A table's finished hands: kept archived, shown as each viewer may see them.

Why a module of its own: the hand loop only appends a hand when it ends (and
marks it voided if the lobby refuses its result); everything else here answers
the readers, GetHandHistory and GetDeckReveal, long after the hand.  The hands
are kept packed (``archive``: a few objects each, for the GC) and turned back
into facts only when read, through ``facts.views`` like any live event.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterator, Sequence

from poker.table.v1 import table_pb2 as pb
from poker_wire.phh_view import history_phh
from service_kit.errors import FailedPreconditionError, NotFoundError

from . import facts as f
from .archive import ArchivedHand, pack
from .hand import HandResult


class History:
    """The last ``limit`` finished hands of table ``table_id``, oldest first."""

    def __init__(self, table_id: str, limit: int) -> None:
        self.table_id = table_id
        self._hands: collections.deque[ArchivedHand] = collections.deque(maxlen=limit)

    def __iter__(self) -> Iterator[ArchivedHand]:
        return iter(self._hands)

    def __len__(self) -> int:
        return len(self._hands)

    def add(self, result: HandResult) -> None:
        """A hand the runner finished (played or voided), archived."""
        self._hands.append(ArchivedHand.of(result))

    def void(self, hand_id: str, facts: Sequence[f.Fact], start_stacks: Sequence[int]) -> None:
        """The lobby refused hand ``hand_id``'s result: it stands voided, with
        ``facts`` (now ending in a voided HandFinished) and the stacks as at its
        start."""
        for i, archived in enumerate(self._hands):
            if archived.hand_id == hand_id:
                self._hands[i] = dataclasses.replace(
                    archived,
                    packed_facts=pack(facts),
                    final_stacks=tuple(start_stacks),
                    voided=True,
                    outcome="voided",
                )

    def views(self, player_id: str | None, hand_id: str, limit: int) -> list[pb.HandHistory]:
        """Finished hands as ``player_id`` may see them (S12: a participant sees the
        called hands that were mucked): hand ``hand_id``, or the last ``limit``."""
        if hand_id:
            chosen = [r for r in self._hands if r.hand_id == hand_id]
            if not chosen:
                raise NotFoundError(f"hand {hand_id!r} is not in table {self.table_id}'s history")
        else:
            chosen = list(self._hands)[-limit:]
        out = []
        for result in chosen:
            seat = 0
            if player_id is not None and player_id in result.players:
                seat = result.seats[result.players.index(player_id)]
            viewer = f.Viewer(seat, participant_after_hand=bool(seat))
            events = f.views(result.facts(), viewer, table_id=self.table_id, hand_id=result.hand_id)
            out.append(
                pb.HandHistory(
                    hand_id=result.hand_id,
                    config=result.config,
                    events=events,
                    # Written from the viewer's own events: nothing they were not shown.
                    phh=history_phh(
                        result.config, events, hand_id=result.hand_id, table_id=self.table_id
                    ),
                )
            )
        return out

    def reveal(self, hand_id: str) -> pb.DeckReveal:
        """Hand ``hand_id``'s deck, opened after the hand so anyone can check it
        against the commitment shown when it started."""
        for result in self._hands:
            if result.hand_id == hand_id:
                r = result.reveal
                if r is None:
                    raise FailedPreconditionError(f"hand {hand_id!r} has no reveal (voided early)")
                return pb.DeckReveal(
                    scheme=r.scheme,
                    commitment=r.commitment,
                    order=r.order,
                    salt=r.salt,
                    reshuffle_seed=r.reshuffle_seed,
                    hand_id=r.hand_id,
                    preset=r.preset,
                    log=r.log,
                )
        raise NotFoundError(f"hand {hand_id!r} is not in table {self.table_id}'s history")


__all__ = ["History"]
