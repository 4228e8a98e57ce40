"""The bot tutorials run as written (issue 18): docs/bots.md's step-by-step program
and the README's short one, against a room of their own.

Each document marks its program with ``<!-- tutorial -->`` ... ``<!-- /tutorial -->``;
the ``python`` blocks in between are joined in order and run unchanged.  The only
thing the test sets is what a reader sets to reach another room than the local one,
and the docs say so: ``POKER_ROOM`` (the door's address) and ``POKER_CA_FILE`` (its
CA).  The room has one Stud table where two calling stations play, so the newcomer
finds a free seat and opponents.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from poker.common.v1 import common_pb2 as c
from poker_bots import CallingStation, PlayStats, play

from .room import BotRoom

# One worker runs this module: its room (a module fixture) is started once.
pytestmark = pytest.mark.xdist_group("bots_tutorial")

ROOT = Path(__file__).resolve().parents[3]
STUD = c.GameConfig(game=c.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
MARK, END = "<!-- tutorial -->", "<!-- /tutorial -->"
# The action clock (S10): every player here answers at once, but a tutorial that
# stands up while dealt into the next hand (StandUp pending) has stopped playing,
# and the clock plays that hand for it before the seat is given up.
CLOCK_MS = 1_000


def tutorial(path: Path) -> str:
    """The python blocks between the document's tutorial marks, joined in order."""
    text = path.read_text()
    assert text.count(MARK) == 1 and text.count(END) == 1, f"{path}: one tutorial, marked"
    section = text[text.index(MARK) + len(MARK) : text.index(END)]
    blocks = re.findall(r"^```python\n(.*?)^```", section, re.M | re.S)
    assert blocks, f"{path}: no python block in the tutorial"
    return "\n".join(blocks)


def run_as_written(path: Path) -> None:
    """The tutorial's program, run as a script of its own would be."""
    code = compile(tutorial(path), f"{path.name} (tutorial)", "exec")
    exec(code, {"__name__": "__main__"})


@pytest.fixture(scope="module")
def stud_table(room: BotRoom) -> Iterator[str]:
    """A Stud table with two calling stations playing at it (a thread of their own,
    so that the tutorial runs its own ``asyncio.run``)."""
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    ready = threading.Event()
    table: list[str] = []
    outcome: list[object] = []

    async def opponents() -> None:
        table_id = await room.create_table(STUD, seats=4, action_clock_ms=CLOCK_MS)
        players = [await room.seated(f"opponent {n}", table_id, 2_000) for n in (1, 2)]
        table.append(table_id)
        ready.set()
        results = await asyncio.gather(
            *(
                play(room.target, table_id, p.player_id, p.token, CallingStation(), stop=stop)
                for p in players
            ),
            return_exceptions=True,
        )
        outcome.extend(results)

    thread = threading.Thread(
        target=lambda: loop.run_until_complete(opponents()), name="opponents", daemon=True
    )
    thread.start()
    assert ready.wait(30), "the opponents did not sit down"
    try:
        yield table[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(30)
        assert all(isinstance(r, PlayStats) for r in outcome), outcome


async def seated_names(room: BotRoom, table_id: str) -> list[str]:
    async with room.lobby() as lobby:
        return [s.name for s in (await lobby.table(table_id)).occupied]


def left(room: BotRoom, table_id: str, name: str) -> bool:
    """Whether ``name`` has left the table (a stand-up during a hand completes when
    the hand ends, the clock playing the seat: waited for)."""
    deadline = time.monotonic() + 20
    while name in asyncio.run(seated_names(room, table_id)):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_the_bots_tutorial_runs_as_written(
    room: BotRoom, stud_table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run_as_written(ROOT / "docs" / "bots.md")
    out = capsys.readouterr().out
    assert re.search(r"^registered \S+, balance 100000$", out, re.M), out
    assert re.search(r"^seat \d at stud 20/40 with 400 chips$", out, re.M), out
    assert re.search(r"^hand \S+: ([+-]\d+|\?) chips, \d+ left$", out, re.M), out
    assert "5 hands, stopped by hands: 5 hands finished, as asked" in out
    assert re.search(r"^(left the table with \d+ chips|I leave the table when)", out, re.M), out
    assert left(room, stud_table, "tutorial"), out


def test_the_readmes_bot_runs_as_written(
    room: BotRoom, stud_table: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run_as_written(ROOT / "README.md")
    out = capsys.readouterr().out
    assert re.search(r"^3 hands finished, \d+ chips left$", out, re.M), out
    assert left(room, stud_table, "my first bot"), out
