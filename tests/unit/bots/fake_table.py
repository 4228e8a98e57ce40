"""A scripted fake TableService (grpc.aio, 127.0.0.1 port 0) for the SDK tests.

A test gives a *script*: an async generator ``script(conn)`` that yields the
TableEvents to send and awaits ``conn.recv()`` for the bot's messages.  The fake
checks what a real table checks: every PlayerAction must carry the action_seq of
the pending YourTurn (else ActionRejected FAILED_PRECONDITION) and be on its menu
(else INVALID_ARGUMENT); ``conn.expect_action()`` does that for the script.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from grpc import aio

from devroom.launcher import shared_pki
from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker.table.v1 import table_pb2_grpc

from .events import ev

Script = Callable[["Conn"], AsyncIterator[t.TableEvent]]


def tls_credentials(*, internal: bool = False) -> grpc.ServerCredentials:
    """What a fake server of these tests serves: TLS with the lobby's certificate
    of this process's test PKI (``devroom.launcher.shared_pki``), as the room's
    ports do.  The clients trust that CA through ``POKER_CA_FILE`` (the
    ``room_pki`` fixture of conftest.py).  A public port asks no client
    certificate (players); ``internal``: mutual TLS, a certificate of that CA
    required, as the room's internal ports (the caller's SPIFFE id is then in
    the auth context: the operator's, on the staff's calls)."""
    pki = shared_pki()
    directory = pki.dir("lobby")
    return grpc.ssl_server_credentials(
        [((directory / "tls.key").read_bytes(), (directory / "tls.crt").read_bytes())],
        root_certificates=pki.ca_file.read_bytes(),
        require_client_auth=internal,
    )


def tls_port(server: grpc.Server, *, internal: bool = False) -> int:
    """A TLS port on 127.0.0.1 of a threaded fake server (``tls_credentials``)."""
    return server.add_secure_port("127.0.0.1:0", tls_credentials(internal=internal))


NOT_SERVED = "the fake table serves Play only"


def menu_problem(legal: c.LegalActions, action: c.Action) -> str | None:
    """The table's legality check, written independently of poker_bots.sdk."""
    if action.kind not in legal.kinds:
        return "kind not on the menu"
    if action.kind in (c.ACTION_KIND_BET, c.ACTION_KIND_RAISE, c.ACTION_KIND_COMPLETE):
        if action.kind != legal.raise_kind:
            return "wrong aggressive kind"
        if legal.to_choices and action.amount not in legal.to_choices:
            return "amount not a fixed-limit choice"
        if not legal.min_to <= action.amount <= legal.max_to:
            return "amount out of range"
    elif action.amount:
        return "amount on a passive action"
    if action.kind == c.ACTION_KIND_DISCARD and len(action.cards) > legal.max_discards:
        return "too many discards"
    return None


class Conn:
    """One Play stream as the script sees it."""

    def __init__(self, fake: FakeTable, requests: AsyncIterator[t.PlayerMessage], context: Any):
        self.fake = fake
        self.requests = requests
        self.context = context
        self.turn: t.YourTurn | None = None
        self.hand_id = "h1"

    async def recv(self, *, skip_pings: bool = True, timeout: float = 5.0) -> t.PlayerMessage:
        while True:
            msg = await asyncio.wait_for(anext(self.requests), timeout)
            self.fake.received.append(msg)
            if not (skip_pings and msg.WhichOneof("message") == "ping"):
                return msg

    def turn_event(self, legal: c.LegalActions, action_seq: int, seq: int = 0) -> t.TableEvent:
        self.turn = t.YourTurn(action_seq=action_seq, legal=legal)
        return ev(seq, self.hand_id, your_turn=self.turn)

    async def expect_action(self) -> tuple[t.PlayerAction, t.TableEvent | None]:
        """The next action, and the ActionRejected the table would send for it (or None)."""
        msg = await self.recv()
        assert msg.WhichOneof("message") == "action", msg
        act = msg.action
        self.fake.actions.append(act)
        turn = self.turn
        if turn is None or act.action_seq != turn.action_seq or act.hand_id != self.hand_id:
            rej = t.ActionRejected(
                action_seq=act.action_seq, code=9, message="not the action_seq of your turn"
            )
            return act, ev(0, self.hand_id, action_rejected=rej)
        problem = menu_problem(turn.legal, act.action)
        if problem is not None:
            rej = t.ActionRejected(action_seq=act.action_seq, code=3, message=problem)
            return act, ev(0, self.hand_id, action_rejected=rej)
        self.fake.accepted.append(act)
        self.turn = None
        return act, None


class FakeTable(table_pb2_grpc.TableServiceServicer):
    def __init__(self, *scripts: Script) -> None:
        self.scripts = list(scripts)  # one per connection; the last one repeats
        self.connections = 0
        self.joins: list[t.Join] = []
        self.received: list[t.PlayerMessage] = []
        self.actions: list[t.PlayerAction] = []
        self.accepted: list[t.PlayerAction] = []

    async def Act(  # noqa: N802 - the RPC's name
        self, request: t.ActRequest, context: Any
    ) -> t.ActResponse:
        """Not scripted: the SDK acts on its Play stream."""
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, "the fake table takes actions on Play")
        raise AssertionError("abort raises")

    async def Play(  # noqa: N802 - the RPC's name
        self, request_iterator: AsyncIterator[t.PlayerMessage], context: Any
    ) -> AsyncIterator[t.TableEvent]:
        script = self.scripts[min(self.connections, len(self.scripts) - 1)]
        self.connections += 1
        conn = Conn(self, aiter(request_iterator), context)
        first = await conn.recv()
        assert first.WhichOneof("message") == "join", first
        self.joins.append(first.join)
        if first.join.token != "secret":
            await context.abort(grpc.StatusCode.PERMISSION_DENIED, "wrong token")
        async for event in script(conn):
            yield event

    # The SDK under test calls Play only.  The generated servicer's stub declares every
    # RPC abstract, so the fake answers the others as the generated base class does at
    # run time: UNIMPLEMENTED.

    async def PlayMany(  # noqa: N802 - the RPC's name
        self, request_iterator: AsyncIterator[t.PlayManyRequest], context: Any
    ) -> AsyncIterator[t.PlayManyEvents]:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        yield t.PlayManyEvents()  # not reached: abort raises

    async def Watch(  # noqa: N802 - the RPC's name
        self, request: t.WatchRequest, context: Any
    ) -> AsyncIterator[t.TableEvent]:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        yield t.TableEvent()  # not reached: abort raises

    async def GetState(self, request: t.GetStateRequest, context: Any) -> t.Snapshot:  # noqa: N802
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        raise AssertionError("abort raises")

    async def ListTables(  # noqa: N802 - the RPC's name
        self, request: t.ListTablesRequest, context: Any
    ) -> t.ListTablesResponse:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        raise AssertionError("abort raises")

    async def GetHandHistory(  # noqa: N802 - the RPC's name
        self, request: t.GetHandHistoryRequest, context: Any
    ) -> t.GetHandHistoryResponse:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        raise AssertionError("abort raises")

    async def GetDeckProof(  # noqa: N802 - the RPC's name
        self, request: t.GetDeckProofRequest, context: Any
    ) -> t.DeckProof:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        raise AssertionError("abort raises")

    async def GetDeckReveal(  # noqa: N802 - the RPC's name
        self, request: t.GetDeckRevealRequest, context: Any
    ) -> t.DeckReveal:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        raise AssertionError("abort raises")

    async def PresetNextDeck(  # noqa: N802 - the RPC's name
        self, request: t.PresetNextDeckRequest, context: Any
    ) -> t.PresetNextDeckResponse:
        await context.abort(grpc.StatusCode.UNIMPLEMENTED, NOT_SERVED)
        raise AssertionError("abort raises")


async def with_fake(fake: FakeTable, body: Callable[[str], Awaitable[Any]]) -> Any:
    server = aio.server()
    table_pb2_grpc.add_TableServiceServicer_to_server(fake, server)
    port = server.add_secure_port("127.0.0.1:0", tls_credentials())
    await server.start()
    try:
        return await asyncio.wait_for(body(f"127.0.0.1:{port}"), 20)
    finally:
        await server.stop(0)
