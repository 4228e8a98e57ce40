"""Fixtures of the crash-durability tests (issue 4): the whole room as five real
processes, each on a fixed port picked for the test so that a process restarted
after SIGKILL is found where its predecessor was (the table's ``TABLE_*_ADDR``
and the test's channels stay valid), and the lobby on a SQLite file in
``tmp_path`` so that it can be restarted from it.

:class:`CrashRoom` starts the room (:class:`devroom.stack.Stack`, the e2e
settings of :func:`tests.support.stacks.stack_env`), kills a process with SIGKILL
(:meth:`CrashRoom.kill`: no shutdown hook, no goodbye) and starts it again with
the same environment (:meth:`CrashRoom.restart`).  The helpers below drive the
e2e client's players and poll the lobby; every wait is bounded and raises with
what was seen.
"""

from __future__ import annotations

import functools
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import grpc
import pytest

from devroom.launcher import ServiceProcess
from devroom.stack import BACKENDS, Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from tests.support.player import WAIT_S, Player
from tests.support.policies import passive
from tests.support.ports import free_ports
from tests.support.room import Room
from tests.support.stacks import stack_env, stop_stack

SERVICES = (*BACKENDS, "table")
PUBLIC = ("lobby", "table")  # the services with a public port
STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=20, small_bet=40, big_bet=80)
BUY_IN = 1_000
# A long action clock: a hand waits on its first turn until a test's players act,
# so "a hand is in progress" holds for as long as the test needs it.
CLOCK_MS = 60_000
T = TypeVar("T")


class CrashRoom:
    """The room on fixed ports, a durable lobby (a SQLite file, or a PostgreSQL
    database URL), SIGKILL and restart."""

    def __init__(self, db: Path | str) -> None:
        found = free_ports(len(SERVICES) + len(PUBLIC))
        ports = dict(zip(SERVICES, found, strict=False))
        self.env: dict[str, dict[str, str]] = {
            name: {"PORT": str(ports[name]), "METRICS_PORT": "0"} for name in SERVICES
        }
        # The players' ports too: a restarted lobby or table is found where the
        # players' channels (the public ports) point.
        for name, public in zip(PUBLIC, found[len(SERVICES) :], strict=True):
            self.env[name]["PUBLIC_PORT"] = str(public)
        for name, settings in stack_env().items():
            self.env[name].update(settings)
        self.env["lobby"]["LOBBY_DB"] = str(db)
        for name in BACKENDS:
            self.env["table"][f"TABLE_{name.upper()}_ADDR"] = f"127.0.0.1:{ports[name]}"
        self.stack = Stack(env=self.env).start()
        self.room = Room(self.stack)

    def kill(self, name: str) -> None:
        """SIGKILL: the process gets no chance to void or report anything."""
        process = self.stack[name]
        process.proc.send_signal(signal.SIGKILL)
        process.proc.wait(10)
        assert process.proc.returncode == -signal.SIGKILL

    def restart(self, name: str) -> ServiceProcess:
        """A new process of ``name``, same environment (port, database), serving."""
        process = ServiceProcess(name, self.env[name])
        self.stack.processes[name] = process
        process.wait_serving()
        return process

    def seat_two(self) -> tuple[str, list[Player]]:
        """A new stud table (the long clock) with two new players seated (1000
        each) and connected; the table's first hand starts at once."""
        table_id = self.room.create_table(STUD, 2, min_buy_in=BUY_IN, action_clock_ms=CLOCK_MS)
        shared = threading.Condition()
        players = [self.room.register() for _ in range(2)]
        for seat, player in enumerate(players, 1):
            player.changed = shared
            player.sit(table_id, BUY_IN, seat)
        for player in players:
            player.connect(table_id)
        return table_id, players

    def close(self) -> None:
        self.room.close()
        stop_stack(self.stack)


@pytest.fixture
def crash(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[CrashRoom]:
    """The lobby on SQLite, or on PostgreSQL when a test asks for it with
    ``@pytest.mark.parametrize("crash", ["sqlite", "postgresql"], indirect=True)``."""
    db: Path | str = tmp_path / "lobby.db"
    if getattr(request, "param", "sqlite") == "postgresql":
        db = request.getfixturevalue("postgres_server").database()
    room = CrashRoom(db)
    try:
        yield room
    finally:
        room.close()


# ---------------------------------------------------------------------- helpers


def retry(call: Callable[[], T], timeout: float = WAIT_S) -> T:
    """``call()``, again while it fails UNAVAILABLE (a restarted process's port, or
    a channel still backing off from its predecessor's death)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.UNAVAILABLE or time.monotonic() > deadline:
                raise
        time.sleep(0.1)


def eventually(check: Callable[[], T | None], what: str, timeout: float = WAIT_S) -> T:
    """The first truthy ``check()``, polled; TimeoutError naming ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        found = retry(check)
        if found:
            return found
        if time.monotonic() > deadline:
            raise TimeoutError(f"never: {what}")
        time.sleep(0.05)


def first_turn(players: list[Player], timeout: float = WAIT_S) -> str:
    """The hand id of the first turn any of ``players`` is offered: a hand is in
    progress (and, with the long clock, stays so until someone acts)."""
    deadline = time.monotonic() + timeout
    changed = players[0].changed
    with changed:
        while True:
            for player in players:
                turn = player.pending_turn()
                if turn is not None:
                    return turn[0]
            if time.monotonic() > deadline:
                raise TimeoutError("no turn: " + "; ".join(p.describe_events() for p in players))
            changed.wait(0.1)


def autoplay(
    players: list[Player], until: Callable[[], bool], what: str, timeout: float = 40.0
) -> None:
    """Answer every turn passively (check, call, bring in) until ``until()``."""
    deadline = time.monotonic() + timeout
    changed = players[0].changed
    while not until():
        for player in players:
            turn = player.pending_turn()
            if turn is not None:
                player.act(passive(player, *turn), turn)
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: " + "; ".join(p.describe_events() for p in players))
        with changed:
            changed.wait(0.05)


def reconnect(players: list[Player], table_id: str) -> None:
    for player in players:
        retry(functools.partial(player.connect, table_id))


def hands(room: Room, table_id: str) -> list[lpb.HandRecord]:
    """The lobby's record of the table's hands, oldest first."""
    reply = room.staff.ListHands(lpb.ListHandsRequest(table_id=table_id, limit=500), timeout=10)
    return list(reversed(reply.hands))


def record(room: Room, table_id: str, hand_id: str) -> lpb.HandRecord | None:
    return next((h for h in hands(room, table_id) if h.hand_id == hand_id), None)


def voided_record(room: Room, table_id: str, hand_id: str) -> lpb.HandRecord | None:
    """The hand's record once the lobby has it voided."""
    found = record(room, table_id, hand_id)
    return found if found is not None and found.status == lpb.HAND_STATUS_VOIDED else None


def stacks(room: Room, table_id: str) -> dict[int, int]:
    """The seats' stacks as the lobby holds them."""
    table = room.lobby.GetTable(lpb.GetTableRequest(table_id=table_id), timeout=10)
    return {s.seat: s.stack for s in table.occupied}


def hands_played(room: Room, table_id: str) -> int:
    played: int = room.lobby.GetTable(
        lpb.GetTableRequest(table_id=table_id), timeout=10
    ).hands_played
    return played


def money(totals: lpb.LedgerTotals) -> tuple[int, int, int]:
    return totals.granted, totals.balances, totals.at_tables
