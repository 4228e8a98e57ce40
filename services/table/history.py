"""A table's finished hands: a few kept here, every one at the lobby, shown as
each viewer may see them.

Why a module of its own: the hand loop only appends a hand when it ends (and
marks it voided if the lobby refuses its result); everything else here answers
the readers, GetHandHistory, GetDeckProof and GetDeckReveal, long after the
hand.  The hands are kept packed (``archive``: a few objects each, for the GC) and
turned back into facts only when read, through ``facts.views`` like any live event.

Where the hands live: the lobby stores every hand's history with its result
(``ArchivedHand.stored`` in ``FinishHandRequest.history``, one transaction), so
this process keeps only the last ``limit`` hands of a table (its cache,
``TABLE_HISTORY_HANDS``): its memory does not grow with the hands played, and a
restarted table service still answers for the hands before it.  A hand not in the
cache is read from the lobby (``GetHandHistories``) and shown exactly as a cached
one.  The lobby has every hand it took, and the cache the hands this process
played last, so the lobby's hands that are not in the cache are all older than
every cached one: a listing is those, then the cache.  The cache alone has the
hands the lobby has not taken yet (the report is being retried), and a hand whose
report the lobby refused (it voided the hand itself) until ``void`` has sent its
voided history to the lobby.

A deck proof (G4a) is made on request from what the history already keeps: the
hand's facts, its reveal (order and salt) and the viewer's view of the facts, so
it costs no memory per hand; it opens only positions whose card is in that view.
"""

from __future__ import annotations

import asyncio
import collections
import dataclasses
from collections.abc import Iterator, Sequence

import grpc

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as pb
from poker_rules.card_commitment import SCHEME as CARD_SCHEME
from poker_rules.card_commitment import Delivery, openings, prove
from poker_wire.deck_proof import deal_rules, proof_message, view_of
from poker_wire.phh_view import history_phh
from service_kit.errors import FailedPreconditionError, NotFoundError, ServiceError
from service_kit.logs import get_logger

from . import facts as f
from .archive import ArchivedHand, StoredFormatError, pack
from .clients import Downstream, DownstreamError
from .hand import HandResult

STORE_ATTEMPTS = 5  # a voided history's StoreVoidedHistory, tried this many times
STORE_RETRY_S = 1.0  # apart

log = get_logger()


class History:
    """The last ``limit`` finished hands of table ``table_id``, oldest first, and
    through ``lobby`` (None: the cache only, tests) every one before them."""

    def __init__(self, table_id: str, limit: int, lobby: Downstream | None = None) -> None:
        self.table_id = table_id
        self._hands: collections.deque[ArchivedHand] = collections.deque(maxlen=limit)
        self._lobby = lobby
        self._storing: set[asyncio.Task[None]] = set()  # voided histories on their way

    def __iter__(self) -> Iterator[ArchivedHand]:
        return iter(self._hands)

    def __len__(self) -> int:
        return len(self._hands)

    def add(self, result: HandResult) -> ArchivedHand:
        """A hand the runner finished (played or voided), archived; the archive is
        also what the report to the lobby carries (``ArchivedHand.stored``)."""
        archived = ArchivedHand.of(result)
        self._hands.append(archived)
        return archived

    def void(self, hand_id: str, facts: Sequence[f.Fact], start_stacks: Sequence[int]) -> None:
        """The lobby refused hand ``hand_id``'s result: it stands voided, with
        ``facts`` (now ending in a voided HandFinished) and the stacks as at its
        start.  The lobby took nothing of it, its history included, so the voided
        history goes to the lobby now (``StoreVoidedHistory``, in the background:
        the cache has it meanwhile, and keeps it if the lobby cannot be reached)."""
        for i, archived in enumerate(self._hands):
            if archived.hand_id == hand_id:
                voided = dataclasses.replace(
                    archived,
                    packed_facts=pack(facts),
                    final_stacks=tuple(start_stacks),
                    voided=True,
                    outcome="voided",
                )
                self._hands[i] = voided
                if self._lobby is not None:
                    task = asyncio.get_running_loop().create_task(self._store_voided(voided))
                    self._storing.add(task)
                    task.add_done_callback(self._storing.discard)

    def stored(self, hand_id: str) -> bytes:
        """The cached hand's history as the lobby stores it (b"": not cached)."""
        cached = self._cached(hand_id)
        return b"" if cached is None else cached.stored()

    async def _store_voided(self, hand: ArchivedHand) -> None:
        assert self._lobby is not None
        request = lpb.StoreVoidedHistoryRequest(
            table_id=self.table_id, hand_id=hand.hand_id, history=hand.stored()
        )
        for attempt in range(STORE_ATTEMPTS):
            try:
                await self._lobby.call("lobby", "StoreVoidedHistory", request)
                return
            except DownstreamError as error:
                if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    break  # the lobby says no (e.g. it has one): nothing to retry
                if attempt + 1 < STORE_ATTEMPTS:
                    await asyncio.sleep(STORE_RETRY_S)
                    continue
                reason = error.code().name
            log.warning("voided history not stored", hand_id=hand.hand_id, code=reason)
            return
        log.warning("voided history refused by the lobby", hand_id=hand.hand_id)

    async def stored_voids(self) -> None:
        """Until the voided histories on their way are sent: the runtime waits for
        them before its next report, so the lobby stores the hands in order."""
        while self._storing:
            await asyncio.gather(*self._storing, return_exceptions=True)

    # ------------------------------------------------------------ reading

    def _cached(self, hand_id: str) -> ArchivedHand | None:
        for result in self._hands:
            if result.hand_id == hand_id:
                return result
        return None

    async def _stored(self, request: lpb.GetHandHistoriesRequest) -> list[ArchivedHand] | None:
        """The lobby's histories for ``request`` (None: no such hand there)."""
        if self._lobby is None:
            return None
        try:
            reply = await self._lobby.call("lobby", "GetHandHistories", request)
        except DownstreamError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return None
            raise _LobbyUnavailableError(
                f"table {self.table_id}'s older hands are kept by the lobby, which did not "
                f"answer ({error.code().name}); the last {self._hands.maxlen} are here"
            ) from None
        out = []
        for stored in reply.histories:
            try:
                out.append(ArchivedHand.from_stored(stored.history))
            except StoredFormatError as error:
                raise FailedPreconditionError(
                    f"hand {stored.hand_id!r}'s stored history does not read here: {error}"
                ) from None
        return out

    async def _hand(self, hand_id: str) -> ArchivedHand:
        """Hand ``hand_id``: the cache's, else the lobby's; NOT_FOUND when neither."""
        cached = self._cached(hand_id)
        if cached is not None:
            return cached
        stored = await self._stored(
            lpb.GetHandHistoriesRequest(table_id=self.table_id, hand_id=hand_id)
        )
        if not stored:
            raise NotFoundError(f"hand {hand_id!r} is not in table {self.table_id}'s history")
        return stored[0]

    async def _newest(self, limit: int) -> list[ArchivedHand]:
        """The table's last ``limit`` hands, oldest first (module doc: the lobby's
        hands not in the cache, then the cache)."""
        cached = list(self._hands)
        if len(cached) >= limit or self._lobby is None:
            return cached[-limit:]
        stored = await self._stored(
            lpb.GetHandHistoriesRequest(table_id=self.table_id, limit=limit)
        )
        ids = {h.hand_id for h in cached}
        older = [h for h in stored or () if h.hand_id not in ids]
        return (older + cached)[-limit:]

    async def views(self, player_id: str | None, hand_id: str, limit: int) -> list[pb.HandHistory]:
        """Finished hands as ``player_id`` may see them (S12: a participant sees the
        called hands that were mucked): hand ``hand_id``, or the last ``limit``."""
        chosen = [await self._hand(hand_id)] if hand_id else await self._newest(limit)
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

    async def proof(self, player_id: str | None, hand_id: str) -> pb.DeckProof:
        """Hand ``hand_id``'s deal as ``player_id`` (None: the public) may check it
        (G4a): the per-card commitment published in HandStarted, opened at the
        positions of the cards in that viewer's history of the hand, sealed
        everywhere else (``poker_rules.card_commitment.openings``)."""
        result = await self._hand(hand_id)
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

    async def reveal(self, hand_id: str) -> pb.DeckReveal:
        """Hand ``hand_id``'s deck, opened after the hand so anyone can check it
        against the commitment shown when it started."""
        r = (await self._hand(hand_id)).reveal
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


class _LobbyUnavailableError(ServiceError):
    """The lobby, which keeps the older hands, did not answer."""

    code = grpc.StatusCode.UNAVAILABLE


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
