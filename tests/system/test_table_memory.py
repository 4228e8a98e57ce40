"""The table service's memory per table is flat between a table's first and tenth
thousand hands (issue 19, acceptance 3): nothing the table keeps grows with the
hands it plays.  Its hand histories are the lobby's (services/lobby/histories.py);
the table keeps the last ``TABLE_HISTORY_HANDS`` (20) as a cache.

The room is the five services as processes and ``TABLES`` heads-up 7-A draw
table(s) whose two bots (this process, ``poker_bots.play`` on the table's public
port) check or fold at every turn: the shortest real hand there is (blinds, the
deal, one decision, the deck closed, the report with its history), so ten thousand
hands fit the test's budget on two cores; each hand still takes every path a long
hand takes (plan, deck commitment, betting, the history archived and sent with
the result).  The cost of the test is the hands: about 11 ms of CPU each across
the six processes (the table 4, the lobby 2.3, the dealer 2, the bots 2, betting
1.7, as printed), so it plays one table, whose hands follow one another: more
tables side by side would multiply the hands and the per-table figure is the same
(measured on a loaded machine: +12 KiB a table with four tables, +14 KiB with
two, +12 to +100 KiB with one).  The table process's resident memory (VmRSS) is
sampled once the table has played ``FIRST`` hands (its cache full long since, the
process warm) and again at ``LAST``.  The lobby is in memory: no fsync per hand in
the way, and its memory is not what is measured here.

The bound, ``MOST_GROWTH_PER_TABLE`` (512 KiB), is what a leak of about 58 bytes a
hand would reach over the 9,000 hands between the samples (one small Python object
kept per hand, say a dict entry keyed by the hand id, is over 100 bytes), while the
table's old in-memory history (500 hands of about 15 KB) was 7.5 MB a table.  It
leaves room for the allocator's own noise (arenas, gRPC buffers), which is per
process and was at most 100 KiB in every run.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2
from poker_bots import TableView, play
from poker_bots.sdk import CHECK, FOLD, choose, legal_kinds, safest
from tests.support.stacks import stop_stack

pytestmark = pytest.mark.slow

TABLES = 1
FIRST = 1_000
LAST = 10_000
MOST_GROWTH_PER_TABLE = 512 * 1024  # bytes (module doc)
DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=20, big_bet=40)
WAIT_S = 600.0  # a guard against a hang, never an assertion on speed


class Folder:
    """Checks when it may, else folds: a hand is one or two decisions."""

    def act(self, view: TableView, legal: common.LegalActions) -> common.Action:
        if common.ACTION_KIND_CHECK in legal_kinds(legal):
            return choose(legal, CHECK)
        if legal.can_fold:
            return choose(legal, FOLD)
        return safest(legal)  # the draw: stand pat


def cpu_seconds(stack: Stack) -> dict[str, float]:
    """CPU time so far of each of the room's processes and of this one (the bots):
    a figure for the report, never asserted (figures belong in ``make bench``)."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = {"bots": sum(os.times()[:2])}
    for name, process in stack.processes.items():
        fields = Path(f"/proc/{process.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        out[name] = (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return out


def rss_bytes(pid: int) -> int:
    """The process's resident memory now (VmRSS, /proc/<pid>/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError(f"no VmRSS for process {pid}")


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[Stack]:
    env = {
        "lobby": {"LOBBY_DB": ":memory:"},
        "table": {"TABLE_DISCOVERY_S": "0.2", "CALL_DEADLINE_S": "10"},
    }
    running = Stack(env=env, gateway=False).start()
    try:
        yield running
    finally:
        stop_stack(running)


def seat_tables(stack: Stack) -> list[tuple[str, str, str]]:
    """``TABLES`` heads-up tables, two seated players each: (table, player, token)."""
    seats = []
    with stack["lobby"].channel("operator") as channel:
        lobby = lobby_pb2_grpc.LobbyStub(channel)
        operator = lobby_pb2_grpc.LobbyOperatorStub(channel)
        for t in range(TABLES):
            table = operator.CreateTable(
                lpb.CreateTableRequest(
                    name=f"memory {t}", config=DRAW, seats=2, min_buy_in=400, action_clock_ms=30_000
                ),
                timeout=10,
            )
            for seat in (1, 2):
                player = lobby.RegisterPlayer(
                    lpb.RegisterPlayerRequest(name=f"m{t}-{seat}"), timeout=10
                )
                lobby.SitDown(
                    lpb.SitDownRequest(
                        player_id=player.player.player_id,
                        token=player.token,
                        table_id=table.table_id,
                        seat=seat,
                        buy_in=2_000,
                    ),
                    timeout=10,
                )
                seats.append((table.table_id, player.player.player_id, player.token))
    return seats


def fewest_hands(stack: Stack, tables: set[str]) -> int:
    """The fewest hands played at any of ``tables`` (the lobby's count)."""
    with stack["lobby"].channel("operator") as channel:
        listed = lobby_pb2_grpc.LobbyStub(channel).ListTables(lpb.ListTablesRequest(), timeout=10)
    return min(t.hands_played for t in listed.tables if t.table_id in tables)


async def run(stack: Stack) -> tuple[int, int, int, dict[str, float]]:
    """Play until every table has ``LAST`` hands: (RSS at FIRST, RSS at LAST, hands,
    each process's CPU seconds a hand in between)."""
    seats = seat_tables(stack)
    tables = {t for t, _, _ in seats}
    pid = stack["table"].proc.pid
    stop = asyncio.Event()
    channel = stack["table"].player_channel()
    bots = [
        asyncio.create_task(
            play(
                channel,
                table_id,
                player_id,
                token,
                Folder(),
                via="table",
                stop=stop,
                delivery=table_pb2.DELIVERY_ON_TURN,
            )
        )
        for table_id, player_id, token in seats
    ]
    samples: dict[int, int] = {}
    cpu: dict[int, tuple[dict[str, float], int]] = {}
    deadline = time.monotonic() + WAIT_S
    try:
        while len(samples) < 2:
            if time.monotonic() > deadline:
                raise TimeoutError(f"tables not at {LAST} hands in {WAIT_S} s: {samples}")
            for bot in bots:
                if bot.done():
                    bot.result()  # a bot that stopped raises its error here
                    raise AssertionError("a bot left its table")
            hands = await asyncio.to_thread(fewest_hands, stack, tables)
            for mark in (FIRST, LAST):
                if hands >= mark and mark not in samples:
                    samples[mark] = rss_bytes(pid)
                    cpu[mark] = cpu_seconds(stack), hands
            await asyncio.sleep(0.2)
    finally:
        stop.set()
        await asyncio.gather(*bots, return_exceptions=True)
        await channel.close()
    played = (cpu[LAST][1] - cpu[FIRST][1]) * TABLES
    per_hand = {name: (cpu[LAST][0][name] - t) / played for name, t in cpu[FIRST][0].items()}
    return samples[FIRST], samples[LAST], hands, per_hand


def test_table_memory_per_table_is_flat_from_the_first_to_the_tenth_thousand_hand(
    stack: Stack,
) -> None:
    started = time.monotonic()
    first, last, hands, per_hand = asyncio.run(run(stack))
    growth = (last - first) / TABLES
    print(
        f"table RSS {first / 2**20:.1f} MiB at {FIRST} hands a table, "
        f"{last / 2**20:.1f} MiB at {LAST} ({hands}): {growth / 1024:+.0f} KiB a table; "
        f"{sum(per_hand.values()) * 1000:.1f} ms CPU a hand ("
        + ", ".join(f"{name} {t * 1000:.2f}" for name, t in per_hand.items())
        + f"), {time.monotonic() - started:.0f} s"
    )
    assert growth <= MOST_GROWTH_PER_TABLE, (
        f"the table process grew {growth / 1024:.0f} KiB a table between hand {FIRST} and "
        f"hand {LAST} of each table (at most {MOST_GROWTH_PER_TABLE // 1024} KiB)"
    )
