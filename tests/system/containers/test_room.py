"""The card room as containers of the images ``make images`` built (issue 5): the
five services and the gateway, the room's door (issue 16).

Checks, over one set of containers (see ``conftest.py``):

- every service container is healthy (``grpc.health.v1``), and the gateway's
  (``GET /healthz`` on its one port), on the host's network, with a read-only
  root filesystem, as user 10001;
- the images hold no build tool and no package installer;
- reference bots play at least 100 hands of every game (Seven Card Stud, Stud
  Hi-Lo, 7-A draw in three structures) through the gateway container to the table
  container, and the table container is restarted in the middle of the run: the
  hands in progress are voided and recorded (``ListHands``), their chips go back
  to where they were, the ledger balances throughout, and play resumes at every
  table, through the gateway, which followed the restart;
- a restarted lobby container keeps its state (its SQLite file is on a volume).

The gateway's own checks (a player through the door) are in ``test_gateway.py``.
"""

from __future__ import annotations

import pytest
from grpc_health.v1 import health_pb2

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from services.lobby.ring import VOIDED_AT_TAKEOVER, VOIDED_BY_TABLE
from tests.support.typed_grpc import health_stub

from .conftest import HANDS_AFTER_RESTART, HANDS_PER_TABLE, Run, StaffLobby, totals
from .stack import CONTAINERS, GATEWAY, SERVICES, UID, ContainerStack, healthz

# One worker runs every container test, against one set of containers (make test
# runs pytest with --dist loadgroup).
pytestmark = pytest.mark.xdist_group("containers")

GAMES = {
    common.GAME_STUD: "Seven Card Stud",
    common.GAME_STUD_HILO: "Stud Hi-Lo",
    common.GAME_DRAW_7A: "7-A draw",
}
RESTART_REASONS = (f"{VOIDED_BY_TABLE}: the table service stopped mid-hand", VOIDED_AT_TAKEOVER)
# What an image must not hold: compilers, make, package installers.
BUILD_TOOLS = ("gcc", "cc", "c++", "make", "pip", "pip3", "easy_install")


def balanced(t: lpb.LedgerTotals) -> bool:
    return t.granted == t.balances + t.at_tables


def test_every_service_container_is_healthy(stack: ContainerStack) -> None:
    for name in SERVICES:
        with stack.channel(name, name) as channel:  # mutual TLS, as itself
            reply = health_stub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING, name
    # The gateway: no internal port, no grpc.health.v1; /healthz on its one port.
    assert healthz(stack.door, stack.pki.ca_file) == 200
    for name in CONTAINERS:
        container = stack[name].wrapped
        container.reload()
        assert container.status == "running", name
        host = container.attrs["HostConfig"]
        assert host["NetworkMode"] == "host", name
        assert host["ReadonlyRootfs"] is True, name


def test_containers_run_as_user_10001(stack: ContainerStack) -> None:
    for name in CONTAINERS:
        container = stack[name].wrapped
        assert container.image.attrs["Config"]["User"] == f"{UID}:{UID}", name
        assert stack[name].exec("id", "-u") == (0, f"{UID}\n"), name
        # Read-only root: nothing can be written outside /tmp and the lobby's volume.
        code, output = stack[name].exec("sh", "-c", "touch /app/x || exit 3")
        assert code == 3, (name, output)
    assert stack["lobby"].exec("sh", "-c", "touch /var/lib/cardroom/probe && echo ok") == (
        0,
        "ok\n",
    )


def test_images_hold_no_build_tools(stack: ContainerStack) -> None:
    for name in CONTAINERS:
        code, found = stack[name].exec(
            "sh", "-c", " ; ".join(f"command -v {tool}" for tool in BUILD_TOOLS) + " ; true"
        )
        assert (code, found) == (0, ""), (name, found)
        for module in ("pip", "setuptools", "ensurepip"):
            code, output = stack[name].exec("python", "-c", f"import {module}")
            assert code == 1 and "ModuleNotFoundError" in output, (name, module, output)


def test_a_hundred_hands_of_every_game_through_the_containers(run: Run) -> None:
    assert run.outcome.errors == []
    by_game = {game: 0 for game in GAMES}
    for table_id, hands in run.played_end.items():
        assert hands >= HANDS_PER_TABLE, run.labels[table_id]
        by_game[run.games[table_id]] += hands
    assert all(n >= HANDS_PER_TABLE for n in by_game.values()), by_game
    for table_id, records in run.records.items():
        finished = [r for r in records if r.status == lpb.HAND_STATUS_FINISHED]
        assert len(finished) == run.played_end[table_id]  # every page of ListHands
        assert all(r.status != lpb.HAND_STATUS_PENDING for r in records)
        ids = [r.hand_id for r in records]
        assert len(set(ids)) == len(ids)


def test_the_table_restart_voids_the_hands_in_progress_and_restores_their_chips(
    run: Run,
) -> None:
    began, resumed = run.restart_window_ms
    voided_total = 0
    for table_id, records in run.records.items():
        status = {r.hand_id: r.status for r in records}
        current = run.in_progress.get(table_id, "")
        if current:  # it was in progress just before the restart: voided, or it ended first
            assert status[current] in (lpb.HAND_STATUS_VOIDED, lpb.HAND_STATUS_FINISHED)
        for i, record in enumerate(records):
            if record.status != lpb.HAND_STATUS_VOIDED:
                continue
            voided_total += 1
            label = run.labels[table_id]
            # Voided by the restart (ended during it, for the restart's reason: the
            # stopping service's own report, or its successor's takeover); nothing
            # else voided a hand.
            assert record.void_reason in RESTART_REASONS, (label, record)
            assert began <= record.ended_at_unix_ms <= resumed, (label, record)
            # Chips restored: the next hand starts every seat of the voided hand
            # with the stack it had when the voided hand began.
            following = records[i + 1]
            stacks = {s.seat: s.stack for s in following.dealt_in}
            for seat in record.dealt_in:
                assert stacks.get(seat.seat) == seat.stack, (label, seat.seat)
    # Five busy tables: SIGTERM found hands in progress, and voided them.  (Which
    # ones cannot be told beforehand: a hand listed as in progress a moment before
    # the restart may finish first.)
    assert voided_total >= 1


def test_play_resumes_at_every_table_after_the_restart(stack: ContainerStack, run: Run) -> None:
    assert run.outcome.reconnects > 0  # the bots' streams did go down
    for table_id, before in run.played_at_restart.items():
        assert run.played_end[table_id] >= before + HANDS_AFTER_RESTART, run.labels[table_id]
    # Through the same gateway process: it followed the restarted table.
    assert stack[GATEWAY].started_at() < stack["table"].started_at()
    assert healthz(stack.door, stack.pki.ca_file) == 200


def test_the_ledger_balances_before_after_the_restart_and_at_the_end(run: Run) -> None:
    for snapshot in (run.totals_before, run.totals_after_restart, run.totals_end):
        assert balanced(snapshot), snapshot
    # No player registered after the start: nothing granted, nothing lost.
    assert run.totals_before.granted == run.totals_after_restart.granted == run.totals_end.granted
    assert run.totals_end.at_tables == 0  # everyone stood up
    assert run.outcome.held == run.outcome.granted  # every chip back in a balance


def test_a_restarted_lobby_container_keeps_its_state(
    stack: ContainerStack, lobby: StaffLobby, run: Run
) -> None:
    before = totals(lobby)
    tables = {t: lobby.GetTable(lpb.GetTableRequest(table_id=t), timeout=10) for t in run.labels}
    stack.restart("lobby")
    assert totals(lobby) == before
    for table_id, table in tables.items():
        assert lobby.GetTable(lpb.GetTableRequest(table_id=table_id), timeout=10) == table
