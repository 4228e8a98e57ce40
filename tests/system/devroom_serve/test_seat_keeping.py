# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_S2_...)
"""How the served room keeps a seat free (``devroom.room.Room.rebuy_broke`` with
``keep_free``), against a lobby that seats and stands players the way the real
one does (a stand-up during a hand the seat is dealt into is pending until the
hand ends; a full table refuses a SitDown with FAILED_PRECONDITION), so that
every turn of the story can be set up and looked at:

- a person takes the kept seat: one reference bot stands up after the hand, and
  sits back down only when a second seat opens;
- a broke bot rebuys (S2: a buy-in from its balance), also when a person holds
  the kept seat; your bot (``--bot``) that rebuys takes the kept seat, and a
  reference bot makes room again.

The whole room does this in ``test_serve.py``; here each step is checked.
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from devroom.guest_bots import counted
from devroom.room import Room, RoomTable, Seat, table_specs
from poker.lobby.v1 import lobby_pb2 as lpb

TABLE = "t-1"


def refused(details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(
        grpc.StatusCode.FAILED_PRECONDITION, grpc.aio.Metadata(), grpc.aio.Metadata(), details
    )


class Lobby:
    """One table's seating, as the lobby keeps it (the calls the room makes)."""

    def __init__(self, seats: int) -> None:
        self.seats = seats
        self.stacks: dict[str, int] = {}  # player id -> stack, in seating order
        self.in_hand: set[str] = set()  # dealt into the hand in progress
        self.leaving: set[str] = set()

    async def GetTable(self, request: lpb.GetTableRequest) -> lpb.Table:
        occupied = [
            lpb.SeatInfo(seat=n, player_id=p, stack=s)
            for n, (p, s) in enumerate(self.stacks.items(), 1)
        ]
        return lpb.Table(table_id=request.table_id, seats=self.seats, occupied=occupied)

    async def SitDown(self, request: lpb.SitDownRequest) -> lpb.SitDownResponse:
        if request.player_id in self.stacks:
            raise refused("already seated")
        if len(self.stacks) >= self.seats:
            raise refused(f"the table is full ({self.seats} seats)")
        self.stacks[request.player_id] = request.buy_in
        return lpb.SitDownResponse(seat=len(self.stacks), stack=request.buy_in)

    async def StandUp(self, request: lpb.StandUpRequest) -> lpb.StandUpResponse:
        player = request.player_id
        if player not in self.stacks:
            raise refused(f"player {player} is not seated at this table")
        if player in self.in_hand:
            self.leaving.add(player)
            return lpb.StandUpResponse(pending=True)
        return lpb.StandUpResponse(returned=self.stacks.pop(player))

    def deal(self) -> None:
        self.in_hand = set(self.stacks)

    def end_hand(self) -> None:
        for player in self.leaving:
            self.stacks.pop(player, None)
        self.leaving.clear()
        self.in_hand.clear()


class Quiet:
    def act(self, view: Any, legal: Any) -> Any:
        raise AssertionError("never asked here")


def room_with(lobby: Lobby, *, reference: int, keep_free: int, yours: int = 0) -> Room:
    """A room whose table (6 seats) has ``reference`` bots and ``yours`` of
    yours, every one seated."""
    room = Room(lobby, table=None, keep_free=keep_free)  # type: ignore[arg-type]
    table = RoomTable(table_specs()[0], TABLE)
    table.seats = [Seat(f"ref-{n}", "token", "random") for n in range(reference)]
    table.seats += [
        Seat(f"yours-{n}", "token", "yours", bot=counted(Quiet(), "Quiet")) for n in range(yours)
    ]
    room.tables.append(table)
    asyncio.run(room.seat_everyone())
    return room


def tend(room: Room) -> None:
    asyncio.run(room.rebuy_broke())


def seated(lobby: Lobby) -> list[str]:
    return list(lobby.stacks)


def test_a_person_in_the_kept_seat_makes_a_reference_bot_stand_up_after_the_hand() -> None:
    lobby = Lobby(seats=6)
    room = room_with(lobby, reference=5, keep_free=1)
    tend(room)
    assert len(seated(lobby)) == 5 and room.tables[0].free == 1  # nothing to do
    lobby.deal()
    lobby.stacks["alice"] = 2_000  # sits down during the hand: the table is full
    tend(room)
    tend(room)  # the bot's stand-up is pending: no second bot stands up
    assert len(lobby.leaving) == 1 and len(seated(lobby)) == 6
    (leaving,) = lobby.leaving
    lobby.end_hand()
    tend(room)
    assert leaving not in seated(lobby) and "alice" in seated(lobby)
    assert len(seated(lobby)) == 5 and room.tables[0].free == 1
    assert room.tables[0].others == 1
    # It waits for a seat beyond the kept one: alice leaving opens it.
    del lobby.stacks["alice"]
    tend(room)
    assert leaving in seated(lobby) and len(seated(lobby)) == 5
    assert room.tally.rebuys == 0  # it was not broke: a return, not a rebuy


def test_S2_a_broke_bot_rebuys_and_the_kept_seat_stays_free() -> None:
    lobby = Lobby(seats=6)
    room = room_with(lobby, reference=5, keep_free=1)
    bought = room.tally.bought_in
    lobby.stacks["ref-0"] = 0
    tend(room)  # between hands: it stands up and sits down again at once
    assert lobby.stacks["ref-0"] == room.buy_in and len(seated(lobby)) == 5
    assert (room.tally.rebuys, room.tally.bought_in) == (1, bought + room.buy_in)
    # Broke during a hand it was dealt into: after that hand.
    lobby.deal()
    lobby.stacks["ref-1"] = 0
    tend(room)
    assert "ref-1" in lobby.leaving and room.tally.rebuys == 1
    lobby.end_hand()
    tend(room)
    assert lobby.stacks["ref-1"] == room.buy_in and room.tally.rebuys == 2


def test_a_broke_bot_waits_while_a_person_holds_the_kept_seat() -> None:
    lobby = Lobby(seats=6)
    room = room_with(lobby, reference=5, keep_free=1)
    lobby.stacks["alice"] = 2_000
    lobby.stacks["ref-0"] = 0
    tend(room)  # ref-0 stands up broke: that frees the kept seat, so it stays out
    assert "ref-0" not in seated(lobby) and len(seated(lobby)) == 5
    assert room.tally.rebuys == 0
    del lobby.stacks["alice"]
    tend(room)
    assert lobby.stacks["ref-0"] == room.buy_in and room.tally.rebuys == 1


def test_your_bot_takes_the_kept_seat_and_a_reference_bot_makes_room() -> None:
    lobby = Lobby(seats=6)
    room = room_with(lobby, reference=4, keep_free=1, yours=1)
    lobby.stacks["alice"] = 2_000  # full
    lobby.stacks["yours-0"] = 0
    tend(room)  # yours rebuys into the seat its stand-up freed; a bot makes room
    assert lobby.stacks["yours-0"] == room.buy_in
    assert len(seated(lobby)) == 5 and "alice" in seated(lobby)
    assert sum(p.startswith("ref-") for p in seated(lobby)) == 3


def test_without_a_kept_seat_every_seat_is_the_bots() -> None:
    lobby = Lobby(seats=6)
    room = room_with(lobby, reference=6, keep_free=0)
    lobby.stacks["ref-3"] = 0
    tend(room)
    assert len(seated(lobby)) == 6 and room.tally.rebuys == 1 and room.tables[0].free == 0


def bob_is_quicker(lobby: Lobby) -> Any:
    """``lobby.SitDown`` as it was; until put back, bob sits down just before
    each SitDown the room makes."""
    real_sit = lobby.SitDown

    async def taken_first(request: lpb.SitDownRequest) -> lpb.SitDownResponse:
        lobby.stacks.setdefault("bob", 2_000)
        return await real_sit(request)

    lobby.SitDown = taken_first  # type: ignore[method-assign]
    return real_sit


def test_a_seat_taken_between_the_look_and_the_sit_down_is_tried_again() -> None:
    """A SitDown that lost the race for the last seat (FAILED_PRECONDITION) is
    not an error: the next look decides again."""
    lobby = Lobby(seats=6)
    room = room_with(lobby, reference=6, keep_free=0)
    lobby.stacks["ref-0"] = 0
    real_sit = bob_is_quicker(lobby)
    tend(room)
    assert "ref-0" not in seated(lobby) and "bob" in seated(lobby)
    lobby.SitDown = real_sit  # type: ignore[method-assign]
    del lobby.stacks["bob"]
    tend(room)
    assert lobby.stacks["ref-0"] == room.buy_in


def test_a_table_filled_behind_the_rooms_back_gets_its_free_seat_at_the_next_look() -> None:
    lobby = Lobby(seats=6)
    room = room_with(lobby, reference=5, keep_free=1)
    lobby.stacks["ref-0"] = 0
    real_sit = bob_is_quicker(lobby)
    tend(room)  # ref-0 rebuys into one of two free seats, bob takes the other
    lobby.SitDown = real_sit  # type: ignore[method-assign]
    assert len(seated(lobby)) == 6 and "bob" in seated(lobby)
    tend(room)
    assert len(seated(lobby)) == 5 and "bob" in seated(lobby) and room.tables[0].free == 1
