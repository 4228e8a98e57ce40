"""The commands that talk to the lobby: register, list and create tables, sit and
stand, the seating switches (sit out and in, auto-post, "I'm in"), the balance."""

from __future__ import annotations

import argparse
import shlex

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.table.v1 import table_pb2, table_pb2_grpc
from poker_wire.channels import player_channel, service_channel

from .format import lobby_table_line, money, table_summary_line
from .options import ENTRIES, GAMES, create_table_request, credentials


async def cmd_register(args: argparse.Namespace) -> int:
    # A balance beyond the registration grant is the operator's to give.
    async with (
        service_channel(args.lobby_internal, args.operator_dir)
        if args.balance
        else player_channel(args.lobby, args.ca)
    ) as channel:
        stub = lobby_pb2_grpc.LobbyStub(channel)
        req = lobby_pb2.RegisterPlayerRequest(name=args.name, initial_balance=args.balance)
        resp = await stub.RegisterPlayer(req, timeout=args.timeout)
    player = resp.player
    print(f"player_id: {player.player_id}")
    print(f"token:     {resp.token}   (shown once: keep it)")
    print(f"balance:   {money(player.balance)}")
    print(export_line(player.player_id, resp.token))
    return 0


def export_line(player_id: str, token: str) -> str:
    """The shell line that sets the credentials, each value quoted, so that it can be
    pasted as it is whatever characters the values hold."""
    return f"export POKER_PLAYER_ID={_quote(player_id)} POKER_TOKEN={_quote(token)}"


def _quote(value: str) -> str:
    """Single quotes always (``shlex.quote`` leaves ``-abc`` bare, which is safe after
    ``=`` but reads as an option anywhere else it is pasted)."""
    quoted = shlex.quote(value)
    return quoted if quoted.startswith("'") else f"'{value}'"


async def cmd_tables(args: argparse.Namespace) -> int:
    game = GAMES[args.game] if args.game else c.GAME_UNSPECIFIED
    lines: list[str]
    if args.source == "table":
        async with player_channel(args.table, args.ca) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            req = table_pb2.ListTablesRequest(game=game)
            resp = await stub.ListTables(req, timeout=args.timeout)
        lines = [table_summary_line(t) for t in resp.tables]
    else:
        async with player_channel(args.lobby, args.ca) as channel:
            lobby = lobby_pb2_grpc.LobbyStub(channel)
            lreq = lobby_pb2.ListTablesRequest(game=game)
            lresp = await lobby.ListTables(lreq, timeout=args.timeout)
        lines = [lobby_table_line(t) for t in lresp.tables]
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
    player, token = credentials(args)
    req = lobby_pb2.SitDownRequest(
        player_id=player,
        token=token,
        table_id=args.table_id,
        seat=args.seat,
        buy_in=args.buy_in,
        entry=ENTRIES[args.entry],
    )
    async with player_channel(args.lobby, args.ca) as channel:
        resp = await lobby_pb2_grpc.LobbyStub(channel).SitDown(req, timeout=args.timeout)
    print(
        f"seat {resp.seat} at {args.table_id}: stack {money(resp.stack)}, "
        f"balance {money(resp.balance)}"
    )
    return 0


async def cmd_stand(args: argparse.Namespace) -> int:
    player, token = credentials(args)
    req = lobby_pb2.StandUpRequest(player_id=player, token=token, table_id=args.table_id)
    async with player_channel(args.lobby, args.ca) as channel:
        resp = await lobby_pb2_grpc.LobbyStub(channel).StandUp(req, timeout=args.timeout)
    if resp.pending:
        print(f"you leave {args.table_id} after the current hand")
    else:
        print(f"left {args.table_id}: {money(resp.returned)} returned")
    print(f"balance: {money(resp.balance)}")
    return 0


async def cmd_seating(args: argparse.Namespace) -> int:
    """sit-out, sit-in, auto-post, im-in: one seating call, then the seat's state."""
    player, token = credentials(args)
    who = {"player_id": player, "token": token, "table_id": args.table_id}
    async with player_channel(args.lobby, args.ca) as channel:
        lobby = lobby_pb2_grpc.LobbyStub(channel)
        if args.command == "sit-out":
            resp = await lobby.SitOut(lobby_pb2.SitOutRequest(**who), timeout=args.timeout)
        elif args.command == "sit-in":
            choice = (
                lobby_pb2.RETURN_CHOICE_WAIT_FOR_BIG_BLIND
                if args.wait
                else lobby_pb2.RETURN_CHOICE_POST
            )
            resp = await lobby.SitIn(
                lobby_pb2.SitInRequest(**who, return_choice=choice), timeout=args.timeout
            )
        elif args.command == "auto-post":
            resp = await lobby.SetAutoPost(
                lobby_pb2.SetAutoPostRequest(**who, auto_post=args.switch == "on"),
                timeout=args.timeout,
            )
        else:
            resp = await lobby.ImIn(lobby_pb2.ImInRequest(**who), timeout=args.timeout)
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
    player, token = credentials(args)
    async with player_channel(args.lobby, args.ca) as channel:
        lobby = lobby_pb2_grpc.LobbyStub(channel)
        me = await lobby.GetPlayer(
            lobby_pb2.GetPlayerRequest(player_id=player, token=token), timeout=args.timeout
        )
        tables = await lobby.ListTables(lobby_pb2.ListTablesRequest(), timeout=args.timeout)
    print(f"{me.name}: balance {money(me.balance)}, at tables {money(me.at_tables)}")
    seated = 0
    for table in tables.tables:
        for s in table.occupied:
            if s.player_id == player:
                seated += 1
                print(f"   {table.table_id}  {table.name or '-'}  {seat_status_text(s)}")
    if not seated:
        print("   not seated at any table")
    return 0
