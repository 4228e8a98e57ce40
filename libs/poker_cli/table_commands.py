"""The commands at a table, through the room's door (the Room API): watch it, see
it as your seat does, play a seat from the terminal or with a reference bot, and
read its hand history."""

from __future__ import annotations

import argparse
import asyncio

from grpc import aio

from poker.lobby.v1 import lobby_pb2
from poker.room.v1 import room_pb2, room_pb2_grpc
from poker.table.v1 import table_pb2
from poker_bots.bots import make_bot
from poker_bots.sdk import play
from poker_bots.view import TableView

from .door import Metadata, bearer, room, room_channel
from .format import EventPrinter, legal_text, money, seat_name
from .options import RefusedError, UsageError, credential, given_credential, split_credential
from .play import KEYS, HumanBot


async def _seated(
    door: room_pb2_grpc.RoomAsyncStub, args: argparse.Namespace
) -> lobby_pb2.Table | None:
    """The lobby's view of the table (its seats, with names), or None when it is
    not to be had: a spectator can do without it."""
    try:
        table: lobby_pb2.Table = await door.GetTable(
            room_pb2.GetTableRequest(table_id=args.table_id), timeout=min(args.timeout, 3.0)
        )
    except aio.AioRpcError:
        return None
    return table


def _names(table: lobby_pb2.Table | None) -> dict[str, str]:
    return {s.player_id: s.name for s in table.occupied if s.name} if table else {}


async def cmd_watch(args: argparse.Namespace) -> int:
    # The door lets players watch: a spectator is someone with a credential.
    me = bearer(credential(args))
    view = TableView(args.table_id)
    hands = 0
    async with room(args) as door:
        # A snapshot between hands names its seats by player id only: the lobby
        # knows the names.
        printer = EventPrinter(_names(await _seated(door, args)))
        stream = door.Watch(room_pb2.WatchRequest(table_id=args.table_id), metadata=me)
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


async def cmd_state(args: argparse.Namespace) -> int:
    """The table now as the player's seat sees it (``Room.GetState``): the table,
    the seats, and the menu when it is the player's turn."""
    me = credential(args)
    async with room(args) as door:
        names = _names(await _seated(door, args))
        snapshot = await door.GetState(
            room_pb2.GetStateRequest(table_id=args.table_id),
            metadata=bearer(me),
            timeout=args.timeout,
        )
    event = table_pb2.TableEvent(
        table_id=snapshot.table_id, hand_id=snapshot.hand_id, snapshot=snapshot
    )
    view = TableView(args.table_id)
    view.apply(event)
    for line in EventPrinter(names).lines(event, view):
        print(line)
    if not view.my_seat:
        print(f"   you have no seat at {args.table_id}: this is what a spectator sees")
    elif view.is_my_turn and view.turn is not None:
        print(f"you may: {legal_text(view.turn.legal)}   (poker play {args.table_id} to act)")
    return 0


async def _my_seat(
    door: room_pb2_grpc.RoomAsyncStub, args: argparse.Namespace, player: str, me: Metadata
) -> tuple[int, dict[str, str]]:
    """The player's seat at the table (from the lobby, which seats players), and the
    names of the table's players.  Not seated: RefusedError, because the table
    would take the player for a spectator and the command would only watch."""
    table: lobby_pb2.Table = await door.GetTable(
        room_pb2.GetTableRequest(table_id=args.table_id), metadata=me, timeout=args.timeout
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
    me = credential(args)
    player, token = split_credential(me)
    quit_event = asyncio.Event()
    human = HumanBot(quit_event=quit_event)
    printer = EventPrinter(hidden=("your_turn",))  # the bot prints table and menu

    def show(event: table_pb2.TableEvent, view: TableView) -> None:
        for line in printer.lines(event, view):
            print(line, flush=True)

    async with room_channel(args) as channel:
        seat, names = await _my_seat(room_pb2_grpc.RoomStub(channel), args, player, bearer(me))
        printer.names.update(names)
        print(f"you sit in seat {seat} at {args.table_id}")
        print(KEYS)
        stats = await play(
            channel,
            args.table_id,
            player,
            token,
            human,
            delivery=table_pb2.DELIVERY_EVERY_EVENT,
            hands=args.hands,
            stop=quit_event,
            on_event=show,
            via="room",
        )
    stack = f"; stack {money(stats.final_stack)}" if stats.final_stack is not None else ""
    print(f"played {_hands(stats.hands)}{stack}")
    if quit_event.is_set():
        for line in quit_text(args.table_id, seat):
            print(line)
    return 0


async def cmd_bot(args: argparse.Namespace) -> int:
    me = credential(args)
    player, token = split_credential(me)
    bot = make_bot(args.kind, args.seed)
    printer = EventPrinter()

    def show(event: table_pb2.TableEvent, view: TableView) -> None:
        for line in printer.lines(event, view):
            print(line, flush=True)

    async with room_channel(args) as channel:
        _seat, names = await _my_seat(room_pb2_grpc.RoomStub(channel), args, player, bearer(me))
        printer.names.update(names)
        stats = await play(
            channel,
            args.table_id,
            player,
            token,
            bot,
            hands=args.hands,
            on_event=None if args.quiet else show,
            seed=args.seed,
            via="room",
        )
    print(
        f"{bot!r}: {stats.hands} hands, {stats.actions} actions, {stats.rejected} rejected, "
        f"{stats.reconnects} reconnects, stack {money(stats.final_stack or 0)}"
    )
    return 0


async def cmd_history(args: argparse.Namespace) -> int:
    """The table's hand history (the hands its table service played, oldest first),
    as the player sees it when a credential is given, else as the public."""
    if not 1 <= args.limit <= 100:
        raise UsageError(f"--limit is 1..100, got {args.limit}")
    me = given_credential(args)
    player_id = split_credential(me)[0] if me else ""
    req = room_pb2.GetHandHistoryRequest(
        table_id=args.table_id, hand_id=args.hand_id, limit=args.limit
    )
    async with room(args) as door:
        names = _names(await _seated(door, args))
        resp = await door.GetHandHistory(req, metadata=bearer(me), timeout=args.timeout)
    if args.hand_id:
        for hand in resp.hands:
            lines = hand.phh.splitlines() if args.phh else hand_lines(hand, names, player_id)
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
