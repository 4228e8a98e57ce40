"""`make bench`: run every benchmark in one process and write bench/results.json.

Each figure is one key.  Anchors (eval7, treys, PokerKit) are measured in the same
run on the same machine, and the ratios against them are written beside the raw
rates, so the numbers compare like with like.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from pathlib import Path

from bench import evaluators, hands

RESULTS = Path(__file__).with_name("results.json")


def main() -> int:
    started = time.time()
    results: dict[str, float | str] = {}
    print("evaluators ...", flush=True)
    results.update(evaluators.run())
    print("hands ...", flush=True)
    results.update(hands.run())
    results["python"] = platform.python_version()
    results["machine"] = platform.machine()
    results["seconds"] = round(time.time() - started, 1)
    RESULTS.write_text(json.dumps(results, indent=2, sort_keys=True) + "\n")
    json.dump(results, sys.stdout, indent=2, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
