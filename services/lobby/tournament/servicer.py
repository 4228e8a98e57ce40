"""The Tournaments gRPC servicer: validate, call the book, convert; see
tournament.proto for the contract."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from poker.lobby.v1 import tournament_pb2 as tpb
from poker.lobby.v1 import tournament_pb2_grpc as tpb_grpc
from poker_rules.tournament import LevelClock
from poker_wire import check_id
from service_kit.errors import FailedPreconditionError, InvalidArgumentError
from service_kit.identity import player_token

from ..auth import authenticate
from . import entries, lifecycle
from .book import TournamentBook
from .models import Tournament
from .structure import stakes_pb

Context = grpc.aio.ServicerContext[Any, Any]
STATUS = {
    "registering": tpb.TOURNAMENT_STATUS_REGISTERING,
    "running": tpb.TOURNAMENT_STATUS_RUNNING,
    "finished": tpb.TOURNAMENT_STATUS_FINISHED,
}
K = tpb.TournamentEventKind


class TournamentsServicer(tpb_grpc.TournamentsServicer, tpb_grpc.TournamentOperatorServicer):
    """The Tournaments service; see tournament.proto for the contract."""

    def __init__(self, book: TournamentBook) -> None:
        self.book = book
        self.store = book.store.store

    def _authenticate(self, player_id: str, token: str, context: Context) -> tuple[str, int]:
        """(player id, balance), by the request's token or the call's bearer token."""
        row = authenticate(self.store, player_id, player_token(token, context))
        return row.player_id, row.balance

    def _tournament_pb(self, t: Tournament) -> tpb.Tournament:
        r = t.request
        position = t.structure.position(t.elapsed())
        out = tpb.Tournament(
            tournament_id=t.tournament_id,
            name=r.name,
            config=r.config,
            status=STATUS[t.status],
            seats_per_table=r.seats_per_table,
            schedule=r.schedule,
            clock=tpb.LEVEL_CLOCK_HANDS
            if t.structure.clock is LevelClock.HANDS
            else tpb.LEVEL_CLOCK_SECONDS,
            starting_stack=t.structure.starting_stack,
            buy_in=t.structure.buy_in,
            fee=t.structure.fee,
            late_registration_level=t.structure.late_registration_level,
            max_entries=t.structure.max_entries,
            entries=len(t.entries),
            players_left=len(t.alive()),
            prize_pool=t.structure.prize_pool(len(t.entries)),
            payouts=lifecycle.payouts(t),
            level=t.level,
            stakes=stakes_pb(position.stakes),
            on_break=t.on_break,
            registration_open=t.registration_open(),
            hands_played=t.hands_played,
            chips_in_play=t.chips_in_play(),
            action_clock_ms=r.action_clock_ms,
            final_table_id=t.final_table_id,
        )
        out.tables.extend(
            tpb.TournamentTable(
                table_id=x.table_id,
                players=len(x.seats),
                waiting=x.waiting,
                broken=x.broken,
                hands_played=x.hands_played,
            )
            for x in t.tables.values()
        )
        return out

    async def CreateTournament(
        self, request: tpb.CreateTournamentRequest, context: Context
    ) -> tpb.Tournament:
        return self._tournament_pb(lifecycle.create(self.book, request))

    async def GetTournament(
        self, request: tpb.GetTournamentRequest, context: Context
    ) -> tpb.Tournament:
        return self._tournament_pb(self.book.get(request.tournament_id))

    async def ListTournaments(
        self, request: tpb.ListTournamentsRequest, context: Context
    ) -> tpb.ListTournamentsResponse:
        return tpb.ListTournamentsResponse(
            tournaments=[self._tournament_pb(t) for t in self.book.tournaments.values()]
        )

    async def Register(
        self, request: tpb.RegisterEntryRequest, context: Context
    ) -> tpb.RegisterEntryResponse:
        return self._enter(request, context, re_entry=False)

    async def ReEnter(
        self, request: tpb.RegisterEntryRequest, context: Context
    ) -> tpb.RegisterEntryResponse:
        return self._enter(request, context, re_entry=True)

    def _enter(
        self, request: tpb.RegisterEntryRequest, context: Context, *, re_entry: bool
    ) -> tpb.RegisterEntryResponse:
        t = self.book.get(request.tournament_id)
        pid, balance = self._authenticate(request.player_id, request.token, context)
        entry, after = entries.enter(self.book, t, pid, balance, re_entry=re_entry)
        return tpb.RegisterEntryResponse(
            entry=entry.number, balance=after, table_id=entry.table_id, seat=entry.seat
        )

    async def Unregister(
        self, request: tpb.UnregisterEntryRequest, context: Context
    ) -> tpb.UnregisterEntryResponse:
        t = self.book.get(request.tournament_id)
        pid, _ = self._authenticate(request.player_id, request.token, context)
        refunded, balance = entries.unregister(self.book, t, pid)
        return tpb.UnregisterEntryResponse(refunded=refunded, balance=balance)

    async def Start(self, request: tpb.StartTournamentRequest, context: Context) -> tpb.Tournament:
        return self._tournament_pb(lifecycle.start(self.book, request.tournament_id))

    async def SetAway(self, request: tpb.SetAwayRequest, context: Context) -> tpb.SetAwayResponse:
        t = self.book.get(request.tournament_id)
        pid, _ = self._authenticate(request.player_id, request.token, context)
        entries.set_away(self.book, t, pid, request.away)
        return tpb.SetAwayResponse(away=request.away)

    async def GetMySeat(self, request: tpb.GetMySeatRequest, context: Context) -> tpb.MySeat:
        t = self.book.get(request.tournament_id)
        pid, _ = self._authenticate(request.player_id, request.token, context)
        entry = t.latest(pid)
        if entry is None:
            raise FailedPreconditionError(f"player {pid} is not registered in this tournament")
        return tpb.MySeat(
            table_id=entry.table_id,
            seat=entry.seat,
            chips=0 if entry.busted else entry.chips,
            busted=entry.busted,
            place=entry.place,
            away=entry.away,
        )

    async def GetStandings(
        self, request: tpb.GetStandingsRequest, context: Context
    ) -> tpb.Standings:
        t = self.book.get(request.tournament_id)
        names = self.store.names(e.player_id for e in t.entries)
        out = tpb.Standings(tournament_id=t.tournament_id, final=t.status == "finished")
        for entry, prize, place in lifecycle.standings_of(t):
            out.standings.append(
                tpb.Standing(
                    place=place,
                    player_id=entry.player_id,
                    name=names.get(entry.player_id, ""),
                    entry=entry.number,
                    chips=0 if entry.busted else entry.chips,
                    busted=entry.busted,
                    prize=prize or 0,
                    has_prize=prize is not None,
                    tied=entry.tied if entry.busted else 1,
                )
            )
        return out

    async def WatchTournament(
        self, request: tpb.WatchTournamentRequest, context: Context
    ) -> AsyncIterator[tpb.TournamentEvent]:
        t = self.book.get(request.tournament_id)
        if request.from_seq < 0:
            raise InvalidArgumentError(f"from_seq must be 0 or more, got {request.from_seq}")
        if request.player_id:
            check_id(request.player_id, "player_id")
        position = max(0, request.from_seq - 1)
        wanted = request.player_id
        while True:
            changed = t.changed
            while position < len(t.events):
                event = t.events[position]
                position += 1
                if (
                    not wanted
                    or event.player_id == wanted
                    or event.kind == K.TOURNAMENT_EVENT_KIND_FINISHED
                ):
                    yield event
            if t.status == "finished":
                return
            await changed.wait()
