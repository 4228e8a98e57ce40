"""A player told a hand is over may stand up and sit down again at once.

The table reports a finished hand to the lobby (FinishHand) before it tells the
players (HandFinished), so a StandUp sent on HandFinished is never answered
``pending`` because the lobby still had that hand in progress, and the SitDown
after it succeeds on the first try.  The next hand is planned with the report
only when it follows at once (no pause between hands); with a pause it is asked
for after the pause, so a player who stands up during it is not dealt in.

Each player reacts to HandFinished the moment the table emits it, and every
lobby call, the table's and the players', waits as one over a network would
(``live_table``).  The players' calls are made the faster of the two, so the
StandUp would reach the lobby before a report sent after the HandFinished.
"""

from __future__ import annotations

import asyncio
import time

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb

from .live_table import LiveTable, Seated, live_table

ANTE = 25
# Stud whose ante is the whole buy-in: both players all-in on the antes, no
# decision, the board dealt out; one of them busts, unless the pot is split.
ALL_IN_STUD = common.GameConfig(
    game=common.GAME_STUD, ante=ANTE, bring_in=50, small_bet=100, big_bet=200
)
STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
TIMES = 100
PAUSED_TIMES = 20  # each takes the pause, half a second


async def stand_up_and_sit_again(table: LiveTable, players: list[Seated], buy_in: int) -> float:
    """Each of ``players`` stands up (done now, never pending), then each sits down
    again (first try: a refusal raises); the seconds it took.  Everyone stands up
    before anyone sits, so no hand can be planned in between."""
    started = time.perf_counter()
    for player in players:
        stood = await table.stand_up(player)
        if stood.pending:
            raise AssertionError(f"seat {player.seat}'s StandUp after HandFinished is pending")
    for player in players:
        await table.sit_down(player, buy_in)  # raises (the lobby's refusal) if not free
    return time.perf_counter() - started


def test_a_busted_player_rebuys_at_once_after_hand_finished_100_times() -> None:
    """No pause between hands (the next plan comes with the report): at a
    heads-up table whose player busts every hand, both stand up on HandFinished
    (neither is pending: the lobby took the hand, and the next plan could deal in
    only the winner, so nothing is planned) and sit down again, first try, 100
    times in a row.  Each HandFinished's hand is already in the table's history."""

    async def scenario() -> tuple[int, list[float], int]:
        async with live_table(table_latency_s=0.002, player_latency_s=0.001) as table:
            await table.create(ALL_IN_STUD, 2, min_buy_in=ANTE, action_clock_ms=600_000)
            rebuys: list[float] = []
            split = 0

            async def on_finished(player: Seated, e: tpb.TableEvent) -> None:
                nonlocal split
                if player.seat != 1:  # one of the two reacts for both
                    return
                stacks = {s.seat: s.stack for s in e.hand_finished.seats}
                history = await table.runtime.histories(player.player_id, e.hand_id, 1)
                assert [h.hand_id for h in history] == [e.hand_id]  # archived before told
                if 0 not in stacks.values():
                    split += 1  # nobody busted: the next hand is planned, both in it
                    return
                busted = next(p for p in table.players if stacks[p.seat] == 0)
                winner = next(p for p in table.players if p is not busted)
                rebuys.append(await stand_up_and_sit_again(table, [busted, winner], ANTE))

            for seat in (1, 2):
                await table.sit(seat, ANTE, on_finished=on_finished)
            await table.start()
            for player in table.players:
                table.connect(player)
            await table.until(lambda: len(rebuys) >= TIMES, f"{TIMES} rebuys")
            return len(rebuys), rebuys, split

    count, took, split = asyncio.run(scenario())
    assert count >= TIMES
    assert split < TIMES // 4  # a split pot is rare: most hands bust a player
    assert max(took) < 1.0


def test_a_player_with_chips_stands_up_and_sits_again_during_the_pause() -> None:
    """With a pause between hands (TABLE_HAND_PAUSE_MS), the next hand is asked
    for after it: seat 1, who still has chips, stands up on every HandFinished
    (never pending) and sits down again (first try), 20 times in a row, and the
    table deals the next hand to both.  The pause is half a second, as a room
    shows a result for a moment, so that a busy machine's hiccup does not outlast it."""

    async def scenario() -> tuple[int, set[int]]:
        async with live_table(
            hand_pause_s=0.5, table_latency_s=0.002, player_latency_s=0.001
        ) as table:
            await table.create(STUD, 2, min_buy_in=100, action_clock_ms=600_000)
            times = 0
            dealt: set[int] = set()

            async def on_finished(player: Seated, e: tpb.TableEvent) -> None:
                nonlocal times
                dealt.add(len(e.hand_finished.seats))
                if player.seat == 1:
                    await stand_up_and_sit_again(table, [player], 1_000)
                    times += 1

            for seat in (1, 2):
                await table.sit(seat, 1_000, on_finished=on_finished)
            await table.start()
            for player in table.players:
                table.connect(player)
            await table.until(lambda: times >= PAUSED_TIMES, f"{PAUSED_TIMES} stand-ups")
            return times, dealt

    times, dealt = asyncio.run(scenario())
    assert times >= PAUSED_TIMES
    assert dealt == {2}  # every hand dealt to both players
