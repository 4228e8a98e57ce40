"""The lobby's side of crash durability, over one lobby process (no table).

A hand's plan is stored when planned and its end when reported, so the lobby can
void the hand in progress and say why: ``VoidPendingHand`` (a table service taking
the table over), a restart (SIGKILL) while the hand was pending, or the table's
own ``FinishHand(voided=True, void_reason=...)``.  A voided hand moves no chip and
adds no ledger entry; its record is in ``ListHands``.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import grpc
import pytest

from devroom.launcher import ServiceProcess
from poker.common.v1.batch_pb2 import CallBatch
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1.lobby_pb2_grpc import LobbyHandsStub, LobbyOperatorStub, LobbyStub
from services.lobby.ring import VOIDED_AT_TAKEOVER, VOIDED_BY_RESTART, VOIDED_BY_TABLE
from tests.support.batching import call, response
from tests.support.ports import free_ports
from tests.support.stacks import public_channel

from .conftest import BUY_IN, STUD, retry


class Lobby:
    """A lobby process on fixed ports and a SQLite file, restartable.

    ``hands`` is the hand protocol as the table calls it (the ``table``
    identity), ``staff`` the operator's calls (tables, the ledger, the hand
    records), ``players`` the player plane at the public port."""

    def __init__(self, db: Path, **env: str) -> None:
        port, public = free_ports(2)
        self.env = {"LOBBY_DB": str(db), "PORT": str(port), "PUBLIC_PORT": str(public), **env}
        self.process = ServiceProcess("lobby", self.env)
        self.process.wait_serving()
        self.channels = [
            self.process.channel("table"),
            self.process.channel("operator"),
            public_channel(self.process),
        ]
        self.hands = LobbyHandsStub(self.channels[0])
        self.staff = LobbyOperatorStub(self.channels[1])
        self.players = LobbyStub(self.channels[2])

    def kill_and_restart(self) -> None:
        self.process.proc.send_signal(signal.SIGKILL)
        self.process.proc.wait(10)
        self.process = ServiceProcess("lobby", self.env)
        self.process.wait_serving()

    def table_with_two(self) -> str:
        table = self.staff.CreateTable(
            pb.CreateTableRequest(name="voids", config=STUD, seats=2, min_buy_in=BUY_IN),
            timeout=10,
        )
        self.seated: list[tuple[str, str]] = []
        for name in ("ann", "ben"):
            reply = self.players.RegisterPlayer(pb.RegisterPlayerRequest(name=name), timeout=10)
            self.seated.append((reply.player.player_id, reply.token))
            self.players.SitDown(
                pb.SitDownRequest(
                    player_id=reply.player.player_id,
                    token=reply.token,
                    table_id=table.table_id,
                    buy_in=BUY_IN,
                ),
                timeout=10,
            )
        tid: str = table.table_id
        return tid

    def next_hand(self, table_id: str) -> pb.NextHandResponse:
        plan: pb.NextHandResponse = retry(
            lambda: self.hands.NextHand(pb.NextHandRequest(table_id=table_id), timeout=10)
        )
        assert plan.play
        return plan

    def records(self, table_id: str) -> dict[str, pb.HandRecord]:
        reply = retry(
            lambda: self.staff.ListHands(pb.ListHandsRequest(table_id=table_id), timeout=10)
        )
        return {r.hand_id: r for r in reply.hands}

    def totals(self) -> pb.LedgerTotals:
        t: pb.LedgerTotals = retry(
            lambda: self.staff.GetLedgerTotals(pb.GetLedgerTotalsRequest(), timeout=10)
        )
        assert t.granted == t.balances + t.at_tables, t
        assert (t.ledger_balances, t.ledger_tables) == (t.balances, t.at_tables), t
        return t


@pytest.fixture
def lobby(tmp_path: Path) -> Iterator[Lobby]:
    yield from _running(Lobby(tmp_path / "lobby.db"))


@pytest.fixture
def slow_lobby(tmp_path: Path) -> Iterator[Lobby]:
    """A lobby whose groups stay open a second (the longest window): a result
    answered when applied is not yet durable for that long."""
    yield from _running(Lobby(tmp_path / "lobby.db", LOBBY_GROUP_COMMIT_MS="1000"))


def _running(running: Lobby) -> Iterator[Lobby]:
    try:
        yield running
    finally:
        for channel in running.channels:
            channel.close()
        running.process.terminate()


def refusal(call: Callable[[], object]) -> str:
    with pytest.raises(grpc.RpcError) as info:
        call()
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    return str(info.value.details())


def test_void_pending_hand_at_takeover_is_recorded_and_the_plan_never_repeats(
    lobby: Lobby,
) -> None:
    tid = lobby.table_with_two()
    nothing = lobby.hands.VoidPendingHand(pb.VoidPendingHandRequest(table_id=tid), timeout=10)
    assert nothing.hand_id == ""
    before = lobby.totals()
    plan = lobby.next_hand(tid)
    reply = lobby.hands.VoidPendingHand(pb.VoidPendingHandRequest(table_id=tid), timeout=10)
    assert (reply.hand_id, reply.hands_played) == (plan.hand_id, 0)
    again = lobby.hands.VoidPendingHand(pb.VoidPendingHandRequest(table_id=tid), timeout=10)
    assert again.hand_id == ""  # idempotent: nothing pending any more
    voided = lobby.records(tid)[plan.hand_id]
    assert (voided.status, voided.void_reason) == (pb.HAND_STATUS_VOIDED, VOIDED_AT_TAKEOVER)
    assert [s.stack for s in voided.dealt_in] == [BUY_IN, BUY_IN]
    assert lobby.totals().entries == before.entries  # no chip moved
    late = pb.FinishHandRequest(table_id=tid, hand_id=plan.hand_id, voided=True)
    assert VOIDED_AT_TAKEOVER in refusal(lambda: lobby.hands.FinishHand(late, timeout=10))
    assert lobby.next_hand(tid).hand_id != plan.hand_id


def test_lobby_sigkill_voids_the_pending_hand_and_refuses_its_late_result(lobby: Lobby) -> None:
    tid = lobby.table_with_two()
    done = lobby.next_hand(tid)
    finish = pb.FinishHandRequest(
        table_id=tid,
        hand_id=done.hand_id,
        final_stacks=[
            pb.SeatInfo(seat=s.seat, stack=s.stack + (100 if s.seat == 1 else -100))
            for s in done.dealt_in
        ],
    )
    lobby.hands.FinishHand(finish, timeout=10)
    pending = lobby.next_hand(tid)
    before = lobby.totals()
    lobby.kill_and_restart()
    records = lobby.records(tid)
    assert records[done.hand_id].status == pb.HAND_STATUS_FINISHED
    voided = records[pending.hand_id]
    assert (voided.status, voided.void_reason) == (pb.HAND_STATUS_VOIDED, VOIDED_BY_RESTART)
    assert sorted(s.stack for s in voided.dealt_in) == [BUY_IN - 100, BUY_IN + 100]
    after = lobby.totals()
    assert (after.granted, after.balances, after.at_tables, after.entries) == (
        before.granted,
        before.balances,
        before.at_tables,
        before.entries,
    )
    late = pb.FinishHandRequest(
        table_id=tid,
        hand_id=pending.hand_id,
        final_stacks=[pb.SeatInfo(seat=s.seat, stack=s.stack) for s in pending.dealt_in],
    )
    why = refusal(lambda: lobby.hands.FinishHand(late, timeout=10))
    assert VOIDED_BY_RESTART in why
    # The result that finished a hand, repeated after the restart, is still OK.
    assert lobby.hands.FinishHand(finish, timeout=10).hands_played == 1
    assert lobby.next_hand(tid).hand_id not in records


def test_table_reported_void_is_recorded_with_its_reason(lobby: Lobby) -> None:
    tid = lobby.table_with_two()
    plan = lobby.next_hand(tid)
    before = lobby.totals()
    lobby.hands.FinishHand(
        pb.FinishHandRequest(
            table_id=tid, hand_id=plan.hand_id, voided=True, void_reason="dealer.Deal: UNAVAILABLE"
        ),
        timeout=10,
    )
    voided = lobby.records(tid)[plan.hand_id]
    assert voided.status == pb.HAND_STATUS_VOIDED
    assert voided.void_reason == f"{VOIDED_BY_TABLE}: dealer.Deal: UNAVAILABLE"
    assert lobby.totals().entries == before.entries


def _report(tid: str, plan: pb.NextHandResponse, plan_next: bool = True) -> pb.FinishHandRequest:
    first, second = plan.dealt_in
    return pb.FinishHandRequest(
        table_id=tid,
        hand_id=plan.hand_id,
        final_stacks=[
            pb.SeatInfo(seat=first.seat, stack=first.stack + 50),
            pb.SeatInfo(seat=second.seat, stack=second.stack - 50),
        ],
        plan_next=plan_next,
    )


def test_a_result_is_answered_when_applied_and_recorded_before_the_next_hand(
    slow_lobby: Lobby,
) -> None:
    """Group commit (services/lobby/commits.py): the FinishHand that applies a
    result is answered at once, ``recorded`` false; HandRecorded is answered once
    it is durable, with the plan that came with it pending; a repeat waits and
    says recorded.  On the Batch stream the early reply leaves in a message of
    its own, ahead of the replies that wait."""
    lobby = slow_lobby
    tid = lobby.table_with_two()
    plan = lobby.next_hand(tid)
    report = _report(tid, plan)
    applied = lobby.hands.FinishHand(report, timeout=10)
    assert not applied.recorded and applied.next_hand.play
    asked = pb.HandRecordedRequest(table_id=tid, hand_id=plan.hand_id)
    recorded = lobby.hands.HandRecorded(asked, timeout=10)
    assert recorded.recorded and recorded.pending_hand_id == applied.next_hand.hand_id
    repeat = lobby.hands.FinishHand(report, timeout=10)
    assert repeat.recorded and repeat.next_hand == applied.next_hand
    assert lobby.records(tid)[plan.hand_id].status == pb.HAND_STATUS_FINISHED

    following = applied.next_hand
    calls = [
        call(1, "FinishHand", _report(tid, following)),
        call(2, "HandRecorded", pb.HandRecordedRequest(table_id=tid, hand_id=following.hand_id)),
    ]
    first, second = list(lobby.hands.Batch(iter([CallBatch(calls=calls)]), timeout=10))
    assert [r.id for r in first.replies] == [1] and [r.id for r in second.replies] == [2]
    early = response(first.replies[0], pb.FinishHandResponse)
    assert not early.recorded
    told = response(second.replies[0], pb.HandRecordedResponse)
    assert told.recorded and told.pending_hand_id == early.next_hand.hand_id
    lobby.totals()


def test_a_result_lost_in_a_crash_is_not_recorded_and_its_plan_never_dealt(
    slow_lobby: Lobby,
) -> None:
    """A SIGKILL between the early answer and the group's fsync: the result and
    the plan that came with it are lost; the restarted lobby voided the hand (as
    any hand pending at a restart), HandRecorded says the result is not recorded
    and that the plan is not pending, so the table voids the hand and never deals
    the plan.  No chip moved."""
    lobby = slow_lobby
    tid = lobby.table_with_two()
    before = lobby.totals()
    plan = lobby.next_hand(tid)
    applied = lobby.hands.FinishHand(_report(tid, plan), timeout=10)
    assert not applied.recorded  # the group stays open a second: not durable yet
    lobby.kill_and_restart()
    told: pb.HandRecordedResponse = retry(
        lambda: lobby.hands.HandRecorded(
            pb.HandRecordedRequest(table_id=tid, hand_id=plan.hand_id), timeout=10
        )
    )
    assert not told.recorded and VOIDED_BY_RESTART in told.reason, told
    assert told.pending_hand_id != applied.next_hand.hand_id
    records = lobby.records(tid)
    assert records[plan.hand_id].status == pb.HAND_STATUS_VOIDED
    assert applied.next_hand.hand_id not in records  # the lost plan: never pending
    assert lobby.totals().entries == before.entries
