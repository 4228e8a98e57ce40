"""The join burst's bots: every seat of the room joining at once, in a process of
their own (``python -m bench.join_burst_bots``, started by ``bench.join_burst``).

Why a process of its own: the figures are the services' (how long 6,000 joins
take, what they cost the lobby and the table), so the bots' CPU must not be
theirs, and the bots must join as players do: over TLS at the table service's
public port, through ``poker_bots.play`` on ``PlayMany`` streams
(``poker_bots.Multiplexer``), reconnecting as the SDK does.

The spec is the first line of stdin (JSON)::

    {"target": "127.0.0.1:PORT", "ca_file": "/tmp/.../ca.crt", "streams": 6,
     "think_s": 1.0, "jitter": 0.5, "timeout_s": 120,
     "bots": [{"table_id": "...", "player_id": "...", "token": "...", "seed": 1}, ...]}

Every bot's ``play`` starts at once (``streams`` PlayMany streams, each on its own
channel, the seats dealt round-robin).  A bot thinks ``think_s`` seconds, +/-
``jitter`` of it, before each action (a person's pace), then plays a
``RandomBot``'s move.  Then it speaks in lines:

- stdout ``{"event": "joined", ...}`` once every seat has its first Snapshot, or
  has failed, or ``timeout_s`` passed: ``joined`` (seats with a Snapshot),
  ``failed`` (seats whose ``play`` raised, by status code), ``seconds`` (from the
  start to the last Snapshot);
- stdin ``rejoin``: counting starts again (the caller restarts the table service
  next): stdout ``{"event": "rejoined", ...}`` the same way, once every seat has
  a Snapshot after it (the SDK's reconnect, a new Join) or failed;
- stdin ``stop`` (or stdin's end): every bot stops; stdout ``{"event":
  "results", ...}`` (reconnects, errors), exit code 0 when every bot ended
  because it was asked to.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
import time
from collections import Counter
from typing import Any

import grpc

from poker.common.v1 import common_pb2
from poker.table.v1 import table_pb2
from poker_bots import Multiplexer, PlayStats, RandomBot, TableView, play
from poker_wire.channels import player_channel
from service_kit import loop as event_loop

SPEC_LIMIT = 64 * 1024 * 1024  # the spec is one line: 6,000 bots are ~1.5 MB
STOP_TIMEOUT_S = 120.0


class PacedBot:
    """A ``RandomBot`` that thinks first, as a person would (the SDK's async form)."""

    def __init__(self, seed: int, think_s: float, jitter: float) -> None:
        self.inner = RandomBot(seed)
        self.think_s = think_s
        self.spread = think_s * jitter
        self.rng = random.Random(seed)

    async def act(self, view: TableView, legal: common_pb2.LegalActions) -> common_pb2.Action:
        await asyncio.sleep(self.think_s + self.rng.uniform(-self.spread, self.spread))
        return self.inner.act(view, legal)


class Joins:
    """Which seats have had a Snapshot since counting (re)started, and which failed."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.started = time.monotonic()
        self.last = self.started
        self.joined: set[str] = set()
        self.failed: Counter[str] = Counter()
        self.done = asyncio.Event()

    def restart(self) -> None:
        self.started = self.last = time.monotonic()
        self.joined.clear()
        self.done.clear()

    def snapshot(self, player_id: str) -> None:
        if player_id not in self.joined:
            self.joined.add(player_id)
            self.last = time.monotonic()
            self._check()

    def fail(self, code: str) -> None:
        self.failed[code] += 1
        self._check()

    def _check(self) -> None:
        if len(self.joined) + sum(self.failed.values()) >= self.seats:
            self.done.set()

    def record(self, event: str) -> dict[str, Any]:
        return {
            "event": event,
            "seats": self.seats,
            "joined": len(self.joined),
            "failed": dict(self.failed),
            "seconds": round(self.last - self.started, 3),
        }


async def _stdin() -> asyncio.StreamReader:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=SPEC_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


def _code_of(error: BaseException) -> str:
    code = getattr(error, "code", None)
    if callable(code):
        value = code()
        if isinstance(value, grpc.StatusCode):
            return value.name
    return type(error).__name__


async def _report(joins: Joins, event: str, timeout: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(joins.done.wait(), timeout)
    print(json.dumps(joins.record(event)), flush=True)


async def run() -> dict[str, Any]:
    stdin = await _stdin()
    spec: dict[str, Any] = json.loads(await stdin.readline())
    bots: list[dict[str, Any]] = spec["bots"]
    timeout = float(spec.get("timeout_s", 120.0))
    think_s, jitter = float(spec.get("think_s", 1.0)), float(spec.get("jitter", 0.5))
    channels = [
        player_channel(spec["target"], spec.get("ca_file")) for _ in range(max(1, spec["streams"]))
    ]
    muxes = [Multiplexer(channel, via="table") for channel in channels]
    joins = Joins(len(bots))
    stop = asyncio.Event()

    def hook(player_id: str) -> Any:
        def on_event(event: table_pb2.TableEvent, view: TableView) -> None:
            if event.WhichOneof("event") == "snapshot":
                joins.snapshot(player_id)

        return on_event

    async def one(n: int, bot: dict[str, Any]) -> PlayStats:
        try:
            return await play(
                muxes[n % len(muxes)],
                bot["table_id"],
                bot["player_id"],
                bot["token"],
                PacedBot(int(bot["seed"]), think_s, jitter),
                stop=stop,
                on_event=hook(bot["player_id"]),
                when_busted="wait",
            )
        except Exception as error:
            joins.fail(_code_of(error))
            raise

    joins.restart()
    tasks = [asyncio.create_task(one(n, b)) for n, b in enumerate(bots)]
    await _report(joins, "joined", timeout)
    reports: set[asyncio.Task[None]] = set()
    while True:
        line = (await stdin.readline()).decode().strip()
        if line == "rejoin":
            joins.restart()
            reports.add(asyncio.create_task(_report(joins, "rejoined", timeout)))
        elif line == "stop" or not line:
            break
    stop.set()
    outcomes = await asyncio.wait_for(
        asyncio.gather(*tasks, return_exceptions=True), STOP_TIMEOUT_S
    )
    for mux in muxes:
        await mux.close()
    for channel in channels:
        await channel.close()
    stats = [o for o in outcomes if isinstance(o, PlayStats)]
    errors = [f"{type(o).__name__}: {o}" for o in outcomes if isinstance(o, BaseException)]
    return {
        "event": "results",
        "bots": len(bots),
        "hands": sum(s.hands for s in stats),
        "actions": sum(s.actions for s in stats),
        "reconnects": sum(s.reconnects for s in stats),
        "stopped_by": sorted({s.stopped_by for s in stats}),
        "errors": errors[:10],
        "clean": not errors and all(s.stopped_by == "stop" for s in stats),
    }


def main() -> int:
    results = event_loop.run(run())
    print(json.dumps(results), flush=True)
    return 0 if results["clean"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
