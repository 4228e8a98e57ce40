"""The door itself: one address for every table on every shard (issue 16, point 2
for the bot SDK), the credential, the limits, CORS and health."""

from __future__ import annotations

import asyncio
import base64
import http.client
import json
import re
import ssl
import struct
import time
import urllib.error
import urllib.request
from typing import Any

import grpc
import pytest
from google.protobuf import json_format

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc
from poker.table.v1 import table_pb2 as tpb
from poker_wire.channels import player_channel
from poker_wire.deck_proof import check_proof

from .door import SHARDS, Door

HAND_WAIT_S = 60  # for a finished hand on every shard; one takes about a second

pytestmark = pytest.mark.xdist_group("gateway")


def _room(door: Door) -> tuple[grpc.aio.Channel, Any]:
    channel = player_channel(door.target, door.ca_file)
    return channel, rpb_grpc.RoomStub(channel)


def test_sdk_bots_play_on_every_shard_through_one_address(door: Door) -> None:
    """The bots registered, sat and play through the gateway only; their tables
    are on all three shards, and every one of them deals hands."""
    assert {door.shard_of(t) for t in door.table_ids} == set(range(SHARDS))

    async def check() -> dict[str, int]:
        channel, room = _room(door)
        async with channel:
            deadline = time.monotonic() + 60
            while True:
                live = await room.ListLiveTables(rpb.ListLiveTablesRequest())
                played = {t.table_id: t.hands_played for t in live.tables}
                if all(played.get(t, 0) >= 3 for t in door.table_ids):
                    return played
                assert time.monotonic() < deadline, f"hands played: {played}"
                await asyncio.sleep(0.5)

    played = asyncio.run(check())
    assert set(door.table_ids) <= set(played)
    assert not door.bot_errors


def test_calls_for_a_player_need_the_credential(door: Door) -> None:
    async def check() -> None:
        channel, room = _room(door)
        async with channel:
            with pytest.raises(grpc.aio.AioRpcError) as missing:
                await room.GetMe(rpb.GetMeRequest())
            assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "Bearer" in (missing.value.details() or "")
            made = await room.Register(rpb.RegisterRequest(name="carol"))
            player_id, _, token = made.credential.rpartition(".")
            forged = f"{player_id}.{token[:-1]}{'A' if token[-1] != 'A' else 'B'}"
            for credential in (forged, f"p-nobody.{token}"):
                with pytest.raises(grpc.aio.AioRpcError) as wrong:
                    await room.GetMe(
                        rpb.GetMeRequest(), metadata=(("authorization", f"Bearer {credential}"),)
                    )
                assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
            with pytest.raises(grpc.aio.AioRpcError) as malformed:
                await room.GetMe(rpb.GetMeRequest(), metadata=(("authorization", "Bearer x"),))
            assert malformed.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            me = await room.GetMe(
                rpb.GetMeRequest(), metadata=(("authorization", f"Bearer {made.credential}"),)
            )
            assert me.player_id == player_id

    asyncio.run(check())


def test_unknown_table_is_not_found(door: Door) -> None:
    async def check() -> None:
        channel, room = _room(door)
        async with channel:
            made = await room.Register(rpb.RegisterRequest(name="dave"))
            auth = (("authorization", f"Bearer {made.credential}"),)
            for call in (
                room.GetState(rpb.GetStateRequest(table_id="t-nope"), metadata=auth),
                room.GetHandHistory(rpb.GetHandHistoryRequest(table_id="t-nope")),
            ):
                with pytest.raises(grpc.aio.AioRpcError) as error:
                    await call
                assert error.value.code() == grpc.StatusCode.NOT_FOUND

    asyncio.run(check())


def _https(
    door: Door,
    path: str,
    *,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> tuple[int, dict[str, str], bytes]:
    context = ssl.create_default_context(cafile=door.ca_file)
    request = urllib.request.Request(
        f"https://{door.target}{path}", data=body, method=method, headers=headers or {}
    )
    try:
        with urllib.request.urlopen(request, context=context, timeout=5) as reply:
            return reply.status, {k.lower(): v for k, v in reply.headers.items()}, reply.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def test_health_and_connect_json_over_http1(door: Door) -> None:
    """/healthz for the probes; a unary call in Connect JSON over HTTP/1.1 (what
    curl and a browser send)."""
    status, _, body = _https(door, "/healthz")
    assert (status, body) == (200, b"ok\n")
    deadline = time.monotonic() + 30  # the shard map lists a new room's tables soon
    while True:
        status, headers, body = _https(
            door,
            "/poker.room.v1.Room/ListLiveTables",
            method="POST",
            headers={"content-type": "application/json"},
            body=b"{}",
        )
        assert status == 200, body
        assert headers["content-type"].startswith("application/json")
        listed = {t["tableId"] for t in json.loads(body).get("tables", [])}
        if listed >= set(door.table_ids) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert listed >= set(door.table_ids)
    status, _, body = _https(
        door,
        "/poker.room.v1.Room/GetMe",
        method="POST",
        headers={"content-type": "application/json"},
        body=b"{}",
    )
    assert status == 401
    assert json.loads(body)["code"] == "unauthenticated"


def test_deck_proofs_through_the_door_verify_on_every_shard__G4a(door: Door) -> None:  # noqa: N802
    """Room.GetDeckProof at the door, for a finished hand of a table on each shard:
    the public proof (no credential, and a player's who was not dealt in) opens
    only what the public history shows, and verifies against its HandStarted;
    over gRPC and in Connect JSON over HTTP/1.1 alike.  An unknown table is
    NOT_FOUND."""

    async def check() -> list[tuple[str, str]]:
        channel, room = _room(door)
        async with channel:
            made = await room.Register(rpb.RegisterRequest(name="erin"))
            auth = (("authorization", f"Bearer {made.credential}"),)
            done: list[tuple[str, str]] = []
            # Run alone, this test starts with the room: the first hands may not have
            # ended on every shard yet, so wait for one (bounded: a hand takes about a
            # second at the bots' pace).
            hands: dict[str, tpb.HandHistory] = {}
            deadline = time.monotonic() + HAND_WAIT_S
            while {door.shard_of(t) for t in hands} != set(range(SHARDS)):
                assert time.monotonic() < deadline, f"finished after {HAND_WAIT_S} s: {list(hands)}"
                for table_id in door.table_ids:
                    history = await room.GetHandHistory(
                        rpb.GetHandHistoryRequest(table_id=table_id, limit=1)
                    )
                    if history.hands:
                        hands[table_id] = history.hands[-1]
                await asyncio.sleep(0.2)
            for table_id, hand in hands.items():
                request = rpb.GetDeckProofRequest(table_id=table_id, hand_id=hand.hand_id)
                proof = await room.GetDeckProof(request)
                verdict = check_proof(proof, hand)
                assert verdict.ok, verdict.problems
                assert await room.GetDeckProof(request, metadata=auth) == proof
                done.append((table_id, hand.hand_id))
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await room.GetDeckProof(rpb.GetDeckProofRequest(table_id="t-nope", hand_id="h-1"))
            assert error.value.code() == grpc.StatusCode.NOT_FOUND
            return done

    done = asyncio.run(check())
    assert {door.shard_of(t) for t, _ in done} == set(range(SHARDS)), done
    table_id, hand_id = done[0]
    status, _, body = _https(
        door,
        "/poker.room.v1.Room/GetDeckProof",
        method="POST",
        headers={"content-type": "application/json"},
        body=json.dumps({"tableId": table_id, "handId": hand_id}).encode(),
    )
    assert status == 200, body
    proof = json_format.Parse(body, tpb.DeckProof())
    assert proof.scheme == "cardroom-cards-v1" and proof.hand_id == hand_id
    assert len(proof.positions) == 52


def _unbase64(text: bytes) -> bytes:
    """Concatenated, separately padded base64 pieces (what a text-mode answer is)."""
    return b"".join(base64.b64decode(p) for p in re.findall(rb"[^=]*=*", text) if p)


def _frames(data: bytes) -> list[tuple[int, bytes]]:
    """gRPC-Web frames (flags, payload) of a decoded body."""
    frames = []
    while len(data) >= 5:
        flags, size = struct.unpack(">BI", data[:5])
        if len(data) < 5 + size:
            break  # the rest has not arrived yet
        frames.append((flags, data[5 : 5 + size]))
        data = data[5 + size :]
    return frames


def _text_call(
    door: Door, method: str, request: bytes, credential: str = ""
) -> http.client.HTTPResponse:
    """A gRPC-Web text-mode call over HTTP/1.1, as the grpc-web npm client makes it."""
    context = ssl.create_default_context(cafile=door.ca_file)
    host, port = door.target.rsplit(":", 1)
    connection = http.client.HTTPSConnection(host, int(port), context=context, timeout=10)
    body = base64.b64encode(struct.pack(">BI", 0, len(request)) + request)
    connection.request(
        "POST",
        f"/poker.room.v1.Room/{method}",
        body=body,
        headers={
            "content-type": "application/grpc-web-text",
            "accept": "application/grpc-web-text",
            "x-grpc-web": "1",
            **({"authorization": f"Bearer {credential}"} if credential else {}),
        },
    )
    return connection.getresponse()


def test_grpc_web_text_mode_unary_and_server_stream(door: Door) -> None:
    """The grpc-web JavaScript client's default mode (base64 both ways): a unary
    call, an unknown table's NOT_FOUND, and a Watch stream whose events arrive
    one padded piece at a time, decoded as they come (connectrpc alone answered
    text mode 415)."""
    table_id = door.table_ids[0]
    reply = _text_call(door, "GetTable", rpb.GetTableRequest(table_id=table_id).SerializeToString())
    assert reply.status == 200
    assert reply.getheader("content-type", "").startswith("application/grpc-web-text")
    frames = _frames(_unbase64(reply.read()))
    assert frames[-1][0] == 0x80 and b"grpc-status:0" in frames[-1][1].replace(b" ", b"")
    table = lpb.Table.FromString(frames[0][1])
    assert table.table_id == table_id

    reply = _text_call(door, "GetTable", rpb.GetTableRequest(table_id="t-nope").SerializeToString())
    status = reply.getheader("grpc-status")
    if status is None:  # the status in a trailer frame rather than the headers
        trailer = _frames(_unbase64(reply.read()))[-1][1].decode()
        status = trailer.split("grpc-status:")[1].split()[0]
    assert status == "5"  # NOT_FOUND

    reply = _text_call(door, "Register", rpb.RegisterRequest(name="tex").SerializeToString())
    made = rpb.RegisterResponse.FromString(_frames(_unbase64(reply.read()))[0][1])
    watch = rpb.WatchRequest(table_id=table_id).SerializeToString()
    reply = _text_call(door, "Watch", watch, made.credential)
    assert reply.status == 200
    text = b""
    events: list[tpb.TableEvent] = []
    deadline = time.monotonic() + 30
    while len(events) < 3 and time.monotonic() < deadline:
        text += reply.read1(65536)
        whole = len(text) - len(text) % 4
        data = _unbase64(text[:whole])
        events = [tpb.TableEvent.FromString(p) for f, p in _frames(data) if f == 0]
    reply.close()
    assert len(events) >= 3, events
    assert events[0].WhichOneof("event") == "snapshot"
