# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_S2_...)
"""``make run ARGS="--serve"`` and ``--bot FILE:CLASS`` (issue 18): the room for
people and bots.

- ``--serve`` stays up until SIGTERM, prints the door, the CA and every table
  with a free seat, and the lines that seat a person; those lines, typed into a
  shell as printed, register a person and sit them (S2: the buy-in comes from
  their balance).  The room then frees a seat again (a reference bot stands up
  after the hand).  SIGTERM is the served room's normal end: the summary and
  the chip checks, exit status 0.
- ``--bot FILE:CLASS[@TABLE]`` seats a bot loaded from a file among the
  reference bots; one that raises in ``act`` is answered by the SDK with the
  safest action and the run still ends with every check held.
- A ``--bot`` that cannot be used is one line and exit status 2, before
  anything starts.
"""

from __future__ import annotations

import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc
from poker_wire.channels import player_channel_sync

from .served import ROOT, RoomProcess, sh

CHECK_OR_FOLD = """
from poker_bots import choose, safest
from poker_bots.sdk import CHECK


class CheckOrFold:
    def act(self, view, legal):
        return choose(legal, CHECK) if legal.can_check else safest(legal)
"""

# Raises on every third decision: the SDK plays the safest action instead.
CLUMSY = """
from poker_bots import passive


class Clumsy:
    def __init__(self):
        self.decisions = 0

    def act(self, view, legal):
        self.decisions += 1
        if self.decisions % 3 == 0:
            raise RuntimeError("a bug in my bot")
        return passive(legal)
"""

TABLE_LINE = re.compile(r"^  (\S+)  (\S+)\s.*\s(\d+) of (\d+) seats free$")
# The chip checks, with or without people who won or lost chips to the bots.
CHIP_CHECKS = (
    r"\[x\] chips returned == chips bought in( \+ won from the people \([+-]\d+\))?, to the unit",
    r"\[x\] the bots hold exactly what they were granted( \+ won from the people \([+-]\d+\))?$",
    r"\[x\] ledger: granted == balances \+ at tables",
    r"\[x\] no bot failed",
)


def bot_file(tmp_path: Path, name: str, source: str) -> Path:
    path = tmp_path / name
    path.write_text(source)
    return path


def printed_tables(room: RoomProcess) -> dict[str, tuple[str, int, int]]:
    """table id -> (name, free seats, seats), as the served room printed them."""
    found = {}
    for line in room.lines:
        if (row := TABLE_LINE.match(line)) is not None:
            found[row[1]] = (row[2], int(row[3]), int(row[4]))
    return found


def printed_line(room: RoomProcess, starts: str, *, anywhere: bool = False) -> str:
    """The printed command line that begins with (or holds) ``starts``, its
    comment cut."""
    for line in room.lines:
        text = line.strip()
        if text.startswith(starts) or (anywhere and starts in text):
            return text.split("  #", 1)[0].strip()
    raise AssertionError(f"no line beginning {starts!r}:\n{room.output}")


def lobby_tables(door: grpc.Channel) -> dict[str, lpb.Table]:
    """Every table through the room's public API, as any client sees them."""
    listed = room_pb2_grpc.RoomStub(door).ListTables(rpb.ListTablesRequest(), timeout=10)
    return {t.table_id: t for t in listed.tables}


def wait_until(what: str, ready: object, within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if ready():  # type: ignore[operator]
            return
        time.sleep(0.25)
    raise AssertionError(f"not within {within} s: {what}")


@pytest.mark.slow
def test_S2_serve_keeps_a_seat_free_that_a_person_takes_with_the_printed_lines(
    rooms: list[RoomProcess], tmp_path: Path
) -> None:
    bot = bot_file(tmp_path, "mybot.py", CHECK_OR_FOLD)
    room = RoomProcess(
        "--serve", "--ports", "free", "--clock-ms", "2000", "--bot", f"{bot}:CheckOrFold@draw-no"
    )
    rooms.append(room)
    room.wait_for(r"^  make run ARGS=")  # the last line of what the open room prints
    door = room.wait_for(r"^  door: (\S+)")[1]
    ca = room.wait_for(r"^  CA:   (\S+)")[1]
    printed = printed_tables(room)
    assert len(printed) == 5, room.output
    assert all(free == 1 for _, free, _ in printed.values()), room.output
    draw_no = next(t for t, (name, _, _) in printed.items() if name == "draw-no")
    assert f"  yours at {draw_no}: CheckOrFold at 7-A Draw no limit" in room.lines, room.output
    with player_channel_sync(door, ca) as channel:
        # Every table as the room's API has it: a seat free (a broke bot may be
        # between its stand-up and its rebuy: then two), your bot at draw-no.
        tables = lobby_tables(channel)
        assert set(tables) == set(printed)
        for table in tables.values():
            assert 2 <= len(table.occupied) <= table.seats - 1, table
        assert "CheckOrFold" in {s.name for s in tables[draw_no].occupied}, tables[draw_no]

        # The person: the printed lines, typed into a shell as printed.
        export = printed_line(room, "export POKER_ROOM=")
        register = printed_line(room, "register alice", anywhere=True)
        poker = register.split(" register alice")[0]
        made = sh(f"{export}; {register}", {"POKER_CREDENTIAL": ""})
        assert made.returncode == 0, made.stderr
        export_credential = made.stdout.strip().splitlines()[-1]
        assert export_credential.startswith("export POKER_CREDENTIAL="), made.stdout
        sit = printed_line(room, f"{poker} sit ")
        table_id = shlex.split(sit)[2]
        assert printed[table_id][1] == 1
        seated = sh(f"{export}; {export_credential}; {sit}")
        assert seated.returncode == 0, seated.stderr
        assert re.match(rf"seat \d+ at {table_id}: stack 2,?000", seated.stdout), seated.stdout
        player_id = shlex.split(export_credential.split("=", 1)[1])[0].rpartition(".")[0]

        def person_seated() -> lpb.Table:
            return lobby_tables(channel)[table_id]

        assert player_id in {s.player_id for s in person_seated().occupied}

        # The room keeps a seat free: a reference bot stands up after the hand.
        def free_again() -> bool:
            table = person_seated()
            ids = {s.player_id for s in table.occupied}
            return len(ids) == table.seats - 1 and player_id in ids

        wait_until("a seat free again beside the person", free_again)

    room.proc.send_signal(signal.SIGTERM)
    assert room.wait() == 0, room.output
    out = room.output
    assert "served until SIGTERM: exit 0" in out, out
    assert re.search(r"played [1-9]\d* hands in .* served until SIGTERM", out), out
    for check in CHIP_CHECKS:
        assert re.search(check, out, re.M), out
    assert re.search(
        r"\[x\] (nothing left on the tables|the room's players left nothing on the tables)", out
    ), out
    assert "[ ]" not in out, out
    assert re.search(r"yours: CheckOrFold at 7-A Draw no limit: acted in [1-9]", out), out
    assert re.search(r"services stopped: (\w+ exit 0, ){5}\w+ exit 0$", out, re.M), out


@pytest.mark.slow
def test_a_bot_from_a_file_plays_among_the_reference_bots_and_its_errors_are_handled(
    rooms: list[RoomProcess], tmp_path: Path
) -> None:
    """Without --serve: the run reaches its hands with your bot at the stud
    table; every third ``act`` raises, the SDK plays the safest action, and
    every check holds."""
    bot = bot_file(tmp_path, "clumsy.py", CLUMSY)
    room = RoomProcess(
        "--ports", "free", "--hands", "8", "--clock-ms", "2000", "--bot", f"{bot}:Clumsy@stud"
    )
    rooms.append(room)
    assert room.wait() == 0, room.output
    out = room.output
    summary = out.split("\nplayed ", 1)[-1]  # after the progress lines
    played = re.search(
        r"yours: Clumsy at Seven Card Stud: acted in (\d+) hands, (\d+) decisions, "
        r"act raised (\d+) \(the SDK played the safest action instead\)",
        summary,
    )
    assert played is not None, out
    hands, decisions, raised = map(int, played.groups())
    assert hands >= 6 and decisions >= hands, out  # a stud seat acts in nearly every hand
    assert raised == decisions // 3, out
    assert re.search(r"yours: Clumsy \(p-\S+\): [+-]?\d+ chips over the run", out), out
    for check in (
        r"\[x\] every table reached its hands",
        r"\[x\] nothing left on the tables",
        *CHIP_CHECKS,
    ):
        assert re.search(check, out, re.M), out
    assert "[ ]" not in out, out


@pytest.mark.parametrize(
    ("option", "says"),
    [
        ("{dir}/absent.py:MyBot", "no file {dir}/absent.py"),
        ("{dir}/mybot.py:Nope", "no class Nope in {dir}/mybot.py; it has CheckOrFold"),
        ("{dir}/actless.py:Quiet", "Quiet has no act(view, legal) method"),
        ("{dir}/broken.py:MyBot", "{dir}/broken.py failed to load: SyntaxError"),
        ("{dir}/mybot.py:CheckOrFold@holdem", "no table 'holdem'; the tables are stud, "),
        ("{dir}/mybot.py", "expected FILE:CLASS[@TABLE,...]"),
    ],
    ids=["no-file", "no-class", "no-act", "syntax-error", "no-such-table", "no-class-named"],
)
def test_a_bot_that_cannot_be_used_is_one_line_and_exit_status_2(
    tmp_path: Path, option: str, says: str
) -> None:
    bot_file(tmp_path, "mybot.py", CHECK_OR_FOLD)
    bot_file(tmp_path, "actless.py", "class Quiet:\n    pass\n")
    bot_file(tmp_path, "broken.py", "class MyBot(:\n")
    given = option.format(dir=tmp_path)
    result = run_room("--bot", given)
    assert result.returncode == 2, result
    assert result.stderr.startswith(f"room: --bot {given}: {says.format(dir=tmp_path)}"), result
    assert result.stderr.count("\n") == 1 and not result.stdout, result


def test_too_many_bots_for_a_table_beside_the_kept_seat_is_one_line(tmp_path: Path) -> None:
    bot = bot_file(tmp_path, "mybot.py", CHECK_OR_FOLD)
    six = [arg for _ in range(6) for arg in ("--bot", f"{bot}:CheckOrFold@stud")]
    result = run_room("--serve", *six)
    assert (result.returncode, result.stderr) == (
        2,
        "room: --bot: the stud table has 6 seats: 6 bots of yours and 1 kept free "
        "(--serve) do not fit\n",
    )


def test_serve_has_no_hands_target(tmp_path: Path) -> None:
    result = run_room("--serve", "--hands", "10")
    assert result.returncode == 2
    assert "--serve plays until SIGTERM or Ctrl-C" in result.stderr


def run_room(*args: str) -> subprocess.CompletedProcess[str]:
    """The room given ``args`` that it refuses before starting anything."""
    return subprocess.run(
        [sys.executable, "-m", "devroom.room", "--ports", "free", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
