"""The full-stack benchmark's bots: many ``RandomBot``s in one process of their own.

``python -m bench.stack_bots`` is started by ``bench.stack``; it reads a JSON spec
as the first line of stdin::

    {"target": "127.0.0.1:PORT", "ca_file": "/tmp/.../ca.crt", "channels": 1,
     "bots": [{"table_id": "...", "player_id": "...", "token": "...", "seed": 1,
               "target": "127.0.0.1:PORT2"}, ...]}

(optional: ``"think_ms"`` and ``"think_jitter"``, each bot's thinking time and its
uniform spread as a share of it; ``"connect_timeout_s"``, how long every bot may
take to get its Snapshot; ``"join_wave"``, how many join at once, each wave once
the one before is in) and plays every bot with ``poker_bots.sdk.play``
(``DELIVERY_ON_TURN``) over
``channels`` shared grpc.aio channels per table-service process (a bot's own
``target``, the public port of the shard that runs its table, or else the
spec's), TLS trusting the room's CA ``ca_file`` as any player's client
(``"plaintext": true``: a bench run of the services without TLS); ``"via":
"room"`` sends every bot through the gateway at ``target`` instead.  Then it
speaks in lines:

- stdout ``{"event": "connected", "bots": N}`` once every bot has its Snapshot (the
  bots are connected before they are seated, so they see the first hand whole);
- stdin ``measure``: the measurement window starts now (figures so far dropped);
- stdin ``stop`` (or stdin's end): the window ends, the bots leave their streams,
  and stdout gets one ``{"event": "results", ...}`` line; exit code 0 when every
  bot ended because it was asked to.

Turn latency, measured here, on the bots' side of the wire: for each action a bot
sends, the time until the next ``YourTurn`` of any bot of that table arrives (or
its ``HandFinished``, when the action ended the hand).  The clock starts when the
bot's ``act`` returns, just before the SDK writes the action.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

# First: gRPC core reads its I/O settings when grpc is first imported, and the
# bots' process is measured as the services are (service_kit.grpc_core).
import service_kit.grpc_core  # noqa: F401  # isort: skip
from grpc import aio

from poker.common.v1 import common_pb2
from poker.table.v1 import table_pb2
from poker_bots import Multiplexer, PlayStats, RandomBot, TableView, play
from poker_bots.many import Via
from poker_wire.channels import player_channel
from service_kit import loop as event_loop
from service_kit.heap import FullCollections, freeze_startup_heap
from service_kit.settings import ServerSettings, var_of

CONNECT_TIMEOUT_S = 30.0
JOIN_TRIES = 4  # a seat whose Join failed before it got in joins again, this often in all
STOP_TIMEOUT_S = 10.0


@dataclass
class Window:
    """The measurement window: latencies and counts taken inside it."""

    open: bool = False
    started: float = 0.0
    ended: float = 0.0
    latencies: list[float] = field(default_factory=list)
    # The same samples by what the table had to do in between: "turn" (the next
    # player, same street), "street" (the round ended: cards dealt, a new round
    # opened), "hand" (the action ended the hand without a showdown: HandFinished),
    # "showdown" (the action ended the hand at a showdown: Settle, then HandFinished).
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    hands_seen: int = 0  # HandFinished events received by all bots
    actions: int = 0
    events: int = 0
    events_by_kind: dict[str, int] = field(default_factory=dict)
    snapshots: int = 0
    # PlayMany bytes received before the window opened (the figure is the difference)
    bytes_before: int = 0
    bytes_received: int = 0  # in the window


class TableClock:
    """One table's pending action: when it was sent."""

    __slots__ = ("pending", "showdown_hand", "street")

    def __init__(self) -> None:
        self.pending: float | None = None
        self.street = 0  # the street the pending action was taken on
        self.showdown_hand = ""  # the last hand of this table that reached a showdown


class TimedBot:
    """A ``RandomBot`` that starts its table's clock when it has decided."""

    def __init__(self, seed: int, clock: TableClock, window: Window) -> None:
        self.inner = RandomBot(seed)
        self.clock = clock
        self.window = window

    def act(self, view: TableView, legal: common_pb2.LegalActions) -> common_pb2.Action:
        action = self.inner.act(view, legal)
        self.clock.pending = time.perf_counter()
        self.clock.street = view.street
        if self.window.open:
            self.window.actions += 1
        return action


class ThinkingBot(TimedBot):
    """A ``TimedBot`` that thinks ``think_s`` before deciding (the SDK's async bot
    form): the room is paced, and the clock still starts once it has decided.

    ``jitter`` (0..1): each thought lasts a uniform ``think_s * (1 +/- jitter)``
    (seeded per bot), as people do: without it a thousand tables that started
    together stay in step, and their turns arrive in waves that no room sees."""

    def __init__(
        self, seed: int, clock: TableClock, window: Window, think_s: float, jitter: float = 0.0
    ) -> None:
        super().__init__(seed, clock, window)
        self.think_s = think_s
        self.jitter = jitter
        self.rng = random.Random(seed)

    async def act(  # type: ignore[override]
        self, view: TableView, legal: common_pb2.LegalActions
    ) -> common_pb2.Action:
        spread = self.think_s * self.jitter
        await asyncio.sleep(self.think_s + self.rng.uniform(-spread, spread))
        return super().act(view, legal)


def _percentile(sorted_values: Sequence[float], q: float) -> float:
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))]


SPEC_LIMIT = 64 * 1024 * 1024  # the spec is one line: 1,000 tables' bots are ~1 MB


async def _stdin() -> asyncio.StreamReader:
    """stdin as a stream whose lines may be as long as a spec (asyncio's default
    limit, 64 KiB, is about 70 tables' bots)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=SPEC_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    return reader


async def _commands(
    stdin: asyncio.StreamReader,
    window: Window,
    stop: asyncio.Event,
    received: Callable[[], int],
) -> None:
    """stdin lines: ``measure`` opens the window, ``stop`` (or EOF) ends everything.
    ``received``: the PlayMany bytes received so far."""
    while True:
        line = (await stdin.readline()).decode().strip()
        if line == "measure":
            window.bytes_before = received()
            window.latencies.clear()
            window.by_kind.clear()
            window.hands_seen = window.actions = window.events = 0
            window.events_by_kind.clear()
            window.started = time.perf_counter()
            window.open = True
        elif line == "stop" or not line:
            if window.open:
                window.ended = time.perf_counter()
                window.bytes_received = received() - window.bytes_before
                window.open = False
            stop.set()
            return


async def run() -> dict[str, Any]:
    stdin = await _stdin()
    spec: dict[str, Any] = json.loads(await stdin.readline())
    bots: list[dict[str, Any]] = spec["bots"]
    window = Window()
    stop = asyncio.Event()
    connected = asyncio.Event()
    joined: set[str] = set()
    clocks: dict[str, TableClock] = {b["table_id"]: TableClock() for b in bots}
    per_target = max(1, spec["channels"])
    think_s = float(spec.get("think_ms", 0.0)) / 1000
    jitter = float(spec.get("think_jitter", 0.0))
    connect_timeout_s = float(spec.get("connect_timeout_s", CONNECT_TIMEOUT_S))
    many = spec.get("transport", "play") == "many"
    # The tables' public ports, trusting the room's CA (plaintext: a bench run
    # of the services without TLS).
    ca_file: str | None = spec.get("ca_file")
    plaintext = bool(spec.get("plaintext", False))
    # "room": through the gateway (one door for every table); "table": each bot at
    # the public port of its table's shard (the direct figures).
    via: Via = "room" if spec.get("via") == "room" else "table"
    channels: dict[str, list[aio.Channel]] = {}
    connections: dict[str, list[aio.Channel | Multiplexer]] = {}
    for b in bots:
        target = b.setdefault("target", spec["target"])
        if target not in channels:
            channels[target] = [
                player_channel(target, ca_file, plaintext=plaintext) for _ in range(per_target)
            ]
            # "many": every seat over one PlayMany stream per channel; "play": a
            # Play stream per seat.
            connections[target] = [Multiplexer(c, via=via) if many else c for c in channels[target]]

    def hook_for(player_id: str, clock: TableClock) -> Any:
        def on_event(event: table_pb2.TableEvent, view: TableView) -> None:
            kind = event.WhichOneof("event")
            if window.open and kind is not None:
                window.events += 1
                counts = window.events_by_kind
                counts[kind] = counts.get(kind, 0) + 1
            if kind in {"your_turn", "hand_finished"}:
                now = time.perf_counter()
                sent = clock.pending
                if sent is not None:
                    clock.pending = None
                    if window.open:
                        window.latencies.append(now - sent)
                        what = (
                            ("showdown" if clock.showdown_hand == event.hand_id else "hand")
                            if kind == "hand_finished"
                            else "turn"
                            if view.street == clock.street
                            else "street"
                        )
                        window.by_kind.setdefault(what, []).append(now - sent)
                if kind == "hand_finished" and window.open:
                    window.hands_seen += 1
            elif kind == "showdown":
                clock.showdown_hand = event.hand_id
            elif kind == "snapshot":
                if window.open:
                    window.snapshots += 1
                if player_id not in joined:
                    joined.add(player_id)
                    if len(joined) == len(bots):
                        connected.set()

        return on_event

    def start(i: int, b: dict[str, Any]) -> asyncio.Task[PlayStats]:
        return asyncio.create_task(
            play(
                connections[b["target"]][i % per_target],
                b["table_id"],
                b["player_id"],
                b["token"],
                (
                    ThinkingBot(int(b["seed"]), clocks[b["table_id"]], window, think_s, jitter)
                    if think_s > 0
                    else TimedBot(int(b["seed"]), clocks[b["table_id"]], window)
                ),
                delivery=table_pb2.DELIVERY_ON_TURN,
                stop=stop,
                on_event=hook_for(b["player_id"], clocks[b["table_id"]]),
                max_reconnects=0,
                via=via,
                # a broke bot's seat waits (the bench's measure is the table's pace,
                # and "clean" means every bot ended because it was asked to)
                when_busted="wait",
            )
        )

    # The joins go in waves of ``join_wave`` (0: all at once), each wave once the
    # one before has its Snapshots, and a seat whose Join failed before it got in
    # joins again (``JOIN_TRIES`` in all): a burst of thousands of Joins made the
    # lobby's Authenticate answer CANCELLED, which the table passes on as INTERNAL
    # (issue 19; the burst is the lobby's to absorb, not this bench's to measure).
    wave = int(spec.get("join_wave", 0)) or len(bots)
    tasks: list[asyncio.Task[PlayStats]] = []
    tries = [1] * len(bots)
    deadline = time.monotonic() + connect_timeout_s
    for first in range(0, len(bots), wave):
        tasks += [start(i, b) for i, b in enumerate(bots[first : first + wave], first)]
        while len(joined) < len(tasks) and time.monotonic() < deadline:
            failed = [
                i
                for i, task in enumerate(tasks)
                if task.done() and bots[i]["player_id"] not in joined
            ]
            if any(tries[i] >= JOIN_TRIES for i in failed):
                break  # the connection fails (``connected`` is not set)
            for i in failed:
                tries[i] += 1
                tasks[i] = start(i, bots[i])
            await asyncio.sleep(0.05)
    muxes = [c for group in connections.values() for c in group if isinstance(c, Multiplexer)]
    commands = asyncio.create_task(
        _commands(stdin, window, stop, lambda: sum(m.bytes_received for m in muxes))
    )
    waiter = asyncio.create_task(connected.wait())
    done, _ = await asyncio.wait(
        [waiter, *tasks],
        timeout=max(0.01, deadline - time.monotonic()),
        return_when=asyncio.FIRST_COMPLETED,
    )
    if waiter in done:
        # As the services do once they serve (service_kit.heap): the bots' own
        # full collections (up to 350 ms at 6,000 seats) would stall every
        # measured turn as a service's would.
        freeze_startup_heap()
        FullCollections(
            var_of(ServerSettings, "gc_full_growth").read(),
            young=var_of(ServerSettings, "gc_young").read(),
        ).start()
        print(json.dumps({"event": "connected", "bots": len(bots)}), flush=True)
    else:
        waiter.cancel()
        stop.set()  # a bot failed to connect, or the connections took too long
    await stop.wait()
    outcomes = await asyncio.wait_for(
        asyncio.gather(*tasks, return_exceptions=True), STOP_TIMEOUT_S
    )
    commands.cancel()
    for mux in muxes:
        await mux.close()
    for channel in (c for group in channels.values() for c in group):
        await channel.close()

    stats = [o for o in outcomes if isinstance(o, PlayStats)]
    errors = [f"{type(o).__name__}: {o}" for o in outcomes if isinstance(o, BaseException)]
    latencies = sorted(window.latencies)
    span = (window.ended or time.perf_counter()) - window.started if window.started else 0.0
    return {
        "event": "results",
        "bots": len(bots),
        "connected": connected.is_set(),
        "window_s": span,
        "latency_samples": len(latencies),
        "latency_p50_ms": statistics.median(latencies) * 1000 if latencies else 0.0,
        "latency_p99_ms": _percentile(latencies, 0.99) * 1000 if latencies else 0.0,
        "latency_max_ms": latencies[-1] * 1000 if latencies else 0.0,
        "latency_by_kind": {
            kind: {
                "samples": len(values),
                "p50_ms": round(statistics.median(values) * 1000, 2),
                "p99_ms": round(_percentile(sorted(values), 0.99) * 1000, 2),
            }
            for kind, values in sorted(window.by_kind.items())
        },
        "hands_seen": window.hands_seen,
        "join_retries": sum(tries) - len(bots),  # Joins tried again (see JOIN_TRIES)
        # PlayMany stream messages over the whole run (both ways), for per-hand ratios
        "many_messages_sent": sum(m.messages_sent for m in muxes),
        "many_messages_received": sum(m.messages_received for m in muxes),
        "many_bytes_received": window.bytes_received,  # PlayMany bytes, in the window
        "actions": window.actions,
        "events": window.events,
        "events_by_kind": dict(sorted(window.events_by_kind.items())),
        "snapshots_in_window": window.snapshots,
        "hands_total": sum(s.hands for s in stats),
        "actions_total": sum(s.actions for s in stats),
        "rejected": sum(s.rejected for s in stats),
        "fallbacks": sum(s.fallbacks for s in stats),
        "bot_errors": sum(s.bot_errors for s in stats),
        "reconnects": sum(s.reconnects for s in stats),
        "busted": sum(1 for s in stats if s.final_stack == 0),
        "stopped_by": sorted({s.stopped_by for s in stats}),
        "errors": errors[:10],
        "clean": not errors and all(s.stopped_by == "stop" for s in stats),
    }


def main() -> int:
    results = event_loop.run(run())  # EVENT_LOOP, as the services
    print(json.dumps(results), flush=True)
    return 0 if results["clean"] and results["connected"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
