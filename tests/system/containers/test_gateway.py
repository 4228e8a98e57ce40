"""The room's door as a container (issue 16): the gateway image, run as the room
runs it, in front of the lobby and table containers (see ``stack.py``).

Over the same containers as ``test_room.py`` (the session's ``stack``), before its
run:

- the gateway serves on its one port with the settings it was given (the lobby's
  and the table's internal ports) and answers ``/healthz``;
- a player registers through the gateway, sits down at a table the operator
  created (the staff's calls on the lobby's internal port, as the operator) and
  plays at least :data:`HANDS` hands through it with the bot SDK (``via="room"``),
  against reference bots that registered, sat and play through the gateway too;
  the chips stay among them and the ledger balances;
- ``GetHandHistory`` through the gateway lists those hands;
- a call for a player without a credential is UNAUTHENTICATED, and changes nothing;
- ``/poker.lobby.v1.LobbyHands/FinishHand``, the hand protocol's internal call,
  forged for the hand in progress and sent to the gateway's port (gRPC, with and
  without a credential; Connect JSON over HTTP/1.1) is not served there: the
  gateway answers the Room API only, and the room is unchanged.
"""

from __future__ import annotations

import asyncio
import json
import ssl
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.json_format import MessageToJson

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc
from poker.table.v1 import table_pb2 as tpb
from poker_bots import PlayStats, make_bot, play
from poker_wire.channels import player_channel, service_channel, staff_lobby

from .conftest import StaffLobby, hand_records, totals
from .stack import GATEWAY, ContainerStack, healthz

pytestmark = pytest.mark.xdist_group("containers")

HANDS = 10  # at least, through the gateway
STUD = common.GameConfig(game=common.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
BUY_IN = 2_000
# Long enough for the attack on the first hand while nobody is connected yet;
# the bots answer at once after that.
CLOCK_MS = 15_000
PLAY_TIMEOUT_S = 90.0
FINISH_HAND = "/poker.lobby.v1.LobbyHands/FinishHand"
# The player's own bot, and the reference bots at the table with it.
PLAYER = ("alice", "random")
BOTS = (("station", "station"), ("strength", "strength"))

Metadata = tuple[tuple[str, str], ...]


def bearer(credential: str) -> Metadata:
    return (("authorization", f"Bearer {credential}"),)


@dataclass(frozen=True)
class World:
    """What a refused call must not change."""

    totals: lpb.LedgerTotals
    table: lpb.Table  # the seats' stacks, the hands played
    hands: tuple[tuple[str, int], ...]  # the table's hand records: id, status


@dataclass
class DoorGame:
    """What the game through the gateway saw; each test checks a part of it."""

    table_id: str
    credentials: dict[str, str]  # name -> credential
    attack: dict[str, str]  # how FinishHand was sent -> what the gateway answered
    world_before_attack: World
    world_after_attack: World
    stats: dict[str, PlayStats]  # name -> what its SDK session did
    errors: list[BaseException]
    played: int  # the table's hands, as the lobby counts them
    records: list[lpb.HandRecord]  # the lobby's, oldest first
    history: tpb.GetHandHistoryResponse  # through the gateway, as alice
    public_history: tpb.GetHandHistoryResponse  # through the gateway, no credential
    balances: dict[str, int]  # name -> balance after standing up (GetMe)
    grant: int  # what Register gave each
    totals_before: lpb.LedgerTotals
    totals_end: lpb.LedgerTotals
    seconds: float


async def _world(lobby: Any, table_id: str) -> World:
    records = await _records(lobby, table_id)
    return World(
        await lobby.GetLedgerTotals(lpb.GetLedgerTotalsRequest()),
        await lobby.GetTable(lpb.GetTableRequest(table_id=table_id)),
        tuple((r.hand_id, int(r.status)) for r in records),
    )


async def _records(lobby: Any, table_id: str) -> list[lpb.HandRecord]:
    """The table's hand records, oldest first (one page: a short game)."""
    reply: lpb.ListHandsResponse = await lobby.ListHands(
        lpb.ListHandsRequest(table_id=table_id, limit=500)
    )
    assert not reply.next_page_token
    return list(reversed(reply.hands))


async def _until(what: str, check: Callable[[], Awaitable[bool]], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        await asyncio.sleep(0.2)


def _forged(table: lpb.Table, hand_id: str) -> lpb.FinishHandRequest:
    """FinishHand for ``hand_id`` whose final stacks move 5,000 chips from one
    seat to another (more than the whole table holds: no real hand ends so)."""
    request = lpb.FinishHandRequest(table_id=table.table_id, hand_id=hand_id, plan_next=True)
    for i, seat in enumerate(table.occupied):
        moved = 5_000 if i == 0 else -5_000 if i == 1 else 0
        request.final_stacks.add(seat=seat.seat, player_id=seat.player_id, stack=seat.stack + moved)
    return request


async def _finish_hand_over_grpc(
    door: str, ca_file: str, request: lpb.FinishHandRequest, metadata: Metadata | None
) -> str:
    """FinishHand at the gateway's port over gRPC (a connection of its own); the
    status and its message."""
    async with player_channel(door, ca_file) as channel:
        finish = channel.unary_unary(
            FINISH_HAND,
            request_serializer=lpb.FinishHandRequest.SerializeToString,
            response_deserializer=lpb.FinishHandResponse.FromString,
        )
        try:
            await finish(request, timeout=5, metadata=metadata)
        except grpc.aio.AioRpcError as error:
            return f"{error.code().name}: {error.details()}"
    return "OK"


def _finish_hand_over_connect(
    door: str, ca_file: str, request: lpb.FinishHandRequest, credential: str
) -> str:
    """FinishHand at the gateway's port in Connect JSON over HTTP/1.1, as a browser
    or curl would post it; the HTTP status and the body."""
    post = urllib.request.Request(
        f"https://{door}{FINISH_HAND}",
        data=MessageToJson(request).encode(),
        method="POST",
        headers={"content-type": "application/json", "authorization": f"Bearer {credential}"},
    )
    context = ssl.create_default_context(cafile=ca_file)
    try:
        with urllib.request.urlopen(post, context=context, timeout=5) as reply:
            return f"HTTP {reply.status}: {reply.read()!r}"
    except urllib.error.HTTPError as error:
        return f"HTTP {error.code}: {error.read()!r}"


async def _stand_up(room: rpb_grpc.RoomAsyncStub, table_id: str, credentials: list[str]) -> None:
    """Everyone leaves; a player in the hand in progress leaves when it ends (its
    bot plays it out meanwhile)."""
    pending = list(credentials)
    deadline = time.monotonic() + 30
    while pending:
        still = []
        for credential in pending:
            try:
                reply = await room.StandUp(
                    rpb.StandUpRequest(table_id=table_id), metadata=bearer(credential)
                )
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                    continue  # not seated any more: it has left
                raise
            if reply.pending:
                still.append(credential)
        pending = still
        if pending:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(pending)} players never left the table")
            await asyncio.sleep(0.2)


async def _door_game(stack: ContainerStack) -> DoorGame:
    started = time.monotonic()
    ca_file = str(stack.pki.ca_file)
    async with (
        service_channel(stack.target("lobby"), stack.pki.dir("operator")) as staff,
        player_channel(stack.door, ca_file) as door,
    ):
        lobby = staff_lobby(staff)
        room = rpb_grpc.RoomStub(door)
        table: lpb.Table = await lobby.CreateTable(
            lpb.CreateTableRequest(
                name="through the door",
                config=STUD,
                seats=1 + len(BOTS),
                min_buy_in=BUY_IN // 2,
                max_buy_in=BUY_IN * 5,
                action_clock_ms=CLOCK_MS,
            )
        )
        table_id = table.table_id
        totals_before = await lobby.GetLedgerTotals(lpb.GetLedgerTotalsRequest())
        # Everyone registers and sits down through the gateway.
        credentials: dict[str, str] = {}
        grant = 0
        for name, _ in (PLAYER, *BOTS):
            made = await room.Register(rpb.RegisterRequest(name=name))
            credentials[name] = made.credential
            grant = made.player.balance
            await room.SitDown(
                rpb.SitDownRequest(table_id=table_id, buy_in=BUY_IN),
                metadata=bearer(made.credential),
            )

        # The first hand is dealt and waits for its first player, nobody being
        # connected yet: a live hand to forge the end of.
        async def dealt() -> bool:
            return any(r.status == lpb.HAND_STATUS_PENDING for r in await _records(lobby, table_id))

        await _until("the table dealt no hand", dealt, 30)
        before = await _world(lobby, table_id)
        hand_id = next(hid for hid, status in before.hands if status == lpb.HAND_STATUS_PENDING)
        forged = _forged(before.table, hand_id)
        player = credentials[PLAYER[0]]
        attack = {
            "gRPC, no credential": await _finish_hand_over_grpc(stack.door, ca_file, forged, None),
            "gRPC, a seated player's credential": await _finish_hand_over_grpc(
                stack.door, ca_file, forged, bearer(player)
            ),
            "Connect JSON over HTTP/1.1": await asyncio.to_thread(
                _finish_hand_over_connect, stack.door, ca_file, forged, player
            ),
        }
        after = await _world(lobby, table_id)

        # Now they play, through the gateway, until the table has its hands.
        stop = asyncio.Event()
        tasks = {}
        for i, (name, kind) in enumerate((PLAYER, *BOTS)):
            player_id, _, token = credentials[name].rpartition(".")
            tasks[name] = asyncio.create_task(
                play(
                    door,
                    table_id,
                    player_id,
                    token,
                    make_bot(kind, seed=i + 1),
                    stop=stop,
                    via="room",
                )
            )

        async def enough() -> bool:
            for name, task in tasks.items():
                if task.done():  # a bot that stopped stops the game
                    raise RuntimeError(f"{name} stopped playing: {task.result()}")
            info = await lobby.GetTable(lpb.GetTableRequest(table_id=table_id))
            return int(info.hands_played) >= HANDS

        try:
            await _until(f"fewer than {HANDS} hands through the gateway", enough, PLAY_TIMEOUT_S)
            await _stand_up(room, table_id, list(credentials.values()))
        finally:
            stop.set()
            results = await asyncio.gather(*tasks.values(), return_exceptions=True)
        stats = {n: r for n, r in zip(tasks, results, strict=True) if isinstance(r, PlayStats)}
        errors = [r for r in results if isinstance(r, BaseException)]
        history = await room.GetHandHistory(
            rpb.GetHandHistoryRequest(table_id=table_id, limit=100), metadata=bearer(player)
        )
        public_history = await room.GetHandHistory(
            rpb.GetHandHistoryRequest(table_id=table_id, limit=100)
        )
        balances = {}
        for name, credential in credentials.items():
            me = await room.GetMe(rpb.GetMeRequest(), metadata=bearer(credential))
            balances[name] = int(me.balance)
        info = await lobby.GetTable(lpb.GetTableRequest(table_id=table_id))
        return DoorGame(
            table_id=table_id,
            credentials=credentials,
            attack=attack,
            world_before_attack=before,
            world_after_attack=after,
            stats=stats,
            errors=errors,
            played=int(info.hands_played),
            records=await _records(lobby, table_id),
            history=history,
            public_history=public_history,
            balances=balances,
            grant=grant,
            totals_before=totals_before,
            totals_end=await lobby.GetLedgerTotals(lpb.GetLedgerTotalsRequest()),
            seconds=time.monotonic() - started,
        )


@pytest.fixture(scope="module")
def game(stack: ContainerStack) -> DoorGame:
    played = asyncio.run(_door_game(stack))
    print(  # shown with -s or on failure
        f"through the gateway container: {played.played} hands in {played.seconds:.1f} s; "
        f"FinishHand at the door: {played.attack}"
    )
    return played


def test_the_gateway_container_serves_the_room_on_its_one_port(stack: ContainerStack) -> None:
    assert healthz(stack.door, stack.pki.ca_file) == 200
    gateway = stack[GATEWAY]
    assert "PORT" not in gateway.env  # no internal port: PUBLIC_PORT is its one port
    serving = [
        json.loads(line)
        for line in gateway.logs().splitlines()
        if line.startswith("{") and '"serving"' in line
    ]
    assert len(serving) == 1, gateway.logs()
    assert serving[0]["public_port"] == gateway.public_port
    assert serving[0]["lobby"] == stack.target("lobby")
    assert serving[0]["shards"] == [stack.target("table")]
    assert set(serving[0]["protocols"]) == {"grpc", "grpc-web", "connect"}


def test_the_gateway_container_serves_the_web_client(stack: ContainerStack) -> None:
    """The image carries the built web client (issue 17): the page and its script
    at the door, under a Content-Security-Policy of this origin only."""
    context = ssl.create_default_context(cafile=str(stack.pki.ca_file))
    with urllib.request.urlopen(f"https://{stack.door}/", context=context, timeout=5) as page:
        html = page.read().decode()
        csp = page.headers["content-security-policy"]
    assert "/web/app.js" in html and "script-src 'self'" in csp
    with urllib.request.urlopen(
        f"https://{stack.door}/web/app.js", context=context, timeout=5
    ) as script:
        assert script.headers["content-type"].startswith("text/javascript")
        assert len(script.read()) > 10_000


def test_a_player_plays_through_the_gateway_container(game: DoorGame) -> None:
    assert game.errors == []
    assert game.played >= HANDS
    finished = [r for r in game.records if r.status == lpb.HAND_STATUS_FINISHED]
    assert len(finished) == game.played
    assert all(r.status != lpb.HAND_STATUS_PENDING for r in game.records)  # all left
    # The player and the bots saw the hands on their streams through the gateway
    # (a hand dealt while one was joining may be missed: one fewer at most).
    for name, stats in game.stats.items():
        assert stats.hands >= HANDS - 1, (name, stats)
        assert stats.actions > 0, name
        assert stats.rejected == 0, (name, stats.rejections)
    # The chips stayed among them: what they were granted, back in their balances.
    assert set(game.balances) == set(game.credentials)
    assert sum(game.balances.values()) == len(game.balances) * game.grant
    end, before = game.totals_end, game.totals_before
    assert end.granted == end.balances + end.at_tables
    assert end.granted == before.granted + len(game.balances) * game.grant
    assert end.at_tables == before.at_tables  # everyone stood up


def test_hand_history_through_the_gateway_lists_the_hands(game: DoorGame) -> None:
    finished = {r.hand_id for r in game.records if r.status == lpb.HAND_STATUS_FINISHED}
    for history in (game.history, game.public_history):
        listed = [h.hand_id for h in history.hands]
        assert len(listed) == len(set(listed))
        assert finished <= set(listed), (finished - set(listed), listed)
        assert all(h.phh and h.events for h in history.hands)
        assert all(h.config.game == common.GAME_STUD for h in history.hands)


def test_a_call_without_a_credential_is_unauthenticated(
    stack: ContainerStack, lobby: StaffLobby, game: DoorGame
) -> None:
    before = (totals(lobby), hand_records(lobby, game.table_id))

    async def calls() -> dict[str, grpc.StatusCode]:
        answers = {}
        async with player_channel(stack.door, stack.pki.ca_file) as channel:
            room = rpb_grpc.RoomStub(channel)
            for name, call in (
                ("GetMe", room.GetMe(rpb.GetMeRequest())),
                (
                    "SitDown",
                    room.SitDown(rpb.SitDownRequest(table_id=game.table_id, buy_in=BUY_IN)),
                ),
                ("GetState", room.GetState(rpb.GetStateRequest(table_id=game.table_id))),
            ):
                try:
                    await call
                    answers[name] = grpc.StatusCode.OK
                except grpc.aio.AioRpcError as error:
                    answers[name] = error.code()
        return answers

    answers = asyncio.run(calls())
    assert answers == dict.fromkeys(answers, grpc.StatusCode.UNAUTHENTICATED)
    assert (totals(lobby), hand_records(lobby, game.table_id)) == before
    assert lobby.GetTable(lpb.GetTableRequest(table_id=game.table_id), timeout=10).occupied == []


def test_finish_hand_at_the_gateway_is_not_served_and_changes_nothing(game: DoorGame) -> None:
    """The internal hand protocol is not on the door: gRPC's UNIMPLEMENTED (the
    gateway answers HTTP 404 for a path outside the Room API), HTTP 404 for
    Connect; the forged hand did not end, nothing moved."""
    for way, answer in game.attack.items():
        expected = "HTTP 404" if way.startswith("Connect") else "UNIMPLEMENTED"
        assert answer.startswith(expected), (way, answer)
    assert game.world_after_attack == game.world_before_attack
    # The attacked hand was then played out for real: not with the forged stacks
    # (the whole table held less than the 5,000 chips they moved).
    attacked = next(
        hid for hid, status in game.world_before_attack.hands if status == lpb.HAND_STATUS_PENDING
    )
    assert {r.hand_id: r.status for r in game.records}[attacked] == lpb.HAND_STATUS_FINISHED
    assert sum(game.balances.values()) == len(game.balances) * game.grant
