"""The table service over real gRPC in the test's own process, its downstream
services in-process too.

Why: the tests of Act and of the Watch limits need the table's gRPC surface as
the room serves it (mutual TLS on the internal port, server TLS on the public
one, the kit's interceptors: metrics, who may call, errors; the handlers as
``services.table.server.add_table_services`` registers them) and need the
table's settings at test values, but not five processes: the lobby, dealer,
betting and showdown are the real servicers called in-process
(``tests.support.phh_room.InProcessDownstream``, the lobby on SQLite in memory),
so a test plays a hand in milliseconds and can look at the table's runtime
(``room.runtime(table_id)``) to know whose turn it is.

    async with in_room(WatchLimits(per_client=2)) as room:
        table_id = await room.create_table(clock_ms=600_000)
        players = await room.seat(table_id, 2)
        async with room.player_channel() as channel: ...
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

import grpc

from devroom.launcher import shared_pki
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from poker_wire.channels import player_channel, service_channel
from service_kit.authz import AccessInterceptor, policies
from service_kit.errors import ErrorInterceptor
from service_kit.metrics import PrometheusInterceptor
from service_kit.pki import Pki
from service_kit.ratelimit import RateLimiter
from service_kit.tls import server_credentials
from services.table.runtime import TableRuntime
from services.table.server import SERVICE_NAMES, add_table_services
from services.table.servicer import TableManager, TableServicer
from services.table.viewers import WatchLimits
from tests.support.phh_room import InProcessDownstream

STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
WAIT_S = 20.0  # a guard against hangs, never an assertion on speed


@dataclass(frozen=True)
class Seated:
    """A registered player at a table."""

    player_id: str
    token: str
    seat: int


@dataclass
class InRoom:
    """The running table service (``servicer``, ``manager``) and its ports."""

    ds: InProcessDownstream
    manager: TableManager
    servicer: TableServicer
    pki: Pki
    internal: str  # host:port, mutual TLS
    public: str  # host:port, server TLS

    def player_channel(self) -> grpc.aio.Channel:
        """A player's channel: the public port, no client certificate."""
        return player_channel(self.public, self.pki.ca_file)

    def service_channel(self, identity: str) -> grpc.aio.Channel:
        """The internal port as ``identity`` (``gateway``, ``operator``...)."""
        return service_channel(self.internal, self.pki.dir(identity))

    async def lobby(self, method: str, request: object) -> object:
        return await self.ds.call("lobby", method, request)

    async def create_table(
        self, config: common.GameConfig = STUD, *, seats: int = 2, clock_ms: int = 600_000
    ) -> str:
        """A new lobby table; the table service runs it once asked about it."""
        table = await self.ds.call(
            "lobby",
            "CreateTable",
            lpb.CreateTableRequest(
                name="in-room", config=config, seats=seats, min_buy_in=100, action_clock_ms=clock_ms
            ),
        )
        table_id: str = table.table_id
        return table_id

    async def register(self, name: str) -> Seated:
        reply = await self.ds.call("lobby", "RegisterPlayer", lpb.RegisterPlayerRequest(name=name))
        return Seated(reply.player.player_id, reply.token, 0)

    async def seat(self, table_id: str, count: int, buy_in: int = 1_000) -> list[Seated]:
        """``count`` new players sat at seats 1..count."""
        seated = []
        for n in range(1, count + 1):
            player = await self.register(f"p{n}-{table_id[-6:]}")
            await self.ds.call(
                "lobby",
                "SitDown",
                lpb.SitDownRequest(
                    player_id=player.player_id,
                    token=player.token,
                    table_id=table_id,
                    seat=n,
                    buy_in=buy_in,
                ),
            )
            seated.append(Seated(player.player_id, player.token, n))
        return seated

    async def runtime(self, table_id: str) -> TableRuntime:
        """The table's runtime (started now if it was not running)."""
        return await self.manager.get(table_id)

    async def turn(self, table_id: str) -> tuple[str, int, int]:
        """Wait for a turn of the table's hand: (hand_id, seat to act, action_seq)."""
        runtime = await self.runtime(table_id)
        for _ in range(int(WAIT_S / 0.01)):
            hand = runtime.hand
            if hand is not None and hand.turn is not None and not hand.turns.answered:
                return hand.hand_id, hand.turn.seat, hand.turn.action_seq
            await asyncio.sleep(0.01)
        raise TimeoutError(f"table {table_id}: no turn")


@contextlib.asynccontextmanager
async def serving(servicer: TableServicer) -> AsyncIterator[tuple[str, str]]:
    """``servicer`` on a gRPC server built as ``service_kit.server.serve`` builds
    the table's (its interceptors: metrics first, then who may call, then the
    error mapping; its handlers as the table registers them), on free ports of
    127.0.0.1: (internal, mutual TLS; public, server TLS), until the block ends."""
    pki = shared_pki()
    server = grpc.aio.server(
        interceptors=[
            PrometheusInterceptor(),
            AccessInterceptor(policies(SERVICE_NAMES), RateLimiter(1_000.0, 1_000)),
            ErrorInterceptor(),
        ]
    )
    add_table_services(servicer, server)
    tls_dir = pki.dir("table")
    internal = server.add_secure_port(
        "127.0.0.1:0", server_credentials(tls_dir, require_client_auth=True)
    )
    public = server.add_secure_port(
        "127.0.0.1:0", server_credentials(tls_dir, require_client_auth=False)
    )
    await server.start()
    try:
        yield f"127.0.0.1:{internal}", f"127.0.0.1:{public}"
    finally:
        await server.stop(0)


@contextlib.asynccontextmanager
async def in_room(watch: WatchLimits | None = None) -> AsyncIterator[InRoom]:
    """A table service with ``watch`` limits, served until the block ends."""
    ds = InProcessDownstream()
    manager = TableManager(
        ds,  # type: ignore[arg-type]
        discovery_s=3600,
        idle_poll_s=0.01,
        hand_pause_s=0,
        history_hands=100,
        watch=watch,
    )
    servicer = TableServicer(manager, allow_presets=False, audit_token="")
    try:
        async with serving(servicer) as (internal, public):
            yield InRoom(ds, manager, servicer, shared_pki(), internal, public)
    finally:
        await manager.stop()


def state_request(table_id: str, player: Seated) -> tpb.GetStateRequest:
    return tpb.GetStateRequest(table_id=table_id, player_id=player.player_id, token=player.token)
