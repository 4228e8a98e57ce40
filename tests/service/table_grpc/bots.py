"""A table that deals without end in this process: random bots at a stud table
(``tests.support.phh_room``: the table's manager, runtime and servicer over the
real lobby, dealer, betting and showdown servicers), paced like a real one."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

from service_kit.logs import quieted
from services.table.viewers import WatchLimits
from tests.support.phh_room import Room, TableRun

from .inroom import STUD

# What a downstream call costs the table at least: in-process the servicers never
# wait, so without it a hand would run in one go, never giving the event loop to
# the streams, and many times faster than any table over a network deals.
CALL_LATENCY_S = 0.001


async def table_with_bots(watch: WatchLimits, hands: int, seed: int) -> tuple[Room, TableRun]:
    """A running stud table of four random bots (they answer their turns once
    ``room.play`` runs it to ``hands`` finished hands), with ``watch`` limits."""
    room = Room(seed=seed, timeout_p=0.0)
    in_process = room.ds.call

    async def over_the_wire(service: str, method: str, request: Any) -> Any:
        await asyncio.sleep(CALL_LATENCY_S)
        return await in_process(service, method, request)

    room.ds.call = over_the_wire  # type: ignore[method-assign]
    room.manager.watch = watch
    run = await room.create_table(STUD, seats=4, target=hands)
    await room.manager.refresh()  # the runtime starts (with ``watch``)
    return room, run


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """The services' info logs off (a few lines a hand)."""
    with quieted("error"):
        yield
