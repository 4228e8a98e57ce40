"""Scripted tournament players and a scripted "table service" against a real lobby.

The rule scenarios (T1-T6) drive one lobby process over gRPC: players Register /
ReEnter / SetAway with their tokens, and the test plays the table service's part
for each tournament table, asking NextHand and reporting FinishHand with made-up
final stacks that conserve the chips dealt in (``Driver.finish``).  No table
service runs there, so nothing races the test for the tables.  The whole-room runs
(``test_full_runs``) use the five services and the reference bots.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import grpc

from devroom.launcher import ServiceProcess
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import tournament_pb2 as tpb
from poker.lobby.v1.tournament_pb2_grpc import TournamentOperatorStub, TournamentsStub
from poker_wire.channels import Stubs
from tests.support.lobby import LobbyClient, lobby_stubs

if TYPE_CHECKING:

    class TournamentsClient(TournamentsStub, TournamentOperatorStub):
        """The player plane's tournament calls and the operator's (create, start)."""

else:
    TournamentsClient = Stubs

K = tpb.TournamentEventKind
STUD_HILO = common.GameConfig(game=common.GAME_STUD_HILO)
DRAW_NL = common.GameConfig(game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT)


@dataclass
class Lobby:
    """The lobby's calls as the tests make them: the hand protocol as the
    ``table`` identity, everything else (the player plane, the operator's
    CreateTournament and Start, GetLedgerTotals) as the ``operator``, over mutual
    TLS on the internal port (``tests.support.lobby.lobby_client``)."""

    lobby: LobbyClient
    tournaments: TournamentsClient


def tournament_stubs(staff: grpc.Channel) -> TournamentsClient:
    """The tournaments' player plane and operator calls on ``staff``."""
    merged = Stubs(TournamentsStub(staff), TournamentOperatorStub(staff))
    return cast(TournamentsClient, merged)


@contextmanager
def lobby_process(env: Mapping[str, str] | None = None) -> Iterator[Lobby]:
    settings = {"LOBBY_DEFAULT_BALANCE": "100000", **(env or {})}
    with (
        ServiceProcess("lobby", settings) as process,
        process.channel("operator") as staff,
        process.channel("table") as table,
    ):
        yield Lobby(lobby_stubs(staff, table), tournament_stubs(staff))


def stud_levels(count: int = 6, hands: int = 2) -> list[tpb.TournamentLevel]:
    return [
        tpb.TournamentLevel(
            ante=5 * 2**i,
            bring_in=10 * 2**i,
            small_bet=20 * 2**i,
            big_bet=40 * 2**i,
            duration=hands,
        )
        for i in range(count)
    ]


def draw_levels(count: int = 6, hands: int = 2) -> list[tpb.TournamentLevel]:
    # Blinds that are not half of each other: the posts carry the level's amounts.
    return [
        tpb.TournamentLevel(small_blind=15 * 2**i, big_blind=40 * 2**i, duration=hands)
        for i in range(count)
    ]


def request(game: str = "stud_hilo", **fields: Any) -> tpb.CreateTournamentRequest:
    stud = game == "stud_hilo"
    base: dict[str, Any] = {
        "name": f"test {game}",
        "config": STUD_HILO if stud else DRAW_NL,
        "seats_per_table": 8 if stud else 5,
        "schedule": stud_levels() if stud else draw_levels(),
        "clock": tpb.LEVEL_CLOCK_HANDS,
        "starting_stack": 1_000,
        "buy_in": 100,
        "fee": 10,
        "seed": 7,
    }
    base.update(fields)
    return tpb.CreateTournamentRequest(**base)


@dataclass
class Player:
    player_id: str
    token: str
    name: str

    def entry(self, tid: str) -> tpb.RegisterEntryRequest:
        return tpb.RegisterEntryRequest(
            tournament_id=tid, player_id=self.player_id, token=self.token
        )


def players(lobby: Lobby, count: int, balance: int = 0) -> list[Player]:
    out = []
    for i in range(count):
        reply = lobby.lobby.RegisterPlayer(
            pb.RegisterPlayerRequest(name=f"p{i + 1}", initial_balance=balance)
        )
        out.append(Player(reply.player.player_id, reply.token, reply.player.name))
    return out


def balance(lobby: Lobby, player: Player) -> int:
    return lobby.lobby.GetPlayer(
        pb.GetPlayerRequest(player_id=player.player_id, token=player.token)
    ).balance


def started(lobby: Lobby, req: tpb.CreateTournamentRequest, field: Sequence[Player]) -> str:
    """Create, register everyone, start; returns the tournament id."""
    tid = lobby.tournaments.CreateTournament(req).tournament_id
    for p in field:
        lobby.tournaments.Register(p.entry(tid))
    lobby.tournaments.Start(tpb.StartTournamentRequest(tournament_id=tid))
    return tid


def events(lobby: Lobby, tid: str, from_seq: int = 1) -> list[tpb.TournamentEvent]:
    """Every event so far (the stream is read until it has nothing new)."""
    stream = lobby.tournaments.WatchTournament(
        tpb.WatchTournamentRequest(tournament_id=tid, from_seq=from_seq), timeout=1.0
    )
    out: list[tpb.TournamentEvent] = []
    try:
        out.extend(stream)
    except grpc.RpcError as error:
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED, error
    return out


class Driver:
    """The table service's part, scripted: NextHand and FinishHand per table."""

    def __init__(self, lobby: Lobby, tid: str) -> None:
        self.lobby = lobby
        self.tid = tid

    def tournament(self) -> tpb.Tournament:
        return self.lobby.tournaments.GetTournament(
            tpb.GetTournamentRequest(tournament_id=self.tid)
        )

    def open_tables(self) -> list[tpb.TournamentTable]:
        return [t for t in self.tournament().tables if not t.broken]

    def seats(self, table_id: str) -> dict[int, str]:
        info = self.lobby.lobby.GetTable(pb.GetTableRequest(table_id=table_id))
        return {s.seat: s.player_id for s in info.occupied}

    def next_hand(self, table_id: str) -> pb.NextHandResponse:
        return self.lobby.lobby.NextHand(pb.NextHandRequest(table_id=table_id))

    def finish(
        self, plan: pb.NextHandResponse, table_id: str, stacks: Mapping[str, int] | None = None
    ) -> pb.FinishHandResponse:
        """Report the hand: ``stacks`` by player id (the rest keep theirs)."""
        stacks = stacks or {}
        final = [
            pb.SeatInfo(seat=s.seat, player_id=s.player_id, stack=stacks.get(s.player_id, s.stack))
            for s in plan.dealt_in
        ]
        assert sum(s.stack for s in final) == sum(s.stack for s in plan.dealt_in), "conserve"
        return self.lobby.lobby.FinishHand(
            pb.FinishHandRequest(table_id=table_id, hand_id=plan.hand_id, final_stacks=final)
        )

    def play(self, table_id: str, stacks: Mapping[str, int] | None = None) -> pb.NextHandResponse:
        """One hand at the table with these results; returns its plan."""
        plan = self.next_hand(table_id)
        assert plan.play, f"table {table_id} did not deal"
        self.finish(plan, table_id, stacks)
        return plan

    def bust(self, table_id: str, losers: Sequence[str], winner: str) -> pb.NextHandResponse:
        """A hand where ``losers`` lose everything to ``winner``."""
        plan = self.next_hand(table_id)
        assert plan.play
        chips = {s.player_id: s.stack for s in plan.dealt_in}
        result = {p: 0 for p in losers}
        result[winner] = chips[winner] + sum(chips[p] for p in losers)
        self.finish(plan, table_id, result)
        return plan
