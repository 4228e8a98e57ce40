# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B5_...)
"""play() when the seat busts (B5: a seat at 0 chips stays seated, is never dealt in
again, until its player stands up), with and without a rebuy policy; the bot's
optional callbacks (on_hand_start, on_hand_end) and the HandResult they get.

The table is a scripted fake (fake_table.py); the rebuys go through a fake door
(fake_room.py) that serves the same script's Play stream, as the gateway does."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker_bots import CallingStation, HandResult, PlayStats, Rebuy, TableView, play
from poker_bots.sdk import safest

from . import events as build
from .fake_room import FakeRoom, make_room, with_room
from .fake_table import Conn, FakeTable, with_fake

ME = 2
MENU = build.fixed_menu(ME, call=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])


def deal(conn: Conn, hand: str, stacks: dict[int, int], me: int = ME) -> t.TableEvent:
    """A hand's start (antes of 25) and the bot's turn at seat ``me``, as one batch;
    ``me`` is player p2's seat (the player ``play`` runs for)."""
    conn.hand_id = hand
    seats = [build.seat(n, stack=v) for n, v in stacks.items()]
    for seat in seats:
        if seat.seat == me:
            seat.player_id = "p2"
    return build.batch(
        build.ev(
            1,
            hand,
            hand_started=t.HandStarted(
                seats=seats, posts=[t.Post(seat=n, amount=25, kind="ante") for n in stacks]
            ),
        ),
        build.ev(2, hand, cards_dealt=t.CardsDealt(seat=me, cards=["7c", "8d"])),
        conn.turn_event(MENU if me == ME else build.fixed_menu(me, call=50), 1),
    )


def finish(hand: str, stacks: dict[int, int], *, voided: bool = False) -> t.TableEvent:
    seats = [t.SeatView(seat=n, stack=v) for n, v in stacks.items()]
    return build.ev(9, hand, hand_finished=t.HandFinished(seats=seats, voided=voided))


async def bust_hand(conn: Conn, hand: str = "h1", stack: int = 100) -> AsyncIterator[t.TableEvent]:
    """The bot calls all in and loses everything."""
    yield deal(conn, hand, {1: 1_000, ME: stack})
    _, rejected = await conn.expect_action()
    assert rejected is None
    yield build.batch(
        build.ev(
            3,
            hand,
            action_taken=t.ActionTaken(seat=ME, action=c.Action(kind=c.ACTION_KIND_CALL), stack=0),
        ),
        finish(hand, {1: 1_000 + stack, ME: 0}),
    )


def opening(stack: int = 100, seat: int = ME) -> t.TableEvent:
    return build.batch(
        build.snapshot(build.STUD, seat, [build.seat(1), build.seat(seat, stack=stack)], hand="")
    )


def run_table(script: Any, **kw: Any) -> tuple[PlayStats, float]:
    async def body(target: str) -> PlayStats:
        return await play(
            target, "t1", "p2", "secret", kw.pop("bot", CallingStation()), via="table", **kw
        )

    started = time.monotonic()
    stats: PlayStats = asyncio.run(with_fake(FakeTable(script), body))
    return stats, time.monotonic() - started


def test_B5_a_busted_seat_ends_play_with_a_reason() -> None:
    """B5: the table never deals a seat at 0 chips again; play returns at once
    (it used to wait forever) and says why."""

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening()
        async for event in bust_hand(conn):
            yield event
        await asyncio.sleep(30)  # the table deals this seat no more

    stats, seconds = run_table(script)
    assert stats.stopped_by == "busted" and seconds < 5
    assert "seat 2 at table t1 has no chips left" in stats.reason
    assert "Rebuy(buy_in=" in stats.reason  # and how to buy in again
    assert stats.final_stack == 0 and stats.hands == 1 and stats.hands_dealt == 1
    assert stats.rebuys == 0 and stats.busts == 1


def test_B5_joining_a_seat_already_at_zero_chips_ends_play() -> None:
    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening(stack=0)
        await asyncio.sleep(30)

    stats, seconds = run_table(script)
    assert stats.stopped_by == "busted" and stats.hands == 0 and seconds < 5


def test_B5_all_in_in_a_hand_in_progress_is_not_busted() -> None:
    """A Snapshot of a hand the bot is all in (stack 0, still in): it plays on."""

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(
            build.snapshot(
                build.STUD, ME, [build.seat(1), build.seat(ME, stack=0, in_hand=True, all_in=True)]
            )
        )
        yield build.batch(finish("h1", {1: 0, ME: 2_000}))
        await asyncio.sleep(30)

    stats, _ = run_table(script, hands=1)
    assert stats.stopped_by == "hands" and stats.final_stack == 2_000


def test_B5_when_busted_wait_keeps_playing_for_a_rebuy_made_by_someone_else() -> None:
    """``when_busted="wait"``: a room manager stands broke seats up and sits them down
    again; the bot's stream stays open, the bust is counted once, play goes on."""

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening()
        async for event in bust_hand(conn):
            yield event
        yield build.batch(  # others play on while the seat waits: not a new bust
            build.ev(1, "h2", hand_started=t.HandStarted(seats=[build.seat(1), build.seat(3)])),
            finish("h2", {1: 1_000, 3: 1_000}),
        )
        yield deal(conn, "h3", {1: 1_000, ME: 500})  # bought in again by the manager
        await conn.expect_action()
        yield build.batch(finish("h3", {1: 950, ME: 550}))
        await asyncio.sleep(30)

    stats, _ = run_table(script, hands=3, when_busted="wait")
    assert stats.stopped_by == "hands" and stats.busts == 1 and stats.rebuys == 0
    assert stats.final_stack == 550 and stats.hands_dealt == 2


def test_B5_when_busted_wait_follows_the_seat_someone_else_bought_in_at() -> None:
    """``when_busted="wait"``: the manager's rebuy sat the player at seat 4, not
    their old seat 2; no event but the next HandStarted says so.  The view follows
    the player there (its cards, its stack, its turn), and the old seat is gone."""
    seen: list[tuple[int, list[str], int]] = []

    class Looker(Recorder):
        def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
            seen.append((view.my_seat, list(view.my_cards), view.my_stack))
            return super().act(view, legal)

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening()
        async for event in bust_hand(conn):
            yield event
        yield deal(conn, "h2", {1: 1_000, 4: 500}, me=4)  # bought in again at seat 4
        await conn.expect_action()
        yield build.batch(finish("h2", {1: 950, 4: 550}))
        await asyncio.sleep(30)

    bot = Looker()
    stats, _ = run_table(script, bot=bot, hands=2, when_busted="wait")
    assert stats.stopped_by == "hands" and stats.busts == 1 and stats.hands_dealt == 2
    assert seen[-1] == (4, ["7c", "8d"], 475)  # seat 4's cards, its stack after the ante
    assert stats.final_stack == 550
    assert bot.starts[-1] == ("h2", 4, 475) and bot.ends[-1].seat == 4


def test_having_played_the_hands_asked_wins_over_busting() -> None:
    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening()
        async for event in bust_hand(conn):
            yield event
        await asyncio.sleep(30)

    stats, _ = run_table(script, hands=1)
    assert stats.stopped_by == "hands" and stats.final_stack == 0
    assert stats.reason == "1 hands finished, as asked"


def test_a_rebuy_needs_a_lobby_off_the_rooms_door() -> None:
    with pytest.raises(ValueError, match="lobby=Lobby"):
        asyncio.run(
            play(
                "127.0.0.1:1", "t1", "p2", "secret", CallingStation(), via="table", rebuy=Rebuy(500)
            )
        )


class Recorder:
    """A calling station that records what its callbacks saw."""

    def __init__(self) -> None:
        self.starts: list[tuple[str, int, int]] = []  # hand, my seat, my stack
        self.ends: list[HandResult] = []
        self.history: list[list[str]] = []

    def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
        return CallingStation().act(view, legal)

    def on_hand_start(self, view: TableView) -> None:
        self.starts.append((view.hand_id, view.my_seat, view.my_stack))

    async def on_hand_end(self, view: TableView, result: HandResult) -> None:
        await asyncio.sleep(0)
        self.ends.append(result)
        self.history.append([f"{a.seat}:{a.kind_name}" for a in view.actions])


def run_room(room: FakeRoom, bot: Any, **kw: Any) -> PlayStats:
    async def body(address: str) -> PlayStats:
        return await play(address, "t1", "p2", "secret", bot, **kw)

    stats: PlayStats = asyncio.run(with_room(room, body))
    return stats


def test_B5_rebuy_policy_buys_in_again_and_play_goes_on() -> None:
    """B5: with a rebuy policy the busted seat stands up and sits down again through
    the room's lobby (same channel, same credential), the view follows the new seat
    (seat 5 before, the lowest free seat after) and the hands go on."""
    room = make_room()
    room.seats["p2"].seat = 5

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening(seat=5)
        conn.turn = None
        yield deal(conn, "h1", {1: 1_000, 5: 100}, me=5)
        await conn.expect_action()
        yield build.batch(finish("h1", {1: 1_100, 5: 0}))
        await asyncio.wait_for(room.sat.wait(), 5)
        yield deal(conn, "h2", {1: 1_100, 2: 800})
        _, rejected = await conn.expect_action()
        assert rejected is None
        yield build.batch(finish("h2", {1: 1_000, 2: 900}))
        await asyncio.sleep(30)

    room.table = FakeTable(script)
    bot = Recorder()
    stats = run_room(room, bot, hands=2, rebuy=Rebuy(buy_in=800))
    assert stats.stopped_by == "hands" and stats.hands == 2 and stats.hands_dealt == 2
    assert (stats.rebuys, stats.rebuy_chips, stats.seat, stats.final_stack) == (1, 800, 2, 900)
    assert [m for m, _ in room.calls] == ["Play", "StandUp", "SitDown"]
    assert all(bearer == "p2.secret" for _, bearer in room.calls)
    assert bot.starts == [("h1", 5, 75), ("h2", 2, 775)]
    assert [(r.hand_id, r.seat, r.net) for r in bot.ends] == [("h1", 5, -100), ("h2", 2, 100)]


def test_B5_the_rebuy_policy_declines_after_max_times() -> None:
    room = make_room()
    buy_ins: list[tuple[int, int]] = []

    def policy(view: TableView, stats: PlayStats) -> int | None:
        buy_ins.append((view.my_seat, stats.rebuys))
        return Rebuy(300, max_times=1)(view, stats)

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening()
        async for event in bust_hand(conn, "h1", 100):
            yield event
        await asyncio.wait_for(room.sat.wait(), 5)
        async for event in bust_hand(conn, "h2", 300):
            yield event
        await asyncio.sleep(30)

    room.table = FakeTable(script)
    stats = run_room(room, CallingStation(), rebuy=policy)
    assert stats.stopped_by == "busted" and stats.rebuys == 1 and stats.hands == 2
    assert "the rebuy policy declined (after 1 rebuys)" in stats.reason
    assert buy_ins == [(2, 0), (2, 1)]


def test_B5_a_refused_rebuy_ends_play_with_the_refusal() -> None:
    short = "your balance 100 is short of the buy-in 800 (S2)"
    room = make_room(sit_refusal=(grpc.StatusCode.FAILED_PRECONDITION, short))

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening()
        async for event in bust_hand(conn):
            yield event
        await asyncio.sleep(30)

    room.table = FakeTable(script)
    stats = run_room(room, CallingStation(), rebuy=Rebuy(800))
    assert stats.stopped_by == "busted" and stats.rebuys == 0
    assert "the rebuy of 800 was refused: SitDown: FAILED_PRECONDITION: " + short in stats.reason


def test_callbacks_see_each_hand_they_are_dealt_into() -> None:
    """on_hand_start and on_hand_end (sync or async) for the bot's hands only; the
    HandResult of a showdown won; a hand the lobby voided after its end comes again,
    voided, and counts once; a failing callback is counted, play goes on."""

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)], hand=""))
        yield deal(conn, "h1", {1: 1_000, ME: 1_000})
        await conn.expect_action()
        shown = t.ShowdownEvent(
            hands=[
                t.ShownHand(seat=ME, cards=["7c", "8d", "7h"], high="a pair of sevens"),
                t.ShownHand(seat=1, mucked=True),
            ]
        )
        won = t.HandFinished(
            seats=[t.SeatView(seat=1, stack=925), t.SeatView(seat=ME, stack=1_075)],
            awards=[c.Award(pot_index=0, seat=ME, amount=150, share=c.POT_SHARE_WHOLE)],
        )
        yield build.batch(
            build.ev(
                3,
                "h1",
                action_taken=t.ActionTaken(
                    seat=ME, action=c.Action(kind=c.ACTION_KIND_CALL), stack=925
                ),
            ),
            build.ev(4, "h1", showdown=shown),
            build.ev(5, "h1", hand_finished=won),
        )
        yield build.batch(finish("h1", {1: 1_000, ME: 1_000}, voided=True))  # the lobby voided it
        yield build.batch(
            build.ev(1, "h2", hand_started=t.HandStarted(seats=[build.seat(1), build.seat(3)])),
            finish("h2", {1: 1_000, 3: 1_000}),
        )
        await asyncio.sleep(30)

    bot = Recorder()
    stats, _ = run_table(script, bot=bot, hands=2)
    assert stats.hands == 2 and stats.hands_dealt == 1 and stats.bot_errors == 0
    assert bot.starts == [("h1", ME, 975)]
    first, voided = bot.ends
    assert (first.hand_id, first.start_stack, first.final_stack, first.net) == (
        "h1",
        1_000,
        1_075,
        75,
    )
    assert first.won and first.awarded == 150 and first.showed_down
    assert first.shown == ("7c", "8d", "7h") and first.stacks == {1: 925, ME: 1_075}
    assert voided.voided and voided.net == 0 and not voided.won
    assert bot.history[0] == ["2:CALL"]

    class Failing(Recorder):
        def on_hand_start(self, view: TableView) -> None:
            raise RuntimeError("bug in the callback")

    stats, _ = run_table(script, bot=Failing(), hands=2)
    assert stats.bot_errors == 1 and stats.hands == 2 and stats.actions == 1


def test_an_async_bot_with_callbacks() -> None:
    class Slow:
        def __init__(self) -> None:
            self.ended: list[str] = []

        async def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
            return safest(legal)

        async def on_hand_end(self, view: TableView, result: HandResult) -> None:
            self.ended.append(result.hand_id)

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield opening(stack=1_000)
        yield deal(conn, "h7", {1: 1_000, ME: 1_000})
        await conn.expect_action()
        yield build.batch(finish("h7", {1: 1_025, ME: 975}))
        await asyncio.sleep(30)

    bot = Slow()
    stats, _ = run_table(script, bot=bot, hands=1)
    assert bot.ended == ["h7"] and stats.stopped_by == "hands"
