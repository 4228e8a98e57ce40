"""The join burst: every seat of a big room joining the table service at once, and
again after the table service restarts (issue 19, acceptance point 5).

Why: a table-service restart (a deployment, a crash) sends every seated player's
client back at the same moment; each Join costs the lobby a token check
(``Authenticate``) and a look at the seats (``GetTable``), and a Join that fails
leaves a seat to the action clock.  Bursts must queue, not fail.

Setup, all on this machine:

- the room written to the lobby's store (a SQLite file) before the lobby starts,
  by the lobby's own code (``build_room``): ``tables`` Stud Hi-Lo tables of
  ``seats`` seats and one player per seat, each seated; a long action clock, so
  no seat is sat out while its bot is not there yet;
- ``devroom.stack.Stack`` (no gateway): dealer, betting, showdown, the lobby on
  that store and one table-service process, restarted (``restart``) on the same
  ports, where the bots' channels point;
- the bots (``python -m bench.join_burst_bots``, their own process): every
  seat's ``poker_bots.play`` started at once over ``streams`` PlayMany streams
  at the table's public port (TLS), each bot thinking ``think_s`` +/- half before
  it acts;
- then, with ``restart``, the table service is stopped (SIGTERM) and started
  again on the same ports, and the bots reconnect as the SDK does.

Figures (``python -m bench.join_burst`` prints them):

- ``join_burst_seats``, ``join_burst_joined``, ``join_burst_refused``: seats, those
  with a Snapshot, those whose ``play`` failed; ``join_burst_seconds``: from the
  start to the last Snapshot;
- ``join_burst_cpu_pct_lobby`` / ``_table``: each process's CPU over the burst
  (100 = one core);
- ``join_burst_lobby_authenticate_not_ok``: the lobby's Authenticate calls that
  did not end OK (``grpc_server_handled_total``, plus the batched calls);
- the same after the restart as ``rejoin_*``;
- ``lobby_list_tables_cpu_ms_full``: the lobby's CPU per ``ListTables`` of the
  whole room, which the table service's discovery asks once a second
  (``measure_list_tables``), and ``lobby_list_tables_bytes_full`` its size.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.stack_room import BotsProcess
from devroom.launcher import ServiceProcess
from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc

CONFIG = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=5, bring_in=10, small_bet=20, big_bet=40
)
BUY_IN = 10_000
CLOCK_MS = 60_000  # no seat is sat out by the clock while its bot is not there yet
CALL_TIMEOUT_S = 60.0
STOP_TIMEOUT_S = 150.0


@dataclass(frozen=True)
class Burst:
    """What to run."""

    tables: int = 1_000
    seats: int = 6
    streams: int = 6  # PlayMany streams (one channel each); 1,000 seats a stream at most
    think_s: float = 1.0
    restart: bool = True
    timeout_s: float = 120.0
    list_tables_calls: int = 20  # ListTables calls measured, of each kind
    env: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


@dataclass
class BurstRun:
    figures: dict[str, float]
    details: dict[str, Any]


def _cpu_seconds(pid: int) -> float:
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class CpuWindow:
    """The CPU of some processes over a window of wall time."""

    def __init__(self, pids: Mapping[str, int]) -> None:
        self.pids = dict(pids)
        self.at = time.monotonic()
        self.cpu = {name: _cpu_seconds(pid) for name, pid in self.pids.items()}

    def pct(self) -> dict[str, float]:
        span = max(time.monotonic() - self.at, 1e-6)
        return {
            name: round(100 * (_cpu_seconds(pid) - self.cpu[name]) / span, 1)
            for name, pid in self.pids.items()
        }


def build_room(db: Path, tables: int, seats: int) -> list[dict[str, Any]]:
    """``tables`` tables, a player per seat, everyone seated, written to the lobby's
    store ``db`` before the lobby starts: the lobby's own code (``RingBook``,
    ``sit_down``) in this process, as the lobby would have run it for CreateTable,
    RegisterPlayer and SitDown calls, in a fraction of the time 13,000 calls take
    (the burst is the measure, not the room's making).  The bots' credentials.

    The lobby's info lines (one per table and per seat) are off meanwhile, and only
    meanwhile: the bench's test runs this in a pytest worker."""
    from service_kit.logs import quieted

    with quieted("warning"):
        return _seat_everyone(db, tables, seats)


def _seat_everyone(db: Path, tables: int, seats: int) -> list[dict[str, Any]]:
    from services.lobby.auth import new_token, token_hash
    from services.lobby.ring import RingBook
    from services.lobby.ring.seats import sit_down
    from services.lobby.store import LobbyStore

    store = LobbyStore(str(db))
    store.group_commits()  # one transaction for the whole room: no fsync per seat
    book = RingBook(store, 3)
    bots: list[dict[str, Any]] = []
    for t in range(tables):
        request = lpb.CreateTableRequest(
            name=f"burst {t + 1}",
            config=CONFIG,
            seats=seats,
            min_buy_in=100,
            action_clock_ms=CLOCK_MS,
        )
        table_id = book.create(request, request.name).row.table_id
        for seat in range(1, seats + 1):
            player_id, token = f"p-{uuid.uuid4().hex}", new_token()
            with store.transaction():
                store.add_player(player_id, f"bot {t + 1}.{seat}", token_hash(token), BUY_IN)
            player = store.player(player_id)
            assert player is not None
            sit_down(book, player, lpb.SitDownRequest(table_id=table_id, seat=seat, buy_in=BUY_IN))
            bots.append(
                {"table_id": table_id, "player_id": player_id, "token": token, "seed": len(bots)}
            )
    store.commit_group()
    store.close()
    return bots


def authenticate_not_ok(process: ServiceProcess) -> float:
    """The lobby's Authenticate calls so far that did not end OK (unary and batched)."""
    from bench.stack_figures import scrape

    samples = scrape(process.metrics_port)
    unary = sum(
        value
        for name, labels, value in samples
        if name == "grpc_server_handled_total"
        and labels.get("grpc_method") == "Authenticate"
        and labels.get("grpc_code") != "OK"
    )
    batched = sum(
        value
        for name, labels, value in samples
        if name == "lobby_batched_calls_total"
        and labels.get("method") == "Authenticate"
        and labels.get("code") != "OK"
    )
    return unary + batched


async def measure_list_tables(stack: Stack, calls: int) -> dict[str, float]:
    """The lobby's CPU (``/proc``) per ListTables of the whole room, what the
    table service's discovery asks each second, as the table service (mutual
    TLS, identity ``table``): ``calls`` of them, one after the other, once the
    bots have stopped."""
    pid = stack["lobby"].proc.pid
    figures: dict[str, float] = {}
    async with stack["lobby"].aio_channel("table") as channel:
        lobby = lobby_pb2_grpc.LobbyStub(channel)
        first = await lobby.ListTables(lpb.ListTablesRequest(), timeout=CALL_TIMEOUT_S)
        figures["lobby_list_tables_bytes_full"] = first.ByteSize()
        before = _cpu_seconds(pid)
        for _ in range(calls):
            await lobby.ListTables(lpb.ListTablesRequest(), timeout=CALL_TIMEOUT_S)
        figures["lobby_list_tables_cpu_ms_full"] = round(
            1000 * (_cpu_seconds(pid) - before) / calls, 2
        )
    return figures


async def measure(burst: Burst = Burst()) -> BurstRun:
    """Start the room, make it, the burst, the restart; stop everything."""
    common_env = {"LOG_LEVEL": "info"}  # the serving line is at info
    env = {name: dict(values) for name, values in burst.env.items()}
    figures: dict[str, float] = {}
    details: dict[str, Any] = {}
    directory = Path(tempfile.mkdtemp(prefix="join-burst-"))
    started = time.monotonic()
    db = directory / "lobby.sqlite3"
    room = await asyncio.to_thread(build_room, db, burst.tables, burst.seats)
    details["setup_s"] = round(time.monotonic() - started, 1)
    env.setdefault("lobby", {})["LOBBY_DB"] = str(db)
    stack = Stack(ports="free", common_env=common_env, env=env, gateway=False)
    bots = BotsProcess("bench.join_burst_bots")
    await asyncio.to_thread(stack.start)
    try:
        table = stack["table"]
        pids = {"lobby": stack["lobby"].proc.pid, "table": table.proc.pid}
        refused_before = authenticate_not_ok(stack["lobby"])
        cpu = CpuWindow(pids)
        await bots.start(
            {
                "target": table.public_target,
                "ca_file": None if stack.pki is None else str(stack.pki.ca_file),
                "streams": burst.streams,
                "think_s": burst.think_s,
                "jitter": 0.5,
                "timeout_s": burst.timeout_s,
                "bots": room,
            }
        )
        joined = await bots.read("joined", burst.timeout_s + 30)
        figures.update(_burst_figures("join_burst", joined, cpu.pct()))
        figures["join_burst_lobby_authenticate_not_ok"] = (
            authenticate_not_ok(stack["lobby"]) - refused_before
        )
        if burst.restart:
            await bots.send("rejoin")
            refused_before = authenticate_not_ok(stack["lobby"])
            restarted = await asyncio.to_thread(_restart_table, stack)
            cpu = CpuWindow({"lobby": stack["lobby"].proc.pid, "table": restarted.proc.pid})
            rejoined = await bots.read("rejoined", burst.timeout_s + 30)
            figures.update(_burst_figures("rejoin", rejoined, cpu.pct()))
            figures["rejoin_lobby_authenticate_not_ok"] = (
                authenticate_not_ok(stack["lobby"]) - refused_before
            )
            details["rejoined"] = rejoined
            details["restart"] = dict(restart_times)
        details["joined"] = joined
        await bots.send("stop")  # 6,000 bots take a while to stop on a busy machine
        details["bots"] = await bots.read("results", STOP_TIMEOUT_S)
        if burst.list_tables_calls:
            figures.update(await measure_list_tables(stack, burst.list_tables_calls))
    finally:
        await bots.kill()
        details["problems"] = {
            name: [line for line in process.lines if '"level": "' in line and _bad(line)][-10:]
            for name, process in stack.processes.items()
        }
        stack.processes.pop("table.old", None)  # stopped already, by the restart
        details["exit_codes"] = await asyncio.to_thread(stack.stop)
        shutil.rmtree(directory, ignore_errors=True)
    return BurstRun(figures, details)


def _bad(line: str) -> bool:
    return '"level": "warning"' in line or '"level": "error"' in line


def _burst_figures(
    prefix: str, record: Mapping[str, Any], cpu: Mapping[str, float]
) -> dict[str, float]:
    failed = record.get("failed", {})
    return {
        f"{prefix}_seats": record["seats"],
        f"{prefix}_joined": record["joined"],
        f"{prefix}_refused": sum(failed.values()),
        f"{prefix}_seconds": record["seconds"],
        f"{prefix}_cpu_pct_lobby": cpu["lobby"],
        f"{prefix}_cpu_pct_table": cpu["table"],
    }


def _restart_table(stack: Stack) -> ServiceProcess:
    """SIGTERM the table service and start it again on the same ports."""
    old = stack["table"]
    env = dict(stack._env("table"))
    for name in ("dealer", "betting", "showdown", "lobby"):
        env.setdefault(f"TABLE_{name.upper()}_ADDR", stack[name].target)
    env.update(PORT=str(old.port), PUBLIC_PORT=str(old.public_port), METRICS_PORT="0")
    started = time.monotonic()
    old.terminate()
    stopped = time.monotonic()
    stack.processes["table.old"] = old
    new = ServiceProcess("table", env, pki=stack.pki)
    stack.processes["table"] = new
    new.wait_serving()
    restart_times.update(
        stop_s=round(stopped - started, 2), start_s=round(time.monotonic() - stopped, 2)
    )
    return new


restart_times: dict[str, float] = {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.join_burst", description=__doc__)
    default = Burst()
    parser.add_argument("--tables", type=int, default=default.tables)
    parser.add_argument("--seats", type=int, default=default.seats)
    parser.add_argument("--streams", type=int, default=default.streams)
    parser.add_argument("--think-s", type=float, default=default.think_s)
    parser.add_argument("--no-restart", action="store_true")
    parser.add_argument("--details", action="store_true")
    args = parser.parse_args(argv)
    burst = Burst(
        tables=args.tables,
        seats=args.seats,
        streams=args.streams,
        think_s=args.think_s,
        restart=not args.no_restart,
    )
    result = asyncio.run(measure(burst))
    print(json.dumps(result.figures, indent=2, sort_keys=True))
    if args.details:
        print(json.dumps(result.details, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
