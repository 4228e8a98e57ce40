"""Issue acceptance point 4: replayed, stale and out-of-turn actions change nothing.

Each YourTurn carries action_seq (the betting state's version).  An action with
another hand_id, another action_seq, from a seat that is not to act, or sent twice
is refused on the sender's stream with ActionRejected code 9 (FAILED_PRECONDITION)
and a message; every seat's snapshot (the action clock aside), the betting
version, the stacks, the lobby's table and the ledger stay exactly as they were.
"""

from __future__ import annotations

import asyncio

import grpc

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as pb

from .room import DRAW_NL, STUD, WAIT_S, Duel, Room, Stream, events_of, open_duel

FAILED = grpc.StatusCode.FAILED_PRECONDITION.value[0]
OTHER_HAND = "h-00000000000000000000000000000000"


async def refused(stream: Stream, hand_id: str, action_seq: int, action: common.Action) -> str:
    """Send the action; it must come back as ActionRejected code 9."""
    stream.act(hand_id, action_seq, action)
    rejected = (await stream.wait_for("action_rejected")).action_rejected
    assert rejected.code == FAILED, rejected
    assert rejected.action_seq == action_seq
    assert rejected.message
    return rejected.message


def stacks(duel: Duel) -> list[int]:
    return [s.stack for s in duel.frozen()[1].occupied]


def actions_taken(stream: Stream, hand_id: str) -> list[pb.ActionTaken]:
    return [
        e.action_taken
        for m in stream.messages
        for e in events_of(m)
        if e.HasField("action_taken") and e.hand_id == hand_id
    ]


async def replay_scenario(room: Room, config: common.GameConfig, name: str) -> None:
    async with room.stack["table"].player_channel() as channel:
        duel = await open_duel(room, channel, config, name=name)
        k = duel.to_act()
        x, y = duel.streams[k], duel.streams[1 - k]
        first = await x.wait_for("your_turn")
        hand, s1 = first.hand_id, first.your_turn.action_seq
        answer = passive(first.your_turn.legal)

        before = duel.frozen()
        assert before[0][k].your_turn.action_seq == s1
        messages = [
            await refused(y, hand, s1, answer),  # out of turn
            await refused(x, OTHER_HAND, s1, answer),  # another hand
            await refused(x, hand, s1 + 1, answer),  # a future action_seq
            await refused(x, hand, s1 - 1, answer),  # an old action_seq
            await refused(x, "", s1, answer),  # no hand at all
        ]
        assert "turn" in messages[0] and OTHER_HAND in messages[1]
        assert duel.frozen() == before, "a refused action changed the table"

        # The real answer is applied once; the same message again is refused.
        x.act(hand, s1, answer)
        x.act(hand, s1, answer)
        assert (await x.wait_for("action_rejected")).action_rejected.code == FAILED
        second = await y.wait_for("your_turn")
        s2 = second.your_turn.action_seq
        assert s2 == s1 + 1, "the betting version moved exactly once"
        assert [(a.seat, a.action.kind) for a in actions_taken(y, hand)] == [
            (first.your_turn.legal.seat, answer.kind)
        ]

        after_one = duel.frozen()
        assert after_one[0][1 - k].your_turn.action_seq == s2
        chips = stacks(duel)
        await refused(x, hand, s1, answer)  # the old answer replayed later
        await refused(y, hand, s1, answer)  # the right seat, an old action_seq
        await refused(x, hand, s2, answer)  # the current action_seq, not x's turn
        await refused(y, OTHER_HAND, s2, answer)  # the right turn of another hand
        assert duel.frozen() == after_one, "a refused action changed the table"
        assert stacks(duel) == chips

        # The turn still stands: its owner's answer is applied.
        y.act(hand, s2, passive(second.your_turn.legal))
        for _ in range(int(WAIT_S / 0.02)):
            snap = duel.state(1 - k)
            if snap.hand_id != hand or snap.your_turn.action_seq != s2:
                break
            await asyncio.sleep(0.02)
        else:
            raise AssertionError("the answer to the current turn was not applied")
        await duel.close()


def passive(legal: common.LegalActions) -> common.Action:
    """Bring in, call or check: an answer that keeps the hand going."""
    for kind in (common.ACTION_KIND_BRING_IN, common.ACTION_KIND_CALL, common.ACTION_KIND_CHECK):
        if kind in legal.kinds:
            return common.Action(kind=kind)
    raise AssertionError(f"no passive action in {legal.description}")


def test_replayed_stale_and_out_of_turn_actions_change_nothing(room: Room) -> None:
    asyncio.run(replay_scenario(room, STUD, "sec replay stud"))


def test_replayed_stale_and_out_of_turn_draw_actions_change_nothing(room: Room) -> None:
    asyncio.run(replay_scenario(room, DRAW_NL, "sec replay draw"))
