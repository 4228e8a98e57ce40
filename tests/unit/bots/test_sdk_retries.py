"""What play() retries (docs/bots.md#reconnects-and-retries): a Join the table
refused because of a burst (RESOURCE_EXHAUSTED: too many joins queued) or that
waited past its deadline (DEADLINE_EXCEEDED) is sent again, with backoff, and the
seat plays on; a refusal of the player (PERMISSION_DENIED) is not retried."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc import aio

from poker.table.v1 import table_pb2 as t
from poker_bots import CallingStation, play
from poker_bots.sdk import RETRY_CODES

from . import events as build
from .fake_table import Conn, FakeTable, with_fake

ME = 2


def refused(code: grpc.StatusCode, message: str) -> Any:
    """A connection whose Join the table refuses with ``code``."""

    async def script(conn: Conn) -> AsyncIterator[t.TableEvent]:
        await conn.context.abort(code, message)
        yield build.ev()  # not reached: abort raises

    return script


async def joined(conn: Conn) -> AsyncIterator[t.TableEvent]:
    """A connection that joins (its Snapshot), then the table ends the stream."""
    yield build.batch(build.snapshot(build.STUD, ME, [build.seat(1), build.seat(2)]))


def run(fake: FakeTable, **kw: Any) -> Any:
    async def body(target: str) -> Any:
        return await play(
            target, "t1", "p2", "secret", CallingStation(), backoff=0.01, via="table", **kw
        )

    return asyncio.run(with_fake(fake, body))


def test_a_join_refused_by_a_burst_is_sent_again() -> None:
    fake = FakeTable(
        refused(grpc.StatusCode.RESOURCE_EXHAUSTED, "20000 joins are waiting: join again"),
        refused(grpc.StatusCode.DEADLINE_EXCEEDED, "the lobby did not answer in time"),
        refused(grpc.StatusCode.UNAVAILABLE, "the table service is shutting down"),
        joined,
    )
    stats = run(fake)
    assert stats.reconnects == 3 and stats.stopped_by == "eof"
    assert len(fake.joins) == 4 and {j.player_id for j in fake.joins} == {"p2"}


def test_retries_are_bounded() -> None:
    fake = FakeTable(refused(grpc.StatusCode.RESOURCE_EXHAUSTED, "busy"))
    with pytest.raises(aio.AioRpcError) as info:
        run(fake, max_reconnects=2)
    assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert len(fake.joins) == 3  # the first try and two more


def test_a_refused_player_is_not_retried() -> None:
    assert grpc.StatusCode.PERMISSION_DENIED not in RETRY_CODES
    fake = FakeTable(refused(grpc.StatusCode.PERMISSION_DENIED, "wrong token"))
    with pytest.raises(aio.AioRpcError) as info:
        run(fake)
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert len(fake.joins) == 1
