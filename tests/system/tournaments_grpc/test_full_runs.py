"""Whole tournaments over the five services with reference bots (acceptance 2).

A 120-player Stud Hi-Lo tournament and a 120-player no-limit 7-A draw tournament
run to the end through ``devroom.tournament_room.run`` (the same code as
``make tournament``), which checks after every hand that the tables dealing are
within one player (T3; tables waiting for a move excepted), that the chips in play
are entries x starting stack (T5), and at the end that every entry has exactly one
place (T4), that the payouts sum to the prize pool and that the ledger balances.
Levels go by hands and double each level, so a run takes seconds, not hours.
"""

# ruff: noqa: N802  (test names carry the docs/rules.md rule ID)

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from devroom.stack import Stack
from devroom.tournament_room import run, tournament_request
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc, tournament_pb2_grpc
from poker.lobby.v1 import tournament_pb2 as tpb
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc
from poker.table.v1 import table_pb2 as tbl
from poker.table.v1 import table_pb2_grpc
from poker_bots import make_bot
from poker_bots.tournament import play_tournament
from poker_wire.channels import player_channel

ENV = {"table": {"TABLE_IDLE_POLL_S": "0.05", "TABLE_DISCOVERY_S": "0.2"}}


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with Stack(env=ENV) as running:
        yield running


@pytest.mark.parametrize("game", ["stud_hilo", "draw_nl"])
def test_T1_T6_120_reference_bots_play_a_tournament_to_the_end(stack: Stack, game: str) -> None:
    lines: list[str] = []
    report = asyncio.run(
        run(
            stack["lobby"],
            stack["table"],
            tournament_request(game, seed=11),
            120,
            say=lines.append,
            timeout_s=240,
        )
    )
    assert report.problems == [], report.problems[:10]
    assert report.entries == 120 and len(report.results) == 120
    assert report.tables_at_start == (15 if game == "stud_hilo" else 24)
    assert report.tables_broken == report.tables_at_start - 1  # down to the final table
    assert sum(prize for _, _, prize in report.results) == report.prize_pool == 12_000
    assert sorted(place for place, _, _ in report.results)[0] == 1
    assert report.levels >= 2 and report.moves > 0
    assert any(line.startswith("final table") for line in lines)
    print(
        f"{game}: {report.hands} hands, {report.levels} levels, {report.tables_at_start} "
        f"tables, {report.moves} moves, {report.seconds:.1f} s"
    )


def test_T6_a_player_away_is_blinded_off_without_waiting_for_the_clock(stack: Stack) -> None:
    """Three players, one away for good: with a 60 s action clock the tournament
    still ends in seconds, because the table folds the away player at once.  The
    table's history (read at its shard and through the gateway, once the
    tournament is over) shows T6 hand by hand: the away player is dealt in every hand
    until out of chips, posts the blinds, and whenever they must act their hand
    is folded by the clock (in the draw they stand pat, D6).  Being dealt in, an
    away player whose blind puts them all-in can still win that pot at the
    showdown, so where they finish is not fixed."""

    async def scenario() -> tuple[tpb.Standings, float, str, list[tbl.HandHistory]]:
        # The operator creates and starts the tournament (mutual TLS, internal
        # port); the players register and play at the public ports.
        async with (
            stack["lobby"].aio_channel("operator") as staff,
            stack["lobby"].player_channel() as lobby,
            stack["table"].player_channel() as tables,
        ):
            operator = tournament_pb2_grpc.TournamentOperatorStub(staff)
            players = lobby_pb2_grpc.LobbyStub(lobby)
            tournaments = tournament_pb2_grpc.TournamentsStub(lobby)
            req = tournament_request("draw_nl", action_clock_ms=60_000, hands_per_level=3, seed=5)
            tid = (await operator.CreateTournament(req)).tournament_id
            who = []
            for i in range(3):
                reply = await players.RegisterPlayer(lpb.RegisterPlayerRequest(name=f"t6-{i}"))
                who.append((reply.player.player_id, reply.token))
                await tournaments.Register(
                    tpb.RegisterEntryRequest(
                        tournament_id=tid, player_id=who[-1][0], token=who[-1][1]
                    )
                )
            away_id, away_token = who[0]
            await tournaments.SetAway(
                tpb.SetAwayRequest(
                    tournament_id=tid, player_id=away_id, token=away_token, away=True
                )
            )
            started = time.monotonic()
            await operator.Start(tpb.StartTournamentRequest(tournament_id=tid))
            seat = await tournaments.GetMySeat(
                tpb.GetMySeatRequest(tournament_id=tid, player_id=away_id, token=away_token)
            )
            bots = [
                play_tournament(lobby, tables, tid, pid, token, make_bot("station"))
                for pid, token in who[1:]
            ]
            await asyncio.wait_for(asyncio.gather(*bots), 50)
            standings = await tournaments.GetStandings(tpb.GetStandingsRequest(tournament_id=tid))
            seconds = time.monotonic() - started
            table_service = table_pb2_grpc.TableServiceStub(tables)
            # The tournament is over: the table service stops running its table,
            # and the table's hands stay readable (the players' history).
            deadline = time.monotonic() + 30
            while seat.table_id in {
                t.table_id for t in (await table_service.ListTables(tbl.ListTablesRequest())).tables
            }:
                assert time.monotonic() < deadline, "the finished tournament's table still runs"
                await asyncio.sleep(0.1)
            history = await table_service.GetHandHistory(
                tbl.GetHandHistoryRequest(table_id=seat.table_id, limit=100)
            )
            own = await table_service.GetHandHistory(  # a player's own, after the end
                tbl.GetHandHistoryRequest(
                    table_id=seat.table_id, limit=100, player_id=away_id, token=away_token
                )
            )
            assert [h.hand_id for h in own.hands] == [h.hand_id for h in history.hands]
            # And at the door, the one address players have: no shard lists the
            # table now, and the gateway still finds its hands (G4a: the deck
            # proof of its last hand too).
            assert stack.pki is not None
            async with player_channel(stack.gateway_target, str(stack.pki.ca_file)) as door:
                room = room_pb2_grpc.RoomStub(door)
                auth = (("authorization", f"Bearer {away_id}.{away_token}"),)
                at_door = await room.GetHandHistory(
                    rpb.GetHandHistoryRequest(table_id=seat.table_id, limit=100), metadata=auth
                )
                last = own.hands[-1].hand_id
                proof = await room.GetDeckProof(
                    rpb.GetDeckProofRequest(table_id=seat.table_id, hand_id=last), metadata=auth
                )
            assert [h.hand_id for h in at_door.hands] == [h.hand_id for h in own.hands]
            assert proof.hand_id == last and proof.table_id == seat.table_id
            return standings, seconds, away_id, list(history.hands)

    standings, seconds, away_id, hands = asyncio.run(scenario())
    assert standings.final and seconds < 50
    assert sorted(s.place for s in standings.standings) == [1, 2, 3]
    assert hands, "the table kept the tournament's hands"
    folded = 0
    for hand in hands:
        events = [e for e in hand.events if e.WhichOneof("event") != "batch"] + [
            inner for e in hand.events if e.HasField("batch") for inner in e.batch.events
        ]
        started_hand = next(e.hand_started for e in events if e.HasField("hand_started"))
        seats = {s.player_id: s.seat for s in started_hand.seats}
        if away_id not in seats:
            continue  # out of chips: no longer dealt in
        away_seat = seats[away_id]
        for e in events:
            if e.HasField("action_taken") and e.action_taken.seat == away_seat:
                taken = e.action_taken
                # T6: folded by the clock at once, never a choice of theirs.
                assert taken.timeout and taken.action.kind == common.ACTION_KIND_FOLD, taken
                folded += 1
            if e.HasField("draw_taken") and e.draw_taken.seat == away_seat:
                assert e.draw_taken.count == 0  # D6: stands pat
    assert folded > 0
