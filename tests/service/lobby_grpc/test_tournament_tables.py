# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""The ring-game seating RPCs refuse a tournament's table (FAILED_PRECONDITION,
pointing at Tournaments.SetAway) and change nothing there: tournament tables are
seated and marked away by the tournament (T6), not by B3-B6."""

from __future__ import annotations

import grpc

from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import tournament_pb2 as tpb
from tests.support.lobby import refused
from tests.support.tournaments import lobby_process, players, request, started

from .client import Auth


def test_B3_seating_rpcs_refuse_a_tournament_table() -> None:
    with lobby_process() as lobby:
        field = players(lobby, 4)
        tid = started(lobby, request(), field)
        tables = lobby.tournaments.GetTournament(tpb.GetTournamentRequest(tournament_id=tid)).tables
        table_id = tables[0].table_id
        seated = lobby.lobby.GetTable(pb.GetTableRequest(table_id=table_id))
        someone = next(p for p in field if p.player_id == seated.occupied[0].player_id)
        who: Auth = {"player_id": someone.player_id, "token": someone.token, "table_id": table_id}
        calls = [
            lambda: lobby.lobby.SitOut(pb.SitOutRequest(**who)),
            lambda: lobby.lobby.SitIn(pb.SitInRequest(**who)),
            lambda: lobby.lobby.SetAutoPost(pb.SetAutoPostRequest(**who)),
            lambda: lobby.lobby.ImIn(pb.ImInRequest(**who)),
        ]
        for call in calls:
            code, message = refused(call)
            assert code == grpc.StatusCode.FAILED_PRECONDITION, message
            assert "tournament" in message and "SetAway" in message
        assert lobby.lobby.GetTable(pb.GetTableRequest(table_id=table_id)) == seated
