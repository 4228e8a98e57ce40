"""The room's door in figures: what the gateway's hop costs, and what 2,000
spectators through it cost the room (issue 16).

Two ``bench.run`` groups, each measuring its own anchor in the same run:

``door`` -- the ``stack`` room (20 Stud Hi-Lo tables of 6 RandomBots, PlayMany)
with the bots at their shards' public ports (direct) and through the gateway,
both paced (bots thinking ``PACED_THINK_MS``: the latency below saturation,
where the hop's cost is its own) and flat out (where the gateway's CPU competes
with the room for the two cores).  Each pace runs four times, direct, gateway,
gateway, direct (``bench.alternate``: the machine's speed drifts between runs),
and each way's figure is the mean of its two runs:

- ``door_{paced,flat}_{direct,gateway}_hands_per_s`` and
  ``_turn_latency_p50_ms`` / ``_p99_ms``;
- ``door_{paced,flat}_hands_ratio`` (gateway over direct) and
  ``door_{paced,flat}_p50_ratio`` / ``_p99_ratio``: the cost of the hop, where
  1.0 is none;
- ``door_{paced,flat}_gateway_cpu_ms_per_hand``: the gateway's CPU per hand;
- ``door_{paced,flat}_{direct,gateway}_table_cpu_ms_per_hand``: the table
  service's CPU per hand, the same work either way, so the machine's speed in
  each way's runs; ``door_{paced,flat}_runs_spread``: the larger of the two
  ways' spreads in hands/s between their two runs (a share).

``spectators`` -- ``SPECTATOR_TABLES`` tables whose bots think ``SPECTATOR_THINK_MS``
(people's pace), measured for ``SPECTATOR_SECONDS`` without spectators (the
anchor) and then with ``SPECTATORS`` spectators through the gateway, spread
evenly over the tables, each account holding 20 Watch streams, 20 streams on a
connection (``bench.stack_spectators``; the bots play at their shards):

- ``spectators_anchor_hands_per_s`` / ``spectators_hands_per_s`` and their ratio
  ``spectators_hands_ratio``; ``spectators_anchor_turn_latency_p99_ms`` /
  ``spectators_turn_latency_p99_ms`` and ``spectators_p99_added_ms``;
- ``spectators_events_per_s`` received by the spectators,
  ``spectators_gateway_cpu_us_per_event`` (the gateway's CPU per event put in a
  watcher's buffer) and ``spectators_client_cpu_us_per_event`` (the spectators'
  process, for scale);
- ``spectators_gateway_rss_mb_start`` / ``_end``: the gateway's memory at both ends
  of the window (bounded: buffers are per watcher and capped);
- ``spectators_limit_refused``: of ``per player + 5`` streams one player opens at
  once, how many the per-player limit refused (5 expected; RESOURCE_EXHAUSTED).
"""

from __future__ import annotations

from bench.alternate import alternate, mean, means, spread
from bench.stack import PACED_THINK_MS, StackBench, measured, turn_figures
from bench.stack_figures import hands_key

SPECTATORS = 2_000
SPECTATOR_TABLES = 100
SPECTATOR_THINK_MS = 1_000.0
SPECTATOR_SECONDS = 60.0
SPECTATOR_WARMUP_S = 10.0


def _measure(bench: StackBench) -> dict[str, float]:
    return measured(bench).figures


def _ratio(over: float, under: float) -> float:
    return round(over / under, 3) if under else 0.0


# The figures of one run that each way's mean is taken of.
def _run_figures(think_ms: float, via_gateway: bool) -> dict[str, float]:
    bench = StackBench(think_ms=think_ms, ceiling_seconds=0.2, via_gateway=via_gateway)
    figures = _measure(bench)
    return {
        **turn_figures(bench, figures),
        # The machine's speed in that run: the table service does the same work a
        # hand either way (one PlayMany stream, from the bots or from the
        # gateway), so its CPU per hand differing between the ways is the
        # machine, not the hop.
        "table_cpu_ms_per_hand": figures.get("stack_cpu_ms_per_hand_table", 0.0),
        "gateway_cpu_ms_per_hand": figures.get("stack_cpu_ms_per_hand_gateway", 0.0),
    }


# The figures each way gives as the mean of its two runs.
MEANS = ("hands_per_s", "turn_latency_p50_ms", "turn_latency_p99_ms", "table_cpu_ms_per_hand")


def _hop(name: str, think_ms: float) -> dict[str, float]:
    """One pace: direct, gateway, gateway, direct (``bench.alternate``: the
    machine's speed drifts between runs), each way the mean of its two runs."""
    direct, gateway = alternate(
        lambda: _run_figures(think_ms, False), lambda: _run_figures(think_ms, True)
    )
    out: dict[str, float] = {}
    for way, runs in (("direct", direct), ("gateway", gateway)):
        for key, value in means(runs, MEANS).items():
            out[f"door_{name}_{way}_{key}"] = value
        out[f"door_{name}_{way}_host_steal_pct"] = max(r["host_steal_pct"] for r in runs)
    out[f"door_{name}_gateway_cpu_ms_per_hand"] = mean(
        [r["gateway_cpu_ms_per_hand"] for r in gateway]
    )
    # How far each way's two runs were apart in hands/s, the larger of the two:
    # the ratios below are only as good as this is small.
    out[f"door_{name}_runs_spread"] = max(
        spread([r["hands_per_s"] for r in runs]) for runs in (direct, gateway)
    )
    out[f"door_{name}_hands_ratio"] = _ratio(
        out[f"door_{name}_gateway_hands_per_s"], out[f"door_{name}_direct_hands_per_s"]
    )
    for q in ("p50", "p99"):
        out[f"door_{name}_{q}_ratio"] = _ratio(
            out[f"door_{name}_gateway_turn_latency_{q}_ms"],
            out[f"door_{name}_direct_turn_latency_{q}_ms"],
        )
    return out


def run() -> dict[str, float]:
    """The ``door`` group (see the module)."""
    return {**_hop("paced", PACED_THINK_MS), **_hop("flat", 0.0)}


def run_spectators() -> dict[str, float]:
    """The ``spectators`` group (see the module)."""
    shape = {
        "tables": SPECTATOR_TABLES,
        "think_ms": SPECTATOR_THINK_MS,
        "seconds": SPECTATOR_SECONDS,
        "warmup_s": SPECTATOR_WARMUP_S,
        "ceiling_seconds": 0.2,
    }
    anchor = _measure(StackBench(**shape))  # type: ignore[arg-type]
    watched = _measure(StackBench(spectators=SPECTATORS, **shape))  # type: ignore[arg-type]
    key = hands_key(SPECTATOR_TABLES, StackBench.seats)
    return {
        "spectators": float(SPECTATORS),
        "spectators_tables": float(SPECTATOR_TABLES),
        "spectators_anchor_hands_per_s": anchor[key],
        "spectators_hands_per_s": watched[key],
        "spectators_hands_ratio": _ratio(watched[key], anchor[key]),
        "spectators_anchor_turn_latency_p50_ms": anchor["stack_turn_latency_p50_ms"],
        "spectators_turn_latency_p50_ms": watched["stack_turn_latency_p50_ms"],
        "spectators_anchor_turn_latency_p99_ms": anchor["stack_turn_latency_p99_ms"],
        "spectators_turn_latency_p99_ms": watched["stack_turn_latency_p99_ms"],
        "spectators_p99_added_ms": round(
            watched["stack_turn_latency_p99_ms"] - anchor["stack_turn_latency_p99_ms"], 2
        ),
        "spectators_events_per_s": watched.get("door_spectator_events_per_s", 0.0),
        "spectators_messages_per_s": watched.get("door_spectator_messages_per_s", 0.0),
        "spectators_ended_early": watched.get("door_spectators_ended_early", 0.0),
        "spectators_gateway_cpu_us_per_event": watched.get(
            "door_gateway_cpu_us_per_spectator_event", 0.0
        ),
        "spectators_client_cpu_us_per_event": watched.get(
            "door_client_cpu_us_per_spectator_event", 0.0
        ),
        "spectators_gateway_cpu_pct": watched.get("stack_cpu_pct_gateway", 0.0),
        "spectators_gateway_rss_mb_start": watched.get("door_gateway_rss_mb_start", 0.0),
        "spectators_gateway_rss_mb_end": watched.get("door_gateway_rss_mb_end", 0.0),
        "spectators_limit_refused": watched.get("door_limit_probe_refused", 0.0),
        "spectators_limit_admitted": watched.get("door_limit_probe_admitted", 0.0),
        "spectators_host_steal_pct": watched["stack_host_steal_pct"],
        "spectators_anchor_host_steal_pct": anchor["stack_host_steal_pct"],
    }
