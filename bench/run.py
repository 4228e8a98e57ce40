"""`make bench`: run every benchmark in one process and write bench/results.json.

Each figure is one key.  Anchors (eval7, treys, PokerKit, the bare gRPC ceiling) are
measured in the same run on the same machine, and the ratios against them are
written beside the raw rates, so the numbers compare like with like.

``python -m bench.run --only grpc`` (or ``--only evaluators,hands``, ``--only stack``:
the full-stack benchmark, bench/stack.py, about 45 s; ``--only stack_paced``: the same
room paced by the bots' thinking time, about 40 s; ``--only scale``: one table
process with 1,000 tables of bots thinking 1 s +/- 50 %, then 300 at 200 ms, then
20 flat out, bench/scale.py, about 5 min; ``--only soak``: the stack room on a fresh
lobby store and on one of 3 million ledger rows and a million hands, fresh, filled,
filled, fresh, bench/soak.py, about 3 min plus the store's first build; ``--only
door``: the room direct and through the gateway, four runs at each of two paces,
bench/door.py, about 5 min) re-measures a
subset: its keys are updated in the existing results.json and the others are kept
(so they then come from different runs; plain ``make bench`` measures everything
again).  ``--no-write`` prints the figures without touching results.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from bench import dealer_flood, door, evaluators, grpc_ceiling, hands, scale, soak, stack

RESULTS = Path(__file__).with_name("results.json")

# Each group of figures, in the order they run.
GROUPS: dict[str, Callable[[], Mapping[str, float]]] = {
    "evaluators": evaluators.run,
    "hands": hands.run,
    "grpc": grpc_ceiling.run,
    "stack": stack.run,  # the whole card room with bots; its own ceiling run inside
    "stack_paced": stack.run_paced,  # the same room with bots thinking 8 ms: latency at a load
    "stack_plaintext": stack.run_plaintext,  # the stack group without TLS: what mTLS costs
    "dealer_flood": dealer_flood.run,  # the room's speed while one caller floods the dealer
    "door": door.run,  # the gateway's hop: the stack room direct and through the door
    "spectators": door.run_spectators,  # 100 tables at 1 s, without and with 2,000 spectators
    # one table process, 1,000 tables at 1 s +/- 50 % and 300 at 200 ms, beside 20
    # flat out: latency, CPU per hand, RSS per table (bench/scale.py, about 5 min)
    "scale": scale.run,
    "soak": soak.run,  # the stack room on a fresh store and a prefilled one (bench/soak.py)
}


def _groups(values: list[str]) -> list[str]:
    wanted = {name.strip() for value in values for name in value.split(",") if name.strip()}
    unknown = wanted - GROUPS.keys()
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown group(s) {', '.join(sorted(unknown))}; choose from {', '.join(GROUPS)}"
        )
    return [name for name in GROUPS if name in wanted]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__)
    parser.add_argument(
        "--only",
        action="append",
        default=[],
        metavar="GROUP[,GROUP]",
        help=f"run only these groups ({', '.join(GROUPS)}); repeatable; default: all",
    )
    parser.add_argument(
        "--no-write", action="store_true", help="print the figures, leave results.json alone"
    )
    args = parser.parse_args(argv)
    try:
        selected = _groups(args.only) if args.only else list(GROUPS)
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))

    started = time.time()
    results: dict[str, float | str] = {}
    for name in selected:
        print(f"{name} ...", flush=True)
        results.update(GROUPS[name]())
    results["python"] = platform.python_version()
    results["machine"] = platform.machine()
    results["seconds"] = round(time.time() - started, 1)
    if not args.no_write:
        written = results
        if args.only and RESULTS.exists():
            # "seconds" stays the time of the last full run.
            fresh = {key: value for key, value in results.items() if key != "seconds"}
            written = {**json.loads(RESULTS.read_text()), **fresh}
        RESULTS.write_text(json.dumps(written, indent=2, sort_keys=True) + "\n")
    json.dump(results, sys.stdout, indent=2, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
