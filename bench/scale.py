"""The ``scale`` group: one table process running a room of a thousand tables at
human pace, beside the same run's 20 tables flat out.

Why: the ``stack`` group says how fast the room goes flat out; a real room is
many tables whose players think about a second.  There the table process's work
per decision (events built and sent to every seat, loop wake-ups) is what the
room's latency and capacity per process come from, and RSS per table is what
bounds how many tables one process holds.

Runs, each through ``bench.stack.measure_stack`` (one table process, the bots in
their own process, every service its own), one after the other:

- ``SCALE``: 1,000 six-handed Stud Hi-Lo tables, bots thinking 1 s +/- 50 %
  (uniform), ``SCALE_WARMUP_S`` of play, then ``SCALE_SECONDS`` measured;
- ``MID``: 300 tables, bots thinking 200 ms +/- 50 %;
- ``FLAT``: the ``stack`` group's room (20 tables, bots acting at once).

Keys, ``<run>`` one of ``scale_1000x6_1s``, ``scale_300x6_200ms``,
``scale_flat_20x6``:

- ``<run>_hands_per_s``; ``<run>_turn_latency_p50_ms`` / ``_p99_ms`` /
  ``_samples``: action to the next turn, as the ``stack`` group measures it (the
  thinking is not in it);
- ``<run>_cpu_ms_per_hand_<process>`` for table, lobby, dealer, betting,
  showdown and bots (CPU time in the window over the hands finished in it);
- ``<run>_table_rss_kb_per_table``: the table process's RSS at the window's end
  over its tables; ``<run>_table_rss_mb``: the RSS itself;
- ``<run>_bot_events_per_hand`` / ``_bot_bytes_per_hand``: what the bots received
  per hand, all seats together (events, PlayMany bytes);
  ``<run>_bot_messages_per_hand`` / ``_player_messages_per_hand``: the PlayMany
  messages each way; ``<run>_interservice_messages_per_hand``: the messages of the
  table's Batch streams (requests to betting, dealer, lobby, showdown);
  ``<run>_actions_per_hand``: decisions;
- ``<run>_timeouts`` (expected 0), ``<run>_host_steal_pct``; ``<run>_join_retries``:
  the seats whose Join failed in the setup and were joined again (the bots join
  in waves of 100; a burst made the lobby's Authenticate answer CANCELLED, which
  issue 19's lobby work is to absorb);
- ratios to the flat-out room of the same run:
  ``scale_1000x6_1s_table_cpu_per_hand_vs_flat`` (the table process's CPU per
  hand) and ``scale_1000x6_1s_p99_vs_flat``; ``scale_table_rss_kb_per_extra_table``:
  the RSS the 1,000-table process has beyond the 20-table one, per extra table.

Target (issue 19): p99 under 50 ms at 1,000 tables x 1 s +/- 50 %.

``python -m bench.scale`` prints the figures (``--only scale,mid,flat``,
``--seconds``, ``--warmup``, ``--profile``: py-spy the table process for the
window of each run and print where its CPU goes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import replace

from bench.stack import StackBench, StackRun, measure_stack

SCALE_SECONDS = 60.0
SCALE_WARMUP_S = 20.0  # every table past its first hands, the thinking out of step

SCALE = StackBench(
    tables=1_000,
    think_ms=1_000.0,
    think_jitter=0.5,
    warmup_s=SCALE_WARMUP_S,
    seconds=SCALE_SECONDS,
    ceiling_seconds=0.5,
)
MID = replace(SCALE, tables=300, think_ms=200.0)
FLAT = StackBench(ceiling_seconds=0.5)  # the stack group's room, its defaults

RUNS: dict[str, tuple[str, StackBench]] = {
    "scale": ("scale_1000x6_1s", SCALE),
    "mid": ("scale_300x6_200ms", MID),
    "flat": ("scale_flat_20x6", FLAT),
}
PROCESS_KEYS = ("table", "lobby", "dealer", "betting", "showdown", "bots")


def keys_of(prefix: str, bench: StackBench, run: StackRun) -> dict[str, float]:
    """One run's ``scale_*`` keys from its ``stack_*`` figures."""
    fig = run.figures
    bots = run.details.get("bots", {})
    hands = f"stack_studhilo_{bench.tables}x{bench.seats}_hands_per_s"
    rss_mb = fig.get("stack_rss_mb_table", 0.0)
    out = {
        f"{prefix}_hands_per_s": fig[hands],
        f"{prefix}_turn_latency_p50_ms": fig["stack_turn_latency_p50_ms"],
        f"{prefix}_turn_latency_p99_ms": fig["stack_turn_latency_p99_ms"],
        f"{prefix}_turn_latency_samples": fig["stack_turn_latency_samples"],
        f"{prefix}_table_rss_mb": rss_mb,
        f"{prefix}_table_rss_kb_per_table": round(rss_mb * 1024 / bench.tables, 1),
        f"{prefix}_bot_events_per_hand": fig["stack_bot_events_per_hand"],
        f"{prefix}_bot_bytes_per_hand": fig["stack_bot_bytes_per_hand"],
        # stream messages per hand: table -> bots, bots -> table, and the table's
        # Batch streams to betting, dealer, lobby and showdown (each way counts once)
        f"{prefix}_bot_messages_per_hand": fig["stack_stream_messages_per_hand"],
        f"{prefix}_player_messages_per_hand": fig["stack_player_messages_per_hand"],
        f"{prefix}_interservice_messages_per_hand": round(
            sum(
                fig[f"stack_{service}_stream_messages_per_hand"]
                for service in ("betting", "dealer", "lobby", "showdown")
            ),
            2,
        ),
        f"{prefix}_actions_per_hand": fig["stack_actions_per_hand"],
        f"{prefix}_timeouts": fig["stack_timeouts"],
        # seats whose Join failed in the setup's burst and joined again (stack_bots)
        f"{prefix}_join_retries": float(bots.get("join_retries", 0)),
        f"{prefix}_host_steal_pct": fig["stack_host_steal_pct"],
    }
    for process in PROCESS_KEYS:
        out[f"{prefix}_cpu_ms_per_hand_{process}"] = fig.get(
            f"stack_cpu_ms_per_hand_{process}", 0.0
        )
    return out


def ratios(figures: dict[str, float]) -> dict[str, float]:
    """The 1,000-table run against the flat-out room of the same run."""
    out: dict[str, float] = {}
    scale, flat = RUNS["scale"][0], RUNS["flat"][0]
    pairs = {
        "table_cpu_per_hand_vs_flat": "cpu_ms_per_hand_table",
        "p99_vs_flat": "turn_latency_p99_ms",
    }
    for name, key in pairs.items():
        a, b = figures.get(f"{scale}_{key}"), figures.get(f"{flat}_{key}")
        if a is not None and b:
            out[f"{scale}_{name}"] = round(a / b, 2)
    big, small = figures.get(f"{scale}_table_rss_mb"), figures.get(f"{flat}_table_rss_mb")
    if big is not None and small is not None:
        extra = SCALE.tables - FLAT.tables
        out["scale_table_rss_kb_per_extra_table"] = round((big - small) * 1024 / extra, 1)
    return out


def measure(
    which: tuple[str, ...] = tuple(RUNS),
    *,
    seconds: float = 0.0,
    warmup: float = 0.0,
    profile_s: float = 0.0,
) -> tuple[dict[str, float], dict[str, str]]:
    """The chosen runs' keys and ratios (``seconds``/``warmup`` > 0 replace the
    paced runs' own), and py-spy's summary of the table process per run."""
    figures: dict[str, float] = {}
    profiles: dict[str, str] = {}
    for name in which:
        prefix, bench = RUNS[name]
        if name != "flat":
            if seconds:
                bench = replace(bench, seconds=seconds)
            if warmup:
                bench = replace(bench, warmup_s=warmup)
        if profile_s:
            bench = replace(bench, profile_s=min(profile_s, bench.seconds))
        print(f"  {prefix} ...", flush=True)
        run = asyncio.run(measure_stack(bench))
        if not run.clean:
            raise RuntimeError(f"{prefix}: a process did not exit cleanly: {run.exit_codes}")
        figures.update(keys_of(prefix, bench, run))
        if run.profile:
            profiles[prefix] = run.profile
    figures.update(ratios(figures))
    return figures, profiles


def run() -> dict[str, float]:
    """The ``scale`` group of ``bench.run``."""
    return measure()[0]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.scale", description=__doc__)
    parser.add_argument(
        "--only", default=",".join(RUNS), help=f"runs, of {', '.join(RUNS)} (default: all)"
    )
    parser.add_argument("--seconds", type=float, default=0.0, help="the paced runs' window")
    parser.add_argument("--warmup", type=float, default=0.0, help="the paced runs' warm-up")
    parser.add_argument(
        "--profile", type=float, default=0.0, metavar="SECONDS", help="py-spy the table process"
    )
    args = parser.parse_args(argv)
    which = tuple(name.strip() for name in args.only.split(",") if name.strip())
    unknown = set(which) - RUNS.keys()
    if unknown:
        parser.error(f"unknown run(s) {', '.join(sorted(unknown))}; choose from {', '.join(RUNS)}")
    figures, profiles = measure(
        which, seconds=args.seconds, warmup=args.warmup, profile_s=args.profile
    )
    print(json.dumps(figures, indent=2, sort_keys=True))
    for prefix, text in profiles.items():
        print(f"--- {prefix}: the table process\n{text}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
