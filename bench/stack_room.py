"""The room of the full-stack benchmark: its tables and players, made through the
lobby, and the separate process its bots play in (``python -m bench.stack_bots``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, TypeVar

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]
CONFIG = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=5, bring_in=10, small_bet=20, big_bet=40
)
MIN_BUY_IN = 400
BUY_IN = 1_000_000  # a hand costs at most a few hundred chips: nobody busts in a run
CLOCK_MS = 5_000
CALL_TIMEOUT_S = 30.0  # setup calls (a busy machine's lobby may take a while)
CONNECT_TIMEOUT_S = 40.0
BOTS_STOP_TIMEOUT_S = 20.0
# Setup calls in flight at once: the scale group's room is 1,000 tables and 6,000
# players, and its setup is not what is measured (a burst of 6,000 calls at once
# is acceptance point 5's test, not this bench's).
SETUP_CONCURRENCY = 50

_T = TypeVar("_T")
_I = TypeVar("_I")


async def _bounded(
    call: Callable[[_I], Awaitable[_T]], items: Iterable[_I], limit: int = SETUP_CONCURRENCY
) -> list[_T]:
    """``call`` of every item, as ``asyncio.gather`` would, but at most ``limit``
    calls in flight (a call starts only when it has its place: a grpc.aio call
    starts when it is made)."""
    gate = asyncio.Semaphore(limit)

    async def one(item: _I) -> _T:
        async with gate:
            return await call(item)

    return await asyncio.gather(*(one(item) for item in items))


async def create_room(lobby: Any, tables: int, seats: int) -> list[list[dict[str, Any]]]:
    """``tables`` tables and a player per seat; each table's bots' credentials.

    ``lobby``: the lobby's ``CreateTable``, ``RegisterPlayer`` and ``GrantChips``
    as the operator (``poker_wire.channels.Stubs`` of ``LobbyStub`` and
    ``LobbyOperatorStub`` on an operator's channel): play money beyond the
    registration grant is the operator's to give.  (Registered with the grant,
    then granted more, so a ``--plaintext`` run, which has no identities, makes
    the same room.)"""
    made = await _bounded(
        lambda t: lobby.CreateTable(
            lpb.CreateTableRequest(
                name=f"bench {t + 1}",
                config=CONFIG,
                seats=seats,
                min_buy_in=MIN_BUY_IN,
                action_clock_ms=CLOCK_MS,
            ),
            timeout=CALL_TIMEOUT_S,
        ),
        range(tables),
    )
    registered = await _bounded(
        lambda name: lobby.RegisterPlayer(
            lpb.RegisterPlayerRequest(name=name), timeout=CALL_TIMEOUT_S
        ),
        (f"bot {t + 1}.{s + 1}" for t in range(tables) for s in range(seats)),
    )
    await _bounded(
        lambda reply: lobby.GrantChips(
            lpb.GrantChipsRequest(player_id=reply.player.player_id, amount=BUY_IN),
            timeout=CALL_TIMEOUT_S,
        ),
        registered,
    )
    room = []
    for t, table in enumerate(made):
        room.append(
            [
                {
                    "table_id": table.table_id,
                    "player_id": reply.player.player_id,
                    "token": reply.token,
                    "seat": s + 1,
                    "seed": t * seats + s + 1,
                }
                for s, reply in enumerate(registered[t * seats : (t + 1) * seats])
            ]
        )
    return room


async def seat_everyone(
    lobby: lobby_pb2_grpc.LobbyAsyncStub, bots: Iterable[dict[str, Any]]
) -> None:
    await _bounded(
        lambda b: lobby.SitDown(
            lpb.SitDownRequest(
                player_id=b["player_id"],
                token=b["token"],
                table_id=b["table_id"],
                seat=b["seat"],
                buy_in=BUY_IN,
            ),
            timeout=CALL_TIMEOUT_S,
        ),
        bots,
    )


# Spectators are people, each on a connection of their own; the benchmark's client
# shares a connection among this many (HTTP/2 schedules a connection's streams
# with a priority tree whose cost grows with their number: 500 streams on one
# connection cost the gateway three times what 20 do).
SPECTATORS_PER_CONNECTION = 20


async def spectators_spec(
    lobby: Any, table_ids: list[str], spectators: int, per_player: int
) -> dict[str, Any]:
    """Accounts for ``spectators`` Watch streams (``per_player`` each, registered
    by the operator: the gateway limits registrations per address), spread evenly
    over the tables; and one more account for the limit probe (``per_player`` + 5
    streams at once, the extra ones to be refused)."""
    accounts = -(-spectators // per_player) + 1
    made = await asyncio.gather(
        *(
            lobby.RegisterPlayer(
                lpb.RegisterPlayerRequest(name=f"spectator {n + 1}"), timeout=CALL_TIMEOUT_S
            )
            for n in range(accounts)
        )
    )
    credentials = [f"{m.player.player_id}.{m.token}" for m in made]
    return {
        "channels": max(4, -(-spectators // SPECTATORS_PER_CONNECTION)),
        "watchers": [
            {"table_id": table_ids[i % len(table_ids)], "credential": credentials[i // per_player]}
            for i in range(spectators)
        ],
        "probe": {
            "table_id": table_ids[0],
            "credential": credentials[-1],
            "streams": per_player + 5,
        },
    }


class BotsProcess:
    """``python -m bench.stack_bots`` (or another such ``module``: the spectators'):
    spec in, ``connected``, ``measure``, ``stop``, results."""

    def __init__(self, module: str = "bench.stack_bots", *, niceness: int = 0) -> None:
        self.module = module
        # > 0: the process yields the CPUs to the room's when both want them (the
        # spectators' client stands for 2,000 people's own machines).
        self.niceness = niceness
        self.proc: asyncio.subprocess.Process | None = None
        self.returncode: int | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self, spec: Mapping[str, Any]) -> None:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            self.module,
            cwd=ROOT,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            preexec_fn=(lambda: os.nice(self.niceness)) if self.niceness else None,
        )
        await self.send(json.dumps(spec))

    async def send(self, line: str) -> None:
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write(line.encode() + b"\n")
        await self.proc.stdin.drain()

    async def read(self, event: str, timeout: float) -> dict[str, Any]:
        """The next stdout record of this ``event`` (raises if the process ends first)."""
        assert self.proc is not None and self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        last = b""
        while True:
            remaining = deadline - time.monotonic()
            line = await asyncio.wait_for(self.proc.stdout.readline(), max(remaining, 0.01))
            if not line:
                code = await self.proc.wait()
                raise RuntimeError(
                    f"the bots' process ended (code {code}) before {event!r}; "
                    f"its last line: {last.decode(errors='replace')[:2000]}"
                )
            last = line
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict) and record.get("event") == event:
                    return record

    async def finish(self) -> dict[str, Any]:
        """``stop``, then the results; the exit code is kept in ``returncode``."""
        assert self.proc is not None
        await self.send("stop")
        results = await self.read("results", BOTS_STOP_TIMEOUT_S)
        self.returncode = await asyncio.wait_for(self.proc.wait(), BOTS_STOP_TIMEOUT_S)
        return results

    async def kill(self) -> None:
        proc = self.proc
        if proc is not None and proc.returncode is None:
            proc.kill()
            self.returncode = await proc.wait()
