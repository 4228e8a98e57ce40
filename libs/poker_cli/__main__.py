"""``poker``: the card room from a terminal (``python -m poker_cli ...``).

    poker register NAME [--balance N]          a new player: prints player_id and token
    poker tables [--game G] [--from lobby|table]
    poker create-table --game G [--structure S] --small-bet N [...]
    poker sit TABLE --buy-in N [--seat N]      poker stand TABLE
    poker watch TABLE [--hands N]              every public event, one line each
    poker play TABLE                           play your seat from the terminal
    poker bot TABLE --kind random|station|strength [--hands N] [--seed N]
    poker history TABLE [HAND] [--limit N]     the table's last hands; one hand in full
    poker balance                              your balance and the seats your chips are in

Credentials: --player/--token, or POKER_PLAYER_ID/POKER_TOKEN.  Any value may begin
with ``-`` (``--token -abc`` is read as the token, not as an option).  Addresses:
--lobby (default 127.0.0.1:50054) and --table (default 127.0.0.1:50055), or
POKER_LOBBY / POKER_TABLE.  Every call but the streams has a deadline (--timeout,
seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import shlex
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import grpc
from grpc import aio

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.table.v1 import table_pb2, table_pb2_grpc
from poker_bots.bots import BOT_KINDS, make_bot
from poker_bots.sdk import play
from poker_bots.view import TableView

from .format import (
    EventPrinter,
    lobby_table_line,
    money,
    seat_name,
    table_summary_line,
)
from .play import KEYS, HumanBot

DEFAULT_LOBBY = "127.0.0.1:50054"  # services/ports.py: lobby 50054
DEFAULT_TABLE = "127.0.0.1:50055"  # services/ports.py: table 50055

GAMES: dict[str, c.Game.ValueType] = {
    "stud": c.GAME_STUD,
    "stud-hilo": c.GAME_STUD_HILO,
    "hilo": c.GAME_STUD_HILO,
    "draw": c.GAME_DRAW_7A,
    "draw-7a": c.GAME_DRAW_7A,
}
STRUCTURES: dict[str, c.Structure.ValueType] = {
    "fixed": c.STRUCTURE_FIXED_LIMIT,
    "fixed-limit": c.STRUCTURE_FIXED_LIMIT,
    "pot": c.STRUCTURE_POT_LIMIT,
    "pot-limit": c.STRUCTURE_POT_LIMIT,
    "no": c.STRUCTURE_NO_LIMIT,
    "no-limit": c.STRUCTURE_NO_LIMIT,
}
ENTRIES: dict[str, lobby_pb2.Entry.ValueType] = {  # SitDown's B2 choice (draw tables)
    "post": lobby_pb2.ENTRY_POST_NOW,
    "wait-bb": lobby_pb2.ENTRY_WAIT_FOR_BIG_BLIND,
    "wait-button": lobby_pb2.ENTRY_WAIT_FOR_BUTTON,
}


class UsageError(Exception):
    """A missing or inconsistent option: printed, exit status 2."""


class RefusedError(Exception):
    """The command cannot do what was asked (e.g. play where you have no seat):
    printed, exit status 1."""


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    env = os.environ
    common.add_argument("--lobby", default=env.get("POKER_LOBBY", DEFAULT_LOBBY), help="lobby")
    common.add_argument("--table", default=env.get("POKER_TABLE", DEFAULT_TABLE), help="table")
    common.add_argument("--player", default=env.get("POKER_PLAYER_ID", ""), help="player id")
    common.add_argument("--token", default=env.get("POKER_TOKEN", ""), help="player token")
    common.add_argument("--timeout", type=float, default=10.0, help="deadline of each call (s)")
    common.add_argument("-v", "--verbose", action="store_true", help="log the SDK's messages")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="poker",
        description="The card room from a terminal.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `poker COMMAND -h` for a command's options.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("register", parents=[common], help="register a player")
    p.add_argument("name")
    p.add_argument("--balance", type=int, default=0, help="play money (0 = lobby default)")

    p = sub.add_parser("tables", parents=[common], help="list tables")
    p.add_argument("--game", choices=sorted(GAMES), help="only this game")
    p.add_argument("--from", dest="source", choices=("lobby", "table"), default="lobby")

    p = sub.add_parser("create-table", parents=[common], help="create a ring table")
    p.add_argument("--name", default="", help="default: game and stakes")
    p.add_argument("--game", choices=sorted(GAMES), required=True)
    p.add_argument("--structure", choices=sorted(STRUCTURES), default="fixed", help="draw only")
    p.add_argument("--ante", type=int, default=0)
    p.add_argument("--bring-in", type=int, default=0, help="stud only")
    p.add_argument("--small-bet", type=int, required=True, help="stud small bet; draw big blind")
    p.add_argument("--big-bet", type=int, default=0, help="default: twice the small bet")
    p.add_argument("--max-raises", type=int, default=None)
    p.add_argument("--seats", type=int, default=0, help="default: 8 stud, 5 draw")
    p.add_argument("--min-buy-in", type=int, default=0, help="default: 20 small bets")
    p.add_argument("--max-buy-in", type=int, default=0, help="0 = no maximum")
    p.add_argument("--clock", type=float, default=0.0, help="action clock, seconds (0 = 10)")

    p = sub.add_parser("sit", parents=[common], help="take a seat with a buy-in")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--buy-in", type=int, required=True)
    p.add_argument("--seat", type=int, default=0, help="0 = any free seat")
    p.add_argument(
        "--entry",
        choices=sorted(ENTRIES),
        default="post",
        help="draw (B2): post a big blind now, wait for the big blind, or for the button",
    )

    p = sub.add_parser("stand", parents=[common], help="leave a table")
    p.add_argument("table_id", metavar="TABLE")

    p = sub.add_parser("sit-out", parents=[common], help="sit out from the next hand")
    p.add_argument("table_id", metavar="TABLE")
    p = sub.add_parser("sit-in", parents=[common], help="come back after sitting out")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument(
        "--wait", action="store_true", help="wait for the big blind instead of posting (B3, B4)"
    )
    p = sub.add_parser("auto-post", parents=[common], help="stud: the ante's auto-post (S3)")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("switch", choices=("on", "off"))
    p = sub.add_parser("im-in", parents=[common], help="stud, auto-post off: ante next hand")
    p.add_argument("table_id", metavar="TABLE")

    p = sub.add_parser("watch", parents=[common], help="watch a table as a spectator")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands")

    p = sub.add_parser("play", parents=[common], help="play your seat from the terminal")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands")

    p = sub.add_parser("bot", parents=[common], help="run a reference bot in your seat")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--kind", choices=BOT_KINDS, default="strength")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands")
    p.add_argument("--seed", type=int, default=None, help="random bot seed")
    p.add_argument("--quiet", action="store_true", help="print only the final summary")

    p = sub.add_parser(
        "history",
        parents=[common],
        help="a table's last hands, or one hand in full",
        description="Without HAND: one line per recent hand (who played, who won). "
        "With HAND: the hand event by event.  With --player/--token (or the "
        "environment) you see what a participant may: your cards, and the called "
        "hands that were mucked (S12).",
    )
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("hand_id", metavar="HAND", nargs="?", default="")
    p.add_argument("--limit", type=int, default=10, help="hands listed (1..100)")
    p.add_argument("--phh", action="store_true", help="print HAND as a PHH hand history")

    sub.add_parser("balance", parents=[common], help="your balance and the seats your chips are in")
    return parser


def value_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings of ``parser`` that take exactly one value (``--token X``)."""
    return {
        option
        for action in parser._actions
        if action.nargs is None and action.option_strings
        for option in action.option_strings
    }


def glue_values(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` with every ``--option VALUE`` written ``--option=VALUE``.

    argparse reads a value that begins with ``-`` (``--token -abc``: about one
    ``token_urlsafe`` token in 64) as the next option and fails.  Glued to its option
    the value is taken whatever it looks like.  This is done for every option that
    takes a value (a token, an id, an amount, an address), including unambiguous
    abbreviations (``--tok``), in the subcommand's own options; after ``--``
    nothing is touched.
    """
    args = list(argv)
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    choices: dict[str, argparse.ArgumentParser] = dict(subparsers[0].choices) if subparsers else {}
    options = value_options(parser)
    all_long: set[str] = set()
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out += args[i:]
            break
        if arg in choices and not all_long:  # the subcommand: its options from here on
            sub = choices[arg]
            options = value_options(sub)
            all_long = {o for a in sub._actions for o in a.option_strings if o.startswith("--")}
        option = arg
        if arg.startswith("--") and "=" not in arg and arg not in all_long:
            matches = [o for o in all_long if o.startswith(arg)]
            option = matches[0] if len(matches) == 1 else arg
        if option in options and i + 1 < len(args):
            out.append(f"{option}={args[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


# ---------------------------------------------------------------------- requests


def game_config(args: argparse.Namespace) -> c.GameConfig:
    """The GameConfig of ``create-table``'s options (defaults filled in)."""
    game = GAMES[args.game]
    small = args.small_bet
    config = c.GameConfig(
        game=game, ante=args.ante, small_bet=small, big_bet=args.big_bet or 2 * small
    )
    if game == c.GAME_DRAW_7A:
        config.structure = STRUCTURES[args.structure]
    else:
        if args.structure not in ("fixed", "fixed-limit"):
            raise UsageError("the stud games are fixed limit (S1)")
        config.bring_in = args.bring_in or max(1, small // 2)
    if args.max_raises is not None:
        config.max_raises = args.max_raises
    return config


def create_table_request(args: argparse.Namespace) -> lobby_pb2.CreateTableRequest:
    config = game_config(args)
    seats = args.seats or (5 if config.game == c.GAME_DRAW_7A else 8)
    name = args.name or f"{args.game} {config.small_bet}/{config.big_bet}"
    return lobby_pb2.CreateTableRequest(
        name=name,
        config=config,
        seats=seats,
        min_buy_in=args.min_buy_in or 20 * config.small_bet,
        max_buy_in=args.max_buy_in,
        action_clock_ms=round(args.clock * 1000),
    )


def _credentials(args: argparse.Namespace) -> tuple[str, str]:
    if not args.player or not args.token:
        raise UsageError(
            "who are you? give --player and --token, or set POKER_PLAYER_ID and POKER_TOKEN "
            "(poker register NAME prints both)"
        )
    return args.player, args.token


# ---------------------------------------------------------------------- commands


async def cmd_register(args: argparse.Namespace) -> int:
    async with aio.insecure_channel(args.lobby) as channel:
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
        async with aio.insecure_channel(args.table) as channel:
            stub = table_pb2_grpc.TableServiceStub(channel)
            req = table_pb2.ListTablesRequest(game=game)
            resp = await stub.ListTables(req, timeout=args.timeout)
        lines = [table_summary_line(t) for t in resp.tables]
    else:
        async with aio.insecure_channel(args.lobby) as channel:
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
    async with aio.insecure_channel(args.lobby) as channel:
        table = await lobby_pb2_grpc.LobbyStub(channel).CreateTable(req, timeout=args.timeout)
    print(f"table_id: {table.table_id}")
    print(lobby_table_line(table))
    return 0


async def cmd_sit(args: argparse.Namespace) -> int:
    player, token = _credentials(args)
    req = lobby_pb2.SitDownRequest(
        player_id=player,
        token=token,
        table_id=args.table_id,
        seat=args.seat,
        buy_in=args.buy_in,
        entry=ENTRIES[args.entry],
    )
    async with aio.insecure_channel(args.lobby) as channel:
        resp = await lobby_pb2_grpc.LobbyStub(channel).SitDown(req, timeout=args.timeout)
    print(
        f"seat {resp.seat} at {args.table_id}: stack {money(resp.stack)}, "
        f"balance {money(resp.balance)}"
    )
    return 0


async def cmd_stand(args: argparse.Namespace) -> int:
    player, token = _credentials(args)
    req = lobby_pb2.StandUpRequest(player_id=player, token=token, table_id=args.table_id)
    async with aio.insecure_channel(args.lobby) as channel:
        resp = await lobby_pb2_grpc.LobbyStub(channel).StandUp(req, timeout=args.timeout)
    if resp.pending:
        print(f"you leave {args.table_id} after the current hand")
    else:
        print(f"left {args.table_id}: {money(resp.returned)} returned")
    print(f"balance: {money(resp.balance)}")
    return 0


async def cmd_seating(args: argparse.Namespace) -> int:
    """sit-out, sit-in, auto-post, im-in: one seating call, then the seat's state."""
    player, token = _credentials(args)
    who = {"player_id": player, "token": token, "table_id": args.table_id}
    async with aio.insecure_channel(args.lobby) as channel:
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


async def _seated(args: argparse.Namespace) -> lobby_pb2.Table | None:
    """The lobby's view of the table (its seats, with names), or None when the lobby
    does not answer: a spectator can do without it."""
    try:
        async with aio.insecure_channel(args.lobby) as channel:
            table: lobby_pb2.Table = await lobby_pb2_grpc.LobbyStub(channel).GetTable(
                lobby_pb2.GetTableRequest(table_id=args.table_id),
                timeout=min(args.timeout, 3.0),
            )
    except aio.AioRpcError:
        return None
    return table


def _names(table: lobby_pb2.Table | None) -> dict[str, str]:
    return {s.player_id: s.name for s in table.occupied if s.name} if table else {}


async def cmd_watch(args: argparse.Namespace) -> int:
    view = TableView(args.table_id)
    # A snapshot between hands names its seats by player id only: the lobby knows
    # the names.
    printer = EventPrinter(_names(await _seated(args)))
    hands = 0
    async with aio.insecure_channel(args.table) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        stream = stub.Watch(table_pb2.WatchRequest(table_id=args.table_id))
        async for event in stream:
            view.apply(event)
            for line in printer.lines(event, view):
                print(line, flush=True)
            hands += sum(1 for e in _flat(event) if e.HasField("hand_finished"))
            if args.hands is not None and hands >= args.hands:
                stream.cancel()
                break
    return 0


def _flat(event: table_pb2.TableEvent) -> list[table_pb2.TableEvent]:
    if event.HasField("batch"):
        return [x for inner in event.batch.events for x in _flat(inner)]
    return [event]


async def _my_seat(args: argparse.Namespace, player: str) -> tuple[int, dict[str, str]]:
    """The player's seat at the table (from the lobby, which seats players), and the
    names of the table's players.  Not seated: RefusedError, because the table
    would take the player for a spectator and the command would only watch."""
    async with aio.insecure_channel(args.lobby) as channel:
        table: lobby_pb2.Table = await lobby_pb2_grpc.LobbyStub(channel).GetTable(
            lobby_pb2.GetTableRequest(table_id=args.table_id), timeout=args.timeout
        )
    seat = next((s.seat for s in table.occupied if s.player_id == player), 0)
    if not seat:
        raise RefusedError(
            f"you are not seated at {args.table_id}: take a seat first "
            f"(poker sit {args.table_id} --buy-in {max(table.min_buy_in, 1)})"
        )
    return seat, _names(table)


def quit_text(table_id: str, seat: int) -> list[str]:
    """What a player who quits ``poker play`` must know: the seat is still theirs and
    the game goes on without them."""
    return [
        f"you are still seated at {table_id} (seat {seat}) and will be dealt in: "
        "the action clock checks or folds for you when your time runs out (S10).",
        f"to leave the table: poker stand {table_id}   "
        f"to miss hands but keep the seat: poker sit-out {table_id}",
    ]


def _hands(n: int) -> str:
    return f"{n} hand" if n == 1 else f"{n} hands"


async def cmd_play(args: argparse.Namespace) -> int:
    player, token = _credentials(args)
    seat, names = await _my_seat(args, player)
    quit_event = asyncio.Event()
    human = HumanBot(quit_event=quit_event)
    printer = EventPrinter(names, hidden=("your_turn",))  # the bot prints table and menu

    def show(event: table_pb2.TableEvent, view: TableView) -> None:
        for line in printer.lines(event, view):
            print(line, flush=True)

    print(f"you sit in seat {seat} at {args.table_id}")
    print(KEYS)
    stats = await play(
        args.table,
        args.table_id,
        player,
        token,
        human,
        delivery=table_pb2.DELIVERY_EVERY_EVENT,
        hands=args.hands,
        stop=quit_event,
        on_event=show,
    )
    stack = f"; stack {money(stats.final_stack)}" if stats.final_stack is not None else ""
    print(f"played {_hands(stats.hands)}{stack}")
    if quit_event.is_set():
        for line in quit_text(args.table_id, seat):
            print(line)
    return 0


async def cmd_bot(args: argparse.Namespace) -> int:
    player, token = _credentials(args)
    _seat, names = await _my_seat(args, player)
    bot = make_bot(args.kind, args.seed)
    printer = EventPrinter(names)

    def show(event: table_pb2.TableEvent, view: TableView) -> None:
        for line in printer.lines(event, view):
            print(line, flush=True)

    stats = await play(
        args.table,
        args.table_id,
        player,
        token,
        bot,
        hands=args.hands,
        on_event=None if args.quiet else show,
        seed=args.seed,
    )
    print(
        f"{bot!r}: {stats.hands} hands, {stats.actions} actions, {stats.rejected} rejected, "
        f"{stats.reconnects} reconnects, stack {money(stats.final_stack or 0)}"
    )
    return 0


async def cmd_history(args: argparse.Namespace) -> int:
    """The table service's hand history (the hands its process played, oldest
    first), as the player sees it when credentials are given, else as the public."""
    if not 1 <= args.limit <= 100:
        raise UsageError(f"--limit is 1..100, got {args.limit}")
    req = table_pb2.GetHandHistoryRequest(
        table_id=args.table_id, hand_id=args.hand_id, limit=args.limit
    )
    if args.player and args.token:
        req.player_id, req.token = args.player, args.token
    names = _names(await _seated(args))
    async with aio.insecure_channel(args.table) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)
        resp = await stub.GetHandHistory(req, timeout=args.timeout)
    if args.hand_id:
        for hand in resp.hands:
            lines = hand.phh.splitlines() if args.phh else hand_lines(hand, names, req.player_id)
            for line in lines:
                print(line)
        return 0
    for hand in resp.hands:
        print(hand_summary(hand, names))
    if not resp.hands:
        print(f"no finished hands at {args.table_id} yet")
    else:
        print(f"(poker history {args.table_id} HAND: one hand in full)")
    return 0


def _history_view(hand: table_pb2.HandHistory) -> TableView:
    view = TableView(hand.events[0].table_id if hand.events else "")
    view.config = hand.config
    return view


def hand_lines(
    hand: table_pb2.HandHistory, names: dict[str, str], player_id: str = ""
) -> list[str]:
    """One hand of the history, event by event, as ``watch`` prints them; the seat
    of ``player_id`` (whose history it is) is marked ``(you)``."""
    view = _history_view(hand)
    printer = EventPrinter(names)
    lines: list[str] = []
    for event in hand.events:
        view.apply(event)
        if player_id and not view.my_seat:  # a history has no Snapshot to say it
            view.my_seat = next((n for n, s in view.seats.items() if s.player_id == player_id), 0)
        lines += printer.lines(event, view)
    return lines


def hand_summary(hand: table_pb2.HandHistory, names: dict[str, str]) -> str:
    """``h-1  Alice [1], Bob [2]: Bob [2] wins 150`` (or ``voided``)."""
    view = _history_view(hand)
    for event in hand.events:
        view.apply(event)
    EventPrinter(names).name_seats(view)
    players = ", ".join(seat_name(view, n) for n, s in sorted(view.seats.items()) if s.player_id)
    finish = view.last_finish
    if finish is None:
        result = "not finished"
    elif finish.voided:
        result = "voided: chips returned"
    else:
        won: dict[int, int] = {}
        for award in finish.awards:
            won[award.seat] = won.get(award.seat, 0) + award.amount
        result = "; ".join(f"{seat_name(view, n)} wins {money(a)}" for n, a in won.items())
    return f"{hand.hand_id}  {players or 'no players'}: {result or 'no awards'}"


async def cmd_balance(args: argparse.Namespace) -> int:
    """The player's balance, and every table where their chips sit (the lobby's
    tables, tournament tables included)."""
    player, token = _credentials(args)
    async with aio.insecure_channel(args.lobby) as channel:
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


COMMANDS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
    "register": cmd_register,
    "tables": cmd_tables,
    "create-table": cmd_create_table,
    "sit": cmd_sit,
    "stand": cmd_stand,
    "sit-out": cmd_seating,
    "sit-in": cmd_seating,
    "auto-post": cmd_seating,
    "im-in": cmd_seating,
    "watch": cmd_watch,
    "play": cmd_play,
    "bot": cmd_bot,
    "history": cmd_history,
    "balance": cmd_balance,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(glue_values(sys.argv[1:] if argv is None else argv, parser))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        result: int = asyncio.run(COMMANDS[args.command](args))
    except UsageError as exc:
        print(f"poker {args.command}: {exc}", file=sys.stderr)
        return 2
    except RefusedError as exc:
        print(f"poker {args.command}: {exc}", file=sys.stderr)
        return 1
    except aio.AioRpcError as exc:
        code = exc.code()
        name = code.name if isinstance(code, grpc.StatusCode) else str(code)
        print(f"poker {args.command}: {name}: {exc.details()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
