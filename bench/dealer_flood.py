"""The dealer under a flood: how fast the room deals while one caller opens
10,000 decks and never closes them (issue: "a caller that opens 10,000 decks
without closing them hits its own limit while the other callers' tables keep
dealing").

The room is the main job's (five tables, reference bots in this process); the
flooder is a process of its own holding the table's certificate (the only
identity the dealer deals for: a runaway table-service process), calling
``OpenDeck`` one call after another on its own connection, as the outside test
did.  The dealer gives it ``DEALER_MAX_OPEN_DECKS_PER_CALLER`` decks and
RESOURCE_EXHAUSTED for the rest.  The figure is the room's hands a second while
the flood runs, as a ratio to the same room's just before (the anchor, same run).

``python -m bench.dealer_flood``: print the keys (``make bench`` runs it as the
``dealer_flood`` group).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import time

import grpc

from devroom.busy_room import busy_room, play_until
from devroom.room import Room
from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.dealer.v1 import dealer_pb2_grpc
from poker_wire.channels import service_channel

FLOOD = 10_000
BASELINE_S = 8.0
# The bots think this long a decision: the room below what two cores do flat out,
# as a room of people is.  Flat out (0), every CPU cycle the flood takes is a
# cycle the tables lose, whatever the dealer does (see docs/trust-model.md).
THINK_MS = 20.0


async def hands(room: Room) -> int:
    await room.progress()
    return sum(t.hands for t in room.tables)


async def flood(target: str, tls_dir: str) -> dict[str, int]:
    """Open FLOOD decks one call at a time; count what was opened and refused."""
    opened = refused = 0
    request = dpb.OpenDeckRequest(game=common.GAME_STUD, players=6, hand_id="f", table_id="f")
    async with service_channel(target, tls_dir) as channel:
        stub = dealer_pb2_grpc.DealerStub(channel)
        for _ in range(FLOOD):
            try:
                await stub.OpenDeck(request, timeout=5)
                opened += 1
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    raise
                refused += 1
    return {"opened": opened, "refused": refused}


async def measure(stack: Stack, think_ms: float, prefix: str) -> dict[str, float]:
    assert stack.pki is not None
    # The bots at the table's port, as when the figures of docs/performance.md were
    # taken (the door's hop is the door group's to measure).
    async with busy_room(stack, think_ms=think_ms, via="table") as playing:
        room = playing.room
        await play_until(playing, 2)
        start, began = await hands(room), time.monotonic()
        while time.monotonic() - began < BASELINE_S:
            await room.rebuy_broke()
            await asyncio.sleep(0.25)
        baseline = (await hands(room) - start) / (time.monotonic() - began)
        flooder = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.dealer_flood",
            "--flood",
            stack["dealer"].target,
            str(stack.pki.dir("table")),
            stdout=subprocess.PIPE,
        )
        start, began = await hands(room), time.monotonic()
        while flooder.returncode is None:
            await room.rebuy_broke()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(flooder.wait(), 0.25)
        during = (await hands(room) - start) / (time.monotonic() - began)
        seconds = time.monotonic() - began
        assert flooder.stdout is not None
        counts = json.loads((await flooder.stdout.read()).decode() or "{}")
        if flooder.returncode != 0:
            raise RuntimeError(f"the flooder failed: exit {flooder.returncode}")
    return {
        f"{prefix}_think_ms": think_ms,
        f"{prefix}_baseline_hands_per_s": round(baseline, 1),
        f"{prefix}_hands_per_s": round(during, 1),
        f"{prefix}_ratio": round(during / baseline, 3) if baseline else 0.0,
        f"{prefix}_seconds": round(seconds, 1),
        f"{prefix}_decks_opened": counts.get("opened", 0),
        f"{prefix}_decks_refused": counts.get("refused", 0),
    }


def run() -> dict[str, float]:
    """The ``dealer_flood`` group of ``bench.run``: the room at a pace
    (``dealer_flood_*``), and flat out (``dealer_flood_flat_out_*``), where the
    flooder's own CPU is taken from the tables on two cores."""
    figures: dict[str, float] = {}
    for think_ms, prefix in ((THINK_MS, "dealer_flood"), (0.0, "dealer_flood_flat_out")):
        with Stack(ports="free") as stack:
            figures |= asyncio.run(measure(stack, think_ms, prefix))
    return figures


def main(argv: list[str]) -> int:
    if argv[:1] == ["--flood"]:
        print(json.dumps(asyncio.run(flood(argv[1], argv[2]))))
        return 0
    for key, value in run().items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
