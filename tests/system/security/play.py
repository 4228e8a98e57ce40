"""Play many hands with random-legal players and record everything they were sent.

``play_tables`` runs several tables at once, one Play stream per seat (deliveries
alternating between DELIVERY_EVERY_EVENT and DELIVERY_ON_TURN), a spectator Watch
stream per table, GetState snapshots of every seat taken in the middle of hands,
and, after the play, every hand history as each kind of viewer gets it.  Busted
players stand up and buy in again, so all-ins happen and the table keeps going.

``via="door"`` plays the same tables through the room's door (the gateway) with
every kind of client it serves: the seats take turns between Play
(DELIVERY_EVERY_EVENT, DELIVERY_ON_TURN), Follow + Act over gRPC and Follow + Act
in Connect JSON over HTTP/1.1 (a browser); each table has a spectator watching
over gRPC and one in Connect JSON; the players sit, stand, take GetState and
read their hand histories through the door too.  Only the test's own
bookkeeping (is the table idle yet? did a busted player leave?) asks the
services directly.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field
from typing import Any

import grpc
from grpc import aio

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1.lobby_pb2_grpc import LobbyStub
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1.room_pb2_grpc import RoomStub
from poker.table.v1 import table_pb2 as pb
from poker.table.v1.table_pb2_grpc import TableServiceStub

from .connect import ConnectClient
from .room import (
    WAIT_S,
    Follower,
    OwnCards,
    Player,
    Room,
    Spectator,
    Stream,
    Tendencies,
    Via,
    bearer,
    random_action,
)

# The seats' clients through the door, in turn (a 4-player table has one of each).
DOOR_SEATS = ("play every event", "play on turn", "follow", "follow in Connect JSON")


@dataclass
class TablePlan:
    name: str
    config: common.GameConfig
    players: int
    buy_in: int
    hands: int
    tendencies: Tendencies = field(default_factory=Tendencies)


@dataclass
class TableRecord:
    """What was sent to whom at one table."""

    table_id: str
    plan: TablePlan
    players: list[Player]
    streams: list[Stream | Follower] = field(default_factory=list)
    spectators: list[Spectator] = field(default_factory=list)
    # (player, snapshot) taken with GetState while a hand was in progress
    snapshots: list[tuple[Player, pb.Snapshot]] = field(default_factory=list)
    # (viewer or None for the public, the viewer's label, history)
    histories: list[tuple[Player | None, str, pb.HandHistory]] = field(default_factory=list)
    # (viewer or None, label, the viewer's deck proof of one hand of ``histories``, G4a)
    proofs: list[tuple[Player | None, str, pb.DeckProof]] = field(default_factory=list)
    hand_ids: list[str] = field(default_factory=list)  # finished, in order
    rejected: list[pb.ActionRejected] = field(default_factory=list)
    rebuys: int = 0


class Door:
    """The room's door as the players' clients have it: each player (and the
    table's spectator, ``watcher``) on a connection of their own, as people on
    their own devices are (gRPC over HTTP/2, ``channel``; Connect JSON over
    HTTP/1.1, ``connect``, a connection a call)."""

    def __init__(self, room: Room, watcher: Player) -> None:
        self._room = room
        self.watcher = watcher
        self.connect: ConnectClient = room.door_connect()
        self._channels: dict[str, aio.Channel] = {}

    def channel(self, player: Player) -> aio.Channel:
        channel = self._channels.get(player.player_id)
        if channel is None:
            channel = self._channels[player.player_id] = self._room.door_channel()
        return channel

    def room(self, player: Player) -> Any:
        """The Room stub on ``player``'s connection."""
        return RoomStub(self.channel(player))

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()


class _Table:
    """The async driver of one table (through ``door``, or directly)."""

    def __init__(
        self,
        table_channel: aio.Channel,
        lobby_channel: aio.Channel,
        record: TableRecord,
        rng: random.Random,
        snapshot_rate: float,
        door: Door | None = None,
    ) -> None:
        self.channel = table_channel
        self.record = record
        self.rng = rng
        self.snapshot_rate = snapshot_rate
        self.lobby = LobbyStub(lobby_channel)
        self.table = TableServiceStub(table_channel)
        self.door = door
        self.finished: set[str] = set()
        self.enough = asyncio.Event()
        self.stopping = False
        self.rebuys: list[asyncio.Task[None]] = []

    def _open(self, k: int, player: Player) -> Stream | Follower:
        """The k-th seat's stream: Play directly (deliveries alternating), or the
        door's clients in turn (DOOR_SEATS)."""
        deliveries = (pb.DELIVERY_EVERY_EVENT, pb.DELIVERY_ON_TURN)
        table_id = self.record.table_id
        if self.door is None:
            return Stream(self.channel, player, table_id, deliveries[k % 2])
        kind = DOOR_SEATS[k % len(DOOR_SEATS)]
        channel = self.door.channel(player)
        if kind.startswith("play"):
            return Stream(channel, player, table_id, deliveries[k % 2], via="door")
        connect = self.door.connect if kind.endswith("JSON") else None
        return Follower(channel, player, table_id, connect=connect)

    async def run(self) -> None:
        rec = self.record
        if self.door is None:
            rec.spectators.append(Spectator(self.channel, rec.table_id))
        else:
            watcher = self.door.watcher
            for connect in (None, self.door.connect):
                rec.spectators.append(
                    Spectator(
                        self.door.channel(watcher), rec.table_id, viewer=watcher, connect=connect
                    )
                )
        loops = []
        joined = []
        for i, player in enumerate(rec.players):
            stream = self._open(i, player)
            rec.streams.append(stream)
            joined.append(asyncio.Event())
            loops.append(asyncio.create_task(self._seat(stream, joined[-1])))
        # Every stream is open before anyone sits down: hands start as soon as two
        # players are seated, and each seat sees every hand from its first event.
        await asyncio.wait_for(asyncio.gather(*(j.wait() for j in joined)), WAIT_S)
        for player in rec.players:
            await self._sit(player)
        try:
            await asyncio.wait_for(self.enough.wait(), WAIT_S * 4)
        except TimeoutError:
            raise AssertionError(await self._stalled()) from None
        self.stopping = True
        await asyncio.gather(*self.rebuys)
        for player in rec.players:
            await self._stand(player)
        await self._until_idle()
        for stream in rec.streams:
            await stream.close()
        await asyncio.gather(*loops)
        for spectator in rec.spectators:
            await spectator.close()

    async def _stalled(self) -> str:
        """Why the table did not play its hands: for the failure message."""
        rec = self.record
        info = await self.lobby.GetTable(lpb.GetTableRequest(table_id=rec.table_id), timeout=5)
        listed = await self.table.ListTables(pb.ListTablesRequest(), timeout=5)
        summary = [t for t in listed.tables if t.table_id == rec.table_id]
        last = rec.spectators[0].messages[-5:] if rec.spectators else []
        failed = [t.exception() for t in self.rebuys if t.done() and t.exception()]
        seats = [
            f"{s.player.name} ({s.via}): {len(s.messages)} messages, error {s.error!r}, "
            f"refused {s.refused}, last {s.messages[-1:]}"
            for s in rec.streams
        ]
        return (
            f"{rec.plan.name}: {len(self.finished)} hands finished of {rec.plan.hands}\n"
            f"lobby: {info}\ntable: {summary}\nrebuys failed: {failed}\n"
            f"last spectator events: {last}\nseats:\n" + "\n".join(seats)
        )

    async def _stand(self, player: Player) -> None:
        try:
            if self.door is not None:
                await self.door.room(player).StandUp(
                    rpb.StandUpRequest(table_id=self.record.table_id),
                    metadata=bearer(player.credential),
                    timeout=5,
                )
                return
            await self.lobby.StandUp(
                lpb.StandUpRequest(
                    player_id=player.player_id, token=player.token, table_id=self.record.table_id
                ),
                timeout=5,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise

    async def _until_idle(self) -> None:
        """Until the lobby seats nobody and the table has no hand in progress."""
        tid = self.record.table_id
        for _ in range(int(WAIT_S / 0.05)):
            info = await self.lobby.GetTable(lpb.GetTableRequest(table_id=tid), timeout=5)
            listed = await self.table.ListTables(pb.ListTablesRequest(), timeout=5)
            busy = any(t.current_hand_id for t in listed.tables if t.table_id == tid)
            if not info.occupied and not busy:
                return
            await asyncio.sleep(0.05)
        raise AssertionError(f"table {tid} did not stop: {await self._stalled()}")

    async def _snapshots(self) -> None:
        """GetState for every seat of the table, now (a hand is in progress)."""
        rec = self.record

        async def one(p: Player) -> tuple[Player, pb.Snapshot]:
            if self.door is not None:
                snap = await self.door.room(p).GetState(
                    rpb.GetStateRequest(table_id=rec.table_id),
                    metadata=bearer(p.credential),
                    timeout=5,
                )
                return p, snap
            snap = await self.table.GetState(
                pb.GetStateRequest(table_id=rec.table_id, player_id=p.player_id, token=p.token),
                timeout=5,
            )
            return p, snap

        rec.snapshots.extend(await asyncio.gather(*(one(p) for p in rec.players)))

    async def _sit(self, player: Player) -> None:
        if self.door is not None:
            await self.door.room(player).SitDown(
                rpb.SitDownRequest(table_id=self.record.table_id, buy_in=self.record.plan.buy_in),
                metadata=bearer(player.credential),
                timeout=5,
            )
            return
        await self.lobby.SitDown(
            lpb.SitDownRequest(
                player_id=player.player_id,
                token=player.token,
                table_id=self.record.table_id,
                buy_in=self.record.plan.buy_in,
            ),
            timeout=5,
        )

    async def _rebuy(self, player: Player) -> None:
        """Stand up with no chips and buy in again (the lobby may still have the
        hand pending: then the stand-up happens when it is reported)."""
        await self._stand(player)
        tid = self.record.table_id
        for _ in range(int(WAIT_S / 0.02)):
            info = await self.lobby.GetTable(lpb.GetTableRequest(table_id=tid), timeout=5)
            if all(s.player_id != player.player_id for s in info.occupied):
                break
            await asyncio.sleep(0.02)
        if not self.stopping:
            await self._sit(player)
            self.record.rebuys += 1

    async def _seat(self, stream: Stream | Follower, joined: asyncio.Event) -> None:
        rec = self.record
        pid = stream.player.player_id
        own = OwnCards()
        tendencies = rec.plan.tendencies
        while True:
            event = await stream.next_event()
            if event is None:
                return
            joined.set()
            own.update(event, pid)
            kind = event.WhichOneof("event")
            turn: pb.YourTurn | None = None
            hand_id = event.hand_id
            if kind == "your_turn":
                turn = event.your_turn
            elif kind == "snapshot" and event.snapshot.HasField("your_turn"):
                turn, hand_id = event.snapshot.your_turn, event.snapshot.hand_id
            elif kind == "action_rejected":
                rec.rejected.append(event.action_rejected)
            elif kind == "hand_finished":
                if event.hand_id not in self.finished:
                    self.finished.add(event.hand_id)
                    rec.hand_ids.append(event.hand_id)
                    if len(self.finished) >= rec.plan.hands:
                        self.enough.set()
                busted = any(s.player_id == pid and s.stack == 0 for s in event.hand_finished.seats)
                if busted and not self.stopping:
                    self.rebuys.append(asyncio.create_task(self._rebuy(stream.player)))
            if turn is not None:
                if self.rng.random() < self.snapshot_rate:
                    await self._snapshots()
                action = random_action(turn.legal, own.cards, self.rng, tendencies)
                stream.act(hand_id, turn.action_seq, action)


async def _play(
    room: Room,
    records: list[TableRecord],
    rng: random.Random,
    snapshot_rate: float,
    via: Via,
    watchers: list[Player],
) -> None:
    doors: list[Door | None] = [Door(room, watcher) for watcher in watchers]
    doors += [None] * (len(records) - len(doors))  # direct: no door, no watcher
    async with (
        room.stack["table"].player_channel() as table_channel,
        room.stack["lobby"].player_channel() as lobby_channel,
    ):
        drivers = [
            _Table(
                table_channel,
                lobby_channel,
                rec,
                random.Random(rng.random()),
                snapshot_rate,
                door,
            )
            for rec, door in zip(records, doors, strict=True)
        ]
        try:
            await asyncio.gather(*(d.run() for d in drivers))
        finally:
            for door in doors:
                if door is not None:
                    await door.close()


async def _door_proofs(
    room: Room, wanted: list[tuple[str, str, Player | None]]
) -> list[pb.DeckProof]:
    """GetDeckProof at the door for each (table, hand, viewer), as for histories."""
    got: list[pb.DeckProof] = []
    async with room.door_channel() as channel:
        for table_id, hand_id, viewer in wanted:
            got.append(
                await RoomStub(channel).GetDeckProof(
                    rpb.GetDeckProofRequest(table_id=table_id, hand_id=hand_id),
                    metadata=bearer(viewer.credential) if viewer else None,
                    timeout=10,
                )
            )
    return got


async def _door_histories(
    room: Room, wanted: list[tuple[str, Player | None]]
) -> list[list[pb.HandHistory]]:
    """GetHandHistory at the door for each (table, viewer): with the viewer's
    credential, or none (the public)."""
    got: list[list[pb.HandHistory]] = []
    async with room.door_channel() as channel:
        for table_id, viewer in wanted:
            reply = await RoomStub(channel).GetHandHistory(
                rpb.GetHandHistoryRequest(table_id=table_id, limit=100),
                metadata=bearer(viewer.credential) if viewer else None,
                timeout=10,
            )
            got.append(list(reply.hands))
    return got


def play_tables(
    room: Room,
    plans: list[TablePlan],
    *,
    seed: int,
    snapshot_rate: float = 0.1,
    via: Via = "direct",
) -> list[TableRecord]:
    """Create, seat and play every planned table (``via`` the table's own port or
    the door); then fetch every hand history, and every hand's deck proof (G4a),
    as the public, each participant and a non-participant see it, the same way."""
    rng = random.Random(seed)
    records: list[TableRecord] = []
    for k, plan in enumerate(plans):
        table_id = room.create_table(
            plan.name, plan.config, plan.players, min_buy_in=plan.buy_in, clock_ms=10_000
        )
        players = [room.register(f"sec-{k}-{i}") for i in range(plan.players)]
        records.append(TableRecord(table_id, plan, players))
    # Through the door, each table's spectators watch as a player of their own.
    watchers = (
        [room.register(f"sec-{k}-watcher") for k in range(len(plans))] if via == "door" else []
    )
    try:
        asyncio.run(_play(room, records, rng, snapshot_rate, via, watchers))
    except AssertionError as error:
        raise AssertionError(f"{error}\n{service_trouble(room)}") from None
    outsider = room.register("sec-outsider")
    wanted: list[tuple[TableRecord, Player | None, str]] = []
    for k, rec in enumerate(records):
        other = records[(k + 1) % len(records)].players[0]
        viewers: list[tuple[Player | None, str]] = [(None, "public"), (outsider, "outsider")]
        if other not in rec.players:
            viewers.append((other, "other-table player"))
        viewers += [(p, "participant") for p in rec.players]
        wanted += [(rec, viewer, label) for viewer, label in viewers]
    if via == "door":
        got = asyncio.run(_door_histories(room, [(r.table_id, v) for r, v, _ in wanted]))
    else:
        got = [room.history(r.table_id, v, limit=100) for r, v, _ in wanted]
    for (rec, viewer, label), hands in zip(wanted, got, strict=True):
        rec.histories += [(viewer, label, history) for history in hands]
    asked = [
        (rec, viewer, label, history.hand_id)
        for rec in records
        for viewer, label, history in rec.histories
    ]
    if via == "door":
        proofs = asyncio.run(_door_proofs(room, [(r.table_id, h, v) for r, v, _, h in asked]))
    else:
        proofs = [room.proof(r.table_id, h, v) for r, v, _, h in asked]
    for (rec, viewer, label, _), proof in zip(asked, proofs, strict=True):
        rec.proofs.append((viewer, label, proof))
    return records


def service_trouble(room: Room) -> str:
    """The services' warnings, errors and non-JSON output (for failure messages)."""
    lines = []
    for name in ("table", "lobby", "dealer", "betting", "showdown", "gateway"):
        for line in room.stack[name].lines:
            try:
                record = json.loads(line)
            except ValueError:
                lines.append(f"{name}: {line}")
                continue
            if record.get("level") not in ("info", "debug"):
                lines.append(f"{name}: {line}")
    return "\n".join(lines[-80:])
