"""The account and seat commands, through the room's door (the Room API): register,
list tables, sit and stand, the seating switches (sit out and in, auto-post, "I'm
in"), the balance; and the staff's create-table and register --balance, on the
lobby's internal port with the operator's certificate."""

from __future__ import annotations

import argparse
import shlex

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.room.v1 import room_pb2
from poker_wire.channels import service_channel

from .door import bearer, room
from .format import lobby_table_line, money, table_summary_line
from .options import (
    CREDENTIAL_ENV,
    ENTRIES,
    GAMES,
    create_table_request,
    credential,
    split_credential,
)


async def cmd_register(args: argparse.Namespace) -> int:
    player: lobby_pb2.Player
    if args.balance:
        # A balance beyond the registration grant is the operator's to give.
        async with service_channel(args.lobby_internal, args.operator_dir) as channel:
            stub = lobby_pb2_grpc.LobbyStub(channel)
            req = lobby_pb2.RegisterPlayerRequest(name=args.name, initial_balance=args.balance)
            made = await stub.RegisterPlayer(req, timeout=args.timeout)
        player, made_credential = made.player, f"{made.player.player_id}.{made.token}"
    else:
        async with room(args) as door:
            resp = await door.Register(
                room_pb2.RegisterRequest(name=args.name), timeout=args.timeout
            )
        player, made_credential = resp.player, resp.credential
    _, token = split_credential(made_credential)
    print(f"player_id:  {player.player_id}")
    print(f"token:      {token}")
    print(f"credential: {made_credential}   (shown once: keep it secret)")
    print(f"balance:    {money(player.balance)}")
    print(export_line(made_credential))
    return 0


def export_line(credential: str) -> str:
    """The shell line that sets the credential, quoted, so that it can be pasted as
    it is whatever characters it holds."""
    return f"export {CREDENTIAL_ENV}={_quote(credential)}"


def _quote(value: str) -> str:
    """Single quotes always (``shlex.quote`` leaves ``-abc`` bare, which is safe after
    ``=`` but reads as an option anywhere else it is pasted)."""
    quoted = shlex.quote(value)
    return quoted if quoted.startswith("'") else f"'{value}'"


async def cmd_tables(args: argparse.Namespace) -> int:
    game = GAMES[args.game] if args.game else c.GAME_UNSPECIFIED
    lines: list[str]
    async with room(args) as door:
        if args.source == "table":
            live = await door.ListLiveTables(
                room_pb2.ListLiveTablesRequest(game=game), timeout=args.timeout
            )
            lines = [table_summary_line(t) for t in live.tables]
        else:
            listed = await door.ListTables(
                room_pb2.ListTablesRequest(game=game), timeout=args.timeout
            )
            lines = [lobby_table_line(t) for t in listed.tables]
    for line in lines:
        print(line)
    if not lines:
        print("no tables")
    return 0


async def cmd_create_table(args: argparse.Namespace) -> int:
    req = create_table_request(args)
    async with service_channel(args.lobby_internal, args.operator_dir) as channel:
        stub = lobby_pb2_grpc.LobbyOperatorStub(channel)
        table = await stub.CreateTable(req, timeout=args.timeout)
    print(f"table_id: {table.table_id}")
    print(lobby_table_line(table))
    return 0


async def cmd_sit(args: argparse.Namespace) -> int:
    me = bearer(credential(args))
    req = room_pb2.SitDownRequest(
        table_id=args.table_id, seat=args.seat, buy_in=args.buy_in, entry=ENTRIES[args.entry]
    )
    async with room(args) as door:
        resp = await door.SitDown(req, metadata=me, timeout=args.timeout)
    print(
        f"seat {resp.seat} at {args.table_id}: stack {money(resp.stack)}, "
        f"balance {money(resp.balance)}"
    )
    return 0


async def cmd_stand(args: argparse.Namespace) -> int:
    me = bearer(credential(args))
    async with room(args) as door:
        resp = await door.StandUp(
            room_pb2.StandUpRequest(table_id=args.table_id), metadata=me, timeout=args.timeout
        )
    if resp.pending:
        print(f"you leave {args.table_id} after the current hand")
    else:
        print(f"left {args.table_id}: {money(resp.returned)} returned")
    print(f"balance: {money(resp.balance)}")
    return 0


async def cmd_seating(args: argparse.Namespace) -> int:
    """sit-out, sit-in, auto-post, im-in: one seating call, then the seat's state."""
    me = bearer(credential(args))
    table_id = args.table_id
    async with room(args) as door:
        if args.command == "sit-out":
            resp = await door.SitOut(
                room_pb2.SitOutRequest(table_id=table_id), metadata=me, timeout=args.timeout
            )
        elif args.command == "sit-in":
            choice = (
                lobby_pb2.RETURN_CHOICE_WAIT_FOR_BIG_BLIND
                if args.wait
                else lobby_pb2.RETURN_CHOICE_POST
            )
            resp = await door.SitIn(
                room_pb2.SitInRequest(table_id=table_id, return_choice=choice),
                metadata=me,
                timeout=args.timeout,
            )
        elif args.command == "auto-post":
            resp = await door.SetAutoPost(
                room_pb2.SetAutoPostRequest(table_id=table_id, auto_post=args.switch == "on"),
                metadata=me,
                timeout=args.timeout,
            )
        else:
            resp = await door.ImIn(
                room_pb2.ImInRequest(table_id=table_id), metadata=me, timeout=args.timeout
            )
    print(seat_status_text(resp.seat))
    return 0


def seat_status_text(seat: lobby_pb2.SeatInfo) -> str:
    """One line: the seat, its stack and the markers that are set."""
    marks = [
        text
        for on, text in (
            (seat.away, "sitting out"),
            (seat.missed_big_blind, "owes a big blind (B3)"),
            (seat.missed_small_blind, "owes a small blind (B4)"),
            (seat.new_player, "new"),
            (seat.wait_for_button, "waits for the button"),
            (
                seat.return_choice == lobby_pb2.RETURN_CHOICE_WAIT_FOR_BIG_BLIND,
                "waits for the big blind",
            ),
            (not seat.auto_post, "auto-post off"),
            (seat.im_in, "in next hand"),
        )
        if on
    ]
    return f"seat {seat.seat}: stack {money(seat.stack)}" + (
        f" ({', '.join(marks)})" if marks else ""
    )


async def cmd_balance(args: argparse.Namespace) -> int:
    """The player's balance, and every table where their chips sit (the lobby's
    tables, tournament tables included)."""
    me = bearer(credential(args))
    async with room(args) as door:
        player = await door.GetMe(room_pb2.GetMeRequest(), metadata=me, timeout=args.timeout)
        tables = await door.ListTables(
            room_pb2.ListTablesRequest(), metadata=me, timeout=args.timeout
        )
    print(f"{player.name}: balance {money(player.balance)}, at tables {money(player.at_tables)}")
    seated = 0
    for table in tables.tables:
        for s in table.occupied:
            if s.player_id == player.player_id:
                seated += 1
                print(f"   {table.table_id}  {table.name or '-'}  {seat_status_text(s)}")
    if not seated:
        print("   not seated at any table")
    return 0
