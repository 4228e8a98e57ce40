"""The table's hand loop (services/table/runtime.py) against a fake lobby: a bug
outside a hand (a plan, a report) is logged and counted, and the table goes on;
it never stops dealing silently (a table whose loop task died would sit with its
players seated and no hand, as one did in a container run)."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from prometheus_client import REGISTRY

from poker.lobby.v1 import lobby_pb2 as lpb
from services.table.clients import DownstreamError
from services.table.runtime import TableRuntime


class FakeLobby:
    """The lobby calls of an idle table: nobody to deal to (NextHand play=False),
    after ``bugs`` NextHand calls that raise a plain exception (a bug, not a
    DownstreamError); FinishHand refused (FAILED_PRECONDITION)."""

    def __init__(self, bugs: int = 0) -> None:
        self.bugs = bugs
        self.calls: list[str] = []

    async def call(self, service: str, method: str, request: Any) -> Any:
        assert service == "lobby"
        self.calls.append(method)
        if method == "VoidPendingHand":
            return lpb.VoidPendingHandResponse()
        if method == "NextHand":
            if self.bugs:
                self.bugs -= 1
                raise TypeError("a bug in the plan's handling")
            return lpb.NextHandResponse(play=False)
        if method == "FinishHand":
            raise DownstreamError(grpc.StatusCode.FAILED_PRECONDITION, "not the hand in progress")
        raise AssertionError(method)


def loop_errors() -> float:
    return REGISTRY.get_sample_value("table_loop_errors_total") or 0.0


async def run_until(runtime: TableRuntime, lobby: FakeLobby, next_hands: int) -> bool:
    """Start the table; True when it asked for ``next_hands`` plans while its task
    was still running (then it is stopped)."""
    runtime.start()
    try:
        for _ in range(500):
            if lobby.calls.count("NextHand") >= next_hands:
                assert runtime._task is not None
                return not runtime._task.done()
            await asyncio.sleep(0.01)
        return False
    finally:
        await runtime.stop()


def table(lobby: FakeLobby) -> TableRuntime:
    return TableRuntime(
        lpb.Table(table_id="t-loop"),
        lobby,  # type: ignore[arg-type]
        idle_poll_s=0.01,
        hand_pause_s=0,
        history_hands=10,
    )


def test_a_bug_getting_the_plan_does_not_stop_the_table() -> None:
    lobby = FakeLobby(bugs=2)
    before = loop_errors()
    assert asyncio.run(run_until(table(lobby), lobby, next_hands=5))
    assert loop_errors() - before == 2


def test_a_refused_report_whose_void_fails_is_not_sent_again() -> None:
    """The lobby refuses a report (it took nothing); recording the void here fails
    (a bug): the table goes on, and the refused report is not sent again and again."""
    lobby = FakeLobby()
    runtime = table(lobby)
    runtime.unreported = lpb.FinishHandRequest(table_id="t-loop", hand_id="h-1", plan_next=True)

    def broken(hand_id: str) -> None:
        raise RuntimeError("a bug recording the void")

    runtime._voided_by_lobby = broken  # type: ignore[method-assign]
    before = loop_errors()
    assert asyncio.run(run_until(runtime, lobby, next_hands=3))
    assert lobby.calls.count("FinishHand") == 1
    assert loop_errors() - before == 1


class RecordingLobby:
    """A lobby with group commit: FinishHand answered when applied (``recorded``
    false, the next plan with it); HandRecorded answers ``recorded`` (None: the
    lobby cannot be reached)."""

    def __init__(self, recorded: bool | None, pending: str = "h-2") -> None:
        self.recorded = recorded
        self.pending = pending
        self.calls: list[str] = []

    async def call(self, service: str, method: str, request: Any) -> Any:
        self.calls.append(method)
        if method == "FinishHand":
            return lpb.FinishHandResponse(
                recorded=False, next_hand=lpb.NextHandResponse(play=True, hand_id="h-2")
            )
        if method == "HandRecorded":
            assert request.hand_id == "h-1"
            if self.recorded is None:
                raise DownstreamError(grpc.StatusCode.UNAVAILABLE, "the lobby is restarting")
            return lpb.HandRecordedResponse(
                recorded=self.recorded,
                reason="" if self.recorded else "voided by the lobby restart",
                pending_hand_id=self.pending,
            )
        raise AssertionError(method)


def recording_table(lobby: RecordingLobby) -> tuple[TableRuntime, list[str]]:
    """A table whose last report (h-1) the lobby answered when applied."""
    runtime = table(lobby)  # type: ignore[arg-type]
    voided: list[str] = []
    runtime._voided_by_lobby = voided.append  # type: ignore[method-assign,assignment]
    report = lpb.FinishHandRequest(table_id="t-loop", hand_id="h-1", plan_next=True)
    outcome, plan = asyncio.run(runtime._report(report))
    assert outcome == "taken" and plan is not None and plan.hand_id == "h-2"
    assert runtime.unrecorded is report  # applied, not yet known recorded
    return runtime, voided


def test_the_next_plan_is_dealt_once_the_report_is_recorded() -> None:
    runtime, voided = recording_table(RecordingLobby(recorded=True))
    plan = lpb.NextHandResponse(play=True, hand_id="h-2")
    assert asyncio.run(runtime._recorded(plan)) is plan
    assert runtime.unrecorded is None and voided == []


def test_a_report_the_lobby_lost_voids_the_hand_and_its_plan_is_never_dealt() -> None:
    """A lobby crash between the early answer and the fsync: the result and the
    plan are gone (the restart voided the hand); the table voids the hand as for
    a refused report and drops the plan."""
    runtime, voided = recording_table(RecordingLobby(recorded=False, pending=""))
    plan = lpb.NextHandResponse(play=True, hand_id="h-2")
    assert asyncio.run(runtime._recorded(plan)) is None
    assert runtime.unrecorded is None and voided == ["h-1"]


def test_no_hand_is_dealt_while_the_lobby_cannot_say_the_report_is_recorded() -> None:
    lobby = RecordingLobby(recorded=None)
    runtime, voided = recording_table(lobby)
    plan = lpb.NextHandResponse(play=True, hand_id="h-2")
    assert asyncio.run(runtime._next(plan)) is plan  # kept for the next turn
    assert runtime.unrecorded is not None and "h-2" not in runtime.played
    assert lobby.calls == ["FinishHand", "HandRecorded"] and voided == []
