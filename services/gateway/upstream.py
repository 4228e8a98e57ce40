"""The gateway's side of the internal plane: channels to the lobby and to every
table-service shard, as the identity ``gateway`` (mutual TLS), and the raw
stream calls whose messages it passes on as bytes (``codecs.Encoded``)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc as lpb_grpc
from poker.lobby.v1 import tournament_pb2_grpc as tour_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc as tpb_grpc
from poker_wire.channels import service_channel

from .credentials import Player
from .shards import ShardMap

T = TypeVar("T")
_TABLE = "/poker.table.v1.TableService/"
# Long-lived streams through one channel per shard: many at once, kept alive.
CHANNEL_OPTIONS = (
    ("grpc.keepalive_time_ms", 30_000),
    ("grpc.keepalive_timeout_ms", 10_000),
    ("grpc.http2.max_pings_without_data", 0),
)


class Upstream:
    """The lobby and the shards, and the calls the gateway makes of them."""

    def __init__(
        self,
        lobby_addr: str,
        shard_addrs: tuple[str, ...],
        tls_dir: str,
        *,
        refresh_s: float,
        deadline_s: float,
    ) -> None:
        self.deadline_s = deadline_s
        self._lobby_addr = lobby_addr
        self._shard_addrs = shard_addrs
        self._retired: list[grpc.aio.Channel] = []
        self._connect(tls_dir)
        self.shards = ShardMap(
            [tpb_grpc.TableServiceStub(c) for c in self._shard_channels],
            refresh_s=refresh_s,
            exists=self.table_exists,
            timeout_s=deadline_s,
        )

    def _connect(self, tls_dir: str) -> None:
        """Channels to the lobby and every shard with the certificate in ``tls_dir``."""
        self._lobby_channel = service_channel(self._lobby_addr, tls_dir, options=CHANNEL_OPTIONS)
        self.lobby = lpb_grpc.LobbyStub(self._lobby_channel)
        self.tournaments = tour_grpc.TournamentsStub(self._lobby_channel)
        self._shard_channels = [
            service_channel(address, tls_dir, options=CHANNEL_OPTIONS)
            for address in self._shard_addrs
        ]

    async def renew(self, tls_dir: str, *, retire_s: float) -> None:
        """The gateway's certificate was renewed: new calls go over new channels
        made with it; the old ones close after ``retire_s`` (a stream still on
        them then ends, and its client reconnects)."""
        old = [self._lobby_channel, *self._shard_channels]
        self._connect(tls_dir)
        self.shards.replace([tpb_grpc.TableServiceStub(c) for c in self._shard_channels])
        self._retired.extend(old)
        await asyncio.sleep(retire_s)
        for channel in old:
            await channel.close()
            self._retired.remove(channel)

    async def check(self, player: Player) -> None:
        """Accept the credential or raise the lobby's refusal (credentials.Check)."""
        await self.lobby.GetPlayer(
            lpb.GetPlayerRequest(player_id=player.player_id, token=player.token),
            timeout=self.deadline_s,
        )

    async def table_exists(self, table_id: str) -> bool:
        try:
            await self.lobby.GetTable(
                lpb.GetTableRequest(table_id=table_id), timeout=self.deadline_s
            )
        except grpc.aio.AioRpcError as error:
            if error.code() == grpc.StatusCode.NOT_FOUND:
                return False
            raise
        return True

    async def on_table(
        self, table_id: str, call: Callable[[int], Awaitable[T]], *, closed_ok: bool = False
    ) -> T:
        """``call(shard)`` on the shard that runs ``table_id``; when that shard
        says it does not (the table moved), once more where the map then says.
        ``closed_ok``: a reader of finished hands (``ShardMap.shard_of``)."""
        shard = await self.shards.shard_of(table_id, closed_ok=closed_ok)
        try:
            return await call(shard)
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.NOT_FOUND or "run here" not in (
                error.details() or ""
            ):
                raise
            self.shards.moved(table_id)
            again = await self.shards.shard_of(table_id, closed_ok=closed_ok)
            if again == shard:
                raise
            return await call(again)

    def table(self, shard: int) -> tpb_grpc.TableServiceAsyncStub:
        return self.shards.stub(shard)

    def raw_play(self, shard: int) -> Any:
        """Play on ``shard``: PlayerMessages up, serialized TableEvents down."""
        return self._shard_channels[shard].stream_stream(
            _TABLE + "Play", request_serializer=tpb.PlayerMessage.SerializeToString
        )

    def raw_play_many(self, shard: int) -> Any:
        """PlayMany on ``shard``: serialized PlayManyRequests up (the gateway
        joins those that queue), serialized PlayManyEvents down."""
        return self._shard_channels[shard].stream_stream(_TABLE + "PlayMany")

    def raw_watch(self, shard: int) -> Any:
        """Watch on ``shard``: serialized TableEvents down."""
        return self._shard_channels[shard].unary_stream(
            _TABLE + "Watch", request_serializer=tpb.WatchRequest.SerializeToString
        )

    def start(self) -> None:
        self.shards.start()

    async def close(self) -> None:
        await self.shards.stop()
        for channel in [self._lobby_channel, *self._shard_channels, *self._retired]:
            await channel.close()
