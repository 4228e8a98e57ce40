"""play() end to end against a scripted fake TableService (grpc.aio on 127.0.0.1:0)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
from grpc import aio

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker_bots import (
    CallingStation,
    HandStrengthBot,
    Multiplexer,
    PlayStats,
    RandomBot,
    TableView,
    play,
)
from poker_bots.sdk import check_action, choose, clamp_to, describe, legal_kinds, safest
from poker_wire.channels import player_channel

from . import events as build
from .fake_table import Conn, FakeTable, with_fake

ME = 2
MENU = build.fixed_menu(ME, call=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])
CHECK_MENU = build.fixed_menu(ME, check=True, raise_kind=c.ACTION_KIND_BET, to=[100])


def deal_events() -> list[t.TableEvent]:
    return [
        build.hand_started(
            [build.seat(1), build.seat(2)], posts=[(1, 25, "ante"), (2, 25, "ante")]
        ),
        build.dealt(1, hidden=2),
        build.dealt(2, ["As", "Ad"]),
        build.dealt(1, ["2c"], up=True),
        build.dealt(2, ["Ah"], up=True),
        build.action(1, c.ACTION_KIND_BRING_IN, stack=925),
    ]


def run(fake: FakeTable, bot: Any = None, **kw: Any) -> PlayStats:
    async def body(target: str) -> PlayStats:
        return await play(
            target,
            "t1",
            "p2",
            kw.pop("token", "secret"),
            bot or HandStrengthBot(),
            via="table",
            **kw,
        )

    result: PlayStats = asyncio.run(with_fake(fake, body))
    return result


def test_on_turn_batches_and_action_seq() -> None:
    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(
            build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)], hand=""),
            *deal_events(),
            conn.turn_event(MENU, 3),
        )
        act, rejected = await conn.expect_action()
        assert rejected is None
        assert act.action_seq == 3 and act.hand_id == "h1"
        assert act.action == c.Action(kind=c.ACTION_KIND_COMPLETE, amount=100)  # trips
        yield build.batch(
            build.action(2, c.ACTION_KIND_COMPLETE, stack=875, amount=100),
            build.action(1, c.ACTION_KIND_CALL, stack=875),
            build.ev(6, street_started=t.StreetStarted(street=4, name="fourth")),
            build.dealt(2, ["Kc"], up=True),
            conn.turn_event(CHECK_MENU, 5),
        )
        act, rejected = await conn.expect_action()
        assert rejected is None and act.action_seq == 5
        yield build.batch(build.finished({1: 875, 2: 1_125}))
        await asyncio.sleep(10)  # the bot leaves after one hand

    fake = FakeTable(script)
    stats = run(fake, hands=1)
    assert fake.joins[0] == t.Join(
        table_id="t1", player_id="p2", token="secret", delivery=t.DELIVERY_ON_TURN
    )
    assert stats.hands == 1 and stats.actions == 2 and stats.stopped_by == "hands"
    assert stats.messages == 3 and stats.events == 1 + 6 + 1 + 5 + 1
    assert stats.final_stack == 1_125 and stats.seat == ME
    assert len(fake.accepted) == 2


def test_every_event_delivery() -> None:
    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)], hand="")
        for event in deal_events():
            yield event
        yield conn.turn_event(MENU, 1)
        _, rejected = await conn.expect_action()
        assert rejected is None
        yield build.finished({1: 900, 2: 1_100})
        yield build.hand_started([build.seat(1), build.seat(2)])
        yield build.finished({1: 900, 2: 1_100})

    seen: list[str] = []

    def hook(event: t.TableEvent, view: TableView) -> None:
        seen.append(str(event.WhichOneof("event")))

    fake = FakeTable(script)
    stats = run(fake, CallingStation(), delivery=t.DELIVERY_EVERY_EVENT, hands=2, on_event=hook)
    assert fake.joins[0].delivery == t.DELIVERY_EVERY_EVENT
    assert stats.hands == 2 and fake.accepted[0].action.kind == c.ACTION_KIND_CALL
    assert seen[0] == "snapshot" and seen.count("hand_finished") == 2
    assert stats.messages == stats.events


def test_rejection_falls_back_once_and_stale_rejections_are_ignored() -> None:
    class Raiser:
        def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
            return choose(legal, c.ACTION_KIND_BET)

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(
            build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]),
            conn.turn_event(CHECK_MENU, 7),
        )
        act, _ = await conn.expect_action()
        assert act.action.kind == c.ACTION_KIND_BET and act.action_seq == 7
        # a stale rejection (an old action_seq): logged, nothing sent
        yield build.batch(
            build.ev(0, action_rejected=t.ActionRejected(action_seq=6, code=9, message="old"))
        )
        # the table refuses the current turn's action: the bot checks instead, once
        yield build.batch(
            build.ev(0, action_rejected=t.ActionRejected(action_seq=7, code=3, message="no"))
        )
        act, _ = await conn.expect_action()
        assert act.action_seq == 7 and act.action == c.Action(kind=c.ACTION_KIND_CHECK)
        yield build.batch(
            build.ev(0, action_rejected=t.ActionRejected(action_seq=7, code=3, message="no"))
        )
        yield build.batch(
            build.action(ME, c.ACTION_KIND_CHECK, stack=1_000), build.finished({1: 1_000, 2: 1_000})
        )

    fake = FakeTable(script)
    stats = run(fake, Raiser(), hands=1)
    assert stats.rejected == 3 and stats.fallbacks == 1 and stats.actions == 2
    assert stats.rejections == ["old", "no", "no"]


def test_wrong_action_seq_is_rejected_by_the_table() -> None:
    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(
            build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]), conn.turn_event(MENU, 4)
        )
        conn.turn = t.YourTurn(action_seq=5, legal=MENU)  # the table moved on meanwhile
        act, rejected = await conn.expect_action()
        assert act.action_seq == 4 and rejected is not None
        assert rejected.action_rejected.code == 9
        # as far as the bot knows its turn is still seq 4: it falls back once
        yield build.batch(rejected)
        act, rejected = await conn.expect_action()
        assert act.action_seq == 4 and act.action.kind == c.ACTION_KIND_FOLD
        yield build.batch(build.finished({1: 1_000, 2: 1_000}))

    stats = run(FakeTable(script), CallingStation(), hands=1)
    assert stats.fallbacks == 1 and stats.rejected == 1


def test_illegal_bot_action_and_bot_errors_become_the_safest_action() -> None:
    class Broken:
        def __init__(self) -> None:
            self.calls = 0

        def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
            self.calls += 1
            if self.calls == 1:
                return c.Action(kind=c.ACTION_KIND_RAISE, amount=12345)  # not on the menu
            raise RuntimeError("bug in the bot")

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(
            build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]),
            conn.turn_event(CHECK_MENU, 1),
        )
        act, rejected = await conn.expect_action()
        assert rejected is None and act.action.kind == c.ACTION_KIND_CHECK
        yield build.batch(conn.turn_event(MENU, 2))
        act, rejected = await conn.expect_action()
        assert rejected is None and act.action.kind == c.ACTION_KIND_FOLD
        yield build.batch(build.finished({1: 1_000, 2: 1_000}))

    stats = run(FakeTable(script), Broken(), hands=1)
    assert stats.bot_errors == 2 and stats.fallbacks == 2 and stats.rejected == 0


async def one_check(conn: Conn) -> AsyncIterator[t.TableEvent]:
    """A hand with one turn, where the bot must be seen to check, then its end."""
    yield build.batch(
        build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]),
        conn.turn_event(CHECK_MENU, 1),
    )
    act, rejected = await conn.expect_action()
    assert rejected is None and act.action.kind == c.ACTION_KIND_CHECK
    yield build.batch(build.finished({1: 1_000, 2: 1_000}))


def test_an_unknown_action_kind_from_the_bot_becomes_the_safest_action() -> None:
    """A kind this build has no name for (99) is illegal like any other; naming it in
    the warning used to raise ValueError out of take_turn and end the session."""

    class Unknown:
        def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
            return c.Action(kind=99)  # type: ignore[arg-type]

    stats = run(FakeTable(one_check), Unknown(), hands=1)
    assert stats.bot_errors == 1 and stats.fallbacks == 1 and stats.hands == 1
    assert check_action(CHECK_MENU, c.Action(kind=99)) == (  # type: ignore[arg-type]
        "ACTION_KIND_99 is not allowed; allowed: " + describe(CHECK_MENU)
    )


def resumed_turn(action_seq: int) -> Callable[[Conn], AsyncIterator[t.TableEvent]]:
    """The script of a reconnect: the Snapshot carries the pending turn
    (``action_seq``), the bot answers it, the hand ends."""

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        snap = build.snapshot(
            build.STUD,
            ME,
            [build.seat(1), build.seat(2)],
            turn=t.YourTurn(action_seq=action_seq, legal=MENU),
        )
        conn.turn = snap.snapshot.your_turn
        yield build.batch(snap)
        act, rejected = await conn.expect_action()
        assert rejected is None and act.action_seq == action_seq
        yield build.batch(build.finished({1: 1_000, 2: 1_000}))

    return script


def test_reconnect_on_unavailable_resumes_from_the_snapshot_turn() -> None:
    async def first(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(
            build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]), conn.turn_event(MENU, 2)
        )
        await conn.expect_action()
        await conn.context.abort(grpc.StatusCode.UNAVAILABLE, "table restarting")
        yield build.ev()  # pragma: no cover - never reached

    fake = FakeTable(first, resumed_turn(4))
    stats = run(fake, CallingStation(), hands=1, backoff=0.01)
    assert fake.connections == 2 and stats.reconnects == 1
    assert [j.player_id for j in fake.joins] == ["p2", "p2"]
    assert [a.action_seq for a in fake.actions] == [2, 4]


def test_a_reconnect_that_finds_the_seat_gone_ends_play_unseated() -> None:
    """Stood up by another client while the stream reconnected: the new Snapshot
    has no seat for the player, so the table would never deal this stream a card;
    play returns saying so (it went on as a spectator for ever)."""

    async def first(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)], hand=""))
        await conn.context.abort(grpc.StatusCode.UNAVAILABLE, "table restarting")
        yield build.ev()  # pragma: no cover - never reached

    async def second(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(build.snapshot(build.STUD, 0, [build.seat(1)], hand=""))
        await asyncio.sleep(30)

    stats = run(FakeTable(first, second), CallingStation(), backoff=0.01)
    assert stats.stopped_by == "unseated" and stats.reconnects == 1
    assert "p2 has no seat at table t1" in stats.reason


INTERNAL_FROM_CORE = aio.AioRpcError(
    grpc.StatusCode.INTERNAL, aio.Metadata(), aio.Metadata(), "Internal error from Core"
)


class BrokenUnderWrite:
    """A Play call whose stream breaks as the bot answers, as grpc.aio reports it
    when the table service goes away mid-write (seen in the container restart
    test): the write raises INTERNAL "Internal error from Core", and so does every
    read after it."""

    def __init__(
        self,
        first: t.TableEvent,
        *,
        break_on_write: bool = True,
        error: aio.AioRpcError = INTERNAL_FROM_CORE,
    ) -> None:
        self.events = [first]
        self.break_on_write = break_on_write
        self.broken = not break_on_write
        self.error = error
        self.written: list[t.PlayerMessage] = []

    async def write(self, msg: t.PlayerMessage) -> None:
        self.written.append(msg)
        if self.break_on_write and msg.HasField("action"):
            self.broken = True
            raise self.error

    async def read(self) -> t.TableEvent:
        if self.events:
            return self.events.pop(0)
        if self.broken:
            raise self.error
        await asyncio.sleep(60)  # pragma: no cover - the tests never get here
        raise AssertionError

    def cancel(self) -> bool:
        return False

    def done(self) -> bool:
        return self.broken


class FirstPlayBroken:
    """A channel whose first Play call is ``call``; every other call is the real
    channel's (so the reconnect reaches the fake table)."""

    def __init__(self, real: aio.Channel, call: BrokenUnderWrite) -> None:
        self.real = real
        self.call = call
        self.plays = 0

    def stream_stream(self, path: str, *args: Any, **kwargs: Any) -> Any:
        real = self.real.stream_stream(path, *args, **kwargs)

        def open_call(*a: Any, **kw: Any) -> Any:
            self.plays += 1
            return self.call if self.plays == 1 else real(*a, **kw)

        return open_call

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)


def test_a_stream_broken_under_the_bots_write_is_reconnected() -> None:
    """The table restarts as the bot answers: the write fails INTERNAL (not
    UNAVAILABLE); the bot reconnects and answers the turn the new Snapshot carries,
    instead of stopping for good (its seat would time out every hand)."""
    first = build.batch(
        build.snapshot(
            build.STUD,
            ME,
            [build.seat(1), build.seat(2)],
            turn=t.YourTurn(action_seq=2, legal=MENU),
        )
    )
    broken = BrokenUnderWrite(first)

    fake = FakeTable(resumed_turn(2))
    stats, plays = asyncio.run(with_fake(fake, play_first_broken(broken, hands=1)))
    assert [m.WhichOneof("message") for m in broken.written] == ["join", "action"]
    assert plays == 2 and stats.reconnects == 1 and stats.hands == 1
    assert [a.action_seq for a in fake.actions] == [2]


def test_internal_without_a_failed_write_is_raised() -> None:
    """INTERNAL on a read with the service's own message, every write through, is
    the service's error: raised, not retried (only UNAVAILABLE and a broken write
    reconnect)."""
    broken = BrokenUnderWrite(
        build.batch(build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)])),
        break_on_write=False,
        error=aio.AioRpcError(
            grpc.StatusCode.INTERNAL, aio.Metadata(), aio.Metadata(), "internal error"
        ),
    )
    with pytest.raises(aio.AioRpcError) as info:
        asyncio.run(with_fake(FakeTable(), play_first_broken(broken)))
    assert info.value.code() == grpc.StatusCode.INTERNAL
    assert info.value.details() == "internal error"


def test_a_failed_writes_internal_seen_first_by_the_read_is_reconnected() -> None:
    """grpc.aio's failed-write INTERNAL ("Internal error from Core") can reach the
    reading half of the call before the writing half's write() has returned (the
    two are separate tasks): it is the same broken stream, and the bot reconnects
    and plays its hand, instead of stopping for good."""
    broken = BrokenUnderWrite(
        build.batch(
            build.snapshot(
                build.STUD,
                ME,
                [build.seat(1), build.seat(2)],
                turn=t.YourTurn(action_seq=2, legal=MENU),
            )
        ),
        break_on_write=False,
    )
    fake = FakeTable(resumed_turn(2))
    stats, plays = asyncio.run(with_fake(fake, play_first_broken(broken, hands=1)))
    assert plays == 2 and stats.reconnects == 1 and stats.hands == 1
    assert [a.action_seq for a in fake.actions] == [2]


def play_first_broken(
    broken: BrokenUnderWrite, **kw: Any
) -> Callable[[str], Awaitable[tuple[PlayStats, int]]]:
    """A ``with_fake`` body: a CallingStation plays over a channel whose first Play
    call is ``broken``; its stats and how many Play calls it made."""

    async def body(target: str) -> tuple[PlayStats, int]:
        async with player_channel(target) as real:
            channel = FirstPlayBroken(real, broken)
            stats = await play(
                channel,  # type: ignore[arg-type]
                "t1",
                "p2",
                "secret",
                CallingStation(),
                backoff=0.01,
                via="table",
                **kw,
            )
            return stats, channel.plays

    return body


def test_reconnects_are_bounded() -> None:
    async def body() -> None:
        # nothing listens there: every attempt is UNAVAILABLE
        await play(
            "127.0.0.1:1",
            "t1",
            "p",
            "x",
            CallingStation(),
            max_reconnects=2,
            backoff=0.01,
            via="table",
        )

    with pytest.raises(aio.AioRpcError) as info:
        asyncio.run(asyncio.wait_for(body(), 20))
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE


def test_wrong_token_raises_permission_denied() -> None:
    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:  # pragma: no cover
        yield build.ev()

    with pytest.raises(aio.AioRpcError) as info:
        run(FakeTable(script), token="wrong")
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED


def test_ping_when_idle_and_stop() -> None:
    stop = asyncio.Event()

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]))
        msg = await conn.recv(skip_pings=False)
        assert msg.WhichOneof("message") == "ping" and msg.ping.nonce == 1
        yield build.batch(build.ev(0, pong=t.Pong(nonce=1)))
        stop.set()
        await asyncio.sleep(10)

    fake = FakeTable(script)
    stats = run(fake, ping_interval=0.1, stop=stop)
    assert stats.stopped_by == "stop" and stats.pings >= 1 and stats.hands == 0


def test_table_ending_the_stream_ends_play() -> None:
    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]))

    stats = run(FakeTable(script))
    assert stats.stopped_by == "eof" and stats.reconnects == 0


def test_async_bot_is_awaited() -> None:
    class Slow:
        async def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
            await asyncio.sleep(0.01)
            return safest(legal)

    assert run(FakeTable(one_check), Slow(), hands=1).actions == 1


def test_many_bots_share_one_channel() -> None:
    """40 bots, one process, one channel: each plays 5 hands of 3 decisions."""
    hands, decisions = 5, 3

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)], hand=""))
        seq = 0
        for h in range(hands):
            conn.hand_id = f"h{h}"
            yield build.batch(
                build.ev(
                    0,
                    conn.hand_id,
                    hand_started=t.HandStarted(seats=[build.seat(1), build.seat(2)]),
                ),
                build.ev(0, conn.hand_id, cards_dealt=t.CardsDealt(seat=ME, cards=["7c", "8d"])),
                conn.turn_event(MENU, seq),
            )
            for d in range(decisions):
                _, rejected = await conn.expect_action()
                assert rejected is None
                seq += 1
                if d < decisions - 1:
                    yield build.batch(conn.turn_event(CHECK_MENU if d % 2 else MENU, seq))
            yield build.batch(build.ev(0, conn.hand_id, hand_finished=t.HandFinished()))
        await asyncio.sleep(10)

    fake = FakeTable(script)

    async def body(target: str) -> list[PlayStats]:
        channel = player_channel(target)
        try:
            bots = [RandomBot(i) if i % 2 else HandStrengthBot() for i in range(40)]
            return await asyncio.gather(
                *(
                    play(channel, "t1", f"p{i}", "secret", b, hands=hands, via="table")
                    for i, b in enumerate(bots)
                )
            )
        finally:
            await channel.close()

    all_stats: list[PlayStats] = asyncio.run(with_fake(fake, body))
    assert all(s.hands == hands and s.rejected == 0 for s in all_stats)
    assert len(fake.accepted) == 40 * hands * decisions


def test_helpers() -> None:
    nl = c.LegalActions(
        seat=1,
        can_fold=True,
        call_amount=100,
        raise_kind=c.ACTION_KIND_RAISE,
        min_to=200,
        max_to=950,
    )
    # kinds derived from the flags when the server leaves them out
    assert legal_kinds(nl) == [c.ACTION_KIND_FOLD, c.ACTION_KIND_CALL, c.ACTION_KIND_RAISE]
    assert clamp_to(nl, 10_000) == 950 and clamp_to(nl, 1) == 200 and clamp_to(nl, None) == 200
    fl = build.fixed_menu(call=100, raise_kind=c.ACTION_KIND_RAISE, to=[200, 300])
    assert clamp_to(fl, 260) == 300 and clamp_to(fl, None) == 200
    assert choose(fl, c.ACTION_KIND_BET, 10_000) == c.Action(kind=c.ACTION_KIND_RAISE, amount=300)
    with pytest.raises(ValueError, match="not on the menu"):
        choose(fl, c.ACTION_KIND_CHECK)
    assert safest(fl).kind == c.ACTION_KIND_FOLD
    bring = build.fixed_menu(fold=False, bring_in=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])
    assert safest(bring).kind == c.ACTION_KIND_BRING_IN
    draw = c.LegalActions(seat=1, max_discards=2, kinds=[c.ACTION_KIND_DISCARD])
    assert choose(draw, c.ACTION_KIND_DISCARD, cards=["As", "As", "Kd", "7c"]).cards == ["As", "Kd"]


def test_the_same_action_seq_in_the_next_hand_is_a_new_turn() -> None:
    """action_seq restarts every hand: a turn is (hand_id, action_seq), so the turn
    with the number answered in the previous hand is still answered (found playing
    the real table service: the bot sat out its turn until the clock ran out)."""

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        yield build.batch(
            build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)], hand=""), *deal_events()
        )
        yield conn.turn_event(MENU, 1)
        act, rejected = await conn.expect_action()
        assert rejected is None and (act.hand_id, act.action_seq) == ("h1", 1)
        yield build.finished({1: 1_050, 2: 950})
        conn.hand_id = "h2"
        yield build.ev(1, "h2", hand_started=t.HandStarted(seats=[build.seat(1), build.seat(2)]))
        yield conn.turn_event(MENU, 1)
        act, rejected = await conn.expect_action()
        assert rejected is None and (act.hand_id, act.action_seq) == ("h2", 1)
        yield build.ev(9, "h2", hand_finished=t.HandFinished(seats=[build.seat(1), build.seat(2)]))
        await asyncio.sleep(10)

    fake = FakeTable(script)
    stats = run(fake, hands=2)
    assert stats.hands == 2 and stats.actions == 2 and len(fake.accepted) == 2


def test_a_multiplexer_stream_broken_internal_is_unavailable_to_its_seats() -> None:
    """A PlayMany stream that grpc.aio ends INTERNAL (its request write failed as the
    table went away) is a broken connection for every seat on it: their reads raise
    UNAVAILABLE, which play() reconnects, not INTERNAL, which would stop them."""

    class BrokenStream:
        def __init__(self, requests: Any) -> None:
            self.requests = requests

        def __aiter__(self) -> BrokenStream:
            return self

        async def __anext__(self) -> t.PlayManyEvents:
            raise INTERNAL_FROM_CORE

        def cancel(self) -> bool:
            return False

    class Channel:
        def stream_stream(self, path: str, *args: Any, **kwargs: Any) -> Any:
            return BrokenStream if path.endswith("/PlayMany") else None

        def __getattr__(self, name: str) -> Any:
            return lambda *a, **kw: None

    async def body() -> aio.AioRpcError:
        mux = Multiplexer(Channel(), via="table")  # type: ignore[arg-type]
        seat_call = mux.Play()
        with pytest.raises(aio.AioRpcError) as info:
            await asyncio.wait_for(seat_call.read(), 5)
        return info.value

    error = asyncio.run(body())
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert "INTERNAL" in (error.details() or "")
