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
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from service_kit import loop as event_loop
from service_kit.pki import spki_pin

from .ports import PortInUseError, ports_option
from .stack import Stack, StopSignals

BOT_MIX = ("random", "station", "strength")


@dataclass(frozen=True)
class TableSpec:
    label: str
    config: common.GameConfig
    seats: int


def table_specs() -> list[TableSpec]:
    """One table per game and structure, with the room's stakes (in chips)."""

    def stud(game: common.Game.ValueType) -> common.GameConfig:
        return common.GameConfig(game=game, ante=5, bring_in=10, small_bet=20, big_bet=40)

    def draw(structure: common.Structure.ValueType) -> common.GameConfig:
        return common.GameConfig(
            game=common.GAME_DRAW_7A, structure=structure, small_bet=20, big_bet=40
        )

    return [
        TableSpec("Seven Card Stud", stud(common.GAME_STUD), 6),
        TableSpec("Stud Hi-Lo 8", stud(common.GAME_STUD_HILO), 6),
        TableSpec("7-A Draw fixed limit", draw(common.STRUCTURE_FIXED_LIMIT), 5),
        TableSpec("7-A Draw pot limit", draw(common.STRUCTURE_POT_LIMIT), 5),
        TableSpec("7-A Draw no limit", draw(common.STRUCTURE_NO_LIMIT), 5),
    ]


@dataclass
class Seat:
    player_id: str
    token: str
    kind: str


@dataclass
class RoomTable:
    spec: TableSpec
    table_id: str = ""
    seats: list[Seat] = field(default_factory=list)
    hands: int = 0
    leaving: set[str] = field(default_factory=set)  # player ids whose StandUp is pending


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
    credentials, as any player does (``busy_room``)."""

    def __init__(
        self,
        lobby: Any,
        table: table_pb2_grpc.TableServiceAsyncStub,
    ) -> None:
        self.lobby = lobby
        self.table = table
        self.tables: list[RoomTable] = []
        self.tally = Tally()
        self.buy_in = 2_000
        # Play money for 5,000 rebuys a bot: a long run (--hands in the thousands)
        # never leaves a table with one player because the others ran dry.
        self.balance = 10_000_000

    async def create(self, specs: Sequence[TableSpec], clock_ms: int) -> None:
        for spec in specs:
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
            for n in range(spec.seats):
                kind = BOT_MIX[n % len(BOT_MIX)]
                reply: lpb.RegisterPlayerResponse = await self.lobby.RegisterPlayer(
                    lpb.RegisterPlayerRequest(
                        name=f"{kind}-{len(self.tables) + 1}{n + 1}", initial_balance=self.balance
                    )
                )
                room_table.seats.append(Seat(reply.player.player_id, reply.token, kind))
            self.tables.append(room_table)

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
        """A bot with no chips left stands up and sits down again with a buy-in.

        A stand-up the lobby left pending (the seat was dealt into the hand in
        progress) is finished by the lobby after that hand: the bot then sits down
        again in a later round, so no bot is left out of its table for good."""
        for t in self.tables:
            info: lpb.Table = await self.lobby.GetTable(lpb.GetTableRequest(table_id=t.table_id))
            broke = {s.player_id for s in info.occupied if s.stack == 0}
            seated = {s.player_id for s in info.occupied}
            for seat in t.seats:
                returning = seat.player_id in t.leaving and seat.player_id not in seated
                if seat.player_id not in broke and not returning:
                    continue
                try:
                    if not returning:
                        stood: lpb.StandUpResponse = await self.lobby.StandUp(
                            lpb.StandUpRequest(
                                player_id=seat.player_id, token=seat.token, table_id=t.table_id
                            )
                        )
                        if stood.pending:
                            t.leaving.add(seat.player_id)
                            continue
                    await self.sit(t, seat)
                    t.leaving.discard(seat.player_id)
                except grpc.aio.AioRpcError as error:
                    # The table moved on between GetTable and these calls (an earlier
                    # pending stand-up completed, the seat is being planned): the
                    # next round sees the new state and tries again.
                    if error.code() != grpc.StatusCode.FAILED_PRECONDITION:
                        raise
                    continue
                self.tally.rebuys += 1

    async def progress(self) -> None:
        listed: tpb.ListTablesResponse = await self.table.ListTables(tpb.ListTablesRequest())
        played = {s.table_id: s.hands_played for s in listed.tables}
        for t in self.tables:
            t.hands = played.get(t.table_id, t.hands)

    async def stand_everyone(self) -> None:
        """Everyone leaves; a player still in a hand leaves when it ends."""
        pending = [(t, s) for t in self.tables for s in t.seats]
        deadline = time.monotonic() + 30
        while pending and time.monotonic() < deadline:
            still = []
            for t, seat in pending:
                try:
                    reply: lpb.StandUpResponse = await self.lobby.StandUp(
                        lpb.StandUpRequest(
                            player_id=seat.player_id, token=seat.token, table_id=t.table_id
                        )
                    )
                except grpc.aio.AioRpcError as error:
                    if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                        continue  # not seated (already left)
                    raise
                if reply.pending:
                    still.append((t, seat))
            pending = still
            if pending:
                await asyncio.sleep(0.2)

    async def holdings(self) -> int:
        """What the bots hold now: balances plus chips still at tables."""
        total = 0
        for t in self.tables:
            for seat in t.seats:
                player: lpb.Player = await self.lobby.GetPlayer(
                    lpb.GetPlayerRequest(player_id=seat.player_id, token=seat.token)
                )
                total += player.balance + player.at_tables
        return total


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
    if not played:
        print(f"stopped by {signals.name} before the bots sat down: no hands, nothing to check")
        return signals.exit_code if clean else 1
    code = signals.exit_code if ok and clean else 1
    print(f"stopped early by {signals.name}: exit {code}")
    return code


async def _play(stack: Stack, args: argparse.Namespace, signals: StopSignals) -> bool:
    from .busy_room import busy_room  # it builds on this module's Room

    async with busy_room(stack, args.clock_ms, seed=args.seed) as playing:
        room = playing.room
        print(
            f"{sum(len(t.seats) for t in room.tables)} bots seated at {len(room.tables)} tables; "
            f"playing {args.hands} hands per table"
        )
        started = time.monotonic()
        last_print = 0.0
        while True:
            await room.progress()
            if all(t.hands >= args.hands for t in room.tables):
                break
            if signals.event.is_set():
                break
            if playing.failed():
                break
            if time.monotonic() - started > args.timeout:
                print(f"timeout after {args.timeout} s")
                break
            await room.rebuy_broke()
            if time.monotonic() - last_print >= 2:
                last_print = time.monotonic()
                print("  " + "  ".join(f"{t.spec.label}: {t.hands}" for t in room.tables))
            await asyncio.sleep(0.25)
        elapsed = time.monotonic() - started
        errors = await playing.finish()
        await room.progress()
        totals: lpb.LedgerTotals = await room.lobby.GetLedgerTotals(lpb.GetLedgerTotalsRequest())
        held = await room.holdings()
    return _report(room, elapsed, args.hands, errors, totals, held, stopped=signals.name)


def _report(
    room: Room,
    elapsed: float,
    target: int,
    errors: list[BaseException],
    totals: lpb.LedgerTotals,
    held: int,
    stopped: str = "",
) -> bool:
    """Print the summary and the checks; whether every check held.  ``stopped``
    (a signal's name) marks a run stopped early: the hands are what was played,
    the chip checks hold all the same."""
    hands = sum(t.hands for t in room.tables)
    early = f", stopped early by {stopped}" if stopped else ""
    print(
        f"\nplayed {hands} hands in {elapsed:.1f} s ({hands / max(elapsed, 1e-9):.1f} hands/s)"
        f"{early}"
    )
    for t in room.tables:
        mark = "ok" if t.hands >= target else "stopped" if stopped else f"SHORT of {target}"
        print(f"  {t.spec.label:<22} {t.hands:>6} hands  {mark}")
    granted = sum(len(t.seats) for t in room.tables) * room.balance
    tally = room.tally
    # Everyone has left: what the bots hold beyond what they never bought in with
    # is what came back from the tables.
    returned = held - (granted - tally.bought_in)
    print(
        f"chips: bought in {tally.bought_in} ({tally.rebuys} rebuys), returned to balances "
        f"{returned}, left on tables {totals.at_tables}"
    )
    print(
        f"balances: granted {granted}, held now {held}; lobby ledger: granted {totals.granted} = "
        f"balances {totals.balances} + at tables {totals.at_tables}"
    )
    reached = all(t.hands >= target for t in room.tables)
    if stopped and not reached:
        print(f"  [-] every table reached its hands (stopped early by {stopped})")
    checks = {
        "every table reached its hands": reached,
        "chips returned == chips bought in, to the unit": returned == tally.bought_in,
        "nothing left on the tables": totals.at_tables == 0,
        "the bots hold exactly what they were granted": held == granted,
        "ledger: granted == balances + at tables": totals.granted
        == totals.balances + totals.at_tables,
        "no bot failed": not errors,
    }
    if stopped and not reached:
        del checks["every table reached its hands"]
    for what, passed in checks.items():
        print(f"  [{'x' if passed else ' '}] {what}")
    for error in errors[:3]:
        print(f"  bot error: {error!r}")
    return all(checks.values())


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


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m devroom.room", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--hands", type=int, default=200, help="hands per table (default 200)")
    parser.add_argument(
        "--clock-ms", type=int, default=5_000, help="action clock per decision (S10; default 5000)"
    )
    parser.add_argument(
        "--ports",
        type=ports_option,
        default="fixed",
        metavar="fixed|free|BASE",
        help="fixed: the documented ports, the gateway's 50050 and the services' "
        "50051-50055 (default); free: any free ports; "
        "BASE (a number): gRPC on BASE..BASE+4, /metrics on BASE+5..BASE+9",
    )
    parser.add_argument("--db", default="", help="lobby SQLite file (default: a fresh temp file)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random bots")
    parser.add_argument("--timeout", type=float, default=900, help="give up after this many s")
    args = parser.parse_args(argv)
    sys.exit(event_loop.run(run(args)))


if __name__ == "__main__":
    main()
