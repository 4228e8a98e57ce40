"""Issue 16, point 5: authentication through the room's door (the gateway).

At the door a player is their bearer credential (``authorization: Bearer
<player_id>.<token>``, what Room.Register returns).  Every Room method that acts
for a player, over gRPC (HTTP/2) and in Connect JSON over HTTP/1.1 as a browser
calls it:

* refuses a call without a credential (none, an empty one, another scheme):
  UNAUTHENTICATED;
* refuses a credential the room does not accept (a forged token, another
  player's id with one's own token, an unknown player id): UNAUTHENTICATED, with
  one message for all of them, so the door does not tell which player ids exist;
* refuses a malformed one (no dot, no id, no token, too long): INVALID_ARGUMENT;

and nothing changes: the ledger, the balances, the table and its seats.  The
calls open to anyone refuse a wrong or malformed credential the same way.  A
Play whose Join names another player than the bearer is PERMISSION_DENIED, and
no Room request has a field that could name another player: Act answers the
bearer's own seat only (test_auth.py plays that through the door too).
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import MethodDescriptor
from google.protobuf.message import Message

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.room.v1 import room_pb2 as rpb
from poker.table.v1 import table_pb2 as pb

from .connect import SERVICE, ConnectCallError, ConnectClient
from .room import STUD, WAIT_S, Player, Room

UNAUTHENTICATED = grpc.StatusCode.UNAUTHENTICATED
INVALID = grpc.StatusCode.INVALID_ARGUMENT
DENIED = grpc.StatusCode.PERMISSION_DENIED

ROOM = rpb.DESCRIPTOR.services_by_name["Room"]
# Open to anyone (a credential, when sent, is checked); Register takes none.
ANYONE: tuple[str, ...] = (
    "ListTables",
    "GetTable",
    "ListLiveTables",
    "ListTournaments",
    "GetTournament",
    "GetStandings",
    "GetHandHistory",
    "GetDeckProof",
)
# One stream for many players: each session's Join carries its own player's
# token (test_play_many.py runs its refusals through the door).
EACH_SESSION = ("PlayMany",)
FOR_A_PLAYER = tuple(
    m.name for m in ROOM.methods if m.name not in (*ANYONE, *EACH_SESSION, "Register")
)
NOT_ACCEPTED = "not accepted"  # the cases whose messages must all be the same


@dataclass(frozen=True)
class Seated:
    """A table where alice sits alone (no hand runs); bob is registered."""

    table_id: str
    alice: Player
    bob: Player


@pytest.fixture(scope="module")
def seated(room: Room) -> Seated:
    table_id = room.create_table("sec door auth", STUD, 2, min_buy_in=5_000, clock_ms=60_000)
    alice, bob = room.register("door alice"), room.register("door bob")
    room.sit(alice, table_id, 5_000)
    for _ in range(int(WAIT_S / 0.02)):  # until the table service has her seat too
        if room.summary(table_id).players == 1:
            return Seated(table_id, alice, bob)
        time.sleep(0.02)
    raise AssertionError("the table service never seated alice")


@pytest.fixture(scope="module")
def connect(room: Room) -> ConnectClient:
    return room.door_connect()


def world(room: Room, seated: Seated) -> tuple[Any, ...]:
    """What a refused call must not change: the ledger's totals, both players'
    accounts, the lobby's table (its seats and stacks) and the table service's."""
    totals = room.staff.GetLedgerTotals(lpb.GetLedgerTotalsRequest(), timeout=5)
    accounts = [
        room.staff.GetPlayer(lpb.GetPlayerRequest(player_id=p.player_id, token=p.token), timeout=5)
        for p in (seated.alice, seated.bob)
    ]
    return totals, accounts, room.table_info(seated.table_id), room.summary(seated.table_id)


def credentials(seated: Seated) -> list[tuple[str, str | None, grpc.StatusCode]]:
    """(what, the authorization header, the status the door must answer)."""
    alice, bob = seated.alice, seated.bob
    forged = alice.token[:-1] + ("A" if alice.token[-1] != "A" else "B")
    return [
        ("no authorization", None, UNAUTHENTICATED),
        ("an empty bearer", "Bearer", UNAUTHENTICATED),
        ("another scheme", f"Basic {alice.credential}", UNAUTHENTICATED),
        (f"{NOT_ACCEPTED}: a forged token", f"Bearer {alice.player_id}.{forged}", UNAUTHENTICATED),
        (
            f"{NOT_ACCEPTED}: another player's id",
            f"Bearer {bob.player_id}.{alice.token}",
            UNAUTHENTICATED,
        ),
        (
            f"{NOT_ACCEPTED}: an unknown player",
            f"Bearer p-{uuid.uuid4().hex}.{alice.token}",
            UNAUTHENTICATED,
        ),
        ("malformed: the token alone", f"Bearer {alice.token}", INVALID),
        ("malformed: no token", f"Bearer {alice.player_id}.", INVALID),
        ("malformed: no player id", f"Bearer .{alice.token}", INVALID),
        ("malformed: an id too long", f"Bearer {'p' * 65}.{alice.token}", INVALID),
        ("malformed: too long", f"Bearer p-1.{'t' * 300}", INVALID),
    ]


def request_for(method: MethodDescriptor, table_id: str) -> Message:
    """A request that would do something for its caller if the door let it
    through: at the table (a buy-in, a turn's answer), of a tournament."""
    if method.name == "Play":
        return pb.PlayerMessage(join=pb.Join(table_id=table_id))
    kind = message_factory.GetMessageClass(method.input_type)
    values: dict[str, Any] = {
        "table_id": table_id,
        "tournament_id": "tr-none",
        "buy_in": 5_000,
        "hand_id": "h-none",
        "action_seq": 1,
        "action": common.Action(kind=common.ACTION_KIND_CHECK),
    }
    names = kind.DESCRIPTOR.fields_by_name
    return kind(**{name: value for name, value in values.items() if name in names})


async def grpc_status(
    room: Room, method: MethodDescriptor, request: Message, authorization: str | None
) -> tuple[grpc.StatusCode, str]:
    """The status of one call over gRPC, on a connection of its own; OK once a
    stream's first message arrives."""
    path = f"/{SERVICE}/{method.name}"
    answer = message_factory.GetMessageClass(method.output_type)
    metadata = (("authorization", authorization),) if authorization is not None else None
    channel: Any = room.door_channel()
    async with channel:
        try:
            if method.client_streaming:
                call = channel.stream_stream(
                    path,
                    request_serializer=type(request).SerializeToString,
                    response_deserializer=answer.FromString,
                )(metadata=metadata, timeout=10)
                await call.write(request)
                await call.read()
                call.cancel()
            elif method.server_streaming:
                call = channel.unary_stream(
                    path,
                    request_serializer=type(request).SerializeToString,
                    response_deserializer=answer.FromString,
                )(request, metadata=metadata, timeout=10)
                await call.read()
                call.cancel()
            else:
                await channel.unary_unary(
                    path,
                    request_serializer=type(request).SerializeToString,
                    response_deserializer=answer.FromString,
                )(request, metadata=metadata, timeout=10)
        except grpc.aio.AioRpcError as error:
            return error.code(), error.details() or ""
    return grpc.StatusCode.OK, ""


async def connect_status(
    connect: ConnectClient, method: MethodDescriptor, request: Message, authorization: str | None
) -> tuple[grpc.StatusCode, str]:
    """The status of one call in Connect JSON over HTTP/1.1 (a browser's)."""
    answer = message_factory.GetMessageClass(method.output_type)
    try:
        if method.server_streaming:
            stream = connect.stream(method.name, request, answer, authorization=authorization)
            try:
                await anext(stream)
            finally:
                await stream.aclose()
        else:
            await connect.unary(method.name, request, answer, authorization=authorization)
    except ConnectCallError as error:
        return error.code(), error.details()
    return grpc.StatusCode.OK, ""


def refusals(
    room: Room,
    connect: ConnectClient,
    seated: Seated,
    method: MethodDescriptor,
    cases: list[tuple[str, str | None, grpc.StatusCode]],
) -> tuple[list[str], dict[str, set[str]]]:
    """Every case over every transport of ``method`` (gRPC; and Connect JSON but
    for the bidirectional Play): what was answered otherwise than it must be, and
    the messages of the NOT_ACCEPTED cases by transport."""
    request = request_for(method, seated.table_id)

    async def each() -> tuple[list[str], dict[str, set[str]]]:
        wrong: list[str] = []
        messages: dict[str, set[str]] = {}
        for what, authorization, expected in cases:
            answers = {"gRPC": await grpc_status(room, method, request, authorization)}
            if not method.client_streaming:
                answers["Connect JSON over HTTP/1.1"] = await connect_status(
                    connect, method, request, authorization
                )
            for transport, (code, message) in answers.items():
                if code != expected or not message:
                    wrong.append(f"{method.name} {transport}, {what}: {code.name} {message!r}")
                if what.startswith(NOT_ACCEPTED):
                    messages.setdefault(transport, set()).add(message)
        return wrong, messages

    return asyncio.run(each())


def test_every_room_method_is_classified() -> None:
    """A method added to room.proto is in one of the lists checked here."""
    assert set(FOR_A_PLAYER) == {
        "GetMe",
        "SitDown",
        "StandUp",
        "SitOut",
        "SitIn",
        "SetAutoPost",
        "ImIn",
        "Play",
        "Follow",
        "Act",
        "Watch",
        "GetState",
        "EnterTournament",
        "ReEnterTournament",
        "LeaveTournament",
        "SetAway",
        "GetMySeat",
    }
    assert {m.name for m in ROOM.methods} == {*FOR_A_PLAYER, *ANYONE, *EACH_SESSION, "Register"}


def test_room_requests_name_no_player() -> None:
    """The bearer is the only identity: no Room request has a field that could
    name another player or carry a token (Play's Join may repeat the bearer's
    own, checked below; PlayMany's Joins carry each session's), and Act names
    the turn it answers, not a seat."""
    for method in ROOM.methods:
        if method.input_type.full_name.startswith("poker.table.v1."):
            assert method.name in ("Play", "PlayMany"), method.name
            continue
        names = set(method.input_type.fields_by_name)
        assert not names & {"player_id", "token", "credential"}, method.name
    assert [f.name for f in rpb.ActRequest.DESCRIPTOR.fields] == [
        "table_id",
        "hand_id",
        "action_seq",
        "action",
    ]


@pytest.mark.parametrize("name", FOR_A_PLAYER)
def test_a_call_for_a_player_needs_a_credential_the_room_accepts(
    room: Room, connect: ConnectClient, seated: Seated, name: str
) -> None:
    method = ROOM.methods_by_name[name]
    before = world(room, seated)
    wrong, messages = refusals(room, connect, seated, method, credentials(seated))
    assert not wrong, "\n".join(wrong)
    for transport, said in messages.items():
        assert len(said) == 1, f"{name} over {transport}: one message for all, got {said}"
    assert world(room, seated) == before, "a refused call changed the room"


@pytest.mark.parametrize("name", ANYONE)
def test_a_call_open_to_anyone_refuses_a_credential_it_does_not_accept(
    room: Room, connect: ConnectClient, seated: Seated, name: str
) -> None:
    """No credential is fine (the public answer); one that is sent is checked."""
    method = ROOM.methods_by_name[name]
    before = world(room, seated)
    sent = [c for c in credentials(seated) if c[1] and c[1].startswith("Bearer ")]
    wrong, messages = refusals(room, connect, seated, method, sent)
    assert not wrong, "\n".join(wrong)
    for transport, said in messages.items():
        assert len(said) == 1, f"{name} over {transport}: one message for all, got {said}"
    request = request_for(method, seated.table_id)
    for authorization in (None, f"Bearer {seated.alice.credential}"):
        code, message = asyncio.run(grpc_status(room, method, request, authorization))
        # tr-none is no tournament: NOT_FOUND, answered past the credential check.
        assert code in (grpc.StatusCode.OK, grpc.StatusCode.NOT_FOUND), (code, message)
    assert world(room, seated) == before, "a refused call changed the room"


def test_a_play_join_naming_another_player_is_permission_denied(room: Room, seated: Seated) -> None:
    """Bob's bearer with a Join naming alice (her id, her token, or both):
    PERMISSION_DENIED before any event; bob's own Join is let in."""
    alice, bob = seated.alice, seated.bob
    play = ROOM.methods_by_name["Play"]
    before = world(room, seated)
    joins = [
        pb.Join(table_id=seated.table_id, player_id=alice.player_id),
        pb.Join(table_id=seated.table_id, token=alice.token),
        pb.Join(table_id=seated.table_id, player_id=alice.player_id, token=alice.token),
        pb.Join(table_id=seated.table_id, player_id=bob.player_id, token=alice.token),
    ]

    async def check() -> list[tuple[grpc.StatusCode, str]]:
        answers = []
        for join in joins:
            message = pb.PlayerMessage(join=join)
            answers.append(await grpc_status(room, play, message, f"Bearer {bob.credential}"))
        own = pb.PlayerMessage(join=pb.Join(table_id=seated.table_id, player_id=bob.player_id))
        answers.append(await grpc_status(room, play, own, f"Bearer {bob.credential}"))
        return answers

    *refused, own = asyncio.run(check())
    assert [code for code, _ in refused] == [DENIED] * len(joins), refused
    assert all(message for _, message in refused)
    assert own == (grpc.StatusCode.OK, "")
    assert world(room, seated) == before


@pytest.mark.parametrize("name", ["Play", "PlayMany"])
def test_a_join_with_an_unknown_player_is_answered_as_a_wrong_token(
    room: Room, seated: Seated, name: str
) -> None:
    """A Join may carry its player's id and token (PlayMany's always do; Play's
    when there is no bearer).  Refused, an unknown player id and a wrong token
    must get one answer, as the bearer's do: the door does not tell a stranger
    which player ids exist."""
    alice = seated.alice
    forged = alice.token[:-1] + ("A" if alice.token[-1] != "A" else "B")
    joins = {
        "wrong token": pb.Join(table_id=seated.table_id, player_id=alice.player_id, token=forged),
        "unknown player": pb.Join(
            table_id=seated.table_id, player_id=f"p-{uuid.uuid4().hex}", token=alice.token
        ),
    }
    before = world(room, seated)

    async def answer(join: pb.Join) -> tuple[int, str]:
        if name == "Play":
            play = ROOM.methods_by_name["Play"]
            code, message = await grpc_status(room, play, pb.PlayerMessage(join=join), None)
            return code.value[0], message
        async with room.door_channel() as channel:
            call: Any = channel.stream_stream(
                f"/{SERVICE}/PlayMany",
                request_serializer=pb.PlayManyRequest.SerializeToString,
                response_deserializer=pb.PlayManyEvents.FromString,
            )(timeout=10)
            request = pb.PlayManyRequest(
                messages=[pb.SessionMessage(session=1, message=pb.PlayerMessage(join=join))]
            )
            await call.write(request)
            while True:
                batch = await call.read()
                assert batch is not grpc.aio.EOF, "the stream ended before the session"
                for tagged in batch.events:
                    if tagged.HasField("ended"):
                        call.cancel()
                        return tagged.ended.code, tagged.ended.message
                    raise AssertionError(f"a session with a refused Join got {tagged}")

    answers = {what: asyncio.run(answer(join)) for what, join in joins.items()}
    assert world(room, seated) == before
    assert all(code != 0 for code, _ in answers.values()), answers
    assert answers["unknown player"] == answers["wrong token"], answers


def test_no_credential_reaches_the_doors_log(room: Room, seated: Seated) -> None:
    """After every refusal above (run first), the gateway's log holds none of the
    credentials sent, good or forged, nor a token alone (credentials.py: no
    credential is ever logged)."""
    time.sleep(0.2)  # the last log lines reach the reader thread
    lines = list(room.stack["gateway"].lines)
    secrets = {seated.alice.token, seated.bob.token}
    secrets |= {value.partition(" ")[2] for _, value, _ in credentials(seated) if value}
    secrets = {s for s in secrets if len(s) >= 16}
    assert secrets and lines
    leaked = [line[:200] for line in lines if any(secret in line for secret in secrets)]
    assert leaked == []
