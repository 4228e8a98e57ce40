# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B5_...)
"""A bot the table sat out comes back (issue 18, departed players).

The table sits out a player whose every decision the action clock took in
``TABLE_SIT_OUT_AFTER_CLOCK_HANDS`` hands in a row (2 in the room; B3-B6,
docs/rule-decisions.md#departed-players).  A bot that was only slow for a while
is still connected: ``play`` sees hands dealt without its seat, finds the seat
away and sits in again (``sit_in_when_away``, on by default through the door).
"""

from __future__ import annotations

import asyncio

from poker.common.v1 import common_pb2 as c
from poker_bots import PlayStats, TableView, play
from poker_bots.sdk import Action, LegalActions, safest

from .room import BotRoom, CheckOrFold

STUD = c.GameConfig(game=c.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
CLOCK_MS = 300  # S10: short, so that the slow hands pass quickly
BUY_IN = 2_000


class SlowAtFirst:
    """Lets the clock take every decision of its first hands (a client that has
    stalled), then answers at once."""

    def __init__(self, slow_hands: int) -> None:
        self.slow_hands = slow_hands
        self.hands_seen: set[str] = set()
        self.fast_decisions = 0

    async def act(self, view: TableView, legal: LegalActions) -> Action:
        self.hands_seen.add(view.hand_id)
        if len(self.hands_seen) <= self.slow_hands:
            await asyncio.sleep(CLOCK_MS * 2 / 1000)  # the clock answers first
        else:
            self.fast_decisions += 1
        return safest(legal)


def test_B3_B6_a_bot_sat_out_by_the_clock_sits_in_again(room: BotRoom) -> None:
    """Two hands played by the clock: the table sits the bot out (B6 in stud: not
    dealt in, owes nothing); the other two play on; play() finds its seat away and
    sits in again, and the bot is dealt in and acts once more."""

    async def main() -> tuple[PlayStats, SlowAtFirst]:
        # The rivals play a hand in a few milliseconds: B5's orbits (3 hands each
        # here) would take the seat before the slow bot has read its backlog.
        table_id = await room.create_table(
            STUD, seats=3, min_buy_in=BUY_IN, action_clock_ms=CLOCK_MS, max_orbits_away=1_000
        )
        rivals = [await room.seated(f"rival {n}", table_id, BUY_IN * 5) for n in (1, 2)]
        async with room.lobby() as lobby:
            me = await lobby.register("slow at first")
            await lobby.sit(table_id, BUY_IN)
            bot = SlowAtFirst(slow_hands=2)
            stop = asyncio.Event()
            tasks = [
                asyncio.create_task(
                    play(room.target, table_id, r.player_id, r.token, CheckOrFold(), stop=stop)
                )
                for r in rivals
            ]
            mine = asyncio.create_task(
                play(lobby.channel, table_id, me.player_id, me.token, bot, stop=stop)
            )
            try:
                async with asyncio.timeout(60):
                    while not mine.done() and bot.fast_decisions < 3:
                        await asyncio.sleep(0.1)
            finally:
                stop.set()
                await asyncio.gather(*tasks, return_exceptions=True)
            stats = await mine
            seat = await lobby.seat_at(table_id)
            assert seat is not None and not seat.away, seat
            await lobby.stand(table_id)
        return stats, bot

    stats, bot = asyncio.run(main())
    assert stats.sit_ins >= 1, stats
    assert bot.fast_decisions >= 3, "the bot was not dealt in again after sitting in"
    assert stats.stopped_by == "stop", stats
