"""Whole tournaments over the five services with reference bots (acceptance 2).

A 120-player Stud Hi-Lo tournament and a 120-player no-limit 7-A draw tournament
run to the end through ``services.tournament_room.run`` (the same code as
``make tournament``), which checks after every hand that the tables dealing are
within one player (T3; tables waiting for a move excepted), that the chips in play
are entries x starting stack (T5), and at the end that every entry has exactly one
place (T4), that the payouts sum to the prize pool and that the ledger balances.
Levels go by hands and double each level, so a run takes seconds, not hours.
"""

# ruff: noqa: N802  (test names carry the RULES.md rule ID)

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from grpc import aio

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc, tournament_pb2_grpc
from poker.lobby.v1 import tournament_pb2 as tpb
from poker_bots import make_bot
from poker_bots.tournament import play_tournament
from services.stack import Stack
from services.tournament_room import run, tournament_request

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
            stack.target("lobby"),
            stack.target("table"),
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
    still ends in seconds, because the table folds the away player at once."""

    async def scenario() -> tuple[tpb.Standings, float, str]:
        async with (
            aio.insecure_channel(stack.target("lobby")) as lobby,
            aio.insecure_channel(stack.target("table")) as tables,
        ):
            players = lobby_pb2_grpc.LobbyStub(lobby)
            tournaments = tournament_pb2_grpc.TournamentsStub(lobby)
            req = tournament_request("draw_nl", action_clock_ms=60_000, hands_per_level=3, seed=5)
            tid = (await tournaments.CreateTournament(req)).tournament_id
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
            await tournaments.Start(tpb.StartTournamentRequest(tournament_id=tid))
            bots = [
                play_tournament(lobby, tables, tid, pid, token, make_bot("station"))
                for pid, token in who[1:]
            ]
            await asyncio.wait_for(asyncio.gather(*bots), 50)
            standings = await tournaments.GetStandings(tpb.GetStandingsRequest(tournament_id=tid))
            return standings, time.monotonic() - started, away_id

    standings, seconds, away_id = asyncio.run(scenario())
    assert standings.final and seconds < 50
    away = next(s for s in standings.standings if s.player_id == away_id)
    # Dealt in and blinded off: the away player busted, never won.
    assert away.busted and away.place in (2, 3)
