"""The tournaments in memory over the store: rebuilt at start, looked up by id
or by table, and changed one transaction at a time with their events.

A change of a tournament runs inside ``atomic(t)``: its state, its new events and
the ledger rows of its money are committed together, and if anything fails the
tournament is put back as it was saved (state and events), so a refused request
changes nothing.  Watchers are woken when a change commits.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from poker.lobby.v1 import tournament_pb2 as tpb
from poker_wire import check_id, game_of
from service_kit.errors import NotFoundError
from service_kit.logs import get_logger

from ..ring.table import VOIDED_BY_RESTART
from ..tournament_store import TournamentStore
from .hand_records import TournamentHands
from .models import Tournament, TTable
from .structure import structure_from

log = get_logger()


class TournamentRegistry:
    """Every tournament and which tournament each table belongs to."""

    def __init__(self, store: TournamentStore) -> None:
        self.store = store
        self.tournaments: dict[str, Tournament] = {}
        self.table_owner: dict[str, str] = {}  # table_id -> tournament_id
        # Its tables' hands as ListHands lists them (hand_records.py), same database.
        self.hand_rows = TournamentHands(store._db)
        self._restore()

    def _restore(self) -> None:
        """Load every tournament; a hand a table had in progress is voided (the
        stacks stay as at its start), as at ring tables."""
        voided = 0
        restart_voids: list[str] = []
        for tid, request_bytes, state in self.store.load():
            request = tpb.CreateTournamentRequest.FromString(request_bytes)
            game = game_of(request.config.game)
            t = Tournament(tid, request, structure_from(request, game), game)
            t.load_state(state)
            t.events = [tpb.TournamentEvent.FromString(b) for b in self.store.events(tid)]
            for table in t.tables.values():
                self.table_owner[table.table_id] = tid
                if table.pending_id:  # the hand in progress is voided: stacks as at its start
                    restart_voids.append(table.pending_id)
                    table.clear_pending()
                    voided += 1
            self.tournaments[tid] = t
        if voided:
            with self.store.transaction():
                for t in self.tournaments.values():
                    self.store.save(t.tournament_id, t.to_state())
                for hand_id in restart_voids:
                    self.hand_rows.end(hand_id, "voided", VOIDED_BY_RESTART)
        log.info("tournaments restored", tournaments=len(self.tournaments), voided=voided)

    # ------------------------------------------------------------ lookups

    def get(self, tournament_id: str) -> Tournament:
        tid = check_id(tournament_id, "tournament_id")
        t = self.tournaments.get(tid)
        if t is None:
            raise NotFoundError(f"no tournament {tid}")
        return t

    def owns(self, table_id: str) -> bool:
        """Whether ``table_id`` is one of a tournament's tables."""
        return table_id in self.table_owner

    def owner(self, table_id: str) -> tuple[Tournament, TTable]:
        t = self.tournaments[self.table_owner[table_id]]
        return t, t.tables[table_id]

    def add_table(self, t: Tournament, table: TTable) -> None:
        """A new table of ``t``; the lobby routes its calls here from now on."""
        t.tables[table.table_id] = table
        self.table_owner[table.table_id] = t.tournament_id

    # ------------------------------------------------------------ changes

    def save(self, t: Tournament) -> None:
        self.store.save(t.tournament_id, t.to_state())

    def emit(
        self, t: Tournament, kind: tpb.TournamentEventKind.ValueType, **fields: Any
    ) -> tpb.TournamentEvent:
        """The next event of ``t``, numbered and stored with the change."""
        event = tpb.TournamentEvent(
            seq=len(t.events) + 1, unix_ms=int(time.time() * 1000), kind=kind, **fields
        )
        t.events.append(event)
        self.store.add_event(t.tournament_id, event.seq, event.SerializeToString())
        return event

    @staticmethod
    def _notify(t: Tournament) -> None:
        t.changed.set()
        t.changed = asyncio.Event()

    @contextmanager
    def atomic(self, t: Tournament) -> Iterator[None]:
        """A transaction that restores ``t`` from its saved state if anything fails."""
        state = t.to_state()
        events = len(t.events)
        try:
            with self.store.transaction():
                yield
        except BaseException:
            t.tables.clear()
            t.load_state(state)
            del t.events[events:]
            raise
        self._notify(t)
