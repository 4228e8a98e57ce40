"""The full-stack benchmark: bot tables through every service, against the gRPC ceiling.

Why: whether the room is fast enough, in figures that survive a noisy machine.
Hands per second of many bot tables, the latency a bot sees from its action to
the next player's turn, and what a hand costs in inter-service RPCs and stream
messages (fewer per hand is what makes it faster), beside the bare grpc.aio
ceiling measured in the same run.

Setup, all on this machine, every figure of one run measured in that run:

- ``devroom.stack.Stack`` starts dealer, betting, showdown, lobby and table as
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
  discovery, once a second whatever the load); ``stack_batched_calls_per_hand``:
  the calls made over the services' ``Batch`` streams (``transport="batched"``);
  ``stack_{betting,dealer,lobby,showdown}_stream_messages_per_hand``: the
  messages that carried them (a
  batch of calls is one request message and one response message);
  ``stack_interservice_calls_per_hand``: unary RPCs and batched calls;
  ``stack_{betting,dealer,showdown,lobby}_rpcs_per_hand``: the
  same calls counted by each server (``grpc_server_handled_total``, lobby
  ``ListTables`` excluded), whose sum ``stack_server_rpcs_per_hand`` cross-checks;
- ``stack_stream_messages_per_hand``: ``table_stream_messages_total`` per hand
  (table -> bots; a batch counts once, a PlayMany message too, whatever seats it
  carries); ``stack_player_messages_per_hand``: bots -> table (``Play`` and
  ``PlayMany`` messages received); ``stack_actions_per_hand``: decisions;
  ``stack_bot_events_per_hand`` / ``stack_bot_bytes_per_hand``: the events (those
  in a batch each count) and the PlayMany bytes the bots received, all seats;
  ``stack_rss_mb_<process>``: each process's resident memory at the window's end;
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

Targets: at least 50 hands per second, p99 under 25 ms.

The ``stack_paced`` group (``run_paced``) runs the same room with every bot
thinking ``PACED_THINK_MS`` before it acts (``--think-ms``; ``--think-jitter``
spreads each thought uniformly by that share of it, as ``bench.scale`` does):
``stack_paced_*``
give its hands per second, its turn latency p50/p99 (the thinking is not in it:
the clock starts when the bot has decided), CPU per hand and steal.  The room
flat out is the capacity figure; the paced one is the latency below saturation.

``python -m bench.stack`` prints the figures (``--tables``, ``--seats``,
``--seconds``...); ``--profile`` also samples the table service (or
``--profile-target``) with py-spy for ``--profile-seconds`` (10) during the window
and prints where its CPU goes (the figures of a profiled run are lower: py-spy
takes CPU too).
Reuse: ``await measure_stack(StackBench(...))`` -> ``StackRun``.

Layout: this module is the run (start, measure, stop) and the ``bench.run``
groups; ``bench.stack_room`` makes the room and drives the bots' process,
``bench.stack_figures`` turns the two snapshots into the keys and
``bench.stack_profile`` runs py-spy.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bench import grpc_ceiling
from bench.alternate import alternate, mean, means, spread
from bench.stack_figures import (
    PROCESSES,
    details_of,
    door_figures,
    figures_of,
    hands_key,
    snapshot,
)
from bench.stack_profile import Profiler, summarize_profile
from bench.stack_room import (
    CONNECT_TIMEOUT_S,
    BotsProcess,
    create_room,
    seat_everyone,
    spectators_spec,
)
from devroom.launcher import fresh_lobby_db
from devroom.stack import BACKENDS, Stack
from poker.lobby.v1 import lobby_pb2_grpc
from poker_wire.channels import staff_lobby


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
    # Each thought's uniform spread, a share of ``think_ms`` (0.5: 1 s +/- 50 %).
    think_jitter: float = 0.0
    # The services without TLS (GRPC_PLAINTEXT=1): what mutual TLS costs, by
    # difference with a normal run.  Never how the room is deployed.
    plaintext: bool = False
    # The bots through the gateway (the room's one public door) rather than at
    # their shards' public ports: what the extra hop costs (bench.door).
    via_gateway: bool = False
    # Spectators watching through the gateway (bench.stack_spectators), spread
    # evenly over the tables, ``spectators_per_player`` Watch streams per account.
    spectators: int = 0
    spectators_per_player: int = 20
    # The lobby's LOBBY_DB (a SQLite file, bench.soak: fresh or prefilled); empty:
    # a fresh file in a temporary directory.
    lobby_db: str = ""


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


# --------------------------------------------------------------------------- the run

# Seats per PlayMany stream.  One stream could carry them all (TABLE_PLAYMANY_SESSIONS,
# 10,000 by default); a room of thousands of seats spreads them over a few streams,
# as a bot lab with several connections would, so no single HTTP/2 stream's flow
# control paces every table.
SESSIONS_PER_STREAM = 750


# The bots join in waves of this many, each once the one before is in (a burst of
# 1,800 Joins at once made the lobby's Authenticate answer CANCELLED: issue 19).
JOIN_WAVE = 100


def _connect_timeout(bots: int) -> float:
    """How long ``bots`` bots may take to join (each Join is checked with the
    lobby): the default for the usual rooms, more for the scale group's 6,000."""
    return max(CONNECT_TIMEOUT_S, bots / 50)


async def measure_stack(bench: StackBench = StackBench()) -> StackRun:
    """Start the stack and the bots, measure, stop everything, then the ceilings."""
    common_env = {"LOG_LEVEL": bench.log_level}
    if bench.plaintext:
        common_env["GRPC_PLAINTEXT"] = "1"
    # The gateway's per-player watcher limit is the bench's accounts' size (the
    # limit probe opens five more than it).
    gateway_env = {"GATEWAY_WATCHERS_PER_PLAYER": str(bench.spectators_per_player)}
    stack = Stack(
        ports="free",
        common_env=common_env,
        table_shards=bench.table_shards,
        env={
            "gateway": gateway_env,
            # A file, as deployed (the launcher's default is memory): a fresh one.
            "lobby": {"LOBBY_DB": bench.lobby_db or fresh_lobby_db()},
        },
    )
    bots = BotsProcess()
    # The spectators' client stands for 2,000 people's machines, not the room's: it
    # runs at a lower priority, so that on this two-core machine it takes the CPUs
    # only when the room's processes (the gateway's included) leave them idle.
    spectators = BotsProcess("bench.stack_spectators", niceness=SPECTATORS_NICENESS)
    watched: dict[str, Any] = {}
    gateway_log: list[str] = []
    exit_codes: dict[str, int] = {}
    profile = ""
    await asyncio.to_thread(stack.start)
    try:
        # The room is made as the operator (tables, play money); the bots sit down
        # and play as players, at the public ports.
        async with (
            stack["lobby"].aio_channel("operator") as staff_channel,
            stack["lobby"].player_channel() as lobby_channel,
        ):
            staff = staff_lobby(staff_channel)
            room = await create_room(staff, bench.tables, bench.seats)
            everyone = [b for table in room for b in table]
            # PlayMany takes at most SESSIONS_PER_STREAM seats per stream: a room
            # with more seats spreads them over more streams (one per channel).
            channels = max(bench.channels, -(-len(everyone) // SESSIONS_PER_STREAM))
            if not bench.via_gateway:
                for b in everyone:  # the shard that runs the bot's table (its public port)
                    b["target"] = stack.table_target(b["table_id"])
            await bots.start(
                {
                    "target": (
                        stack.gateway_target if bench.via_gateway else stack.public_target("table")
                    ),
                    "via": "room" if bench.via_gateway else "table",
                    "ca_file": None if stack.pki is None else str(stack.pki.ca_file),
                    "plaintext": stack.pki is None,
                    "channels": channels,
                    "transport": bench.transport,
                    "think_ms": bench.think_ms,
                    "think_jitter": bench.think_jitter,
                    "connect_timeout_s": _connect_timeout(len(everyone)),
                    "join_wave": JOIN_WAVE,
                    "bots": everyone,
                }
            )
            await bots.read("connected", _connect_timeout(len(everyone)) + 10)
            await seat_everyone(lobby_pb2_grpc.LobbyStub(lobby_channel), everyone)
            if bench.spectators:
                assert stack.pki is not None, "spectators watch through the gateway (TLS)"
                spec = await spectators_spec(
                    staff,
                    [table[0]["table_id"] for table in room],
                    bench.spectators,
                    bench.spectators_per_player,
                )
                spec.update(target=stack.gateway_target, ca_file=str(stack.pki.ca_file))
                await spectators.start(spec)
                await spectators.read("connected", CONNECT_TIMEOUT_S)
        await asyncio.sleep(bench.warmup_s)

        pids = {name: [stack[name].proc.pid] for name in BACKENDS}
        pids["table"] = [stack[name].proc.pid for name in stack.table_names]
        pids["bots"] = [bots.pid]
        if "gateway" in stack.processes:
            pids["gateway"] = [stack["gateway"].proc.pid]
        if bench.spectators:
            pids["spectators"] = [spectators.pid]
        window = max(bench.seconds, bench.profile_s + 1 if bench.profile_s else 0)
        before = snapshot(stack, pids)
        await bots.send("measure")
        if bench.spectators:
            await spectators.send("measure")
        profiler = (
            Profiler(pids[bench.profile_target][0], bench.profile_s) if bench.profile_s else None
        )
        if profiler is not None:
            await profiler.start()
        await asyncio.sleep(window)
        after = snapshot(stack, pids)
        results = await bots.finish()
        if bench.spectators:
            watched = await spectators.finish()
        if profiler is not None:
            profile = await profiler.report()
    finally:
        await bots.kill()
        await spectators.kill()
        if "gateway" in stack.processes:
            gateway_log = [
                line
                for line in stack["gateway"].lines
                if '"level": "warning"' in line or '"level": "error"' in line
            ][-20:]
        exit_codes.update(await asyncio.to_thread(stack.stop))
        if bots.returncode is not None:
            exit_codes["bots"] = bots.returncode
    ceilings = await grpc_ceiling.measure_ceilings(bench.ceiling_seconds)
    exit_codes["echo"] = 0  # measure_ceilings raises when its server does not exit cleanly
    figures = figures_of(bench.tables, bench.seats, before, after, results, ceilings)
    details = details_of(before, after, results)
    details["ceilings"] = ceilings
    figures.update(door_figures(before, after, watched))
    details["spectators"] = watched
    details["gateway_log"] = gateway_log
    # When the lobby's last full reconciliation ended, at the window's start and
    # end (equal: none ended in the window; bench.soak).
    details["lobby_reconciled_at"] = [
        sum(v for n, _, v in s.samples["lobby"] if n == RECONCILED) for s in (before, after)
    ]
    return StackRun(figures, details, exit_codes, profile)


RECONCILED = "lobby_ledger_reconciled_timestamp_seconds"


def measured(bench: StackBench = StackBench()) -> StackRun:
    """``measure_stack`` to its end; a run where a process did not exit cleanly is
    refused (its figures would be a broken room's)."""
    result = asyncio.run(measure_stack(bench))
    if not result.clean:
        raise RuntimeError(f"a process did not exit cleanly: {result.exit_codes}")
    return result


def turn_figures(bench: StackBench, figures: Mapping[str, float]) -> dict[str, float]:
    """One run's room-wide figures, unprefixed: hands/s, the turn latency's p50
    and p99, CPU per hand over every process, steal (the keys the paced group
    and the A-B-B-A comparisons, ``bench.alternate``, are made of)."""
    cpu = sum(v for k, v in figures.items() if k.startswith("stack_cpu_ms_per_hand_"))
    return {
        "hands_per_s": figures[hands_key(bench.tables, bench.seats)],
        "turn_latency_p50_ms": figures["stack_turn_latency_p50_ms"],
        "turn_latency_p99_ms": figures["stack_turn_latency_p99_ms"],
        "cpu_ms_per_hand": round(cpu, 2),
        "host_steal_pct": figures["stack_host_steal_pct"],
    }


def run() -> dict[str, float]:
    """The ``stack`` group of ``bench.run``: the default configuration, 20 x 6."""
    return measured().figures


SPECTATORS_NICENESS = 10
PACED_THINK_MS = 8.0  # about 55-60 hands/s here, against about 70 flat out


def paced_figures(bench: StackBench, figures: Mapping[str, float]) -> dict[str, float]:
    """A paced run's keys: ``stack_paced_*``, the room's speed and the latency at it."""
    return {
        "stack_paced_think_ms": bench.think_ms,
        **{f"stack_paced_{key}": value for key, value in turn_figures(bench, figures).items()},
        "stack_paced_turn_latency_samples": figures["stack_turn_latency_samples"],
    }


def run_paced() -> dict[str, float]:
    """The ``stack_paced`` group of ``bench.run``: the same room with every bot
    thinking ``PACED_THINK_MS`` before it acts.  Why: the ``stack`` group runs the
    room flat out, where the latency is all queueing for the two cores; this is the
    latency at a load below that (a point of the latency-throughput curve, for
    capacity planning).  The thinking is not in the latency (the clock starts when
    the bot has decided)."""
    bench = StackBench(think_ms=PACED_THINK_MS, ceiling_seconds=0.5)
    return paced_figures(bench, measured(bench).figures)


def _tls_run(plaintext: bool) -> dict[str, float]:
    """One run of the ``stack`` group's room, with or without TLS: the figures
    ``run_plaintext`` takes the means of."""
    bench = StackBench(plaintext=plaintext, ceiling_seconds=0.2)
    return turn_figures(bench, measured(bench).figures)


def run_plaintext() -> dict[str, float]:
    """The ``stack_plaintext`` group of ``bench.run``: the ``stack`` group's room
    with the services in plaintext (GRPC_PLAINTEXT=1, a bench-only mode) against
    the same room with mutual TLS, run TLS, plaintext, plaintext, TLS
    (``bench.alternate``: the machine's speed drifts between runs by more than
    TLS costs), each side the mean of its two runs.  Keys: ``stack_plaintext_*``
    (hands/s, p50/p99, CPU per hand over every process, steal) and what mutual
    TLS costs as ratios to plaintext: ``stack_tls_hands_ratio`` (hands/s),
    ``stack_tls_p99_ratio`` (the p99), ``stack_tls_cpu_ratio`` (CPU per hand:
    the steadiest of the three); ``stack_tls_runs_spread``: the larger of the
    two sides' spreads in hands/s between their two runs."""
    tls, plain = alternate(lambda: _tls_run(False), lambda: _tls_run(True))
    out: dict[str, float] = {
        f"stack_plaintext_{key}": value
        for key, value in means(
            plain, ("hands_per_s", "turn_latency_p50_ms", "turn_latency_p99_ms", "cpu_ms_per_hand")
        ).items()
    }
    out["stack_plaintext_host_steal_pct"] = max(r["host_steal_pct"] for r in plain + tls)
    for name, key in (
        ("hands", "hands_per_s"),
        ("p99", "turn_latency_p99_ms"),
        ("cpu", "cpu_ms_per_hand"),
    ):
        over = mean([r[key] for r in tls])
        under = mean([r[key] for r in plain])
        out[f"stack_tls_{name}_ratio"] = round(over / under, 3) if under else 0.0
    out["stack_tls_runs_spread"] = max(
        spread([r["hands_per_s"] for r in side]) for side in (tls, plain)
    )
    return out


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
    parser.add_argument(
        "--think-jitter",
        type=float,
        default=default.think_jitter,
        help="each thought's uniform spread, a share of --think-ms (0.5: +/- 50 %%)",
    )
    parser.add_argument(
        "--plaintext",
        action="store_true",
        help="the services without TLS (GRPC_PLAINTEXT=1): what TLS costs, by difference",
    )
    parser.add_argument(
        "--via-gateway",
        action="store_true",
        help="the bots play through the gateway (the room's door), not at their shards",
    )
    parser.add_argument(
        "--spectators", type=int, default=0, help="Watch streams through the gateway"
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
        think_jitter=args.think_jitter,
        plaintext=args.plaintext,
        via_gateway=args.via_gateway,
        spectators=args.spectators,
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
    "PROCESSES",
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
