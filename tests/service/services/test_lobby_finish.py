"""The lobby service over real gRPC: what FinishHand refuses, a voided hand, and
stand-ups while a hand is in progress.

The ledger's invariant after every step and the two stores: ``lobby_support.py``.
"""

from __future__ import annotations

import grpc

from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient

from . import lobby_support as support

# ---------------------------------------------------------------- FinishHand checks


def test_finish_hand_refusals_change_nothing(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.DRAW)
    tid = table.table_id
    alice = support.Player(lobby, "alice")
    alice.sit(tid, 1000, seat=1)
    support.Player(lobby, "bob").sit(tid, 2000, seat=2)
    support.Player(lobby, "carol").sit(tid, 3000, seat=4)
    hand = support.next_hand(lobby, tid)
    before = (
        support.assert_invariant(lobby),
        support.stacks(lobby, tid),
        support.table_of(lobby, tid).hands_played,
    )

    def refused(final: list[pb.SeatInfo], hand_id: str = hand.hand_id) -> grpc.StatusCode:
        request = pb.FinishHandRequest(table_id=tid, hand_id=hand_id, final_stacks=final)
        code = support.code_of(lambda: lobby.FinishHand(request))
        after = (
            support.assert_invariant(lobby),
            support.stacks(lobby, tid),
            support.table_of(lobby, tid).hands_played,
        )
        assert after == before
        assert support.next_hand(lobby, tid) == hand  # still the hand in progress
        return code

    s = pb.SeatInfo
    assert (
        refused([s(seat=1, stack=1100), s(seat=2, stack=2000), s(seat=4, stack=3000)])
        == support.FAILED
    )
    assert (
        refused([s(seat=1, stack=900), s(seat=2, stack=2100)]) == support.FAILED
    )  # seat 4 missing
    assert (
        refused(
            [
                s(seat=1, stack=1000),
                s(seat=2, stack=2000),
                s(seat=4, stack=2000),
                s(seat=3, stack=1000),
            ]
        )
        == support.FAILED
    )  # seat 3 was not dealt in
    assert (
        refused([s(seat=1, stack=1000), s(seat=1, stack=2000), s(seat=4, stack=3000)])
        == support.INVALID
    )
    assert (
        refused([s(seat=1, stack=-1), s(seat=2, stack=3001), s(seat=4, stack=3000)])
        == support.INVALID
    )
    assert refused([s(seat=9, stack=1000)]) == support.INVALID
    assert (
        refused(
            [
                s(seat=1, stack=1000, player_id="p-other"),
                s(seat=2, stack=2000),
                s(seat=4, stack=3000),
            ]
        )
        == support.FAILED
    )
    assert refused([s(seat=1, stack=1000)], hand_id="h-not-this-one") == support.FAILED
    assert refused([], hand_id="") == support.INVALID
    unknown = pb.FinishHandRequest(table_id="t-missing", hand_id=hand.hand_id)
    assert support.code_of(lambda: lobby.FinishHand(unknown)) == grpc.StatusCode.NOT_FOUND

    final = {1: 0, 2: 3000, 4: 3000}
    request = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[s(seat=k, stack=v) for k, v in final.items()],
    )
    assert lobby.FinishHand(request).hands_played == 1
    assert support.stacks(lobby, tid) == final
    assert lobby.FinishHand(request).hands_played == 1  # a retry: answered, nothing moves
    assert support.stacks(lobby, tid) == final
    request.final_stacks[0].stack = 1
    request.final_stacks[1].stack = 2999
    assert (
        support.code_of(lambda: lobby.FinishHand(request)) == support.FAILED
    )  # not the same request
    assert support.stacks(lobby, tid) == final and alice.get().at_tables == 0


def test_voided_hand_leaves_everything_as_before(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        support.Player(lobby, name).sit(tid, 1000, seat=seat)
    support.finish(lobby, tid, support.next_hand(lobby, tid))
    before = support.assert_invariant(lobby)
    hand = support.next_hand(lobby, tid)
    request = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        voided=True,
        final_stacks=[pb.SeatInfo(seat=1, stack=3000)],  # ignored when voided
    )
    assert lobby.FinishHand(request).hands_played == 1
    assert support.stacks(lobby, tid) == {1: 1000, 2: 1000, 3: 1000}
    assert support.assert_invariant(lobby).entries == before.entries  # no money moved
    again = support.next_hand(lobby, tid)
    assert again.hand_id != hand.hand_id
    # The voided hand moved nothing: the same positions again (B1 history unchanged).
    assert (again.button_seat, again.big_blind_seat) == (hand.button_seat, hand.big_blind_seat)
    assert support.posts(again) == support.posts(hand)
    support.finish(lobby, tid, again)


# ---------------------------------------------------------------- stand-ups during a hand


def test_stand_up_during_the_hand_is_pending_until_it_finishes(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.STUD)
    tid = table.table_id
    alice, bob, carol = support.players(lobby, "alice", "bob", "carol")
    alice.sit(tid, 1000, seat=1)
    bob.sit(tid, 1000, seat=2)
    hand = support.next_hand(lobby, tid)
    carol.sit(tid, 1000, seat=3)  # not dealt in: leaves at once
    assert carol.stand(tid).returned == 1000

    up = alice.stand(tid)
    assert (up.returned, up.pending, up.balance) == (0, True, 99_000)
    assert alice.stand(tid).pending  # asking again: still pending
    assert support.stacks(lobby, tid) == {1: 1000, 2: 1000}  # still seated during the hand
    assert support.next_hand(lobby, tid) == hand

    support.finish(lobby, tid, hand, support.moved(hand, winner=1, loser=2, chips=300))
    assert support.stacks(lobby, tid) == {2: 700}
    got = alice.get()
    assert (got.balance, got.at_tables) == (100_300, 0)
    assert not support.next_hand(lobby, tid).play


def test_pending_stand_up_happens_when_the_hand_is_voided(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.STUD)
    tid = table.table_id
    alice, bob = support.players(lobby, "alice", "bob")
    alice.sit(tid, 1000)
    bob.sit(tid, 1000)
    hand = support.next_hand(lobby, tid)
    assert bob.stand(tid).pending
    void = pb.FinishHandRequest(table_id=tid, hand_id=hand.hand_id, voided=True)
    lobby.FinishHand(void)
    support.assert_invariant(lobby)
    assert support.stacks(lobby, tid) == {1: 1000} and bob.get().balance == 100_000


def test_busted_seat_stays_until_its_player_stands_up(lobby: LobbyClient) -> None:
    """A stack of 0 is not dealt in (NO_CHIPS) but keeps the seat; StandUp frees it."""
    table = support.create(lobby, support.STUD)
    tid = table.table_id
    alice, bob = support.players(lobby, "alice", "bob")
    alice.sit(tid, 1000)
    bob.sit(tid, 1000)
    hand = support.next_hand(lobby, tid)
    support.finish(lobby, tid, hand, support.moved(hand, winner=2, loser=1, chips=1000))
    seated = support.table_of(lobby, tid).occupied
    assert [(s.seat, s.stack, s.sitting_out) for s in seated] == [(1, 0, True), (2, 2000, False)]
    assert not support.next_hand(lobby, tid).play  # one player with chips
    up = alice.stand(tid)
    assert (up.returned, up.pending, up.balance) == (0, False, 99_000)
    assert alice.sit(tid, 1000).seat == 1  # back with a new buy-in
    assert support.next_hand(lobby, tid).play
