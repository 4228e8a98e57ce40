"""A SIGKILL of the lobby during group commits loses no hand the table was told
was recorded (issue 19, acceptance point 4; services/lobby/commits.py).

Four fake tables (threads playing the table service's part of the hand
protocol, as the table does: FinishHand with the next plan; when the answer
says ``recorded`` false, HandRecorded before the plan is dealt) play hands as
fast as the lobby answers, so several hands share each group's fsync.  Every
hand the table was told is recorded (a FinishHand answered ``recorded``, or a
HandRecorded saying so) is noted with the final stacks it reported.  The lobby
is SIGKILLed while hands are in flight and restarted on its file; then:

- every hand told recorded is in ListHands as finished;
- every hand a fake table dealt (it deals a plan only once HandRecorded said it
  is the pending hand) is in ListHands, finished or voided: no hand was dealt
  on a plan the crash lost;
- each table's stacks are those of its newest finished hand (one answered but
  not yet told recorded may be finished or voided, never half-written), and no
  hand is pending;
- the money invariant holds: granted == balances + at_tables and the ledger's
  sums agree.

Run at the default window and at 0 (groups formed only while an fsync runs).
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import grpc
import pytest

from devroom.launcher import ServiceProcess
from poker.lobby.v1 import lobby_pb2 as pb
from tests.service.lobby_grpc.client import STUD, Player, create_table
from tests.support.lobby import LobbyClient, lobby_client

TABLES = 4
PLAYERS = 3
ACKED_BEFORE_KILL = 60  # hands acknowledged, all tables together, before the kill


class FakeTable(threading.Thread):
    """One table's hand loop: FinishHand (plan_next), HandRecorded when answered
    early, until the lobby goes away."""

    def __init__(self, lobby: LobbyClient, table_id: str, acked: threading.Semaphore) -> None:
        super().__init__(daemon=True)
        self.lobby = lobby
        self.table_id = table_id
        self.acked_signal = acked
        self.sent: dict[str, dict[int, int]] = {}  # hand_id -> final stacks reported
        self.acked: list[str] = []  # hand ids the table was told are recorded
        self.early = 0  # FinishHand answers with recorded false
        self.stop = threading.Event()

    def run(self) -> None:
        try:
            hand = self.lobby.NextHand(pb.NextHandRequest(table_id=self.table_id), timeout=10)
            n = 0
            while hand.play and not self.stop.is_set():
                n += 1
                stacks = {s.seat: s.stack for s in hand.dealt_in}
                seats = sorted(stacks)
                loser, winner = seats[n % len(seats)], seats[(n + 1) % len(seats)]
                moved = min(10, stacks[loser])
                stacks[loser] -= moved
                stacks[winner] += moved
                self.sent[hand.hand_id] = stacks
                reply = self.lobby.FinishHand(
                    pb.FinishHandRequest(
                        table_id=self.table_id,
                        hand_id=hand.hand_id,
                        final_stacks=[pb.SeatInfo(seat=s, stack=c) for s, c in stacks.items()],
                        plan_next=True,
                    ),
                    timeout=10,
                )
                pending = reply.next_hand.hand_id
                if not reply.recorded:
                    self.early += 1
                    asked = self.lobby.HandRecorded(
                        pb.HandRecordedRequest(table_id=self.table_id, hand_id=hand.hand_id),
                        timeout=10,
                    )
                    assert asked.recorded, asked.reason  # the same lobby: it was applied
                    pending = asked.pending_hand_id
                assert pending == reply.next_hand.hand_id
                self.acked.append(hand.hand_id)  # the table was told: recorded
                self.acked_signal.release()
                hand = reply.next_hand
        except grpc.RpcError:
            return  # the lobby was killed


@pytest.mark.parametrize("window_ms", [None, "0"], ids=["default-window", "no-window"])
def test_a_killed_lobby_keeps_every_hand_it_acknowledged(
    tmp_path: Path, window_ms: str | None
) -> None:
    env = {"LOBBY_DB": str(tmp_path / "lobby.sqlite3"), "LOBBY_DEFAULT_BALANCE": "100000"}
    if window_ms is not None:
        env["LOBBY_GROUP_COMMIT_MS"] = window_ms
    acked = threading.Semaphore(0)
    process = ServiceProcess("lobby", env)
    with process, lobby_client(process) as lobby:
        tables = []
        for t in range(TABLES):
            created = create_table(lobby, STUD, name=f"t{t}", seats=PLAYERS)
            for seat in range(1, PLAYERS + 1):
                Player(lobby, f"p{t}{seat}").sit(created.table_id, seat)
            tables.append(FakeTable(lobby, created.table_id, acked))
        for table in tables:
            table.start()
        for _ in range(ACKED_BEFORE_KILL):
            assert acked.acquire(timeout=60), "the fake tables stopped playing"
        process.proc.send_signal(signal.SIGKILL)  # hands in flight, groups open
        process.proc.wait(10)
        for table in tables:
            table.stop.set()
            table.join(30)
            assert not table.is_alive()

    assert sum(len(t.acked) for t in tables) >= ACKED_BEFORE_KILL
    assert sum(t.early for t in tables) > 0, "no FinishHand was answered before its fsync"
    with ServiceProcess("lobby", env) as again, lobby_client(again) as lobby:
        for table in tables:
            listed = lobby.ListHands(
                pb.ListHandsRequest(table_id=table.table_id, limit=500), timeout=10
            ).hands
            status = {h.hand_id: h.status for h in listed}
            assert all(status.get(h) == pb.HAND_STATUS_FINISHED for h in table.acked), table.acked
            assert pb.HAND_STATUS_PENDING not in status.values()
            dealt = set(table.sent)
            assert dealt <= set(status), dealt - set(status)  # none dealt on a lost plan
            finished = [h.hand_id for h in listed if h.status == pb.HAND_STATUS_FINISHED]
            newest = finished[0]  # newest first
            assert newest in table.sent and finished.index(table.acked[-1]) <= 1
            seated = lobby.GetTable(pb.GetTableRequest(table_id=table.table_id), timeout=10)
            assert {s.seat: s.stack for s in seated.occupied} == table.sent[newest]
        totals = lobby.GetLedgerTotals(pb.GetLedgerTotalsRequest(), timeout=10)
        assert totals.granted == totals.balances + totals.at_tables
        assert (totals.balances, totals.at_tables) == (
            totals.ledger_balances,
            totals.ledger_tables,
        )
        assert totals.at_tables == TABLES * PLAYERS * 1_000
