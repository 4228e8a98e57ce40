# ruff: noqa: N802  (the fakes' methods are named as the RPCs they serve)
"""What the CLI tests share: the menus and the hand that the play parser and the
texts are tried on, and fakes of the room's door (``poker.room.v1.Room``, the
gateway) and of the lobby's staff port for the commands.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import grpc

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.room.v1 import room_pb2, room_pb2_grpc
from poker.table.v1 import table_pb2 as t
from tests.unit.bots import events as build
from tests.unit.bots.events import (
    STUD,
    action,
    batch,
    dealt,
    finished,
    fixed_menu,
    hand_started,
    seat,
    snapshot,
    your_turn,
)

# Menus and a hand for the play parser and the texts.

FL = fixed_menu(call=100, raise_kind=c.ACTION_KIND_RAISE, to=[200])
NL = c.LegalActions(
    seat=1,
    can_fold=True,
    can_check=True,
    raise_kind=c.ACTION_KIND_BET,
    min_to=100,
    max_to=2_000,
    kinds=[c.ACTION_KIND_FOLD, c.ACTION_KIND_CHECK, c.ACTION_KIND_BET],
)
DRAW = c.LegalActions(seat=1, max_discards=3, kinds=[c.ACTION_KIND_DISCARD])
HAND = ["As", "Kd", "7c", "8h", "9s"]

# The players the fake door knows, and the tokens it accepts for each (an old
# lobby's token may begin with "-").
ACCEPTED = {"p-1": {"tok-1", "-tok-1"}, "p1": {"-t"}, "p2": {"tok"}, "p9": {"x"}}
MISSING = (
    "this call acts for a player: send `authorization: Bearer <credential>` with the "
    "credential Register returned"
)
REFUSED = "the credential was not accepted: send the credential Register returned, unchanged"
NO_TABLE = "no table 'T404'; ListTables shows the room's tables"


def to_act(seat_no: int, action_seq: int, seq: int = 6) -> t.TableEvent:
    return build.ev(seq, to_act=t.ToAct(seat=seat_no, action_seq=action_seq))


def history_hands() -> list[t.HandHistory]:
    """Two finished hands as the public sees them (no down cards)."""
    seats = [build.seat(1), build.seat(2)]
    first = [
        build.hand_started(seats, posts=[(1, 25, "ante"), (2, 25, "ante")]),
        build.dealt(1, hidden=2, seq=2),
        build.dealt(1, ["2c"], up=True, seq=3),
        build.street(0, "third", seq=4),
        to_act(1, 1, seq=5),
        build.action(1, c.ACTION_KIND_BRING_IN, stack=925, seq=6),
        to_act(2, 2, seq=7),
        build.action(2, c.ACTION_KIND_FOLD, stack=975, seq=8),
        build.finished({1: 1_025, 2: 975}),
    ]
    void = build.ev(2, hand="h2", hand_finished=t.HandFinished(voided=True))
    return [
        t.HandHistory(hand_id="h1", config=build.STUD, events=first, phh="variant = 'FT'\n"),
        t.HandHistory(hand_id="h2", config=build.STUD, events=[build.hand_started(seats), void]),
    ]


def watch_events() -> list[t.TableEvent]:
    """A spectator's stream: a snapshot, a hand, the start of the next."""
    return [
        snapshot(STUD, 0, [seat(1), seat(2)], hand=""),
        hand_started([seat(1), seat(2)]),
        dealt(1, ["Kd"], up=True),
        finished({1: 1_000, 2: 1_000}),
        hand_started([seat(1), seat(2)]),  # not printed: --hands 1
    ]


# The fake serves only the RPCs a test calls; the generated stubs declare every RPC
# abstract (at run time the base class answers the others UNIMPLEMENTED), hence the
# ``type: ignore[abstract]`` where a fake is made.


class FakeRoom(room_pb2_grpc.RoomServicer):
    """The room's door as the CLI sees it: the Room API, the bearer credential
    checked on the calls that act for a player (UNAUTHENTICATED otherwise, with
    the gateway's messages), a table T1 with players p1 and p2 seated.

    It records what came: every call's bearer ("" without one) by method, the
    unary calls' deadlines, the requests, and a Play stream's messages."""

    def __init__(self) -> None:
        self.bearers: list[tuple[str, str]] = []  # (method, bearer)
        self.deadlines: list[float | None] = []
        self.requests: list[Any] = []
        self.messages: list[t.PlayerMessage] = []  # Play's, as received
        self.watch = watch_events()

    # ------------------------------------------------------------ the credential

    def _seen(self, method: str, request: Any, context: Any, *, unary: bool = True) -> str:
        value = dict(context.invocation_metadata()).get("authorization", "")
        bearer = value.removeprefix("Bearer ") if value.startswith("Bearer ") else ""
        self.bearers.append((method, bearer))
        self.requests.append(request)
        if unary:
            self.deadlines.append(context.time_remaining())
        return bearer

    def _player(self, method: str, request: Any, context: Any, *, unary: bool = True) -> str:
        """The authenticated caller's player id (the gateway's refusals otherwise)."""
        bearer = self._seen(method, request, context, unary=unary)
        if not bearer:
            context.abort(grpc.StatusCode.UNAUTHENTICATED, MISSING)
        player_id, _, token = bearer.rpartition(".")
        if token not in ACCEPTED.get(player_id, set()):
            context.abort(grpc.StatusCode.UNAUTHENTICATED, REFUSED)
        return player_id

    @staticmethod
    def _table(table_id: str, context: Any) -> None:
        if table_id != "T1":
            context.abort(grpc.StatusCode.NOT_FOUND, NO_TABLE)

    # ------------------------------------------------------------ account and seats

    def Register(self, request: Any, context: Any) -> Any:
        self._seen("Register", request, context)
        player = lobby_pb2.Player(player_id="p-1", name=request.name, balance=10_000)
        return room_pb2.RegisterResponse(player=player, credential="p-1.tok-1")

    def GetMe(self, request: Any, context: Any) -> Any:
        player_id = self._player("GetMe", request, context)
        return lobby_pb2.Player(player_id=player_id, name="P2", balance=8_000, at_tables=1_000)

    def ListTables(self, request: Any, context: Any) -> Any:
        self._seen("ListTables", request, context)
        return lobby_pb2.ListTablesResponse(tables=[self._lobby_table("T1")])

    def ListLiveTables(self, request: Any, context: Any) -> Any:
        self._seen("ListLiveTables", request, context)
        live = t.TableSummary(
            table_id="T1",
            name="main",
            config=STUD,
            seats=8,
            players=2,
            hands_played=7,
            current_hand_id="h8",
        )
        return t.ListTablesResponse(tables=[live])

    def GetTable(self, request: Any, context: Any) -> Any:
        self._seen("GetTable", request, context)
        self._table(request.table_id, context)
        return self._lobby_table(request.table_id)

    @staticmethod
    def _lobby_table(table_id: str) -> lobby_pb2.Table:
        occupied = [
            lobby_pb2.SeatInfo(seat=1, player_id="p1", name="P1", stack=1_000),
            lobby_pb2.SeatInfo(seat=2, player_id="p2", name="P2", stack=1_000, auto_post=True),
        ]
        return lobby_pb2.Table(
            table_id=table_id,
            name="main",
            config=STUD,
            seats=8,
            min_buy_in=2_000,
            occupied=occupied,
        )

    def SitDown(self, request: Any, context: Any) -> Any:
        self._player("SitDown", request, context)
        self._table(request.table_id, context)
        return lobby_pb2.SitDownResponse(seat=3, stack=request.buy_in, balance=8_000)

    def StandUp(self, request: Any, context: Any) -> Any:
        self._player("StandUp", request, context)
        return lobby_pb2.StandUpResponse(returned=1_000, balance=10_000)

    def SitOut(self, request: Any, context: Any) -> Any:
        self._player("SitOut", request, context)
        info = lobby_pb2.SeatInfo(seat=2, stack=1_000, away=True, auto_post=True)
        return lobby_pb2.SeatStatusResponse(seat=info)

    # ------------------------------------------------------------ at the table

    def Watch(self, request: Any, context: Any) -> Iterator[t.TableEvent]:
        self._player("Watch", request, context, unary=False)
        self._table(request.table_id, context)
        yield from self.watch

    def GetState(self, request: Any, context: Any) -> Any:
        player_id = self._player("GetState", request, context)
        self._table(request.table_id, context)
        mine = player_id == "p2"  # p-1 has no seat: a spectator's view
        menu = fixed_menu(2, check=True, raise_kind=c.ACTION_KIND_BET, to=[100])
        down = {"own_cards": ["As", "Ad"]} if mine else {"down_cards": 2}
        seats = [
            seat(1, in_hand=True, down_cards=2, upcards=["Kd"], bet=50),
            seat(2, in_hand=True, upcards=["7c"], **down),
        ]
        turn = your_turn(menu, 4).your_turn if mine else None
        event = snapshot(STUD, 2 if mine else 0, seats, turn)
        event.snapshot.to_act_seat = 2
        return event.snapshot

    def GetHandHistory(self, request: Any, context: Any) -> Any:
        bearer = self._seen("GetHandHistory", request, context)
        if bearer:
            self._player("GetHandHistory", request, context)
        hands = history_hands()
        if request.hand_id:
            hands = [h for h in hands if h.hand_id == request.hand_id]
        return t.GetHandHistoryResponse(hands=hands)

    def Play(self, request_iterator: Iterator[t.PlayerMessage], context: Any) -> Any:
        """One turn (check or bet), then the hand ends."""
        self._player("Play", None, context, unary=False)
        self.messages.append(next(request_iterator))
        menu = fixed_menu(2, check=True, raise_kind=c.ACTION_KIND_BET, to=[100])
        yield batch(snapshot(STUD, 2, [seat(1), seat(2)]), hand_started([seat(1), seat(2)]))
        yield batch(dealt(2, ["As", "Ad"]), your_turn(menu, 4))
        self.messages.append(next(request_iterator))
        yield batch(action(2, c.ACTION_KIND_CHECK, stack=1_000), finished({1: 900, 2: 1_100}))
        context.abort(grpc.StatusCode.UNAVAILABLE, "table went away")  # hands=1: never seen


class FakeStaffLobby(lobby_pb2_grpc.LobbyServicer, lobby_pb2_grpc.LobbyOperatorServicer):
    """The lobby's internal port, for the staff's commands (create-table, register
    --balance): who called (their certificate's SPIFFE id) is recorded."""

    def __init__(self) -> None:
        self.callers: list[list[bytes]] = []

    def _seen(self, context: Any) -> None:
        self.callers.append(list(context.auth_context().get("peer_spiffe_id", [])))

    def RegisterPlayer(self, request: Any, context: Any) -> Any:
        self._seen(context)
        player = lobby_pb2.Player(
            player_id="p-5", name=request.name, balance=request.initial_balance
        )
        return lobby_pb2.RegisterPlayerResponse(player=player, token="-tok-5")

    def CreateTable(self, request: Any, context: Any) -> Any:
        self._seen(context)
        return lobby_pb2.Table(table_id="T9", name=request.name, config=request.config, seats=5)
