"""The main job: the whole card room on this machine, with reference bots playing.

``python -m devroom.room`` (``make run``):

1. starts every service as its own process on 127.0.0.1 (``devroom.stack``), on
   their default ports (``service_kit.ports``), the lobby on an embedded SQLite
   file, and the room's one public door, the gateway (127.0.0.1:50050), which it
   prints as the place to connect: the CLI (``poker watch TABLE``), your bots,
   apps and ``curl`` join in there;
2. creates one table per game: Seven Card Stud, Stud Hi-Lo, and Five Card Draw
   7-A in fixed, pot and no limit;
3. registers reference bots (random, calling station, hand strength), connects
   each to its table's stream through the gateway and seats it with a buy-in;
4. plays until every table has played ``--hands`` hands, printing progress; a
   bot that goes broke rebuys from its balance between hands;
5. stands everyone up, checks the chips: every chip bought in is back in a
   balance, to the unit, and the lobby's ledger agrees; stops the services
   (SIGTERM) and checks each exited cleanly.

Exit status 0 only when every table reached its hands and every check passed.

SIGTERM, SIGINT (Ctrl-C) or SIGHUP stops it early the same way: the bots finish
the hands in progress and stand up, the summary of what was played and the chip
checks are printed (marked "stopped early"), the services are stopped.  The exit
status is then 1 when a check failed, else 128 + the signal (130 for Ctrl-C, 143
for SIGTERM: the shell's convention, so that a script or ``make`` sees the run
did not complete).  A second signal stops at once, without the summary.  A port
in use is one line naming it, exit status 2.

``--serve`` keeps the room up for people and bots: no hands target, no timeout;
every table keeps one seat free (one reference bot fewer; when a person takes
the seat, a reference bot stands up after the hand to free one again, and sits
back down when a seat beyond it opens), and once the bots sit it prints the
door, the CA, every table (id, game, stakes, free seats) and the ``poker`` lines
that register a person, sit them and play (``serving``).  A signal is how a
served room ends: the same orderly stop, summary and chip checks ("served
until SIGTERM"), and exit status 0 when every check passed, 1 when one failed
(a second signal: at once, 128 + the signal, as above).  The checks are about
the room's own players; a person still seated keeps their seat and chips, shown
apart, and the lobby's ledger check covers them too.

``--bot FILE:CLASS[@TABLE,...]`` (repeatable, with or without ``--serve``)
seats your bot among the reference bots, at every table or the ones named
(``guest_bots``): one player registered through the door, one instance of the
class per table, played by ``poker_bots.play`` and rebought like the reference
bots; the report says what it did and what it won.  A file or class that cannot
be used is one line, exit status 2, before anything starts.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from service_kit import loop as event_loop
from service_kit.pki import spki_pin

from .guest_bots import (
    BotOptionError,
    CountedBot,
    Guest,
    counted,
    limit_sdk_messages,
    load_guests,
)
from .ports import BASE_HELP, PortInUseError, ports_option
from .serving import open_text
from .stack import Stack, StopSignals

BOT_MIX = ("random", "station", "strength")


@dataclass(frozen=True)
class TableSpec:
    label: str
    config: common.GameConfig
    seats: int
    key: str = ""  # the short name --bot FILE:CLASS@KEY picks it by


def table_specs() -> list[TableSpec]:
    """One table per game and structure, with the room's stakes (in chips)."""

    def stud(game: common.Game.ValueType) -> common.GameConfig:
        return common.GameConfig(game=game, ante=5, bring_in=10, small_bet=20, big_bet=40)

    def draw(structure: common.Structure.ValueType) -> common.GameConfig:
        return common.GameConfig(
            game=common.GAME_DRAW_7A, structure=structure, small_bet=20, big_bet=40
        )

    return [
        TableSpec("Seven Card Stud", stud(common.GAME_STUD), 6, "stud"),
        TableSpec("Stud Hi-Lo 8", stud(common.GAME_STUD_HILO), 6, "stud-hilo"),
        TableSpec("7-A Draw fixed limit", draw(common.STRUCTURE_FIXED_LIMIT), 5, "draw-fixed"),
        TableSpec("7-A Draw pot limit", draw(common.STRUCTURE_POT_LIMIT), 5, "draw-pot"),
        TableSpec("7-A Draw no limit", draw(common.STRUCTURE_NO_LIMIT), 5, "draw-no"),
    ]


@dataclass
class Seat:
    """One of the room's players at one table: a reference bot of ``kind``, or
    one of yours (``bot``, counted) when given ``--bot``."""

    player_id: str
    token: str
    kind: str
    granted: int = 0  # the play money its player was given (the room's checks)
    bot: CountedBot | None = None


@dataclass
class RoomTable:
    spec: TableSpec
    table_id: str = ""
    seats: list[Seat] = field(default_factory=list)
    hands: int = 0
    leaving: set[str] = field(default_factory=set)  # player ids whose StandUp is pending
    broke: set[str] = field(default_factory=set)  # stood up broke: a rebuy when they sit
    free: int = 0  # free seats at the last look
    others: int = 0  # seated players not the room's (people, their bots)


@dataclass
class Tally:
    bought_in: int = 0
    rebuys: int = 0


class Room:
    """The bots' side of the main job: tables, players, rebuys, the final checks.

    ``lobby`` is the lobby's player plane and staff calls over the operator's
    mutual-TLS channel (the room creates tables, grants the bots' play money and
    reads the ledger as the operator); ``table`` is the table service, which
    counts the hands played.  The bots play through the room's door with their
    credentials, as any player does (``busy_room``).

    ``keep_free`` seats stay free at every table (``--serve``: one, for a person
    or a bot that comes later): the room seats that many fewer bots, and when
    someone takes the free seat a reference bot stands up after the hand to make
    room again, and sits back down when a seat beyond it frees up.  ``guests``
    are your bots (``--bot``): each is one player, registered through the room's
    ``door`` (``poker.room.v1.Room``) as a person registers, given the same play
    money as a reference bot, with a seat (and an instance of its class) at each
    of its tables in place of a reference bot."""

    def __init__(
        self,
        lobby: Any,
        table: table_pb2_grpc.TableServiceAsyncStub,
        *,
        keep_free: int = 0,
        guests: Sequence[Guest] = (),
        door: room_pb2_grpc.RoomAsyncStub | None = None,
    ) -> None:
        self.lobby = lobby
        self.table = table
        self.door = door
        self.keep_free = keep_free
        self.guests = list(guests)
        self._guest_players: dict[int, Seat] = {}  # guest index -> its player
        self.tables: list[RoomTable] = []
        self.tally = Tally()
        self.buy_in = 2_000
        # Play money for 5,000 rebuys a bot: a long run (--hands in the thousands)
        # never leaves a table with one player because the others ran dry.
        self.balance = 10_000_000

    def reference_seats(self, spec: TableSpec) -> int:
        """How many reference bots sit at ``spec``'s table: every seat but the ones
        kept free and your bots'."""
        guests = sum(1 for g in self.guests if g.sits_at(spec.key))
        count = spec.seats - self.keep_free - guests
        if count < 0:
            raise ValueError(
                f"the {spec.key} table has {spec.seats} seats: {guests} bots of yours and "
                f"{self.keep_free} kept free do not fit"
            )
        return count

    async def create(self, specs: Sequence[TableSpec], clock_ms: int) -> None:
        for spec in specs:
            reference = self.reference_seats(spec)
            table: lpb.Table = await self.lobby.CreateTable(
                lpb.CreateTableRequest(
                    name=spec.label,
                    config=spec.config,
                    seats=spec.seats,
                    min_buy_in=self.buy_in // 2,
                    max_buy_in=self.buy_in * 5,
                    action_clock_ms=clock_ms,
                )
            )
            room_table = RoomTable(spec, table.table_id)
            for n in range(reference):
                kind = BOT_MIX[n % len(BOT_MIX)]
                reply: lpb.RegisterPlayerResponse = await self.lobby.RegisterPlayer(
                    lpb.RegisterPlayerRequest(
                        name=f"{kind}-{len(self.tables) + 1}{n + 1}", initial_balance=self.balance
                    )
                )
                room_table.seats.append(
                    Seat(reply.player.player_id, reply.token, kind, granted=self.balance)
                )
            for index, guest in enumerate(self.guests):
                if guest.sits_at(spec.key):
                    player = await self._guest_player(index, guest)
                    bot = counted(guest.make(), f"{guest.name} at {spec.label}")
                    room_table.seats.append(
                        Seat(player.player_id, player.token, "yours", player.granted, bot)
                    )
            self.tables.append(room_table)

    async def _guest_player(self, index: int, guest: Guest) -> Seat:
        """Your bot's player, registered once through the room's door (as
        ``poker register`` does); the operator then grants it the reference
        bots' play money, so that it can rebuy as long as they can."""
        known = self._guest_players.get(index)
        if known is not None:
            return known
        if self.door is None:
            raise RuntimeError("your bots register through the room's door: none was given")
        made: rpb.RegisterResponse = await self.door.Register(rpb.RegisterRequest(name=guest.name))
        player_id, _, token = made.credential.rpartition(".")
        granted: lpb.Player = await self.lobby.GrantChips(
            lpb.GrantChipsRequest(player_id=player_id, amount=self.balance)
        )
        seat = Seat(player_id, token, "yours", granted=granted.balance)
        self._guest_players[index] = seat
        return seat

    async def sit(self, table: RoomTable, seat: Seat) -> None:
        """Sit down with the room's buy-in, counted as bought in."""
        await self.lobby.SitDown(
            lpb.SitDownRequest(
                player_id=seat.player_id,
                token=seat.token,
                table_id=table.table_id,
                buy_in=self.buy_in,
            )
        )
        self.tally.bought_in += self.buy_in

    async def seat_everyone(self) -> None:
        for t in self.tables:
            for seat in t.seats:
                await self.sit(t, seat)

    async def rebuy_broke(self) -> None:
        """A bot with no chips left stands up and sits down again with a buy-in;
        with ``keep_free``, the tables keep their free seats (``_tend``).

        A stand-up the lobby left pending (the seat was dealt into the hand in
        progress) is finished by the lobby after that hand: the bot then sits down
        again in a later round, so no bot is left out of its table for good."""
        for t in self.tables:
            info: lpb.Table = await self.lobby.GetTable(lpb.GetTableRequest(table_id=t.table_id))
            await self._tend(t, info)

    async def _tend(self, t: RoomTable, info: lpb.Table) -> None:
        """One look at one table: the broke stand up, whoever of the room's is not
        seated sits down when a seat beyond the kept-free ones is open, and when
        people took the kept-free seats a reference bot stands up to make room.

        Every decision is made again from the lobby's table at the next look, so
        a call that lost a race (a stand-up that finished meanwhile, a seat taken
        by a person between GetTable and SitDown: FAILED_PRECONDITION) is simply
        tried again then."""
        stacks = {s.player_id: s.stack for s in info.occupied}
        ours = {s.player_id for s in t.seats}
        free = info.seats - len(info.occupied)
        t.others = len(stacks.keys() - ours)
        for seat in t.seats:
            player = seat.player_id
            try:
                if player in stacks:
                    if stacks[player] > 0 or player in t.leaving:
                        continue
                    stood: lpb.StandUpResponse = await self._stand(t, seat)
                    t.broke.add(player)
                    if stood.pending:
                        t.leaving.add(player)
                        continue
                    free += 1
                t.leaving.discard(player)
                # A reference bot waits for a seat beyond the kept-free ones; yours
                # takes the kept-free seat (it is for you), and a reference bot
                # then makes room.
                if free <= (0 if seat.bot is not None else self.keep_free):
                    continue
                await self.sit(t, seat)
                free -= 1
                if player in t.broke:
                    t.broke.discard(player)
                    self.tally.rebuys += 1
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
        if self.keep_free:
            free = await self._make_room(t, stacks, free)
        t.free = free

    async def _make_room(self, t: RoomTable, stacks: dict[str, int], free: int) -> int:
        """Reference bots stand up (after the hand in progress) until the table
        will have ``keep_free`` free seats; your bots keep theirs.  The free seats
        after it."""
        leaving = sum(1 for player in t.leaving if player in stacks)
        wanted = self.keep_free - free - leaving
        for seat in t.seats:
            if wanted <= 0:
                break
            player = seat.player_id
            if seat.bot is not None or player not in stacks or player in t.leaving:
                continue
            try:
                stood = await self._stand(t, seat)
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                    raise
                continue
            wanted -= 1
            if stood.pending:
                t.leaving.add(player)
            else:
                free += 1
        return free

    async def _stand(self, t: RoomTable, seat: Seat) -> lpb.StandUpResponse:
        reply: lpb.StandUpResponse = await self.lobby.StandUp(
            lpb.StandUpRequest(player_id=seat.player_id, token=seat.token, table_id=t.table_id)
        )
        return reply

    async def progress(self) -> None:
        listed: tpb.ListTablesResponse = await self.table.ListTables(tpb.ListTablesRequest())
        played = {s.table_id: s.hands_played for s in listed.tables}
        for t in self.tables:
            t.hands = played.get(t.table_id, t.hands)

    async def stand_everyone(self) -> None:
        """Everyone of the room's leaves; a player still in a hand leaves when it
        ends.  People seated by themselves stay: their chips are theirs."""
        pending = [(t, s) for t in self.tables for s in t.seats]
        deadline = time.monotonic() + 30
        while pending and time.monotonic() < deadline:
            still = []
            for t, seat in pending:
                try:
                    reply = await self._stand(t, seat)
                except grpc.aio.AioRpcError as error:
                    if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                        continue  # not seated (already left)
                    raise
                if reply.pending:
                    still.append((t, seat))
            pending = still
            if pending:
                await asyncio.sleep(0.2)

    def players(self) -> dict[str, Seat]:
        """The room's players, each once (one of your bots sits at several tables)."""
        return {s.player_id: s for t in self.tables for s in t.seats}

    @property
    def granted(self) -> int:
        """The play money the room's players were given."""
        return sum(seat.granted for seat in self.players().values())

    async def accounts(self) -> dict[str, lpb.Player]:
        """Each of the room's players as the lobby has them now (balance, chips at
        tables)."""
        found: dict[str, lpb.Player] = {}
        for player_id, seat in self.players().items():
            found[player_id] = await self.lobby.GetPlayer(
                lpb.GetPlayerRequest(player_id=player_id, token=seat.token)
            )
        return found

    async def holdings(self) -> int:
        """What the bots hold now: balances plus chips still at tables."""
        return sum(p.balance + p.at_tables for p in (await self.accounts()).values())


async def run(args: argparse.Namespace) -> int:
    signals = StopSignals()
    db = args.db or os.path.join(tempfile.mkdtemp(prefix="cardroom-"), "lobby.sqlite3")
    ports = f"ports from {args.ports}" if isinstance(args.ports, int) else f"{args.ports} ports"
    print(f"starting the room: five services and the gateway on 127.0.0.1 ({ports}), lobby db {db}")
    stack = Stack(
        ports=args.ports,
        env={"lobby": {"LOBBY_DB": db}},
    )
    try:
        stack.start()
    except PortInUseError as error:
        print(f"room: {error}; stop what holds it or use --ports free", file=sys.stderr)
        return 2
    exit_codes: dict[str, int] = {}
    ok = at_once = False
    played = True
    try:
        for name, process in stack.processes.items():
            if name == "gateway":  # no internal port: its one port is the door
                print(
                    f"  {name:<9} door {process.public_target:<16} metrics :{process.metrics_port}"
                )
                continue
            public = f"  public {process.public_target}" if process.public_port else ""
            print(f"  {name:<9} gRPC {process.target:<16} metrics :{process.metrics_port}{public}")
        if stack.pki is not None:
            print(f"  mutual TLS: the room's CA is {stack.pki.ca_file}")
        if "gateway" in stack.processes:
            print(
                f"the room's door: {stack.gateway_target}, the gateway (gRPC, gRPC-Web, Connect)\n"
                "  connect there: the poker CLI (--room), your bots, apps and curl; "
                "the reference bots play through it"
            )
            if stack.pki is not None:
                print(web_client_hint(stack.gateway_target, stack.pki.dir("gateway") / "tls.crt"))
        if await signals.pending():
            played = ok = False
        else:
            ok = await _play(stack, args, signals)
    except asyncio.CancelledError:
        if signals.count < 2:
            raise
        at_once = True  # a second signal: no summary, but the services still stop
    finally:
        exit_codes = stack.stop()
    clean = all(code == 0 for code in exit_codes.values())
    print("services stopped:", ", ".join(f"{n} exit {c}" for n, c in exit_codes.items()))
    if signals.signum is None:
        return 0 if ok and clean else 1
    if at_once:
        print(f"stopped at once by a second {signals.name}: no summary")
        return signals.exit_code
    # --serve: a signal is how a served room ends, exit 0 when the checks held;
    # a run with a hands target that a signal cut short says so, 128 + the signal.
    finished = 0 if args.serve else signals.exit_code
    if not played:
        print(f"stopped by {signals.name} before the bots sat down: no hands, nothing to check")
        return finished if clean else 1
    code = finished if ok and clean else 1
    how = "served until" if args.serve else "stopped early by"
    print(f"{how} {signals.name}: exit {code}")
    return code


SERVE_PROGRESS_S = 30.0  # a served room's progress line: one every half minute
RUN_PROGRESS_S = 2.0


async def _play(stack: Stack, args: argparse.Namespace, signals: StopSignals) -> bool:
    from .busy_room import busy_room  # it builds on this module's Room

    serve: bool = args.serve
    async with busy_room(
        stack, args.clock_ms, seed=args.seed, keep_free=1 if serve else 0, guests=args.guests
    ) as playing:
        room = playing.room
        goal = "until stopped" if serve else f"{args.hands} hands per table"
        print(
            f"{sum(len(t.seats) for t in room.tables)} bots seated at {len(room.tables)} tables; "
            f"playing {goal}"
        )
        if serve:
            await _print_open(room, stack)
        started = time.monotonic()
        last_print = started if serve else 0.0  # a served room has just printed its tables
        every = SERVE_PROGRESS_S if serve else RUN_PROGRESS_S
        hiccups = Hiccups()
        while True:
            if serve:
                # A served room rides out a service's passing trouble (a call
                # that timed out or found it restarting): said, tried again.
                try:
                    await room.progress()
                    await room.rebuy_broke()
                except grpc.aio.AioRpcError as error:
                    hiccups.say(error)
                    await asyncio.sleep(1)
            else:
                await room.progress()
            if not serve and all(t.hands >= args.hands for t in room.tables):
                break
            if signals.event.is_set():
                break
            if playing.failed():
                print("a bot stopped on an error: stopping the room")
                break
            if not serve and time.monotonic() - started > args.timeout:
                print(f"timeout after {args.timeout} s")
                break
            if not serve:
                await room.rebuy_broke()
            if time.monotonic() - last_print >= every:
                last_print = time.monotonic()
                print(_progress_line(room, serve), flush=True)
            await asyncio.sleep(0.25)
        elapsed = time.monotonic() - started
        errors = await playing.finish()
        await room.progress()
        totals: lpb.LedgerTotals = await room.lobby.GetLedgerTotals(lpb.GetLedgerTotalsRequest())
        accounts = await room.accounts()
    target = None if serve else args.hands
    return _report(room, elapsed, target, errors, totals, accounts, stopped=signals.name)


class Hiccups:
    """A served room's failed bookkeeping calls, said in one line each, at most
    one line a minute for the same status (a service down for an hour prints
    sixty lines, not fourteen thousand)."""

    def __init__(self, every_s: float = 60.0) -> None:
        self.every_s = every_s
        self.said: dict[str, float] = {}

    def say(self, error: grpc.aio.AioRpcError) -> None:
        code = error.code().name
        now = time.monotonic()
        last = self.said.get(code)
        if last is None or now - last >= self.every_s:
            self.said[code] = now
            print(f"room: {code}: {error.details()}; trying again", flush=True)


async def _print_open(room: Room, stack: Stack) -> None:
    """The open room: where to connect, and each table's free seat (``serving``)."""
    tables: dict[str, lpb.Table] = {}
    for t in room.tables:
        tables[t.table_id] = await room.lobby.GetTable(lpb.GetTableRequest(table_id=t.table_id))
    ca_file = stack.pki.ca_file if stack.pki is not None else None
    print(open_text(room, stack.gateway_target, ca_file, tables), flush=True)


def _progress_line(room: Room, serve: bool) -> str:
    """Hands per table; a served room adds who else sits and the free seats, and
    what your bots did."""
    line = "  " + "  ".join(f"{t.spec.label}: {t.hands}" for t in room.tables)
    if serve:
        people = sum(t.others for t in room.tables)
        free = sum(t.free for t in room.tables)
        line += f"  | others seated {people}, free seats {free}"
    for t in room.tables:
        for seat in t.seats:
            if seat.bot is not None:
                line += f"\n    yours: {seat.bot.label}: {seat.bot.tally.text()}"
    return line


def _report(
    room: Room,
    elapsed: float,
    target: int | None,
    errors: list[BaseException],
    totals: lpb.LedgerTotals,
    accounts: dict[str, lpb.Player],
    stopped: str = "",
) -> bool:
    """Print the summary and the checks; whether every check held.  ``stopped``
    (a signal's name) marks a run stopped early: the hands are what was played,
    the chip checks hold all the same.  ``target`` None: a served room
    (``--serve``), which has no hands to reach.

    The checks are about the room's own players (the reference bots and yours);
    the ledger's is about every player.  People who sat down by themselves keep
    their seats and chips when the room stops: what they have at the tables is
    shown apart, together with what tournaments hold (the lobby's ``at_tables``
    counts the pools not yet paid and the fees there too, docs/tournaments.md)."""
    hands = sum(t.hands for t in room.tables)
    how = f", served until {stopped}" if target is None else ""
    how = how or (f", stopped early by {stopped}" if stopped else "")
    print(
        f"\nplayed {hands} hands in {elapsed:.1f} s ({hands / max(elapsed, 1e-9):.1f} hands/s){how}"
    )
    for t in room.tables:
        if target is None:
            mark = "served"
        else:
            mark = "ok" if t.hands >= target else "stopped" if stopped else f"SHORT of {target}"
        print(f"  {t.spec.label:<22} {t.hands:>6} hands  {mark}")
    held = sum(p.balance + p.at_tables for p in accounts.values())
    ours_at_tables = sum(p.at_tables for p in accounts.values())
    others_at_tables = totals.at_tables - ours_at_tables
    granted = room.granted
    tally = room.tally
    # Everyone has left: what the bots hold beyond what they never bought in with
    # is what came back from the tables.
    returned = held - (granted - tally.bought_in)
    # People who played (--serve) won or lost chips to the bots: the room cannot
    # read their accounts (they need their tokens), but the lobby's totals hold
    # them: what they were given, and what they hold now (balances, seats).
    people_granted = totals.granted - granted
    people_held = totals.balances + totals.at_tables - held
    from_people = people_granted - people_held if people_granted else 0
    print(
        f"chips: bought in {tally.bought_in} ({tally.rebuys} rebuys), returned to balances "
        f"{returned}, left on tables {totals.at_tables}"
    )
    print(
        f"balances: granted {granted}, held now {held}; lobby ledger: granted {totals.granted} = "
        f"balances {totals.balances} + at tables {totals.at_tables}"
    )
    if people_granted:
        print(
            f"people: granted {people_granted}, hold {people_held} now, counting "
            f"{others_at_tables} at tables or in tournaments (their seats, the pools not "
            f"yet paid, the fees); the room's players won {from_people:+d} from them"
        )
    _report_yours(room, accounts)
    reached = target is not None and all(t.hands >= target for t in room.tables)
    if target is not None and stopped and not reached:
        print(f"  [-] every table reached its hands (stopped early by {stopped})")
    left = (
        ("nothing left on the tables", totals.at_tables == 0)
        if others_at_tables == 0
        else (
            f"the room's players left nothing on the tables ({others_at_tables} chips "
            "there are the people's seats or their tournaments' pools and fees)",
            ours_at_tables == 0,
        )
    )
    won = f" + won from the people ({from_people:+d})" if people_granted else ""
    checks = {
        "every table reached its hands": reached,
        f"chips returned == chips bought in{won}, to the unit": returned
        == tally.bought_in + from_people,
        left[0]: left[1],
        f"the bots hold exactly what they were granted{won}": held == granted + from_people,
        "ledger: granted == balances + at tables": totals.granted
        == totals.balances + totals.at_tables,
        "no bot failed": not errors,
    }
    if target is None or (stopped and not reached):
        del checks["every table reached its hands"]
    for what, passed in checks.items():
        print(f"  [{'x' if passed else ' '}] {what}")
    for error in errors[:3]:
        print(f"  bot error: {error!r}")
    return all(checks.values())


def _report_yours(room: Room, accounts: dict[str, lpb.Player]) -> None:
    """Your bots (``--bot``): what each did at each table, then each player's
    chips won or lost over the run (what it holds now less what it was given)."""
    players: dict[str, Seat] = {}
    for t in room.tables:
        for seat in t.seats:
            if seat.bot is not None:
                print(f"  yours: {seat.bot.label}: {seat.bot.tally.text()}")
                players[seat.player_id] = seat
    for player_id, seat in players.items():
        player = accounts.get(player_id)
        if player is not None:
            net = player.balance + player.at_tables - seat.granted
            print(f"  yours: {player.name} ({player_id}): {net:+d} chips over the run")


def web_client_hint(target: str, cert_file: Path) -> str:
    """Where the web client is, and how a browser trusts the local room's door
    (its certificate comes from the room's own CA): pin its key in Chromium, or
    import the CA."""
    pin = spki_pin(cert_file)
    return (
        f"the web client: https://{target}/  (play and watch in a browser)\n"
        f"  the room's certificate is its own: start Chromium with\n"
        f"  --ignore-certificate-errors-spki-list={pin} --user-data-dir=$(mktemp -d)\n"
        f"  or import {cert_file.parent / 'ca.crt'} as a trusted authority"
    )


def check_guests_fit(guests: Sequence[Guest], keep_free: int) -> None:
    """``BotOptionError`` when a table cannot hold your bots beside the seats kept
    free (every table has room for at least four)."""
    for spec in table_specs():
        here = [g.option for g in guests if g.sits_at(spec.key)]
        if len(here) > spec.seats - keep_free:
            kept = f" and {keep_free} kept free (--serve)" if keep_free else ""
            raise BotOptionError(
                f"--bot: the {spec.key} table has {spec.seats} seats: {len(here)} bots of "
                f"yours{kept} do not fit"
            )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m devroom.room", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--hands",
        type=int,
        default=None,
        help="hands every table plays at least (default 200; the run ends when the "
        "slowest table has them, so faster ones play more; not with --serve)",
    )
    parser.add_argument(
        "--serve",
        action="store_true",
        help="keep the room up until SIGTERM or Ctrl-C, a seat free at every table for a "
        "person or a bot; prints the door, the CA, the tables and the lines to join",
    )
    parser.add_argument(
        "--bot",
        action="append",
        default=[],
        metavar="FILE:CLASS[@TABLE,...]",
        help="seat your bot (a class with act(view, legal)) among the reference bots, at "
        "every table or at those named (stud, stud-hilo, draw-fixed, draw-pot, draw-no, "
        "draw); repeatable",
    )
    parser.add_argument(
        "--clock-ms", type=int, default=5_000, help="action clock per decision (S10; default 5000)"
    )
    parser.add_argument(
        "--ports",
        type=ports_option,
        default="fixed",
        metavar="fixed|free|BASE",
        help="fixed: the documented ports, the gateway's 50050 and the services' "
        "50051-50055 (default); free: any free ports; " + BASE_HELP,
    )
    parser.add_argument("--db", default="", help="lobby SQLite file (default: a fresh temp file)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random bots")
    parser.add_argument(
        "--timeout", type=float, default=900, help="give up after this many s (not with --serve)"
    )
    args = parser.parse_args(argv)
    if args.serve and args.hands is not None:
        parser.error("--hands is a run's end: --serve plays until SIGTERM or Ctrl-C")
    if args.hands is None:
        args.hands = 200
    try:
        args.guests = load_guests(args.bot, [spec.key for spec in table_specs()])
        check_guests_fit(args.guests, 1 if args.serve else 0)
    except BotOptionError as error:
        print(f"room: {error}", file=sys.stderr)
        sys.exit(2)
    limit_sdk_messages()
    sys.exit(event_loop.run(run(args)))


if __name__ == "__main__":
    main()
