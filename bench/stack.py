"""The full-stack benchmark: bot tables through every service, against the gRPC ceiling.

Why: issue 3's acceptance figures.  Hands per second of many bot tables, the
latency a bot sees from its action to the next player's turn, and what a hand
costs in inter-service RPCs and stream messages (the lever: fewer per hand),
beside the bare grpc.aio ceiling measured in the same run.

Setup, all on this machine, every figure of one run measured in that run:

- ``services.stack.Stack`` starts dealer, betting, showdown, lobby and table as
  their own processes on free ports (the production defaults otherwise: info logs,
  no pause between hands, SQLite in memory);
- through the lobby: ``tables`` Stud Hi-Lo tables of ``seats`` seats (ante 5,
  bring-in 10, limits 20/40, an action clock of ``CLOCK_MS`` so that no clock runs
  out) and one player per seat, buying in for ``BUY_IN`` chips, so deep that nobody
  can bust in a run (the figures show ``busted``);
- the bots: ``RandomBot``s in a separate process (``python -m bench.stack_bots``,
  credentials as JSON on its stdin), over ``channels`` shared grpc.aio channels,
  with ``DELIVERY_ON_TURN``; connected before they are seated;
- ``warmup_s`` of play, then a window of ``seconds``; the services' ``/metrics``
  are read at both ends and the figures are the deltas;
- the stack stopped, ``bench.grpc_ceiling.measure_ceilings`` (its own echo server
  process), so the ceiling does not share the CPUs with the stack.

Keys (``bench.run`` group ``stack``):

- ``stack_studhilo_20x6_hands_per_s``: ``table_hands_finished_total`` delta / s;
- ``stack_turn_latency_p50_ms`` / ``_p99_ms``: measured in the bots' process, for
  each action sent, until the next ``YourTurn`` of that table (or ``HandFinished``
  when the action ended the hand) arrives; ``_samples``: how many;
- ``stack_rpcs_per_hand``: ``table_downstream_calls_total{transport="unary"}``
  delta per hand, every method but ``ListTables`` (the table service's table
  discovery, once a second whatever the load); ``stack_session_messages_per_hand``:
  the calls made over the batched streams (betting ``SessionBatches``, dealer,
  lobby and showdown ``Session``: ``transport="stream"``);
  ``stack_{betting,dealer,lobby,showdown}_stream_messages_per_hand``: the
  messages that carried them (a
  batch of calls is one request message and one response message);
  ``stack_interservice_calls_per_hand``: unary RPCs and stream calls;
  ``stack_{betting,dealer,showdown,lobby}_rpcs_per_hand``: the
  same calls counted by each server (``grpc_server_handled_total``, lobby
  ``ListTables`` excluded), whose sum ``stack_server_rpcs_per_hand`` cross-checks;
- ``stack_stream_messages_per_hand``: ``table_stream_messages_total`` per hand
  (table -> bots; a batch counts once, a PlayMany message too, whatever seats it
  carries); ``stack_player_messages_per_hand``: bots -> table (``Play`` and
  ``PlayMany`` messages received); ``stack_actions_per_hand``: decisions;
- ``stack_rpcs_per_s``, ``stack_stream_messages_per_s`` and the ratios
  ``stack_hands_per_s_vs_unary_ceiling``, ``stack_rpcs_per_s_vs_unary_ceiling``
  (against ``grpc_echo_unary_concurrent_calls_per_s``) and
  ``stack_stream_messages_per_s_vs_stream_ceiling`` (against
  ``grpc_stream_concurrent_messages_per_s``), the ceilings themselves as
  ``stack_ceiling_unary_calls_per_s`` and ``stack_ceiling_stream_messages_per_s``;
- ``stack_timeouts``: ``table_timeouts_total`` at the window's end (expected 0);
- ``stack_cpu_pct_<process>``: CPU of each process in the window (100 = one core);
  ``stack_cpu_ms_per_hand_<process>``: the same per hand (steadier than hands/s
  when something else shares the machine);
  ``stack_loadavg_1m``: the machine's load at the window's end (anything else
  running shares the CPUs: compare it with the number of cores);
  ``stack_host_steal_pct``: the share of the machine's CPU time in the window
  that its hypervisor gave to someone else (``/proc/stat`` steal; on this VM it
  has reached 15 %, and a run with steal is slower through no fault of the stack).

Targets (issue 3): at least 50 hands per second, p99 under 25 ms.

The ``stack_paced`` group (``run_paced``) runs the same room with every bot
thinking ``PACED_THINK_MS`` before it acts (``--think-ms``): ``stack_paced_*``
give its hands per second, its turn latency p50/p99 (the thinking is not in it:
the clock starts when the bot has decided), CPU per hand and steal.  The room
flat out is the capacity figure; the paced one is the latency below saturation.

``python -m bench.stack`` prints the figures (``--tables``, ``--seats``,
``--seconds``...); ``--profile`` also samples the table service (or
``--profile-target``) with py-spy for ``--profile-seconds`` (10) during the window
and prints where its CPU goes (the figures of a profiled run are lower: py-spy
takes CPU too).
Reuse: ``await measure_stack(StackBench(...))`` -> ``StackRun``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import sys
import tempfile
import time
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from prometheus_client.parser import text_string_to_metric_families

from bench import grpc_ceiling
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc
from services.stack import BACKENDS, Stack

ROOT = Path(__file__).resolve().parents[1]
CONFIG = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=5, bring_in=10, small_bet=20, big_bet=40
)
GAME_KEY = "studhilo"
MIN_BUY_IN = 400
BUY_IN = 1_000_000  # a hand costs at most a few hundred chips: nobody busts in a run
CLOCK_MS = 5_000
CALL_TIMEOUT_S = 10.0
CONNECT_TIMEOUT_S = 40.0
BOTS_STOP_TIMEOUT_S = 20.0
PROCESSES = ("table", *BACKENDS, "bots")
SERVER_SKIP = ("grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection")

Samples = list[tuple[str, dict[str, str], float]]


@dataclass(frozen=True)
class StackBench:
    """What to run: ``tables`` x ``seats`` bots, warm-up, window, ceiling, profile."""

    tables: int = 20
    seats: int = 6
    warmup_s: float = 5.0
    seconds: float = 20.0
    ceiling_seconds: float = 2.5
    channels: int = 1
    profile_s: float = 0.0  # > 0: py-spy ``profile_target`` this long in the window
    profile_target: str = "table"  # a service, or "bots"
    log_level: str = "info"
    table_shards: int = 1  # table service processes (TABLE_SHARD), as deployed
    # The bots' connections: "many" (every seat over one PlayMany stream per
    # channel, poker_bots.Multiplexer) or "play" (one Play stream per seat).
    transport: str = "many"
    # Each bot's thinking time before it acts (0: at once, the room flat out).  The
    # latency clock starts when the bot has decided, so thinking is not in it; it
    # only paces the room (a latency figure at a chosen load, not at saturation).
    think_ms: float = 0.0


@dataclass
class StackRun:
    """The figures (``bench.run`` keys), the rest of what was seen, the exit codes."""

    figures: dict[str, float]
    details: dict[str, Any]
    exit_codes: dict[str, int]
    profile: str = ""

    @property
    def clean(self) -> bool:
        return bool(self.exit_codes) and all(code == 0 for code in self.exit_codes.values())


def hands_key(tables: int, seats: int) -> str:
    return f"stack_{GAME_KEY}_{tables}x{seats}_hands_per_s"


# --------------------------------------------------------------------------- metrics


def scrape(port: int) -> Samples:
    """Every sample of a service's /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as reply:
        text = reply.read().decode()
    return [
        (s.name, dict(s.labels), s.value)
        for family in text_string_to_metric_families(text)
        for s in family.samples
    ]


def total(samples: Samples, name: str, **match: str) -> float:
    """Sum of ``name``'s samples whose labels include ``match``."""
    return sum(
        value
        for sample, labels, value in samples
        if sample == name and all(labels.get(k) == v for k, v in match.items())
    )


def _cpu_seconds(pid: int) -> float:
    """utime + stime of a process (Linux /proc; 0 elsewhere)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class Snapshot:
    at: float
    samples: dict[str, Samples]
    cpu: dict[str, float]
    load: float  # the machine's 1-minute load average
    host: tuple[int, int]  # (steal, all) CPU ticks of the machine so far


def _host_ticks() -> tuple[int, int]:
    """The machine's stolen and total CPU ticks (``/proc/stat``; zeros elsewhere)."""
    try:
        fields = Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]
    except OSError:
        return (0, 0)
    ticks = [int(v) for v in fields[:8]]  # user .. steal (guest time is in user)
    return (ticks[7] if len(ticks) > 7 else 0, sum(ticks))


def _load() -> float:
    with contextlib.suppress(OSError, AttributeError):
        return os.getloadavg()[0]
    return 0.0


def snapshot(stack: Stack, pids: Mapping[str, Sequence[int]]) -> Snapshot:
    """Every service's metrics and CPU now; the table's shards are summed as one
    service ("table")."""
    at = time.perf_counter()
    cpu = {name: sum(_cpu_seconds(pid) for pid in group) for name, group in pids.items()}
    samples = {name: scrape(stack[name].metrics_port) for name in BACKENDS}
    samples["table"] = [s for name in stack.table_names for s in scrape(stack[name].metrics_port)]
    return Snapshot(at, samples, cpu, _load(), _host_ticks())


def _server_rpcs(samples: Samples) -> float:
    return sum(
        value
        for name, labels, value in samples
        if name == "grpc_server_handled_total"
        and labels.get("grpc_service") not in SERVER_SKIP
        and labels.get("grpc_method") != "ListTables"
    )


def _downstream_rpcs(samples: Samples, transport: str = "unary") -> float:
    """The table's calls to other services: unary RPCs, or betting Session stream
    messages (``transport="stream"``)."""
    return sum(
        value
        for name, labels, value in samples
        if name == "table_downstream_calls_total"
        and labels.get("method") != "ListTables"
        and labels.get("transport", "unary") == transport
    )


def _steal_pct(before: tuple[int, int], after: tuple[int, int]) -> float:
    """Stolen CPU time as a share of all the machine's CPU time between two reads."""
    ticks = after[1] - before[1]
    return round(100 * (after[0] - before[0]) / ticks, 1) if ticks > 0 else 0.0


def figures_of(
    bench: StackBench,
    before: Snapshot,
    after: Snapshot,
    bots: Mapping[str, Any],
    ceilings: Mapping[str, float],
) -> dict[str, float]:
    """The keys, from the two snapshots, the bots' results and the ceilings."""
    span = after.at - before.at
    t0, t1 = before.samples["table"], after.samples["table"]

    def delta(name: str, **match: str) -> float:
        return total(t1, name, **match) - total(t0, name, **match)

    hands = delta("table_hands_finished_total")
    per_hand = 1 / hands if hands else 0.0
    hands_per_s = hands / span
    rpcs_per_hand = (_downstream_rpcs(t1) - _downstream_rpcs(t0)) * per_hand
    session_per_hand = (_downstream_rpcs(t1, "stream") - _downstream_rpcs(t0, "stream")) * per_hand
    messages_per_hand = delta("table_stream_messages_total") * per_hand

    def received(service: str, method: str) -> float:
        """Messages ``service`` received on ``method`` in the window."""
        name = "grpc_server_msg_received_total"
        return total(after.samples[service], name, grpc_method=method) - total(
            before.samples[service], name, grpc_method=method
        )

    batches = received("betting", "SessionBatches")
    dealer_batches = received("dealer", "Session")
    lobby_batches = received("lobby", "Session")
    showdown_batches = received("showdown", "Session")
    unary = ceilings[grpc_ceiling.UNARY_CONCURRENT]
    stream = ceilings[grpc_ceiling.STREAM_CONCURRENT]
    out: dict[str, float] = {
        hands_key(bench.tables, bench.seats): round(hands_per_s, 1),
        "stack_window_s": round(span, 2),
        "stack_hands": hands,
        "stack_turn_latency_p50_ms": round(bots["latency_p50_ms"], 2),
        "stack_turn_latency_p99_ms": round(bots["latency_p99_ms"], 2),
        "stack_turn_latency_samples": bots["latency_samples"],
        "stack_rpcs_per_hand": round(rpcs_per_hand, 2),
        "stack_session_messages_per_hand": round(session_per_hand, 2),
        # The betting stream's messages: calls travel in batches (SessionBatches).
        "stack_betting_stream_messages_per_hand": round(batches * per_hand, 2),
        "stack_dealer_stream_messages_per_hand": round(dealer_batches * per_hand, 2),
        "stack_lobby_stream_messages_per_hand": round(lobby_batches * per_hand, 2),
        "stack_showdown_stream_messages_per_hand": round(showdown_batches * per_hand, 2),
        "stack_interservice_calls_per_hand": round(rpcs_per_hand + session_per_hand, 2),
        "stack_stream_messages_per_hand": round(messages_per_hand, 2),
        "stack_player_messages_per_hand": round(
            (
                delta("grpc_server_msg_received_total", grpc_method="Play")
                + delta("grpc_server_msg_received_total", grpc_method="PlayMany")
            )
            * per_hand,
            2,
        ),
        "stack_actions_per_hand": round(delta("table_actions_total") * per_hand, 2),
        "stack_rpcs_per_s": round(hands_per_s * rpcs_per_hand, 1),
        "stack_stream_messages_per_s": round(hands_per_s * messages_per_hand, 1),
        "stack_ceiling_unary_calls_per_s": unary,
        "stack_ceiling_stream_messages_per_s": stream,
        "stack_hands_per_s_vs_unary_ceiling": round(hands_per_s / unary, 5),
        "stack_rpcs_per_s_vs_unary_ceiling": round(hands_per_s * rpcs_per_hand / unary, 4),
        "stack_stream_messages_per_s_vs_stream_ceiling": round(
            hands_per_s * messages_per_hand / stream, 5
        ),
        "stack_timeouts": total(t1, "table_timeouts_total"),
        "stack_loadavg_1m": round(after.load, 2),
        "stack_host_steal_pct": _steal_pct(before.host, after.host),
    }
    server_total = 0.0
    for name in BACKENDS:
        calls = _server_rpcs(after.samples[name]) - _server_rpcs(before.samples[name])
        server_total += calls
        out[f"stack_{name}_rpcs_per_hand"] = round(calls * per_hand, 2)
    out["stack_server_rpcs_per_hand"] = round(server_total * per_hand, 2)
    for name in PROCESSES:
        if name in after.cpu:
            used = after.cpu[name] - before.cpu[name]
            out[f"stack_cpu_pct_{name}"] = round(100 * used / span, 1)
            out[f"stack_cpu_ms_per_hand_{name}"] = round(1000 * used * per_hand, 2)
    return out


def details_of(before: Snapshot, after: Snapshot, bots: Mapping[str, Any]) -> dict[str, Any]:
    """What the figures do not keep: calls by method, outcomes, the bots' counts."""
    t0, t1 = before.samples["table"], after.samples["table"]

    def by(name: str, label: str) -> dict[str, float]:
        counts: defaultdict[str, float] = defaultdict(float)
        for samples, sign in ((t1, 1), (t0, -1)):
            for sample, labels, value in samples:
                if sample == name:
                    counts[labels.get(label, "")] += sign * value
        return {k: v for k, v in sorted(counts.items()) if v}

    calls: defaultdict[str, float] = defaultdict(float)
    for samples, sign in ((t1, 1), (t0, -1)):
        for sample, labels, value in samples:
            if sample == "table_downstream_calls_total":
                calls[f"{labels['service']}.{labels['method']}"] += sign * value
    return {
        "downstream_calls": {k: v for k, v in sorted(calls.items()) if v},
        "downstream_failures": total(t1, "table_downstream_failures_total"),
        "hands_by_outcome": by("table_hands_finished_total", "outcome"),
        "stream_messages_by_kind": by("table_stream_messages_total", "kind"),
        "actions_rejected": total(t1, "table_actions_rejected_total"),
        "tables_running": total(t1, "table_tables_running"),
        "bots": dict(bots),
    }


# --------------------------------------------------------------------------- setup


async def create_room(
    lobby: lobby_pb2_grpc.LobbyAsyncStub, tables: int, seats: int
) -> list[list[dict[str, Any]]]:
    """``tables`` tables and a player per seat; each table's bots' credentials."""
    made = await asyncio.gather(
        *(
            lobby.CreateTable(
                lpb.CreateTableRequest(
                    name=f"bench {t + 1}",
                    config=CONFIG,
                    seats=seats,
                    min_buy_in=MIN_BUY_IN,
                    action_clock_ms=CLOCK_MS,
                ),
                timeout=CALL_TIMEOUT_S,
            )
            for t in range(tables)
        )
    )
    registered = await asyncio.gather(
        *(
            lobby.RegisterPlayer(
                lpb.RegisterPlayerRequest(name=f"bot {t + 1}.{s + 1}", initial_balance=BUY_IN),
                timeout=CALL_TIMEOUT_S,
            )
            for t in range(tables)
            for s in range(seats)
        )
    )
    room = []
    for t, table in enumerate(made):
        room.append(
            [
                {
                    "table_id": table.table_id,
                    "player_id": reply.player.player_id,
                    "token": reply.token,
                    "seat": s + 1,
                    "seed": t * seats + s + 1,
                }
                for s, reply in enumerate(registered[t * seats : (t + 1) * seats])
            ]
        )
    return room


async def seat_everyone(
    lobby: lobby_pb2_grpc.LobbyAsyncStub, bots: Iterable[dict[str, Any]]
) -> None:
    await asyncio.gather(
        *(
            lobby.SitDown(
                lpb.SitDownRequest(
                    player_id=b["player_id"],
                    token=b["token"],
                    table_id=b["table_id"],
                    seat=b["seat"],
                    buy_in=BUY_IN,
                ),
                timeout=CALL_TIMEOUT_S,
            )
            for b in bots
        )
    )


class BotsProcess:
    """``python -m bench.stack_bots``: spec in, ``connected``, ``measure``, ``stop``, results."""

    def __init__(self) -> None:
        self.proc: asyncio.subprocess.Process | None = None
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self, spec: Mapping[str, Any]) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.stack_bots",
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        await self.send(json.dumps(spec))

    async def send(self, line: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def read(self, event: str, timeout: float) -> dict[str, Any]:
        """The next stdout record of this ``event`` (raises if the process ends first)."""
        assert self.proc is not None and self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            line = await asyncio.wait_for(self.proc.stdout.readline(), max(remaining, 0.01))
            if not line:
                code = await self.proc.wait()
                raise RuntimeError(f"the bots' process ended (code {code}) before {event!r}")
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and record.get("event") == event:
                    return record

    async def finish(self) -> dict[str, Any]:
        """``stop``, then the results; the exit code is kept in ``returncode``."""
        assert self.proc is not None
        await self.send("stop")
        results = await self.read("results", BOTS_STOP_TIMEOUT_S)
        self.returncode = await asyncio.wait_for(self.proc.wait(), BOTS_STOP_TIMEOUT_S)
        return results

    async def kill(self) -> None:
        proc = self.proc
        if proc is not None and proc.returncode is None:
            proc.kill()
            self.returncode = await proc.wait()


# --------------------------------------------------------------------------- profile


class Profiler:
    """py-spy on one process for ``seconds`` (``record --format raw``, 100 Hz,
    without pausing the process)."""

    def __init__(self, pid: int, seconds: float) -> None:
        self.pid = pid
        self.seconds = seconds
        self.dir = tempfile.TemporaryDirectory(prefix="stack-profile-")
        self.output = Path(self.dir.name) / "table.txt"
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which(
            "py-spy"
        )
        if spy is None:
            raise RuntimeError("py-spy is not installed (pip install py-spy)")
        self.proc = await asyncio.create_subprocess_exec(
            spy,
            "record",
            "--pid",
            str(self.pid),
            "--duration",
            str(max(1, round(self.seconds))),
            "--rate",
            "100",
            "--nonblocking",
            "--full-filenames",
            "--format",
            "raw",
            "--output",
            str(self.output),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )

    async def report(self, top: int = 25) -> str:
        assert self.proc is not None
        _, err = await self.proc.communicate()
        try:
            if self.proc.returncode != 0 or not self.output.exists():
                return f"py-spy failed (code {self.proc.returncode}): {err.decode().strip()}"
            return summarize_profile(self.output.read_text(), top)
        finally:
            self.dir.cleanup()


_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")


def _short(path: str) -> str:
    for marker in ("site-packages/", "/lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1].removeprefix(".11/").removeprefix(".12/")
    return path.removeprefix(str(ROOT) + "/")


def _ours(path: str) -> bool:
    """A frame of this repository's code (services, libs), not of a dependency."""
    if path.startswith("<") or "site-packages/" in path or "/lib/python3" in path:
        return False
    return not path.startswith("/") or path.startswith(str(ROOT))


def summarize_profile(raw: str, top: int = 25) -> str:
    """Top frames of py-spy's collapsed stacks: own samples by function and by file,
    and inclusive samples of the repository's own functions."""
    own: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    files: Counter[str] = Counter()
    samples = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = []
        for frame in stack.split(";"):
            m = _FRAME.match(frame)
            if m is None or not m.group("line"):
                continue  # process/thread markers
            frames.append((f"{m.group('func')} ({_short(m.group('file'))})", m.group("file")))
        if not frames:
            continue
        samples += count
        own[frames[-1][0]] += count
        files[_short(frames[-1][1])] += count
        for name in {name for name, path in frames if _ours(path)}:
            inclusive[name] += count
    if not samples:
        return "py-spy recorded no samples"

    def table(title: str, counts: Counter[str], n: int) -> list[str]:
        lines = [title]
        for name, count in counts.most_common(n):
            lines.append(f"  {100 * count / samples:5.1f}%  {name}")
        return lines

    out = [
        f"{samples} samples (busy threads only; time in grpc's Cython code is counted"
        " in the Python frame that called it)"
    ]
    out += table("own time, by function:", own, top)
    out += table("own time, by file:", files, top)
    out += table("inclusive time, the repository's functions:", inclusive, top)
    return "\n".join(out)


# --------------------------------------------------------------------------- the run


async def measure_stack(bench: StackBench = StackBench()) -> StackRun:
    """Start the stack and the bots, measure, stop everything, then the ceilings."""
    stack = Stack(
        ports="free", common_env={"LOG_LEVEL": bench.log_level}, table_shards=bench.table_shards
    )
    bots = BotsProcess()
    exit_codes: dict[str, int] = {}
    profile = ""
    await asyncio.to_thread(stack.start)
    try:
        async with grpc.aio.insecure_channel(stack.target("lobby")) as channel:
            lobby = lobby_pb2_grpc.LobbyStub(channel)
            room = await create_room(lobby, bench.tables, bench.seats)
            everyone = [b for table in room for b in table]
            for b in everyone:  # the shard that runs the bot's table
                b["target"] = stack.table_target(b["table_id"])
            await bots.start(
                {
                    "target": stack.target("table"),
                    "channels": bench.channels,
                    "transport": bench.transport,
                    "think_ms": bench.think_ms,
                    "bots": everyone,
                }
            )
            await bots.read("connected", CONNECT_TIMEOUT_S)
            await seat_everyone(lobby, everyone)
        await asyncio.sleep(bench.warmup_s)

        pids = {name: [stack[name].proc.pid] for name in BACKENDS}
        pids["table"] = [stack[name].proc.pid for name in stack.table_names]
        pids["bots"] = [bots.pid]
        window = max(bench.seconds, bench.profile_s + 1 if bench.profile_s else 0)
        before = snapshot(stack, pids)
        await bots.send("measure")
        profiler = (
            Profiler(pids[bench.profile_target][0], bench.profile_s) if bench.profile_s else None
        )
        if profiler is not None:
            await profiler.start()
        await asyncio.sleep(window)
        after = snapshot(stack, pids)
        results = await bots.finish()
        if profiler is not None:
            profile = await profiler.report()
    finally:
        await bots.kill()
        exit_codes.update(await asyncio.to_thread(stack.stop))
        if bots.returncode is not None:
            exit_codes["bots"] = bots.returncode
    ceilings = await grpc_ceiling.measure_ceilings(bench.ceiling_seconds)
    exit_codes["echo"] = 0  # measure_ceilings raises when its server does not exit cleanly
    figures = figures_of(bench, before, after, results, ceilings)
    details = details_of(before, after, results)
    details["ceilings"] = ceilings
    return StackRun(figures, details, exit_codes, profile)


def run() -> dict[str, float]:
    """The ``stack`` group of ``bench.run``: the default configuration, 20 x 6."""
    result = asyncio.run(measure_stack())
    if not result.clean:
        raise RuntimeError(f"a process did not exit cleanly: {result.exit_codes}")
    return result.figures


PACED_THINK_MS = 8.0  # about 55-60 hands/s here, against about 70 flat out


def paced_figures(bench: StackBench, figures: Mapping[str, float]) -> dict[str, float]:
    """A paced run's keys: ``stack_paced_*``, the room's speed and the latency at it."""
    cpu = sum(v for k, v in figures.items() if k.startswith("stack_cpu_ms_per_hand_"))
    return {
        "stack_paced_think_ms": bench.think_ms,
        "stack_paced_hands_per_s": figures[hands_key(bench.tables, bench.seats)],
        "stack_paced_turn_latency_p50_ms": figures["stack_turn_latency_p50_ms"],
        "stack_paced_turn_latency_p99_ms": figures["stack_turn_latency_p99_ms"],
        "stack_paced_turn_latency_samples": figures["stack_turn_latency_samples"],
        "stack_paced_cpu_ms_per_hand": round(cpu, 2),
        "stack_paced_host_steal_pct": figures["stack_host_steal_pct"],
    }


def run_paced() -> dict[str, float]:
    """The ``stack_paced`` group of ``bench.run``: the same room with every bot
    thinking ``PACED_THINK_MS`` before it acts.  Why: the ``stack`` group runs the
    room flat out, where the latency is all queueing for the two cores; this is the
    latency at a load below that (a point of the latency-throughput curve, for
    capacity planning).  The thinking is not in the latency (the clock starts when
    the bot has decided)."""
    bench = StackBench(think_ms=PACED_THINK_MS, ceiling_seconds=0.5)
    result = asyncio.run(measure_stack(bench))
    if not result.clean:
        raise RuntimeError(f"a process did not exit cleanly: {result.exit_codes}")
    return paced_figures(bench, result.figures)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.stack", description=__doc__)
    default = StackBench()
    parser.add_argument("--tables", type=int, default=default.tables)
    parser.add_argument("--seats", type=int, default=default.seats)
    parser.add_argument("--warmup", type=float, default=default.warmup_s, help="seconds")
    parser.add_argument("--seconds", type=float, default=default.seconds, help="the window")
    parser.add_argument(
        "--ceiling-seconds", type=float, default=default.ceiling_seconds, help="per figure"
    )
    parser.add_argument("--channels", type=int, default=default.channels, help="bots' channels")
    parser.add_argument("--log-level", default=default.log_level, help="the services' LOG_LEVEL")
    parser.add_argument(
        "--profile", action="store_true", help="py-spy the table service during the window"
    )
    parser.add_argument("--profile-seconds", type=float, default=10.0)
    parser.add_argument(
        "--profile-target",
        default="table",
        choices=PROCESSES,
        help="the process --profile samples (default: table)",
    )
    parser.add_argument(
        "--table-shards",
        type=int,
        default=default.table_shards,
        help="table service processes (TABLE_SHARD i/n)",
    )
    parser.add_argument(
        "--transport",
        choices=("many", "play"),
        default=default.transport,
        help="the bots' connections: one PlayMany stream per channel, or Play per seat",
    )
    parser.add_argument(
        "--think-ms",
        type=float,
        default=default.think_ms,
        help="each bot's thinking time before it acts (paces the room; not in the latency)",
    )
    parser.add_argument("--details", action="store_true", help="also print the details")
    args = parser.parse_args(argv)
    bench = StackBench(
        tables=args.tables,
        seats=args.seats,
        warmup_s=args.warmup,
        seconds=args.seconds,
        ceiling_seconds=args.ceiling_seconds,
        channels=args.channels,
        profile_s=args.profile_seconds if args.profile else 0.0,
        profile_target=args.profile_target,
        log_level=args.log_level,
        table_shards=args.table_shards,
        transport=args.transport,
        think_ms=args.think_ms,
    )
    result = asyncio.run(measure_stack(bench))
    print(json.dumps(result.figures, indent=2, sort_keys=True))
    if args.details:
        print(json.dumps(result.details, indent=2, sort_keys=True))
    print(f"exit codes: {result.exit_codes}")
    if result.profile:
        print(result.profile)
    return 0 if result.clean else 1


__all__ = [
    "BotsProcess",
    "Profiler",
    "StackBench",
    "StackRun",
    "hands_key",
    "measure_stack",
    "run",
    "summarize_profile",
]

if __name__ == "__main__":
    raise SystemExit(main())
