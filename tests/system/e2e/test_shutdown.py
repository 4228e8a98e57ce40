"""Stopping things: a table service mid-hand, and the whole room (``make run``).

SIGTERM on the table service mid-hand: the hand is voided and reported before
the process exits, so the lobby returns every chip at once (not only when another
table process takes the table over).

The room (``python -m devroom.room``) stopped by SIGTERM, by a terminal's Ctrl-C
(SIGINT to its whole process group) and by SIGKILL leaves no service process and
no listening port behind; the first two print the summary of what was played
with the chip checks.  A port the room needs that is held gives one line naming
it and the way out, exit code 2.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from devroom.launcher import ServiceProcess
from devroom.ports import PortInUseError
from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1.lobby_pb2_grpc import LobbyHandsStub
from tests.support.room import Room, sample
from tests.support.stacks import stack_env, stop_stack

ROOT = Path(__file__).resolve().parents[3]
WAIT_S = 90.0  # guards against hangs, never an assertion on speed

STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=20, small_bet=40, big_bet=80)


@pytest.fixture
def stack() -> Iterator[Stack]:
    running = Stack(env=stack_env()).start()
    try:
        yield running
    finally:
        stop_stack(running)


def test_sigterm_voids_and_reports_the_hand_in_progress(stack: Stack) -> None:
    room = Room(stack)
    try:
        # A long clock: the hand waits on the first player, so it is in progress
        # when the table service is told to stop.
        hand = room.start_hand(
            STUD, order=None, buy_ins=[1_000, 1_000], action_clock_ms=60_000, stand_up=False
        )
        hand.players[0].wait_for(lambda e: True, what="an event of the hand")
        before = room.ledger()
        assert stack["table"].terminate() == 0  # SIGTERM: exits cleanly
        voided = sample(room.metrics("lobby"), "lobby_hands_voided_total", game="stud")
        assert voided == 1.0
        # Nothing is pending at the lobby: its next plan is a new hand, with the
        # stacks of before the voided one.
        with stack["lobby"].channel("table") as channel:  # as the next table process would
            plan = LobbyHandsStub(channel).NextHand(
                lpb.NextHandRequest(table_id=hand.table_id), timeout=10
            )
        assert plan.hand_id != hand.hand_id
        assert [s.stack for s in plan.dealt_in] == [1_000, 1_000]
        after = room.ledger()
        assert (after.granted, after.balances, after.at_tables) == (
            before.granted,
            before.balances,
            before.at_tables,
        )
        room.assert_chips_conserved()
    finally:
        room.close()


# ---------------------------------------------------------------- the whole room


class RoomProcess:
    """``python -m devroom.room`` (or the tournament room) in a session of its
    own, as a shell runs a foreground job: a terminal's Ctrl-C is ``killpg``."""

    def __init__(self, module: str, *args: str) -> None:
        self.lines: list[str] = []
        self.known: dict[int, str] = {}  # its children seen, pid -> command line
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=ROOT,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    @property
    def output(self) -> str:
        return "\n".join(self.lines)

    def wait_for(self, pattern: str) -> re.Match[str]:
        """The first output line matching ``pattern``, waiting for it."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if (found := re.search(pattern, line)) is not None:
                    return found
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.1)
        raise AssertionError(f"no line matching {pattern!r}:\n{self.output}")

    def wait_playing(self) -> None:
        """Until a progress line shows hands played."""
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            progress = [line for line in list(self.lines) if "Seven Card Stud: " in line]
            if any(sum(map(int, re.findall(r": (\d+)", line))) > 0 for line in progress):
                return
            assert self.proc.poll() is None, self.output
            time.sleep(0.1)
        raise AssertionError(f"the room never played a hand:\n{self.output}")

    def children(self) -> dict[int, str]:
        """The processes it started, pid -> command line (from /proc)."""
        found = {pid: cmdline(pid) for pid in pids_with_parent(self.proc.pid)}
        self.known.update(found)
        return found

    def ports(self) -> set[int]:
        """Every port its services listen on, as it printed them (internal gRPC,
        metrics, the public port of the lobby and the table, the gateway's door)."""
        found: set[int] = set()
        for line in self.lines:
            if (listed := re.search(r"gRPC 127\.0\.0\.1:(\d+)\s+metrics :(\d+)", line)) is not None:
                found |= {int(listed[1]), int(listed[2])}
                if (public := re.search(r"public 127\.0\.0\.1:(\d+)", line)) is not None:
                    found.add(int(public[1]))
            if (door := re.search(r"door 127\.0\.0\.1:(\d+)\s+metrics :(\d+)", line)) is not None:
                found |= {int(door[1]), int(door[2])}
        return found

    def wait(self) -> int:
        try:
            code = self.proc.wait(WAIT_S)
        finally:
            if self.proc.poll() is None:
                os.killpg(self.proc.pid, signal.SIGKILL)
        self._reader.join(timeout=10)
        return code

    def kill_everything(self) -> None:
        """The test's own cleanup: nothing it started survives a failed test (only
        processes seen as its own, still running the same program)."""
        if self.proc.poll() is None:
            self.known.update(self.children())
            self.proc.kill()
            self.proc.wait(10)
        for pid, command in self.known.items():
            if alive(pid, command):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)


def pids_with_parent(parent: int) -> list[int]:
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue  # gone meanwhile
        if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
            pids.append(int(entry))
    return pids


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def alive(pid: int, command: str) -> bool:
    """Still running (not a zombie) as the same program (pids are reused)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z" and cmdline(pid) == command


def listening_ports() -> set[int]:
    """Every local TCP port in LISTEN state on this machine (IPv4 and IPv6)."""
    ports: set[int] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A":  # TCP_LISTEN
                ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return ports


def wait_gone(children: dict[int, str], ports: set[int], within: float) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        left = {pid: c for pid, c in children.items() if alive(pid, c)}
        held = ports & listening_ports()
        if not left and not held:
            return
        time.sleep(0.1)
    raise AssertionError(f"left behind: processes {left}, listening ports {sorted(held)}")


@pytest.fixture
def started() -> Iterator[list[RoomProcess]]:
    rooms: list[RoomProcess] = []
    try:
        yield rooms
    finally:
        for room in rooms:
            room.kill_everything()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("signum", "to_group", "code"),
    [(signal.SIGTERM, False, 143), (signal.SIGINT, True, 130)],
    ids=["sigterm", "ctrl-c"],
)
def test_stopping_the_room_stops_every_service_and_prints_the_summary(
    started: list[RoomProcess], signum: signal.Signals, to_group: bool, code: int
) -> None:
    """SIGTERM to the room (a supervisor's stop), SIGINT to its process group (a
    terminal's Ctrl-C): the hands in progress finish, the summary with the chip
    checks is printed, every service stops, exit code 128 + the signal."""
    room = RoomProcess("devroom.room", "--ports", "free", "--hands", "1000000")
    started.append(room)
    room.wait_playing()
    children = room.children()
    ports = room.ports()
    assert len(children) == 6 and all("services." in c for c in children.values()), children
    assert len(ports) == 14, room.output  # 5 gRPC, 6 metrics, 2 public, the gateway's door
    if to_group:
        os.killpg(room.proc.pid, signum)
    else:
        room.proc.send_signal(signum)
    assert room.wait() == code, room.output
    out = room.output
    assert f"stopped early by {signum.name}" in out
    assert re.search(r"played [1-9]\d* hands in", out), out
    for check in (
        "[x] chips returned == chips bought in, to the unit",
        "[x] nothing left on the tables",
        "[x] ledger: granted == balances + at tables",
        "[x] no bot failed",
    ):
        assert check in out, out
    assert "[ ]" not in out, out
    assert re.search(r"services stopped: (\w+ exit 0, ){5}\w+ exit 0$", out, re.M), out
    assert "Traceback" not in out and "UNAVAILABLE" not in out, out
    wait_gone(children, ports, within=10)


@pytest.mark.slow
def test_a_killed_room_takes_its_services_with_it(started: list[RoomProcess]) -> None:
    """SIGKILL cannot be handled: the services follow their parent (Linux's
    parent-death signal, a SIGTERM) and free their ports."""
    room = RoomProcess("devroom.room", "--ports", "free", "--hands", "1000000")
    started.append(room)
    room.wait_for("bots seated")
    children = room.children()
    ports = room.ports()
    assert len(children) == 6, children
    room.proc.kill()
    room.wait()
    wait_gone(children, ports, within=30)


@pytest.fixture
def held_port() -> Iterator[int]:
    """A port this test holds (listening), as a room left running would."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


@pytest.mark.parametrize(
    ("module", "prog"), [("devroom.room", "room"), ("devroom.tournament_room", "tournament")]
)
def test_a_busy_port_is_one_line_naming_it_and_the_way_out(
    held_port: int, module: str, prog: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", module, "--ports", str(held_port)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=WAIT_S,
        check=False,
    )
    assert (result.returncode, result.stderr) == (
        2,
        f"{prog}: port {held_port} (dealer) is in use; stop what holds it or use --ports free\n",
    )
    assert "Traceback" not in result.stdout


@pytest.mark.parametrize("variable", ["PORT", "METRICS_PORT"])
def test_a_service_whose_port_is_busy_says_so_in_one_line(held_port: int, variable: str) -> None:
    """The same when a service finds its port taken (after the launcher's check,
    or started on its own): one line, exit code 2, PortInUseError for the launcher."""
    process = ServiceProcess("dealer", {variable: str(held_port)})
    with pytest.raises(PortInUseError) as raised:
        process.wait_serving()
    what = "dealer" if variable == "PORT" else "dealer metrics"
    assert str(raised.value) == f"port {held_port} ({what}) is in use"
    assert process.terminate() == 2
    kind = "gRPC" if variable == "PORT" else "metrics"
    assert process.log == f"dealer: port {held_port} ({kind}) is in use"


@pytest.mark.slow
def test_stopping_the_tournament_room_stops_every_service_and_prints_the_summary(
    started: list[RoomProcess],
) -> None:
    """``make tournament`` and Ctrl-C: the same as the room, the summary of what was
    played so far with the checks that still apply, exit code 130."""
    room = RoomProcess("devroom.tournament_room", "--players", "30", "--hands-per-level", "500")
    started.append(room)
    room.wait_for(r"\| hands [1-9]")
    children = room.children()
    assert len(children) == 6, children  # the five services and the gateway
    os.killpg(room.proc.pid, signal.SIGINT)
    assert room.wait() == 130, room.output
    out = room.output
    assert re.search(r"stopped early by SIGINT: \d+ players left", out), out
    assert "every check held so far: tables balanced, chips constant, ledger balanced" in out
    assert "problems:" not in out and "Traceback" not in out, out
    wait_gone(children, set(), within=10)  # (their ports go with them)
