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
