# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B5_...)
"""Busting and rebuying in a running room, through the room's door only (issue 18).

- B5: a seat at 0 chips stays seated and is never dealt in again; ``play`` returns
  (``stopped_by == "busted"``) instead of waiting forever, and with a rebuy policy
  buys in again through the lobby and plays on;
- a player told HandFinished stands up and sits down again at once: 100 times in a
  row, every StandUp done (not pending) and every SitDown taken at the first try.
"""

from __future__ import annotations

import asyncio
import time

from poker.common.v1 import common_pb2 as c
from poker_bots import (
    CallingStation,
    HandResult,
    Lobby,
    LobbyError,
    PlayStats,
    Rebuy,
    TableView,
    play,
)

from .room import BotRoom, CheckOrFold, Shover

# 7-A draw, no limit, big blind 20: a buy-in of two big blinds called all in
# against a bot that shoves every hand lasts a few hands.
DRAW_NL = c.GameConfig(game=c.GAME_DRAW_7A, structure=c.STRUCTURE_NO_LIMIT, small_bet=20)
TINY = 40
SHOVER_STACK = 1_000_000
STUD = c.GameConfig(game=c.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
REBUYS = 100
BUY_IN = 200
# Between two hands the table pauses this long (TABLE_HAND_PAUSE_MS): the time a
# player told HandFinished has to stand up before the next hand is planned.  With
# no pause the next hand is planned with the last one's report, before anyone is
# told it ended, so there is no "between hands" to stand up in.
HAND_PAUSE_MS = 250
TABLE_SETTINGS = {"TABLE_HAND_PAUSE_MS": str(HAND_PAUSE_MS)}


async def bust(room: BotRoom, name: str, **options: object) -> tuple[PlayStats, str, Lobby]:
    """A CallingStation with a tiny stack against a Shover, heads up, until the
    calling station's ``play`` returns; its stats, table and lobby (open)."""
    table_id = await room.create_table(DRAW_NL, seats=2, min_buy_in=TINY, action_clock_ms=5_000)
    # The shover's stack is 25,000 buy-ins of the calling station's: it would have
    # to lose 15 all-ins in a row before the calling station loses one.
    shover = await room.seated(f"{name} shover", table_id, SHOVER_STACK, grant=SHOVER_STACK)
    lobby = room.lobby()
    me = await lobby.register(name)
    await lobby.sit(table_id, TINY)
    stop = asyncio.Event()
    rival = asyncio.create_task(
        play(room.target, table_id, shover.player_id, shover.token, Shover(), stop=stop)
    )
    try:
        stats = await asyncio.wait_for(
            play(lobby.channel, table_id, me.player_id, me.token, CallingStation(), **options),  # type: ignore[arg-type]
            40,
        )
    finally:
        stop.set()
        await asyncio.wait_for(rival, 10)
    return stats, table_id, lobby


def test_B5_a_bot_that_busts_returns_from_play(room: BotRoom) -> None:
    """B5: the busted seat stays seated at 0 chips and is never dealt in again;
    play returns, says why, and the player can stand up."""

    async def main() -> None:
        stats, table_id, lobby = await bust(room, "buster")
        async with lobby:
            assert stats.stopped_by == "busted", stats
            assert f"at table {table_id} has no chips left" in stats.reason
            assert stats.final_stack == 0 and stats.hands_dealt >= 1
            seat = await lobby.seat_at(table_id)
            assert seat is not None and seat.stack == 0  # B5: still seated, no chips
            stood = await lobby.stand(table_id)
            assert stood.returned == 0 and await lobby.seat_at(table_id) is None

    asyncio.run(main())


def test_B5_a_rebuy_policy_buys_in_again_until_it_declines(room: BotRoom) -> None:
    """Rebuy(buy_in, max_times=2): busted three times, bought in again twice
    through the room's lobby on play's own channel, then play returns."""

    async def main() -> None:
        stats, table_id, lobby = await bust(room, "rebuyer", rebuy=Rebuy(TINY, max_times=2))
        async with lobby:
            assert stats.stopped_by == "busted", stats
            assert (stats.rebuys, stats.rebuy_chips) == (2, 2 * TINY)
            assert "the rebuy policy declined (after 2 rebuys)" in stats.reason
            seat = await lobby.seat_at(table_id)
            assert seat is not None and seat.stack == 0
            player = await lobby.me()
            assert player.balance == 100_000 - 3 * TINY  # the registration grant, 3 buy-ins
            await lobby.stand(table_id)

    asyncio.run(main())


class StandAndSit(CheckOrFold):
    """After every hand it was dealt into: stand up and sit down again at the same
    seat, each at the first try, recording what the lobby answered."""

    def __init__(self, lobby: Lobby, table_id: str, stop: asyncio.Event) -> None:
        self.lobby = lobby
        self.table_id = table_id
        self.stop = stop
        self.done: list[float] = []  # seconds from HandFinished to seated again
        self.failures: list[str] = []

    async def on_hand_end(self, view: TableView, result: HandResult) -> None:
        if self.stop.is_set():
            return
        started = time.monotonic()
        stood = await self.lobby.stand(self.table_id)
        if stood.pending:
            self.failures.append(
                f"rebuy {len(self.done) + 1}: StandUp after HandFinished of {result.hand_id} "
                "was pending (the lobby still counted the player in a hand)"
            )
            self.stop.set()
            return
        try:
            await self.lobby.sit(self.table_id, BUY_IN, seat=view.my_seat)
        except LobbyError as error:
            self.failures.append(f"rebuy {len(self.done) + 1}: SitDown refused: {error}")
            self.stop.set()
            return
        self.done.append(time.monotonic() - started)
        if len(self.done) >= REBUYS:
            self.stop.set()


def test_B5_100_rebuys_in_a_row_each_at_the_first_try(room: BotRoom) -> None:
    """A player told HandFinished may StandUp and SitDown again at once: heads up,
    100 times in a row, the StandUp is done (not pending: the lobby has no hand of
    theirs any more) and the SitDown is taken at its first try, within the table's
    pause between hands (``HAND_PAUSE_MS``)."""

    async def main() -> StandAndSit:
        table_id = await room.create_table(STUD, seats=2, min_buy_in=BUY_IN, action_clock_ms=5_000)
        rival = await room.seated("rival", table_id, 10_000, seat=1)
        stop = asyncio.Event()
        async with room.lobby() as lobby:
            me = await lobby.register("stand and sit")
            await lobby.sit(table_id, BUY_IN, seat=2)
            bot = StandAndSit(lobby, table_id, stop)
            tasks = [
                play(room.target, table_id, rival.player_id, rival.token, CheckOrFold(), stop=stop),
                play(lobby.channel, table_id, me.player_id, me.token, bot, stop=stop),
            ]
            results = await asyncio.wait_for(asyncio.gather(*tasks), 50)
            assert all(r.stopped_by == "stop" for r in results), results
            if await lobby.seat_at(table_id) is not None:
                await lobby.stand(table_id)
        return bot

    started = time.monotonic()
    bot = asyncio.run(main())
    assert bot.failures == [], bot.failures
    assert len(bot.done) == REBUYS
    print(
        f"{REBUYS} rebuys in {time.monotonic() - started:.1f}s; stand+sit took "
        f"{1000 * max(bot.done):.0f} ms at most"
    )
