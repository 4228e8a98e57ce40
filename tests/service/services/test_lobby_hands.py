# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __B1)
"""The lobby service over real gRPC: hand plans and results, stud (S3, B6) and draw
(B1, B2).  Seating rules are the library's; these tests check that the lobby asks
it and reports its answers faithfully.

The ledger's invariant after every step and the two stores: ``lobby_support.py``.
"""

from __future__ import annotations

import time

import grpc
import pytest

from poker.common.v1.batch_pb2 import CallBatch
from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.batching import call, response
from tests.support.lobby import LobbyClient

from . import lobby_support as support
from .process import ServiceProcess

# ---------------------------------------------------------------- hands: stud (S3, B6)


def test_stud_hand_plan_and_result__S3_B6(
    lobby: LobbyClient, lobby_process: ServiceProcess
) -> None:
    table = support.create(lobby, support.STUD)
    tid = table.table_id
    alice, bob, carol = support.players(lobby, "alice", "bob", "carol")
    alice.sit(tid, 2000, seat=5)
    assert not support.next_hand(lobby, tid).play  # one player: no hand
    bob.sit(tid, 3000, seat=2)
    carol.sit(tid, 4000, seat=7)

    hand = support.next_hand(lobby, tid)
    assert hand.play and hand.hand_id.startswith("h-")
    # S3/B6: everyone in, from seat 1; no button, no blinds: the engine posts antes.
    assert [(s.seat, s.name, s.stack) for s in hand.dealt_in] == [
        (2, "bob", 3000),
        (5, "alice", 2000),
        (7, "carol", 4000),
    ]
    assert (hand.button_seat, hand.big_blind_seat, hand.small_blind_seat) == (0, 0, 0)
    assert not hand.posts

    reply = support.finish(lobby, tid, hand, support.moved(hand, winner=5, loser=7, chips=400))
    assert reply.hands_played == 1
    assert support.stacks(lobby, tid) == {2: 3000, 5: 2400, 7: 3600}
    assert (alice.get().at_tables, carol.get().at_tables) == (2400, 3600)
    following = support.next_hand(lobby, tid)
    assert following.hand_id != hand.hand_id
    assert [s.stack for s in following.dealt_in] == [3000, 2400, 3600]
    support.finish(lobby, tid, following)
    assert support.table_of(lobby, tid).hands_played == 2

    deadline = time.monotonic() + 5  # logs carry the table and hand ids
    while not any(
        r.get("event") == "hand finished" and r.get("hand_id") == following.hand_id
        for r in lobby_process.records()
    ):
        assert time.monotonic() < deadline, lobby_process.log
        time.sleep(0.02)
    record = next(
        r
        for r in lobby_process.records()
        if r.get("event") == "hand planned" and r.get("hand_id") == hand.hand_id
    )
    assert record["table_id"] == tid


def test_next_hand_is_idempotent_while_the_hand_is_in_progress(lobby: LobbyClient) -> None:
    """The table service may retry NextHand after a timeout: same plan, same hand_id."""
    table = support.create(lobby, support.STUD)
    tid = table.table_id
    for name in ("a", "b"):
        support.Player(lobby, name).sit(tid, 1000)
    hand = support.next_hand(lobby, tid)
    again = support.next_hand(lobby, tid)
    assert again == hand
    support.Player(lobby, "late").sit(tid, 1000)  # sits down during the hand: not in this plan
    assert support.next_hand(lobby, tid) == hand
    support.finish(lobby, tid, hand)
    assert len(support.next_hand(lobby, tid).dealt_in) == 3


def test_finish_hand_can_plan_the_next_hand_in_the_same_call(lobby: LobbyClient) -> None:
    """plan_next: the table service reports a hand and gets the next one in one call;
    a retry of that report gets the same next hand (NextHand is idempotent)."""
    table = support.create(lobby, support.STUD)
    tid = table.table_id
    for name in ("a", "b"):
        support.Player(lobby, name).sit(tid, 1000)
    hand = support.next_hand(lobby, tid)
    request = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[pb.SeatInfo(seat=s.seat, stack=s.stack) for s in hand.dealt_in],
        plan_next=True,
    )
    reply = lobby.FinishHand(request, timeout=5)
    assert reply.next_hand.play and reply.next_hand.hand_id != hand.hand_id
    assert lobby.FinishHand(request, timeout=5).next_hand == reply.next_hand
    assert support.next_hand(lobby, tid) == reply.next_hand
    support.assert_invariant(lobby)


def test_batches_answer_like_the_unary_calls__B6(lobby: LobbyClient) -> None:
    """The table service's Batch stream: NextHand, FinishHand and VoidPendingHand
    several to a message, answered in order by one message with what the unary
    calls answer; a refused call is its reply's error (the unary call's code and
    message) and changes nothing, and the stream goes on; an empty batch is
    INVALID_ARGUMENT."""
    tid = support.create(lobby, support.STUD).table_id
    for name in ("a", "b"):
        support.Player(lobby, name).sit(tid, 1000)
    before = support.stacks(lobby, tid)
    plan = pb.NextHandRequest(table_id=tid)
    first = [
        call(1, "NextHand", plan),
        call(2, "NextHand", plan),  # idempotent: the same plan
        call(3, "NextHand", pb.NextHandRequest(table_id="t-missing")),
        call(4),
    ]
    stream = lobby.Batch(iter([CallBatch(calls=first)]), timeout=5)
    (reply,) = list(stream)
    planned_reply, again, unknown, empty = reply.replies
    assert [r.id for r in reply.replies] == [1, 2, 3, 4]
    planned = response(planned_reply, pb.NextHandResponse)
    assert planned.play and response(again, pb.NextHandResponse) == planned
    assert planned == support.next_hand(lobby, tid)  # what the unary call answers
    assert unknown.error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert "t-missing" in unknown.error.message
    assert (
        empty.error.code == support.INVALID.value[0] and "call is required" in empty.error.message
    )

    hand = planned
    won = support.moved(hand, winner=hand.dealt_in[0].seat, loser=hand.dealt_in[1].seat, chips=75)
    report = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[pb.SeatInfo(seat=seat, stack=chips) for seat, chips in won.items()],
        plan_next=True,
    )
    created = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[pb.SeatInfo(seat=seat, stack=chips + 1) for seat, chips in won.items()],
    )
    batches = [
        CallBatch(calls=[call(5, "FinishHand", created)]),
        CallBatch(
            calls=[
                call(6, "FinishHand", report),
                call(7, "FinishHand", report),  # a repeat: answered OK again
                call(8, "VoidPendingHand", pb.VoidPendingHandRequest(table_id=tid)),
            ]
        ),
    ]
    refused, finished = list(lobby.Batch(iter(batches), timeout=5))
    (chips_created,) = refused.replies
    assert chips_created.error.code == support.FAILED.value[0], chips_created
    assert "not conserved" in chips_created.error.message
    done, repeated, voided = (
        response(finished.replies[0], pb.FinishHandResponse),
        response(finished.replies[1], pb.FinishHandResponse),
        response(finished.replies[2], pb.VoidPendingHandResponse),
    )
    assert done.hands_played == 1 and done.next_hand.play
    assert repeated == done
    # The next hand (planned by the report) is the one voided: nothing moved.
    assert voided.hand_id == done.next_hand.hand_id
    assert voided.hands_played == 1
    assert support.stacks(lobby, tid) == {seat: won[seat] for seat in before}
    support.assert_invariant(lobby)
    # The unary call refuses the same report with the same code and message.
    hand_now = support.next_hand(lobby, tid)
    bad = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand_now.hand_id,
        final_stacks=[pb.SeatInfo(seat=x.seat, stack=x.stack + 1) for x in hand_now.dealt_in],
    )
    (streamed,) = list(
        lobby.Batch(iter([CallBatch(calls=[call(0, "FinishHand", bad)])]), timeout=5)
    )
    with pytest.raises(grpc.RpcError) as unary:
        lobby.FinishHand(bad, timeout=5)
    assert (unary.value.code().value[0], unary.value.details()) == (
        streamed.replies[0].error.code,
        streamed.replies[0].error.message,
    )

    with pytest.raises(grpc.RpcError) as error:
        list(lobby.Batch(iter([CallBatch()]), timeout=5))
    assert error.value.code() == support.INVALID


# ---------------------------------------------------------------- hands: draw (B1, B2)


def test_draw_button_and_blinds_move_each_hand__B1(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        support.Player(lobby, name).sit(tid, 1000, seat=seat)

    first = support.next_hand(lobby, tid)
    # The first hand: button on the first seat, blinds left of it; dealt from seat 2.
    assert [s.seat for s in first.dealt_in] == [2, 3, 1]
    assert (first.button_seat, first.small_blind_seat, first.big_blind_seat) == (1, 2, 3)
    assert support.posts(first) == [(2, 50, True), (3, 100, True)]
    support.finish(lobby, tid, first, support.moved(first, winner=3, loser=2, chips=50))
    assert support.stacks(lobby, tid) == {1: 1000, 2: 950, 3: 1050}

    second = support.next_hand(lobby, tid)
    # B1: the big blind moves one player on, the small blind is the last big blind,
    # the button the last small blind.
    assert (second.button_seat, second.small_blind_seat, second.big_blind_seat) == (2, 3, 1)
    assert [s.seat for s in second.dealt_in] == [3, 1, 2]
    assert [s.stack for s in second.dealt_in] == [1050, 1000, 950]
    assert support.posts(second) == [(3, 50, True), (1, 100, True)]
    support.finish(lobby, tid, second)

    third = support.next_hand(lobby, tid)
    assert (third.button_seat, third.small_blind_seat, third.big_blind_seat) == (3, 1, 2)
    support.finish(lobby, tid, third)


def test_new_player_between_button_and_blinds_waits__B2(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        support.Player(lobby, name).sit(tid, 1000, seat=seat)
    support.finish(lobby, tid, support.next_hand(lobby, tid))  # button 1, blinds 2 and 3
    support.finish(lobby, tid, support.next_hand(lobby, tid))  # button 2, blinds 3 and 1
    support.Player(lobby, "eve").sit(tid, 1000, seat=5)
    third = support.next_hand(lobby, tid)  # button 3, blinds 1 and 2: seat 5 lies between
    assert (third.button_seat, third.big_blind_seat) == (3, 2)
    assert 5 not in [s.seat for s in third.dealt_in]  # B2b: the button must pass
    support.finish(lobby, tid, third)
    fourth = support.next_hand(lobby, tid)  # button 1, blinds 2 and 3
    assert [s.seat for s in fourth.dealt_in] == [2, 3, 5, 1]
    # B2c (posting now, the default): a live big blind from seat 5.
    assert support.posts(fourth) == [(2, 50, True), (3, 100, True), (5, 100, True)]
    support.finish(lobby, tid, fourth)


def test_new_player_may_wait_for_the_big_blind__B2c(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        support.Player(lobby, name).sit(tid, 1000, seat=seat)
    support.finish(lobby, tid, support.next_hand(lobby, tid))  # button 1, blinds 2 and 3
    support.Player(lobby, "eve").sit(tid, 1000, seat=5, wait=True)
    for _ in range(5):
        hand = support.next_hand(lobby, tid)
        if 5 in [s.seat for s in hand.dealt_in]:
            break
        support.finish(lobby, tid, hand)
    # Dealt in only when the big blind reaches seat 5, posting only it.
    assert hand.big_blind_seat == 5
    assert [p for p in support.posts(hand) if p[0] == 5] == [(5, 100, True)]
    support.finish(lobby, tid, hand)
