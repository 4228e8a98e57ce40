"""A room behind its door, for the gateway's system tests: three table-service
shards, tables on every shard, reference bots playing through the gateway.

The bots are SDK bots (``poker_bots.play``, ``via="room"``) that registered and
sat down through the gateway's Room API too: nothing here talks to a shard.
The tables are created by the operator on the lobby's internal port, until
every shard runs at least ``PER_SHARD`` of them; each has ``BOTS`` bots and
free seats for the clients under test.  The bots think ``THINK_S`` a decision,
so a client's hands come at a pace the machine keeps up with.  A bot that busts
buys in again (``Rebuy``): a heads-up table with a busted seat would stop dealing.
"""

from __future__ import annotations

import asyncio
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from devroom.busy_room import Thinking
from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc
from poker_bots import PlayStats, Rebuy, make_bot, play
from poker_wire.channels import player_channel, staff_lobby

SHARDS = 3
PER_SHARD = 2
BOTS = 2
THINK_S = 0.05
CLOCK_MS = 4_000
MIN_BUY_IN = 200
STUD = common.GameConfig(game=common.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)


@dataclass
class Door:
    """The room as a client sees it: one address, the CA, the tables."""

    stack: Stack
    target: str
    ca_file: str
    table_ids: list[str]
    bot_stats: list[PlayStats] = field(default_factory=list)
    bot_errors: list[BaseException] = field(default_factory=list)

    def shard_of(self, table_id: str) -> int:
        """Which shard runs ``table_id`` (the tests' bookkeeping; no client
        computes it)."""
        return zlib.crc32(table_id.encode()) % SHARDS


async def _tables(stack: Stack) -> list[str]:
    """Stud tables until every shard runs PER_SHARD of them."""
    per_shard: dict[int, list[str]] = {s: [] for s in range(SHARDS)}
    async with stack["lobby"].aio_channel("operator") as channel:
        lobby = staff_lobby(channel)
        while any(len(ids) < PER_SHARD for ids in per_shard.values()):
            table = await lobby.CreateTable(
                lpb.CreateTableRequest(
                    name=f"door {sum(map(len, per_shard.values())) + 1}",
                    config=STUD,
                    seats=6,
                    min_buy_in=MIN_BUY_IN,
                    action_clock_ms=CLOCK_MS,
                )
            )
            shard = zlib.crc32(table.table_id.encode()) % SHARDS
            if len(per_shard[shard]) < PER_SHARD:
                per_shard[shard].append(table.table_id)
            else:  # one too many on this shard: not used, nobody sits there
                pass
    return [t for ids in per_shard.values() for t in ids]


async def _bots(door: Door, stop: asyncio.Event, ready: threading.Event) -> None:
    async with player_channel(door.target, door.ca_file) as channel:
        room = rpb_grpc.RoomStub(channel)
        tasks: list[asyncio.Task[PlayStats]] = []
        for table_id in door.table_ids:
            for n in range(BOTS):
                made = await room.Register(rpb.RegisterRequest(name=f"bot {n + 1}"))
                auth = (("authorization", f"Bearer {made.credential}"),)
                await room.SitDown(
                    rpb.SitDownRequest(table_id=table_id, buy_in=MIN_BUY_IN * 5), metadata=auth
                )
                player_id, _, token = made.credential.rpartition(".")
                bot = Thinking(make_bot("strength", seed=len(tasks) + 1), THINK_S)
                tasks.append(
                    asyncio.create_task(
                        play(
                            channel,
                            table_id,
                            player_id,
                            token,
                            bot,
                            stop=stop,
                            via="room",
                            rebuy=Rebuy(MIN_BUY_IN * 5),
                        )
                    )
                )
        ready.set()
        results: list[Any] = await asyncio.gather(*tasks, return_exceptions=True)
        for result in results:
            if isinstance(result, BaseException):
                door.bot_errors.append(result)
            else:
                door.bot_stats.append(result)


@contextmanager
def door_room() -> Iterator[Door]:
    """The room (three shards and the gateway) with bots playing, until the block ends."""
    with Stack(ports="free", table_shards=SHARDS) as stack:
        assert stack.pki is not None
        table_ids = asyncio.run(_tables(stack))
        door = Door(stack, stack.gateway_target, str(stack.pki.ca_file), table_ids)
        ready = threading.Event()
        loop = asyncio.new_event_loop()
        stop = asyncio.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(_bots(door, stop, ready))

        thread = threading.Thread(target=run, name="door bots", daemon=True)
        thread.start()
        if not ready.wait(60):
            raise RuntimeError("the door's bots did not sit down")
        try:
            yield door
        finally:
            loop.call_soon_threadsafe(stop.set)
            thread.join(30)
