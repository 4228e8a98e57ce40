"""A table's finished hands: kept archived, shown as each viewer may see them.

Why a module of its own: the hand loop only appends a hand when it ends (and
marks it voided if the lobby refuses its result); everything else here answers
the readers, GetHandHistory, GetDeckProof and GetDeckReveal, long after the
hand.  The hands are kept packed (``archive``: a few objects each, for the GC) and
turned back into facts only when read, through ``facts.views`` like any live event.

A deck proof (G4a) is made on request from what the history already keeps: the
hand's facts, its reveal (order and salt) and the viewer's view of the facts, so
it costs no memory per hand; it opens only positions whose card is in that view.
"""

from __future__ import annotations

import collections
import dataclasses
from collections.abc import Iterator, Sequence

from poker.table.v1 import table_pb2 as pb
from poker_rules.card_commitment import SCHEME as CARD_SCHEME
from poker_rules.card_commitment import Delivery, openings, prove
from poker_wire.deck_proof import deal_rules, proof_message, view_of
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
            viewer = _viewer(result, player_id)
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

    def _hand(self, hand_id: str) -> ArchivedHand:
        for result in self._hands:
            if result.hand_id == hand_id:
                return result
        raise NotFoundError(f"hand {hand_id!r} is not in table {self.table_id}'s history")

    def proof(self, player_id: str | None, hand_id: str) -> pb.DeckProof:
        """Hand ``hand_id``'s deal as ``player_id`` (None: the public) may check it
        (G4a): the per-card commitment published in HandStarted, opened at the
        positions of the cards in that viewer's history of the hand, sealed
        everywhere else (``poker_rules.card_commitment.openings``)."""
        result = self._hand(hand_id)
        r = result.reveal
        facts = result.facts()
        started = next((x for x in facts if isinstance(x, f.HandStarted)), None)
        if r is None or started is None or not started.card_commitment:
            raise FailedPreconditionError(
                f"hand {hand_id!r} has no card commitment to prove (voided before the deal)"
            )
        events = f.views(facts, _viewer(result, player_id), table_id=self.table_id, hand_id=hand_id)
        seen_started, seen, shown = view_of(events)
        assert seen_started is not None  # every viewer gets the HandStarted fact
        rules = deal_rules(result.config, seen_started)
        order = list(r.order)
        try:
            opened, reshuffled = openings(order, rules, _deliveries(facts), seen, shown)
        except ValueError as error:  # no card in these messages (card_commitment)
            raise FailedPreconditionError(
                f"hand {hand_id!r}: its deal cannot be proven: {error}"
            ) from None
        return proof_message(
            self.table_id,
            hand_id,
            CARD_SCHEME,
            started.card_commitment,
            prove(order, r.salt, opened),
            reshuffled,
        )

    def reveal(self, hand_id: str) -> pb.DeckReveal:
        """Hand ``hand_id``'s deck, opened after the hand so anyone can check it
        against the commitment shown when it started."""
        r = self._hand(hand_id).reveal
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
            card_commitment=r.card_commitment,
        )


def _viewer(result: ArchivedHand, player_id: str | None) -> f.Viewer:
    """Who ``player_id`` was in the hand: its seat (then a participant, S12) or the
    public (a spectator, or a player not dealt in)."""
    seat = 0
    if player_id is not None and player_id in result.players:
        seat = result.seats[result.players.index(player_id)]
    return f.Viewer(seat, participant_after_hand=bool(seat))


def _deliveries(facts: Sequence[f.Fact]) -> list[Delivery]:
    """Every delivery of the hand with its cards, one per ``Dealt``/``DrawTaken``
    fact (as ``view_of`` reads a viewer's events of the same facts)."""
    street = ""
    out: list[Delivery] = []
    for fact in facts:
        if isinstance(fact, f.StreetStarted):
            street = fact.name
        elif isinstance(fact, f.Dealt):
            if fact.community_card:
                out.append(Delivery(0, street, 1, (fact.community_card,), up=True))
            else:
                out.append(Delivery(fact.seat, street, len(fact.cards), fact.cards, up=fact.up))
        elif isinstance(fact, f.DrawTaken):
            out.append(Delivery(fact.seat, street, len(fact.discarded), fact.received))
    return out


__all__ = ["History"]
