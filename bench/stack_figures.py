"""The full-stack benchmark's measurements: the services' /metrics and the processes'
CPU at both ends of the window, and the ``bench.run`` keys computed from the two.
"""

from __future__ import annotations

import contextlib
import os
import time
import urllib.request
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from bench import grpc_ceiling, lobby_store
from devroom.stack import BACKENDS, Stack

GAME_KEY = "studhilo"
PROCESSES = ("table", *BACKENDS, "gateway", "bots", "spectators")
SERVER_SKIP = ("grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection")

Samples = list[tuple[str, dict[str, str], float]]


def hands_key(tables: int, seats: int) -> str:
    return f"stack_{GAME_KEY}_{tables}x{seats}_hands_per_s"


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


def rss_bytes(pid: int) -> int:
    """A process's resident memory now (Linux /proc; 0 elsewhere)."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


@dataclass
class Snapshot:
    at: float
    samples: dict[str, Samples]
    cpu: dict[str, float]
    load: float  # the machine's 1-minute load average
    host: tuple[int, int]  # (steal, all) CPU ticks of the machine so far
    rss: dict[str, int] = field(default_factory=dict)  # resident bytes per process group
    # The lobby's store (bench/lobby_store.py): bytes written, database bytes used.
    lobby_written: int = 0
    lobby_db_used: int = 0


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
    if "gateway" in stack.processes:
        samples["gateway"] = scrape(stack["gateway"].metrics_port)
    rss = {name: sum(rss_bytes(pid) for pid in group) for name, group in pids.items()}
    written = sum(lobby_store.write_bytes(pid) for pid in pids.get("lobby", ()))
    used = lobby_store.used_bytes(stack.env.get("lobby", {}).get("LOBBY_DB", ""))
    return Snapshot(at, samples, cpu, _load(), _host_ticks(), rss, written, used)


def _server_rpcs(samples: Samples) -> float:
    return sum(
        value
        for name, labels, value in samples
        if name == "grpc_server_handled_total"
        and labels.get("grpc_service") not in SERVER_SKIP
        and labels.get("grpc_method") != "ListTables"
    )


def _downstream_rpcs(samples: Samples, transport: str = "unary") -> float:
    """The table's calls to other services: unary RPCs, or calls on the services'
    Batch streams (``transport="batched"``)."""
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
    tables: int,
    seats: int,
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
    batched = _downstream_rpcs(t1, "batched") - _downstream_rpcs(t0, "batched")
    batched_per_hand = batched * per_hand
    messages_per_hand = delta("table_stream_messages_total") * per_hand

    def received(service: str, method: str) -> float:
        """Messages ``service`` received on ``method`` in the window."""
        name = "grpc_server_msg_received_total"
        return total(after.samples[service], name, grpc_method=method) - total(
            before.samples[service], name, grpc_method=method
        )

    batches = received("betting", "Batch")
    dealer_batches = received("dealer", "Batch")
    lobby_batches = received("lobby", "Batch")
    showdown_batches = received("showdown", "Batch")
    unary = ceilings[grpc_ceiling.UNARY_CONCURRENT]
    stream = ceilings[grpc_ceiling.STREAM_CONCURRENT]
    out: dict[str, float] = {
        hands_key(tables, seats): round(hands_per_s, 1),
        "stack_window_s": round(span, 2),
        "stack_hands": hands,
        "stack_turn_latency_p50_ms": round(bots["latency_p50_ms"], 2),
        "stack_turn_latency_p99_ms": round(bots["latency_p99_ms"], 2),
        "stack_turn_latency_samples": bots["latency_samples"],
        "stack_rpcs_per_hand": round(rpcs_per_hand, 2),
        "stack_batched_calls_per_hand": round(batched_per_hand, 2),
        # The Batch streams' messages: several calls travel in one.
        "stack_betting_stream_messages_per_hand": round(batches * per_hand, 2),
        "stack_dealer_stream_messages_per_hand": round(dealer_batches * per_hand, 2),
        "stack_lobby_stream_messages_per_hand": round(lobby_batches * per_hand, 2),
        "stack_showdown_stream_messages_per_hand": round(showdown_batches * per_hand, 2),
        "stack_interservice_calls_per_hand": round(rpcs_per_hand + batched_per_hand, 2),
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
        # What the bots received per hand, all seats together: events (those in a
        # batch each count) and PlayMany bytes (0 with --transport play).
        "stack_bot_events_per_hand": round(bots.get("events", 0) * per_hand, 1),
        "stack_bot_bytes_per_hand": round(bots.get("many_bytes_received", 0) * per_hand),
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
    out.update(
        lobby_store.figures(
            total(after.samples["lobby"], "lobby_store_fsyncs_total")
            - total(before.samples["lobby"], "lobby_store_fsyncs_total"),
            after.lobby_written - before.lobby_written,
            after.lobby_db_used - before.lobby_db_used,
            per_hand,
        )
    )
    for name in PROCESSES:
        if name in after.cpu:
            used = after.cpu[name] - before.cpu[name]
            out[f"stack_cpu_pct_{name}"] = round(100 * used / span, 1)
            out[f"stack_cpu_ms_per_hand_{name}"] = round(1000 * used * per_hand, 2)
        if after.rss.get(name):  # resident memory at the window's end
            out[f"stack_rss_mb_{name}"] = round(after.rss[name] / 2**20, 1)
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


def histogram_quantile(before: Samples, after: Samples, name: str, q: float) -> float:
    """The ``q`` quantile (seconds, the bucket's upper bound) of a histogram's
    observations between two scrapes."""
    buckets: dict[float, float] = defaultdict(float)
    for samples, sign in ((after, 1), (before, -1)):
        for sample, labels, value in samples:
            if sample == f"{name}_bucket":
                buckets[float(labels["le"])] += sign * value
    bounds = sorted(buckets)
    if not bounds or not buckets[bounds[-1]]:
        return 0.0
    wanted = q * buckets[bounds[-1]]
    return next(b for b in bounds if buckets[b] >= wanted)


def door_figures(before: Snapshot, after: Snapshot, watched: Mapping[str, Any]) -> dict[str, float]:
    """The gateway's figures, when it ran: its CPU per delivered spectator event,
    its memory at both ends of the window, the spectators' events and what the
    per-player watcher limit answered."""
    out: dict[str, float] = {
        # The table's own part of the turn latency: from an action arriving to the
        # next turn sent (a bucket's bound), beside the bots' end-to-end figure.
        "door_table_decision_p99_ms": round(
            1000
            * histogram_quantile(
                before.samples["table"], after.samples["table"], "table_decision_seconds", 0.99
            ),
            2,
        )
    }
    if "gateway" not in after.cpu:
        return out
    span = after.at - before.at
    used = after.cpu["gateway"] - before.cpu["gateway"]
    out["door_gateway_rss_mb_start"] = round(before.rss.get("gateway", 0) / 2**20, 1)
    out["door_gateway_rss_mb_end"] = round(after.rss.get("gateway", 0) / 2**20, 1)
    if not watched:
        return out
    g0, g1 = before.samples.get("gateway", []), after.samples.get("gateway", [])
    delivered = total(g1, "gateway_spectator_events_total") - total(
        g0, "gateway_spectator_events_total"
    )
    received = float(watched.get("events", 0))
    out["door_spectators"] = float(watched.get("watchers", 0))
    out["door_spectator_events_per_s"] = round(received / span, 1) if span else 0.0
    messages = float(watched.get("messages", 0))
    out["door_spectator_messages_per_s"] = round(messages / span, 1) if span else 0.0
    out["door_spectator_events_delivered"] = delivered
    out["door_spectators_ended_early"] = float(sum(watched.get("ended_early", {}).values()))
    if delivered:
        out["door_gateway_cpu_us_per_spectator_event"] = round(1e6 * used / delivered, 2)
        spectators = after.cpu.get("spectators", 0.0) - before.cpu.get("spectators", 0.0)
        out["door_client_cpu_us_per_spectator_event"] = round(1e6 * spectators / delivered, 2)
    for reason in ("too_slow", "feed_ended"):
        dropped = total(g1, "gateway_spectators_dropped_total", reason=reason) - total(
            g0, "gateway_spectators_dropped_total", reason=reason
        )
        out[f"door_spectators_dropped_{reason}"] = dropped
    probe = watched.get("probe", {})
    out["door_limit_probe_refused"] = float(probe.get("RESOURCE_EXHAUSTED", 0))
    out["door_limit_probe_admitted"] = float(probe.get("OK", 0))
    return out
