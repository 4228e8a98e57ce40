"""A small card-room client for the security tests: players, tables, streams.

Everything goes over real gRPC on loopback to a ``devroom.stack.Stack``.  The sync
half (``Room``) registers players, creates tables and seats them; the async half
(``Stream``, ``Follower``, ``Spectator``) holds one table stream each and records
every message it receives, so the leak scan can look at exactly what went over
the wire.

A stream goes ``direct`` (the table service's own public port, the player's token
in the Join) or through the ``door`` (the gateway's ``poker.room.v1.Room``, the
player's credential as the bearer): the same checks run on both (``VIAS``).
Through the door a seat may also follow its events without an upward half
(``Follower``: Room.Follow and Room.Act, over gRPC or, as a browser does, in
Connect JSON over HTTP/1.1, ``connect.ConnectClient``).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterable, AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

import grpc
from grpc import aio

from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1.lobby_pb2_grpc import LobbyHandsStub, LobbyOperatorStub, LobbyStub
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1.room_pb2_grpc import RoomStub
from poker.table.v1 import table_pb2 as pb
from poker.table.v1.table_pb2_grpc import (
    TableAuditStub,
    TableCertificationStub,
    TableServiceStub,
)
from poker_wire.channels import Stubs
from tests.support.stacks import public_channel

from .connect import ConnectCallError, ConnectClient

AUDIT_TOKEN = "security-audit-token"
STACK_ENV = {
    "dealer": {"DEALER_ALLOW_PRESET_DECKS": "1"},
    "table": {
        "TABLE_ALLOW_PRESET_DECKS": "1",
        "TABLE_AUDIT_TOKEN": AUDIT_TOKEN,
        "TABLE_DISCOVERY_S": "0.2",
        "TABLE_IDLE_POLL_S": "0.05",
    },
}
WAIT_S = 30.0  # a guard against hangs, never an assertion on speed

Via = Literal["direct", "door"]
VIAS: tuple[Via, ...] = ("direct", "door")  # the table's own port; the gateway

STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
STUD_HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=25, bring_in=50, small_bet=100, big_bet=200
)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=100, big_bet=200
)


@dataclass(frozen=True)
class Player:
    player_id: str
    token: str
    name: str

    @property
    def credential(self) -> str:
        """What Room.Register returns: the bearer credential at the door."""
        return f"{self.player_id}.{self.token}"


def bearer(credential: str) -> tuple[tuple[str, str]]:
    """The call metadata carrying a door credential."""
    return (("authorization", f"Bearer {credential}"),)


class Room:
    """Sync lobby and table calls against a running stack.

    ``lobby`` and ``table`` are the player planes at the public ports, where
    players (hostile ones included) connect; ``staff`` is the lobby as the
    operator (players with play money, tables, the ledger), ``audit`` the
    table as the auditor (deck reveals) and ``certification`` as the operator
    (preset decks), ``hands`` the lobby's hand protocol as the table: all over
    mutual TLS."""

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self._channels = [
            public_channel(stack["lobby"]),
            public_channel(stack["table"]),
            stack["lobby"].channel("operator"),
            stack["table"].channel("auditor"),
            stack["table"].channel("operator"),
            stack["lobby"].channel("table"),
        ]
        self.lobby = LobbyStub(self._channels[0])
        self.table = TableServiceStub(self._channels[1])
        self.staff: Any = Stubs(LobbyStub(self._channels[2]), LobbyOperatorStub(self._channels[2]))
        self.audit = TableAuditStub(self._channels[3])
        self.certification = TableCertificationStub(self._channels[4])
        self.hands = LobbyHandsStub(self._channels[5])
        self.tables: list[str] = []  # every table created, audited at the end
        self.audited = 0

    def close(self) -> None:
        for channel in self._channels:
            channel.close()

    def door_channel(self, options: Any = ()) -> aio.Channel:
        """A player's channel to the room's door (the gateway): Room over gRPC, on
        a connection of its own that its close ends (grpc shares connections
        between channels otherwise, and keeps them past a channel's close)."""
        own = (("grpc.use_local_subchannel_pool", 1), *options)
        return self.stack["gateway"].player_channel(options=own)

    def door_connect(self) -> ConnectClient:
        """The door as a browser calls it: Connect JSON over HTTP/1.1."""
        assert self.stack.pki is not None
        return ConnectClient(self.stack.gateway_target, str(self.stack.pki.ca_file))

    def register(self, name: str, balance: int = 1_000_000) -> Player:
        reply = self.staff.RegisterPlayer(
            lpb.RegisterPlayerRequest(name=name, initial_balance=balance), timeout=5
        )
        return Player(reply.player.player_id, reply.token, name)

    def create_table(
        self, name: str, config: common.GameConfig, seats: int, *, min_buy_in: int, clock_ms: int
    ) -> str:
        table: lpb.Table = self.staff.CreateTable(
            lpb.CreateTableRequest(
                name=name,
                config=config,
                seats=seats,
                min_buy_in=min_buy_in,
                action_clock_ms=clock_ms,
            ),
            timeout=5,
        )
        self.tables.append(table.table_id)
        for _ in range(int(WAIT_S / 0.02)):  # until the table service runs it
            listed = self.table.ListTables(pb.ListTablesRequest(), timeout=5)
            if any(t.table_id == table.table_id for t in listed.tables):
                return table.table_id
            time.sleep(0.02)
        raise AssertionError(f"the table service never ran table {table.table_id}")

    def sit(self, player: Player, table_id: str, buy_in: int, seat: int = 0) -> int:
        reply = self.lobby.SitDown(
            lpb.SitDownRequest(
                player_id=player.player_id,
                token=player.token,
                table_id=table_id,
                seat=seat,
                buy_in=buy_in,
            ),
            timeout=5,
        )
        return int(reply.seat)

    def stand(self, player: Player, table_id: str) -> None:
        try:
            self.lobby.StandUp(
                lpb.StandUpRequest(
                    player_id=player.player_id, token=player.token, table_id=table_id
                ),
                timeout=5,
            )
        except grpc.RpcError as error:
            if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                raise

    def state(self, player: Player, table_id: str) -> pb.Snapshot:
        snap: pb.Snapshot = self.table.GetState(
            pb.GetStateRequest(table_id=table_id, player_id=player.player_id, token=player.token),
            timeout=5,
        )
        return snap

    def history(
        self, table_id: str, player: Player | None = None, limit: int = 100
    ) -> list[pb.HandHistory]:
        request = pb.GetHandHistoryRequest(table_id=table_id, limit=limit)
        if player is not None:
            request.player_id, request.token = player.player_id, player.token
        reply = self.table.GetHandHistory(request, timeout=10)
        return list(reply.hands)

    def proof(self, table_id: str, hand_id: str, player: Player | None = None) -> pb.DeckProof:
        """GetDeckProof of a finished hand, as ``player`` (None: the public) may check it."""
        request = pb.GetDeckProofRequest(table_id=table_id, hand_id=hand_id)
        if player is not None:
            request.player_id, request.token = player.player_id, player.token
        proof: pb.DeckProof = self.table.GetDeckProof(request, timeout=10)
        return proof

    def reveal(self, table_id: str, hand_id: str) -> pb.DeckReveal:
        reveal: pb.DeckReveal = self.audit.GetDeckReveal(
            pb.GetDeckRevealRequest(table_id=table_id, hand_id=hand_id, audit_token=AUDIT_TOKEN),
            timeout=5,
        )
        return reveal

    def table_info(self, table_id: str) -> lpb.Table:
        info: lpb.Table = self.lobby.GetTable(lpb.GetTableRequest(table_id=table_id), timeout=5)
        return info

    def summary(self, table_id: str) -> pb.TableSummary:
        listed = self.table.ListTables(pb.ListTablesRequest(), timeout=5)
        return next(t for t in listed.tables if t.table_id == table_id)


def events_of(event: pb.TableEvent) -> Iterator[pb.TableEvent]:
    """The events one stream message carries (a DELIVERY_ON_TURN batch, unpacked)."""
    if event.HasField("batch"):
        for inner in event.batch.events:
            yield from events_of(inner)
    else:
        yield event


# ---------------------------------------------------------------- streams


class Recording:
    """The messages of one stream a client holds, every one as received, and its
    events one by one (``next_event``, ``wait_for``)."""

    def __init__(self, player: Player, table_id: str) -> None:
        self.player = player
        self.table_id = table_id
        self.messages: list[pb.TableEvent] = []  # every message received, as received
        self.error: grpc.RpcError | ConnectCallError | None = None  # how the stream ended
        # Unary answers the door refused (Follower.act): "action_seq: CODE message".
        self.refused: list[str] = []
        self._events: asyncio.Queue[pb.TableEvent | None] = asyncio.Queue()
        self._unclaimed: list[pb.TableEvent] = []

    async def _record(self, source: AsyncIterable[pb.TableEvent]) -> None:
        try:
            async for message in source:
                self.messages.append(message)
                for event in events_of(message):
                    self._events.put_nowait(event)
        except (grpc.RpcError, ConnectCallError) as error:
            self.error = error
        finally:
            self._events.put_nowait(None)

    async def next_event(self) -> pb.TableEvent | None:
        """The next event (None: the stream ended)."""
        return await asyncio.wait_for(self._events.get(), WAIT_S)

    async def wait_for(self, kind: str) -> pb.TableEvent:
        """The earliest event of ``kind`` (a TableEvent oneof name) not taken yet;
        events of other kinds stay for later ``wait_for`` calls."""
        for k, waiting in enumerate(self._unclaimed):
            if waiting.WhichOneof("event") == kind:
                return self._unclaimed.pop(k)
        while True:
            event = await self.next_event()
            if event is None:
                raise AssertionError(f"stream ended before a {kind}: {self.error!r}")
            if event.WhichOneof("event") == kind:
                return event
            self._unclaimed.append(event)


class Stream(Recording):
    """One Play stream of one player: send messages, read (and keep) every event.

    ``direct``: the table's Play, the token in the Join; ``door``: the Room's Play,
    the credential (``token`` in place of the player's own) as the bearer and a
    Join naming only the table and the delivery."""

    def __init__(
        self,
        channel: aio.Channel,
        player: Player,
        table_id: str,
        delivery: int,
        token: str = "",
        via: Via = "direct",
    ) -> None:
        super().__init__(player, table_id)
        self.delivery = delivery
        self.via = via
        self._out: asyncio.Queue[pb.PlayerMessage | None] = asyncio.Queue()
        join = pb.Join(table_id=table_id, delivery=delivery)  # type: ignore[arg-type]
        if via == "door":
            self.call: Any = RoomStub(channel).Play(
                self._requests(), metadata=bearer(f"{player.player_id}.{token or player.token}")
            )
        else:
            join.player_id, join.token = player.player_id, token or player.token
            self.call = TableServiceStub(channel).Play(self._requests())
        self._out.put_nowait(pb.PlayerMessage(join=join))
        self._reader = asyncio.create_task(self._record(self.call))

    async def _requests(self) -> AsyncIterator[pb.PlayerMessage]:
        while True:
            msg = await self._out.get()
            if msg is None:
                return
            yield msg

    def send(self, msg: pb.PlayerMessage) -> None:
        self._out.put_nowait(msg)

    def act(self, hand_id: str, action_seq: int, action: common.Action) -> None:
        self.send(
            pb.PlayerMessage(
                action=pb.PlayerAction(hand_id=hand_id, action_seq=action_seq, action=action)
            )
        )

    async def close(self) -> None:
        self._out.put_nowait(None)
        try:
            await asyncio.wait_for(self._reader, WAIT_S)
        except TimeoutError:
            self.call.cancel()


class Follower(Recording):
    """A seat through the door without a stream's upward half, as a browser plays:
    Room.Follow for its events (a Snapshot, then one event a message) and the
    unary Room.Act for its turns; over gRPC, or in Connect JSON over HTTP/1.1
    (``connect``).  A refused Act is kept in ``refused``."""

    delivery = pb.DELIVERY_EVERY_EVENT

    def __init__(
        self,
        channel: aio.Channel,
        player: Player,
        table_id: str,
        connect: ConnectClient | None = None,
    ) -> None:
        super().__init__(player, table_id)
        self.via: str = "door, Connect JSON over HTTP/1.1" if connect else "door"
        self._room = RoomStub(channel)
        self._connect = connect
        self._acts: list[asyncio.Task[None]] = []
        request = rpb.FollowRequest(table_id=table_id)
        source: AsyncIterable[pb.TableEvent]
        self._call: Any = None
        if connect is None:
            source = self._call = self._room.Follow(request, metadata=bearer(player.credential))
        else:
            source = connect.stream(
                "Follow", request, pb.TableEvent, authorization=f"Bearer {player.credential}"
            )
        self._reader = asyncio.create_task(self._record(source))

    def act(self, hand_id: str, action_seq: int, action: common.Action) -> None:
        self._acts.append(asyncio.create_task(self._act(hand_id, action_seq, action)))

    async def _act(self, hand_id: str, action_seq: int, action: common.Action) -> None:
        request = rpb.ActRequest(
            table_id=self.table_id, hand_id=hand_id, action_seq=action_seq, action=action
        )
        try:
            if self._connect is None:
                answer = await self._room.Act(
                    request, metadata=bearer(self.player.credential), timeout=WAIT_S
                )
            else:
                answer = await self._connect.unary(
                    "Act",
                    request,
                    rpb.ActResponse,
                    authorization=f"Bearer {self.player.credential}",
                )
            assert (answer.hand_id, answer.action_seq) == (hand_id, action_seq), answer
        except (grpc.aio.AioRpcError, ConnectCallError) as error:
            self.refused.append(f"{action_seq}: {error.code().name} {error.details()}")

    async def close(self) -> None:
        await asyncio.gather(*self._acts)
        if self._call is not None:
            self._call.cancel()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


class Spectator:
    """A Watch stream, recording every message: the table's Watch (``direct``), or
    the Room's, as ``viewer`` (the door asks for a credential), over gRPC or in
    Connect JSON over HTTP/1.1 (``connect``)."""

    def __init__(
        self,
        channel: aio.Channel,
        table_id: str,
        *,
        viewer: Player | None = None,
        connect: ConnectClient | None = None,
    ) -> None:
        self.table_id = table_id
        self.messages: list[pb.TableEvent] = []
        self.error: grpc.RpcError | ConnectCallError | None = None
        source: AsyncIterable[pb.TableEvent]
        self._call: Any = None
        if viewer is None:
            self.via = "direct"
            source = self._call = TableServiceStub(channel).Watch(
                pb.WatchRequest(table_id=table_id)
            )
        elif connect is None:
            self.via = "door"
            source = self._call = RoomStub(channel).Watch(
                rpb.WatchRequest(table_id=table_id), metadata=bearer(viewer.credential)
            )
        else:
            self.via = "door, Connect JSON over HTTP/1.1"
            source = connect.stream(
                "Watch",
                rpb.WatchRequest(table_id=table_id),
                pb.TableEvent,
                authorization=f"Bearer {viewer.credential}",
            )
        self._reader = asyncio.create_task(self._read(source))

    async def _read(self, source: AsyncIterable[pb.TableEvent]) -> None:
        try:
            async for message in source:
                self.messages.append(message)
        except (grpc.RpcError, ConnectCallError) as error:
            self.error = error

    async def close(self) -> None:
        if self._call is not None:
            self._call.cancel()
        self._reader.cancel()
        await asyncio.gather(self._reader, return_exceptions=True)


# ---------------------------------------------------------------- random play


@dataclass
class Tendencies:
    """How a random-legal player picks among the legal actions."""

    fold: float = 0.08  # when a call is needed
    aggress: float = 0.25
    all_in: float = 0.15  # of aggressive actions in pot/no limit
    draw: float = 0.7  # chance to discard something


def random_action(
    legal: common.LegalActions, own: list[str], rng: random.Random, t: Tendencies
) -> common.Action:
    """A legal action chosen at random with the given tendencies."""
    kinds = set(legal.kinds)
    if common.ACTION_KIND_DISCARD in kinds:
        most = min(legal.max_discards, len(own))
        count = rng.randint(1, most) if most and rng.random() < t.draw else 0
        return common.Action(kind=common.ACTION_KIND_DISCARD, cards=rng.sample(own, count))
    if common.ACTION_KIND_BRING_IN in kinds and rng.random() > t.aggress:
        return common.Action(kind=common.ACTION_KIND_BRING_IN)
    aggressive = legal.raise_kind if legal.raise_kind in kinds else None
    if aggressive is not None and rng.random() < t.aggress:
        if legal.to_choices:
            amount = rng.choice(list(legal.to_choices))
        elif rng.random() < t.all_in:
            amount = legal.max_to
        else:
            amount = rng.randint(legal.min_to, min(legal.max_to, legal.min_to * 3))
        return common.Action(kind=aggressive, amount=amount)
    if common.ACTION_KIND_CHECK in kinds:
        return common.Action(kind=common.ACTION_KIND_CHECK)
    if common.ACTION_KIND_FOLD in kinds and rng.random() < t.fold:
        return common.Action(kind=common.ACTION_KIND_FOLD)
    if common.ACTION_KIND_CALL in kinds:
        return common.Action(kind=common.ACTION_KIND_CALL)
    if common.ACTION_KIND_BRING_IN in kinds:  # S5: bring in (a short stack: all it has)
        return common.Action(kind=common.ACTION_KIND_BRING_IN)
    if aggressive is not None:
        amount = legal.to_choices[0] if legal.to_choices else legal.min_to
        return common.Action(kind=aggressive, amount=amount)
    return common.Action(kind=common.ACTION_KIND_FOLD)


@dataclass
class OwnCards:
    """A player's own cards in the hand in progress, from its own stream."""

    hand_id: str = ""
    seat: int = 0
    cards: list[str] = field(default_factory=list)

    def update(self, event: pb.TableEvent, player_id: str) -> None:
        kind = event.WhichOneof("event")
        if kind == "hand_started":
            self.hand_id = event.hand_id
            self.cards = []
            self.seat = next(
                (s.seat for s in event.hand_started.seats if s.player_id == player_id), 0
            )
        elif kind == "cards_dealt" and event.cards_dealt.seat == self.seat and self.seat:
            self.cards.extend(event.cards_dealt.cards)
        elif kind == "draw_taken" and event.draw_taken.seat == self.seat and self.seat:
            d = event.draw_taken
            for old, new in zip(d.discarded, d.received, strict=True):
                self.cards[self.cards.index(old)] = new


# ---------------------------------------------------------------- two players


@dataclass
class Duel:
    """A two-seat table whose players each hold a Play stream, a hand in progress."""

    room: Room
    table_id: str
    players: list[Player]
    streams: list[Stream]

    def state(self, k: int) -> pb.Snapshot:
        return self.room.state(self.players[k], self.table_id)

    def to_act(self) -> int:
        """The index (0, 1) of the player to act now."""
        snap = self.state(0)
        assert snap.HasField("to_act_seat"), snap
        seat = snap.to_act_seat
        return next(
            k
            for k, p in enumerate(self.players)
            if any(v.seat == seat and v.player_id == p.player_id for v in snap.seats)
        )

    def frozen(self) -> tuple[list[pb.Snapshot], lpb.Table, lpb.LedgerTotals]:
        """Everything a refused action must leave as it was: each seat's snapshot
        (the action clock's deadline aside), the lobby's table and the ledger."""
        snaps = []
        for k in range(len(self.players)):
            snap = self.state(k)
            snap.your_turn.ClearField("deadline_unix_ms")
            snaps.append(snap)
        table = self.room.table_info(self.table_id)
        totals = self.room.staff.GetLedgerTotals(lpb.GetLedgerTotalsRequest(), timeout=5)
        return snaps, table, totals

    async def close(self) -> None:
        """Stand both players up and end the hand in progress at once (fold, or
        the cheapest action when folding is not allowed), so the table stops; then
        close the streams.  Other tests then see a quiet lobby."""
        for player in self.players:
            self.room.stand(player, self.table_id)
        answered: set[tuple[str, int]] = set()
        for _ in range(int(WAIT_S / 0.02)):
            if not self.room.table_info(self.table_id).occupied:
                break
            for k in range(len(self.players)):
                snap = self.state(k)
                turn = snap.your_turn if snap.HasField("your_turn") else None
                if turn is None or (snap.hand_id, turn.action_seq) in answered:
                    continue
                answered.add((snap.hand_id, turn.action_seq))
                self.streams[k].act(snap.hand_id, turn.action_seq, cheapest(turn.legal))
            await asyncio.sleep(0.02)
        else:
            raise AssertionError(f"table {self.table_id} did not stop")
        for stream in self.streams:
            await stream.close()


def cheapest(legal: common.LegalActions) -> common.Action:
    """Fold when allowed, else check, else the forced minimum."""
    for kind in (
        common.ACTION_KIND_FOLD,
        common.ACTION_KIND_CHECK,
        common.ACTION_KIND_BRING_IN,
        common.ACTION_KIND_CALL,
    ):
        if kind in legal.kinds:
            return common.Action(kind=kind)
    if common.ACTION_KIND_DISCARD in legal.kinds:
        return common.Action(kind=common.ACTION_KIND_DISCARD)
    return common.Action(kind=legal.raise_kind, amount=legal.min_to)


async def open_duel(
    room: Room,
    channel: aio.Channel,
    config: common.GameConfig,
    *,
    name: str,
    buy_in: int = 10_000,
    deliveries: tuple[int, int] = (pb.DELIVERY_EVERY_EVENT, pb.DELIVERY_ON_TURN),
    via: Via = "direct",
) -> Duel:
    """Two players, their streams open (on ``channel``: the table's port, or the
    door's with ``via="door"``), seated; returns once someone must act.

    The action clock is long (60 s) so that nothing moves unless a test acts."""
    table_id = room.create_table(name, config, 2, min_buy_in=buy_in, clock_ms=60_000)
    players = [room.register(f"{name} {k}") for k in range(2)]
    streams = [
        Stream(channel, p, table_id, d, via=via) for p, d in zip(players, deliveries, strict=True)
    ]
    for stream in streams:
        await stream.wait_for("snapshot")
    for player in players:
        room.sit(player, table_id, buy_in)
    duel = Duel(room, table_id, players, streams)
    for _ in range(int(WAIT_S / 0.02)):
        if duel.state(0).HasField("to_act_seat"):
            return duel
        await asyncio.sleep(0.02)
    raise AssertionError("no hand started")
