# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __G4)
"""Issue acceptance point 3, authentication: a player is only ever themself.

Join, GetState and GetHandHistory with another player's token are
PERMISSION_DENIED; an action is only taken from the acting seat's own
authenticated stream (a PlayerAction names no seat or player, so the stream is
the identity); the auditor's deck reveal needs the audit token, and no token at
all reveals a hand still in progress (G4).

The checks that are the same through the room's door (the gateway) run there
too (``via``); the door's own rules for its bearer credential are in
test_auth_door.py.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1.room_pb2_grpc import RoomStub
from poker.table.v1 import table_pb2 as pb
from poker.table.v1.table_pb2_grpc import TableServiceStub

from .room import AUDIT_TOKEN, STUD, VIAS, Player, Room, Stream, Via, bearer, open_duel

DENIED = grpc.StatusCode.PERMISSION_DENIED


def status_of(call: Callable[[], Any]) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert isinstance(error, grpc.Call)
    assert error.details(), "every refusal says why"
    code: grpc.StatusCode = error.code()
    return code


@pytest.fixture(scope="module")
def seated(room: Room) -> tuple[str, Player, Player]:
    """A table where alice sits (alone: no hand runs); bob is registered."""
    table_id = room.create_table("sec auth", STUD, 2, min_buy_in=5_000, clock_ms=60_000)
    alice, bob = room.register("auth alice"), room.register("auth bob")
    room.sit(alice, table_id, 5_000)
    return table_id, alice, bob


def test_join_with_another_players_token_is_denied(room: Room, seated: Any) -> None:
    table_id, alice, bob = seated

    async def joins() -> list[grpc.StatusCode | None]:
        codes: list[grpc.StatusCode | None] = []
        async with room.stack["table"].player_channel() as channel:
            for token in (bob.token, alice.token + "x", "not-a-token"):
                stream = Stream(channel, alice, table_id, pb.DELIVERY_EVERY_EVENT, token=token)
                assert await stream.next_event() is None, "no event before authentication"
                assert stream.messages == []
                assert stream.error is not None
                codes.append(stream.error.code())
        return codes

    assert asyncio.run(joins()) == [DENIED] * 3


def test_get_state_with_another_players_token_is_denied(room: Room, seated: Any) -> None:
    table_id, alice, bob = seated
    request = pb.GetStateRequest(table_id=table_id, player_id=alice.player_id, token=bob.token)
    assert status_of(lambda: room.table.GetState(request, timeout=5)) == DENIED
    own = room.state(alice, table_id)  # the right token works
    assert own.your_seat or not own.hand_id


def test_hand_history_with_another_players_token_is_denied(room: Room, seated: Any) -> None:
    table_id, alice, bob = seated
    for player_id, token in ((alice.player_id, bob.token), (alice.player_id, ""), ("", bob.token)):
        request = pb.GetHandHistoryRequest(table_id=table_id, player_id=player_id, token=token)
        code = status_of(partial(room.table.GetHandHistory, request, timeout=5))
        assert code in (DENIED, grpc.StatusCode.INVALID_ARGUMENT), (player_id, token)
    bad = pb.GetHandHistoryRequest(table_id=table_id, player_id=alice.player_id, token=bob.token)
    assert status_of(lambda: room.table.GetHandHistory(bad, timeout=5)) == DENIED


def test_deck_reveal_needs_the_audit_token__G4(room: Room, seated: Any) -> None:
    table_id, alice, _ = seated
    for token in ("", "wrong", AUDIT_TOKEN + " ", AUDIT_TOKEN[:-1], alice.token):
        request = pb.GetDeckRevealRequest(table_id=table_id, hand_id="h-any", audit_token=token)
        assert status_of(partial(room.audit.GetDeckReveal, request, timeout=5)) == DENIED


def test_player_action_names_no_seat_or_player() -> None:
    """The stream is the identity: an action carries nothing that could name
    another seat (only the hand, the turn's action_seq and the action)."""
    assert [f.name for f in pb.PlayerAction.DESCRIPTOR.fields] == [
        "hand_id",
        "action_seq",
        "action",
    ]
    assert [f.name for f in common.Action.DESCRIPTOR.fields] == ["kind", "amount", "cards"]


@pytest.mark.parametrize("via", VIAS)
def test_only_the_seat_to_act_can_act_on_its_own_stream__G4(room: Room, via: Via) -> None:
    """The other seat, and a player who is not seated, answering the acting seat's
    turn (its hand_id and action_seq) are refused; the turn is untouched and its
    owner's answer is then applied.  (G4 too: the deck of the hand in progress is
    revealed to nobody, not even with the audit token.)  Through the door, also
    with Room.Act, which acts for the bearer's seat only: FAILED_PRECONDITION."""

    async def scenario() -> None:
        channel = room.door_channel() if via == "door" else room.stack["table"].player_channel()
        async with channel:
            duel = await open_duel(room, channel, STUD, name=f"sec auth duel {via}", via=via)
            k = duel.to_act()
            actor, other = duel.streams[k], duel.streams[1 - k]
            turn = await actor.wait_for("your_turn")
            stranger = room.register("auth stranger")
            watcher = Stream(channel, stranger, duel.table_id, pb.DELIVERY_EVERY_EVENT, via=via)
            await watcher.wait_for("snapshot")
            before = duel.frozen()
            answer = common.Action(kind=common.ACTION_KIND_BRING_IN)
            for stream in (other, watcher):
                stream.act(turn.hand_id, turn.your_turn.action_seq, answer)
                rejected = (await stream.wait_for("action_rejected")).action_rejected
                assert rejected.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
                assert rejected.message
            if via == "door":
                act = rpb.ActRequest(
                    table_id=duel.table_id,
                    hand_id=turn.hand_id,
                    action_seq=turn.your_turn.action_seq,
                    action=answer,
                )
                for player in (other.player, stranger):
                    with pytest.raises(grpc.aio.AioRpcError) as refused:
                        await RoomStub(channel).Act(act, metadata=bearer(player.credential))
                    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
                    assert refused.value.details()
            assert duel.frozen() == before
            reveal = pb.GetDeckRevealRequest(
                table_id=duel.table_id, hand_id=turn.hand_id, audit_token=AUDIT_TOKEN
            )
            code = status_of(lambda: room.audit.GetDeckReveal(reveal, timeout=5))
            assert code == grpc.StatusCode.NOT_FOUND, "no reveal of a hand in progress (G4)"
            actor.act(turn.hand_id, turn.your_turn.action_seq, answer)
            taken = await other.wait_for("action_taken")
            assert taken.action_taken.seat == turn.your_turn.legal.seat
            assert taken.action_taken.action.kind == common.ACTION_KIND_BRING_IN
            await watcher.close()
            await duel.close()

    asyncio.run(scenario())


@pytest.mark.parametrize("via", VIAS)
def test_first_message_must_be_a_join(room: Room, via: Via) -> None:
    player = room.register("auth no join")

    async def no_join() -> grpc.StatusCode:
        channel = room.door_channel() if via == "door" else room.stack["table"].player_channel()
        async with channel:
            action = pb.PlayerAction(hand_id="h-x", action_seq=1)

            async def messages() -> Any:
                yield pb.PlayerMessage(action=action)

            if via == "door":
                call = RoomStub(channel).Play(messages(), metadata=bearer(player.credential))
            else:
                call = TableServiceStub(channel).Play(messages())
            with pytest.raises(grpc.aio.AioRpcError) as info:
                async for _ in call:
                    raise AssertionError("no event without a Join")
            return info.value.code()

    assert asyncio.run(no_join()) == grpc.StatusCode.INVALID_ARGUMENT
