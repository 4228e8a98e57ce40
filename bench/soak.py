"""The soak (issue 19): the 20-table bench on a fresh store and on one holding
three million ledger rows and a million hands, in the same run.

Why: a room that runs for weeks must not slow down as its lobby's store fills.
The lobby's work per hand is index lookups and appends (``services/lobby/store.py``),
so neither the turn latency nor the lobby's CPU per hand should move with the
rows behind them; this measures it.

Setup (``bench.run`` group ``soak``):

- the prefilled store is ``bench.prefill``'s (``SOAK``: 3,000,000 ledger rows,
  1,000,000 hands of Stud Hi-Lo over 20 tables, a week of play), built once and
  kept in ``cache_dir()`` under a name keyed by ``PREFILL_VERSION``, the store's
  schema and the sizes, so a re-run reuses it and a changed schema rebuilds it
  (an older build is deleted then);
- the fresh store is the same 20 tables with no history at all (``bench.prefill``
  with no hands): an idle table is polled by its table service (NextHand, every
  ``TABLE_IDLE_POLL_S``) whatever its history, so both stores have the same
  tables and the runs differ by the history alone;
- each run is ``bench.stack``'s default room (20 tables x 6 bots, flat out) with
  the lobby started on a copy of its store (``StackBench.lobby_db``), so every run
  starts from the same file and the cached one is never written;
- four runs, fresh, filled, filled, fresh (``bench.alternate``: this machine's
  speed drifts by up to 30 % between runs, more than the difference measured),
  each store's figures the mean of its two runs;
- after the runs, on the prefilled copy as the runs left it: how long the lobby's
  opening of the store takes (``LobbyStore``: its running totals start from one
  ``totals()``) and one full reconciliation (``reconcile_sums``, what
  ``LOBBY_RECONCILE_S`` runs on a thread), elapsed and CPU.  The lobby runs one
  when it starts and then every 300 s; ``soak_{fresh,filled}_reconcile_in_window``
  says whether one ran in the measured window (the lobby's
  ``lobby_ledger_reconciled_timestamp_seconds`` at the window's two ends: 0 when
  the first had ended before it and none ended in it).

Keys: ``soak_{fresh,filled}_turn_latency_p99_ms`` and ``_p50_ms``,
``soak_{fresh,filled}_lobby_cpu_ms_per_hand``, ``soak_{fresh,filled}_hands_per_s``,
``soak_{fresh,filled}_host_steal_pct``; ``soak_{fresh,filled}_table_cpu_ms_per_hand``
(the table's work a hand is the same on either store: the machine's speed in
those runs) and ``soak_{fresh,filled}_runs_spread`` (each store's two runs apart
in hands/s, a share); ``soak_p99_ratio`` and
``soak_lobby_cpu_ratio`` (filled over fresh: the target is at most 1.15);
``soak_prefill_ledger_rows``, ``soak_prefill_hands``, ``soak_prefill_mb``,
``soak_prefill_build_s`` (the build's time, when this run built it; else the
cached build's) and ``soak_prefill_cached`` (1: reused); ``soak_copy_s``;
``soak_store_open_s``, ``soak_reconcile_s`` (and their ``_cpu_s``),
``soak_warmup_s``.

``python -m bench.soak`` prints them; ``--build-only`` builds the cache and stops.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

from bench.alternate import alternate, means, spread
from bench.prefill import PREFILL_VERSION, Prefill, build
from bench.stack import StackBench, StackRun, measured, turn_figures
from services.lobby.store import LobbyStore

SOAK = Prefill()  # 3,000,000 ledger rows and 1,000,000 hands over 20 tables
LIMIT_RATIO = 1.15  # the acceptance: filled within 15 % of fresh


def cache_dir() -> Path:
    """Where the prefilled store is kept between runs (``SOAK_CACHE_DIR``, or the
    temporary directory's ``cardroom-soak``)."""
    chosen = os.environ.get("SOAK_CACHE_DIR")
    return Path(chosen) if chosen else Path(tempfile.gettempdir()) / "cardroom-soak"


def schema_digest() -> str:
    """The store's schema as a new file gets it (its SQL, pragmas aside)."""
    with tempfile.TemporaryDirectory() as work:
        store = LobbyStore(str(Path(work) / "schema.db"))
        rows = store._db.execute(
            "SELECT type, name, sql FROM sqlite_master ORDER BY type, name"
        ).fetchall()
        (page_size,) = store._db.execute("PRAGMA page_size").fetchone()
        store.close()
    return hashlib.sha256(repr((rows, page_size)).encode()).hexdigest()[:12]


def cached_store(spec: Prefill = SOAK) -> tuple[Path, dict[str, float]]:
    """The prefilled store of ``spec`` (built now if not cached) and its build's
    figures (``cached``: 1 when it was already there)."""
    directory = cache_dir()
    directory.mkdir(parents=True, exist_ok=True)
    key = f"v{PREFILL_VERSION}-{schema_digest()}-{spec.ledger_rows}-{spec.hands}-{spec.tables}"
    path = directory / f"lobby-{key}.db"
    about = path.with_suffix(".json")
    if path.exists() and about.exists():
        return path, {**json.loads(about.read_text()), "cached": 1}
    for old in directory.glob("lobby-*"):  # an older tool's or schema's build
        old.unlink()
    partial = directory / f"building-{os.getpid()}.db"
    for leftover in directory.glob(f"{partial.name}*"):
        leftover.unlink()
    written = build(partial, spec)
    partial.rename(path)
    figures = {"build_s": round(written.seconds, 1), "cached": 0}
    about.write_text(json.dumps({"build_s": figures["build_s"], "spec": asdict(spec)}))
    return path, figures


def _run(lobby_db: Path) -> StackRun:
    # The ceilings are the stack group's business: as short as they go here.
    return measured(StackBench(lobby_db=str(lobby_db), ceiling_seconds=0.2))


def _figures(run: StackRun) -> dict[str, float]:
    """One run's figures that each store's mean is taken of."""
    f = run.figures
    return {
        **turn_figures(StackBench(), f),
        "lobby_cpu_ms_per_hand": f["stack_cpu_ms_per_hand_lobby"],
        # The machine's speed in that run: the table's work a hand does not
        # depend on the lobby's store.
        "table_cpu_ms_per_hand": f.get("stack_cpu_ms_per_hand_table", 0.0),
        "reconcile_in_window": _reconcile_in_window(run),
    }


def _combined(name: str, runs: list[dict[str, float]]) -> dict[str, float]:
    """A store's two runs as one: the mean of each figure; the worst steal, and
    whether a reconciliation ran in either window."""
    keys = (
        "hands_per_s",
        "turn_latency_p50_ms",
        "turn_latency_p99_ms",
        "lobby_cpu_ms_per_hand",
        "table_cpu_ms_per_hand",
    )
    out = {f"soak_{name}_{key}": value for key, value in means(runs, keys).items()}
    out[f"soak_{name}_host_steal_pct"] = max(r["host_steal_pct"] for r in runs)
    out[f"soak_{name}_reconcile_in_window"] = max(r["reconcile_in_window"] for r in runs)
    out[f"soak_{name}_runs_spread"] = spread([r["hands_per_s"] for r in runs])
    return out


def _reconcile_in_window(run: StackRun) -> int:
    """0 when the lobby's first reconciliation (at its start) had ended before the
    window and no other ended in it (the next is LOBBY_RECONCILE_S, 300 s, later):
    none ran in the window; else 1."""
    before, after = run.details["lobby_reconciled_at"]
    return 0 if before > 0 and after == before else 1


def _store_timings(path: Path) -> dict[str, float]:
    """Opening the store as the lobby does, and one full reconciliation: elapsed
    and CPU seconds (this process's: the reconciliation's connection is its own)."""
    t, cpu = time.monotonic(), time.process_time()
    store = LobbyStore(str(path))
    opened, opened_cpu = time.monotonic() - t, time.process_time() - cpu
    t, cpu = time.monotonic(), time.process_time()
    store.reconcile_sums()
    reconciled, reconciled_cpu = time.monotonic() - t, time.process_time() - cpu
    store.close()
    return {
        "soak_store_open_s": round(opened, 2),
        "soak_store_open_cpu_s": round(opened_cpu, 2),
        "soak_reconcile_s": round(reconciled, 2),
        "soak_reconcile_cpu_s": round(reconciled_cpu, 2),
    }


def run(spec: Prefill = SOAK) -> dict[str, float]:
    """The ``soak`` group of ``bench.run``: fresh, filled, filled, fresh (module doc)."""
    cached, built = cached_store(spec)
    figures: dict[str, float] = {
        "soak_prefill_ledger_rows": spec.ledger_rows,
        "soak_prefill_hands": spec.hands,
        "soak_prefill_mb": round(cached.stat().st_size / 1e6),
        "soak_prefill_build_s": built["build_s"],
        "soak_prefill_cached": built["cached"],
        "soak_warmup_s": StackBench().warmup_s,
    }
    with tempfile.TemporaryDirectory(dir=cache_dir()) as work:
        empty = Path(work) / "empty.db"
        build(empty, Prefill(ledger_rows=0, hands=0, tables=spec.tables), log=lambda _: None)
        filled = Path(work) / "filled.db"
        copies: list[float] = []

        def on_fresh() -> dict[str, float]:
            fresh = Path(work) / "fresh.db"
            shutil.copyfile(empty, fresh)
            try:
                return _figures(_run(fresh))
            finally:
                fresh.unlink()

        def on_filled() -> dict[str, float]:
            # Every run starts from the cached build: a new copy each time (the
            # last one stays for the timings below).
            t = time.monotonic()
            shutil.copyfile(cached, filled)
            copies.append(time.monotonic() - t)
            return _figures(_run(filled))

        fresh_runs, filled_runs = alternate(on_fresh, on_filled)
        figures.update(_combined("fresh", fresh_runs))
        figures.update(_combined("filled", filled_runs))
        figures["soak_copy_s"] = round(max(copies), 1)
        figures.update(_store_timings(filled))
    for key, what in (("p99", "turn_latency_p99_ms"), ("lobby_cpu", "lobby_cpu_ms_per_hand")):
        fresh_value = figures[f"soak_fresh_{what}"]
        if fresh_value:
            figures[f"soak_{key}_ratio"] = round(figures[f"soak_filled_{what}"] / fresh_value, 3)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--build-only", action="store_true", help="build the cached store, stop")
    args = parser.parse_args(argv)
    if args.build_only:
        path, built = cached_store()
        print(json.dumps({"path": str(path), **built}))
        return 0
    print(json.dumps(run(), indent=2, sort_keys=True))
    return 0


__all__ = ["LIMIT_RATIO", "SOAK", "cache_dir", "cached_store", "run", "schema_digest"]

if __name__ == "__main__":
    raise SystemExit(main())
