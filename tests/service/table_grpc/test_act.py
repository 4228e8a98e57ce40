# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S5)
"""TableService.Act: one action without a stream, as the gateway's Room.Act sends it.

The player is authenticated as for GetState (the token through the lobby); the
action goes through the same checks as an action on a Play stream
(``TableRuntime.offer`` -> ``Hand.offer``), and the betting service's (an
illegal amount).  A legal action is applied and answered OK once applied: the
table moves on (the next YourTurn goes to the next seat) and the acting seat's
events reach the Play stream the player has open.  A refusal ends the call with
its status and changes nothing: the same turn, the same action_seq (GetState),
the same hand; it is counted in ``table_actions_rejected_total`` as a stream's.

Third street of Seven Card Stud, two players: the low door card brings it in
(S5): bring-in or complete to the small bet, nothing else (no check, no fold),
and the completion is exactly the small bet (S7).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc
import pytest
from prometheus_client import REGISTRY

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc

from .inroom import WAIT_S, InRoom, Seated, in_room, state_request
from .streams import PlayStream

K = common.ActionKind


def rejected(code: grpc.StatusCode) -> float:
    """``table_actions_rejected_total`` for one status code."""
    value = REGISTRY.get_sample_value("table_actions_rejected_total", {"code": code.name})
    return value or 0.0


@dataclass
class Turn:
    """A table on third street, the bring-in seat to act (S5)."""

    room: InRoom
    stub: table_pb2_grpc.TableServiceAsyncStub
    table_id: str
    hand_id: str
    seq: int
    actor: Seated  # whose turn it is
    other: Seated

    def act(
        self,
        kind: common.ActionKind.ValueType,
        amount: int = 0,
        *,
        player: Seated | None = None,
        seq: int | None = None,
        hand_id: str | None = None,
        token: str | None = None,
    ) -> tpb.ActRequest:
        who = player or self.actor
        return tpb.ActRequest(
            table_id=self.table_id,
            player_id=who.player_id,
            token=who.token if token is None else token,
            action=tpb.PlayerAction(
                hand_id=self.hand_id if hand_id is None else hand_id,
                action_seq=self.seq if seq is None else seq,
                action=common.Action(kind=kind, amount=amount),
            ),
        )

    async def state(self, player: Seated | None = None) -> tpb.Snapshot:
        snap: tpb.Snapshot = await self.stub.GetState(
            state_request(self.table_id, player or self.actor), timeout=WAIT_S
        )
        return snap


async def third_street(room: InRoom, stub: table_pb2_grpc.TableServiceAsyncStub) -> Turn:
    """A new two-player stud table whose first hand waits for the bring-in."""
    table_id = await room.create_table()
    a, b = await room.seat(table_id, 2)
    hand_id, seat, seq = await room.turn(table_id)
    actor, other = (a, b) if seat == a.seat else (b, a)
    return Turn(room, stub, table_id, hand_id, seq, actor, other)


def run(body: Callable[[InRoom, table_pb2_grpc.TableServiceAsyncStub], Awaitable[None]]) -> None:
    """``body(room, stub)`` in a fresh in-process table service, the stub a
    player's (the public port)."""

    async def main() -> None:
        async with in_room() as room, room.player_channel() as channel:
            await body(room, table_pb2_grpc.TableServiceStub(channel))

    asyncio.run(main())


def test_act_applies_the_bring_in_and_the_turn_moves_to_the_next_seat__S5() -> None:
    async def body(room: InRoom, stub: table_pb2_grpc.TableServiceAsyncStub) -> None:
        turn = await third_street(room, stub)
        streams = {p.seat: PlayStream(stub, turn.table_id, p) for p in (turn.actor, turn.other)}
        for stream in streams.values():
            await stream.wait_for(lambda e: e.HasField("snapshot"), "the Join's Snapshot")
        reply = await stub.Act(turn.act(K.ACTION_KIND_BRING_IN), timeout=WAIT_S)
        assert reply == tpb.ActResponse()
        # Applied by the time Act answers: the bring-in seat's ActionTaken is out,
        # and it reaches the acting player's own Play stream.
        taken = await streams[turn.actor.seat].wait_for(
            lambda e: e.HasField("action_taken") and e.action_taken.seat == turn.actor.seat,
            "the bring-in's ActionTaken on the actor's stream",
        )
        assert taken.action_taken.action.kind == K.ACTION_KIND_BRING_IN
        assert not any(e.HasField("action_rejected") for e in streams[turn.actor.seat].events)
        # Play goes clockwise: the other seat's turn, a new action_seq.
        yours = await streams[turn.other.seat].wait_for(
            lambda e: e.HasField("your_turn") and e.hand_id == turn.hand_id,
            "the next seat's YourTurn",
        )
        assert yours.your_turn.action_seq > turn.seq
        snap = await turn.state(turn.other)
        assert snap.to_act_seat == turn.other.seat
        assert snap.your_turn.action_seq == yours.your_turn.action_seq
        others = await turn.state()
        assert not others.HasField("your_turn")
        # S10: another seat's clock is in its Snapshot too (a page that reconnects
        # counts it down), the same deadline as the YourTurn's.
        assert others.to_act_seat == turn.other.seat
        assert others.to_act_deadline_unix_ms == yours.your_turn.deadline_unix_ms > 0
        for stream in streams.values():
            await stream.close()

    run(body)


@dataclass(frozen=True)
class Refusal:
    name: str
    request: Callable[[Turn, Seated], tpb.ActRequest]
    code: grpc.StatusCode
    says: str  # in the message
    counted: bool  # a refused action (table_actions_rejected_total), not a refused call


FAILED = grpc.StatusCode.FAILED_PRECONDITION
INVALID = grpc.StatusCode.INVALID_ARGUMENT
REFUSALS = [
    Refusal(
        "future_action_seq",
        lambda t, _: t.act(K.ACTION_KIND_BRING_IN, seq=t.seq + 1),
        FAILED,
        "action_seq",
        True,
    ),
    Refusal(
        "out_of_turn",
        lambda t, _: t.act(K.ACTION_KIND_COMPLETE, 100, player=t.other),
        FAILED,
        "turn",
        True,
    ),
    # S7: a completion is to exactly the small bet (100); the betting service
    # refuses 150 after the turn's checks passed, and the turn goes on.
    Refusal(
        "illegal_amount__S7",
        lambda t, _: t.act(K.ACTION_KIND_COMPLETE, 150),
        FAILED,
        "",
        True,
    ),
    # S5: the bring-in seat may not check (nor fold).
    Refusal(
        "check_at_the_bring_in__S5",
        lambda t, _: t.act(K.ACTION_KIND_CHECK),
        FAILED,
        "not allowed now",
        True,
    ),
    Refusal(
        "another_hand",
        lambda t, _: t.act(K.ACTION_KIND_BRING_IN, hand_id="h-not-this-one"),
        FAILED,
        "not the hand in progress",
        True,
    ),
    Refusal(
        "not_dealt_in",
        lambda t, outsider: t.act(K.ACTION_KIND_BRING_IN, player=outsider),
        FAILED,
        "not dealt into",
        True,
    ),
    Refusal(
        "no_action_kind",
        lambda t, _: t.act(K.ACTION_KIND_UNSPECIFIED),
        INVALID,
        "",
        True,
    ),
    Refusal(
        "wrong_token",
        lambda t, _: t.act(K.ACTION_KIND_BRING_IN, token="not-the-token"),
        grpc.StatusCode.PERMISSION_DENIED,
        "",
        False,
    ),
    Refusal(
        "no_token",
        lambda t, _: t.act(K.ACTION_KIND_BRING_IN, token=""),
        INVALID,
        "token",
        False,
    ),
    Refusal(
        "unknown_table",
        lambda t, _: tpb.ActRequest(
            table_id="t-no-such-table",
            player_id=t.actor.player_id,
            token=t.actor.token,
            action=t.act(K.ACTION_KIND_BRING_IN).action,
        ),
        grpc.StatusCode.NOT_FOUND,
        "t-no-such-table",
        False,
    ),
    Refusal(
        "no_action",
        lambda t, _: tpb.ActRequest(
            table_id=t.table_id, player_id=t.actor.player_id, token=t.actor.token
        ),
        INVALID,
        "action is required",
        False,
    ),
]


@pytest.mark.parametrize("refusal", REFUSALS, ids=[r.name for r in REFUSALS])
def test_a_refused_act_says_why_and_changes_nothing(refusal: Refusal) -> None:
    async def body(room: InRoom, stub: table_pb2_grpc.TableServiceAsyncStub) -> None:
        turn = await third_street(room, stub)
        outsider = await room.register("outsider")
        stream = PlayStream(stub, turn.table_id, turn.actor)
        await stream.wait_for(lambda e: e.HasField("snapshot"), "the Join's Snapshot")
        before = await turn.state()
        assert before.your_turn.action_seq == turn.seq
        counted = rejected(refusal.code)

        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.Act(refusal.request(turn, outsider), timeout=WAIT_S)
        assert info.value.code() == refusal.code, info.value.details()
        details = info.value.details() or ""
        assert details, "every refusal says why"
        assert refusal.says in details

        # Nothing changed: the same hand, the same turn and action_seq, nothing
        # sent to anyone (the refusal is the call's status, not a stream event).
        after = await turn.state()
        assert (after.hand_id, after.to_act_seat, after.your_turn.action_seq) == (
            turn.hand_id,
            turn.actor.seat,
            turn.seq,
        )
        assert after.event_seq == before.event_seq
        runtime = await room.runtime(turn.table_id)
        assert runtime.hand is not None and not runtime.hand.turns.answered
        assert rejected(refusal.code) - counted == (1 if refusal.counted else 0)
        assert not any(e.HasField("action_rejected") for e in stream.events)
        # The turn is still open to a legal answer.
        await stub.Act(turn.act(K.ACTION_KIND_BRING_IN), timeout=WAIT_S)
        assert (await turn.state()).to_act_seat == turn.other.seat
        await stream.close()

    run(body)


def test_a_stale_action_seq_is_refused_and_changes_nothing__S5() -> None:
    """The bring-in seat's first answer sent again at its next turn: a late or
    repeated action is never applied to a later turn."""

    async def body(room: InRoom, stub: table_pb2_grpc.TableServiceAsyncStub) -> None:
        turn = await third_street(room, stub)
        first = turn.act(K.ACTION_KIND_BRING_IN)
        await stub.Act(first, timeout=WAIT_S)
        hand_id, seat, completes = await room.turn(turn.table_id)
        assert seat == turn.other.seat and completes > turn.seq
        await stub.Act(turn.act(K.ACTION_KIND_COMPLETE, 100, player=turn.other, seq=completes))
        hand_id, seat, again = await room.turn(turn.table_id)
        assert (hand_id, seat) == (turn.hand_id, turn.actor.seat) and again > completes
        before = await turn.state()
        counted = rejected(FAILED)
        with pytest.raises(grpc.aio.AioRpcError) as info:
            await stub.Act(first, timeout=WAIT_S)
        assert info.value.code() == FAILED
        assert f"action_seq {turn.seq} is not the current turn's ({again})" in (
            info.value.details() or ""
        )
        after = await turn.state()
        assert after.your_turn.action_seq == again
        assert (after.to_act_seat, after.event_seq) == (before.to_act_seat, before.event_seq)
        assert rejected(FAILED) - counted == 1

    run(body)


def test_an_action_refused_on_the_stream_is_still_an_action_rejected_event() -> None:
    """Play's path is unchanged by Act's: a stale action_seq sent on the stream
    comes back on the stream as ActionRejected (FAILED_PRECONDITION), counted."""

    async def body(room: InRoom, stub: table_pb2_grpc.TableServiceAsyncStub) -> None:
        turn = await third_street(room, stub)
        runtime = await room.runtime(turn.table_id)
        counted = rejected(FAILED)
        sub = runtime.join(turn.actor.player_id, tpb.DELIVERY_EVERY_EVENT)
        runtime.submit(sub, turn.act(K.ACTION_KIND_BRING_IN, seq=turn.seq - 1).action)
        events = [sub.queue.get_nowait() for _ in range(sub.queue.qsize())]
        (refused,) = [e for e in events if e is not None and e.HasField("action_rejected")]
        assert refused.action_rejected.code == FAILED.value[0]
        assert refused.action_rejected.action_seq == turn.seq - 1
        assert rejected(FAILED) - counted == 1
        assert (await turn.state()).your_turn.action_seq == turn.seq
        runtime.leave(sub)

    run(body)
