"""The room's door as the CLI calls it: ``poker.room.v1.Room`` at ``--room`` (the
gateway), server TLS trusting the room's CA (``--ca``), and the player's bearer
credential in each call's metadata."""

from __future__ import annotations

import argparse
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from grpc import aio

from poker.room.v1 import room_pb2_grpc
from poker_wire.channels import player_channel

Metadata = tuple[tuple[str, str], ...]


def bearer(credential: str) -> Metadata:
    """The metadata that says who calls (``authorization: Bearer <credential>``);
    none without a credential."""
    return (("authorization", f"Bearer {credential}"),) if credential else ()


@asynccontextmanager
async def room_channel(args: argparse.Namespace) -> AsyncIterator[aio.Channel]:
    """A channel to the room's door, closed when the block ends."""
    async with player_channel(args.room, args.ca) as channel:
        yield channel


@asynccontextmanager
async def room(args: argparse.Namespace) -> AsyncIterator[room_pb2_grpc.RoomAsyncStub]:
    """The Room API at the room's door, for the block."""
    async with room_channel(args) as channel:
        yield room_pb2_grpc.RoomStub(channel)
