"""A whole tournament of reference bots over the five services (``make tournament``).

``python -m devroom.tournament_room --game stud_hilo --players 120`` starts the
services (``devroom.stack``), registers the players, creates a tournament with a
fast structure (levels by hands, steep), registers everyone, starts it, and plays
every player with a reference bot (:func:`poker_bots.tournament.play_tournament`)
until one is left.  Meanwhile it watches the tournament's events and prints the
progress (level, open tables, players left, eliminations); at the end, the places
and payouts.  Exit code 0 only when every check held:

- tables within one player of each other at every deal, except tables waiting for
  a move (T3);
- the chips in play equal entries x starting stack after every hand (T5);
- every entry has exactly one finishing place, 1..entries (T4);
- the payouts sum to the prize pool, and the lobby's ledger still balances.

SIGTERM, SIGINT (Ctrl-C) or SIGHUP stops it early: the bots stop, the summary of
what was played so far is printed (marked "stopped early") with the checks that
still apply (every hand's, the ledger's; not the places, the tournament is not
over), and the services are stopped.  The exit code is then 1 when a check
failed, else 128 + the signal (130, 143), as ``devroom.room`` does.  A port in
use is one line naming it, exit code 2.

:func:`run` is what the tests call (``tests/system/tournaments_grpc``).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import tournament_pb2 as tpb
from poker.lobby.v1 import tournament_pb2_grpc
from poker_bots import make_bot
from poker_bots.tournament import play_tournament
from poker_wire.channels import Stubs, staff_lobby
from service_kit import loop as event_loop

from .launcher import ServiceProcess
from .ports import BASE_HELP, PortInUseError, ports_option
from .stack import Stack, StopSignals

K = tpb.TournamentEventKind
GAMES = {
    "stud": common.GAME_STUD,
    "stud_hilo": common.GAME_STUD_HILO,
    "draw_nl": common.GAME_DRAW_7A,
    "draw_pl": common.GAME_DRAW_7A,
    "draw_fl": common.GAME_DRAW_7A,
}
STRUCTURES: dict[str, common.Structure.ValueType] = {
    "draw_nl": common.STRUCTURE_NO_LIMIT,
    "draw_pl": common.STRUCTURE_POT_LIMIT,
    "draw_fl": common.STRUCTURE_FIXED_LIMIT,
}
BOT_KINDS = ("random", "station", "strength")


def fast_schedule(game: str, hands_per_level: int, levels: int = 14) -> list[tpb.TournamentLevel]:
    """A steep structure for simulations: the stakes double every level."""
    schedule = []
    for i in range(levels):
        unit = 10 * 2**i
        if game.startswith("draw"):
            schedule.append(
                tpb.TournamentLevel(
                    small_blind=unit, big_blind=2 * unit, ante=unit // 5, duration=hands_per_level
                )
            )
        else:
            schedule.append(
                tpb.TournamentLevel(
                    ante=unit // 2,
                    bring_in=unit,
                    small_bet=2 * unit,
                    big_bet=4 * unit,
                    duration=hands_per_level,
                )
            )
    return schedule


def tournament_request(
    game: str,
    *,
    name: str = "",
    hands_per_level: int = 40,
    starting_stack: int = 1_000,
    buy_in: int = 100,
    fee: int = 10,
    action_clock_ms: int = 2_000,
    seed: int = 0,
) -> tpb.CreateTournamentRequest:
    seats = 5 if game.startswith("draw") else 8
    return tpb.CreateTournamentRequest(
        name=name or f"{game} freezeout",
        config=common.GameConfig(
            game=GAMES[game], structure=STRUCTURES.get(game, common.STRUCTURE_UNSPECIFIED)
        ),
        seats_per_table=seats,
        schedule=fast_schedule(game, hands_per_level),
        clock=tpb.LEVEL_CLOCK_HANDS,
        starting_stack=starting_stack,
        buy_in=buy_in,
        fee=fee,
        action_clock_ms=action_clock_ms,
        seed=seed,
    )


@dataclass
class Report:
    """What a run saw, and every problem found (empty = all checks held)."""

    tournament_id: str = ""
    entries: int = 0
    hands: int = 0
    levels: int = 0
    tables_at_start: int = 0
    tables_broken: int = 0
    moves: int = 0
    seconds: float = 0.0
    prize_pool: int = 0
    results: list[tuple[int, str, int]] = field(default_factory=list)  # place, name, prize
    problems: list[str] = field(default_factory=list)
    stopped: bool = False  # stopped early (a signal): the tournament is not over
    players_left: int = 0


class _Watcher:
    """Checks every event of the tournament as it happens."""

    def __init__(self, total_chips: int, report: Report, say: Callable[[str], None]) -> None:
        self.total_chips = total_chips
        self.report = report
        self.say = say
        self.level = 0
        self.left = 0
        self.eliminated = 0
        self.open_tables = 0

    def on(self, event: tpb.TournamentEvent) -> None:
        r = self.report
        if event.kind == K.TOURNAMENT_EVENT_KIND_HAND_STARTED:
            dealing = [c for c in event.table_counts if not c.waiting]
            counts = [c.players for c in dealing]
            self.open_tables = len(event.table_counts)
            if counts and max(counts) - min(counts) > 1:
                r.problems.append(
                    f"hand {event.hand_id}: tables dealing differ by more than one player: "
                    f"{sorted(counts)}"
                )
        elif event.kind == K.TOURNAMENT_EVENT_KIND_HAND_FINISHED:
            r.hands += 1
            self.left = event.players_left
            if event.chips_in_play != self.total_chips:
                r.problems.append(
                    f"after hand {event.hand_id}: {event.chips_in_play} chips in play, "
                    f"expected {self.total_chips} (T5)"
                )
        elif event.kind == K.TOURNAMENT_EVENT_KIND_LEVEL_UP:
            self.level = event.level
            r.levels = max(r.levels, event.level)
            s = event.stakes
            stakes = (
                f"blinds {s.small_blind}/{s.big_blind} ante {s.ante}"
                if s.big_blind
                else f"ante {s.ante} bring-in {s.bring_in} limits {s.small_bet}/{s.big_bet}"
            )
            self.say(f"level {event.level}: {stakes}")
        elif event.kind == K.TOURNAMENT_EVENT_KIND_ELIMINATED:
            self.eliminated += 1
        elif event.kind == K.TOURNAMENT_EVENT_KIND_MOVED:
            r.moves += 1
        elif event.kind == K.TOURNAMENT_EVENT_KIND_TABLE_BROKEN:
            r.tables_broken += 1
        elif event.kind == K.TOURNAMENT_EVENT_KIND_FINAL_TABLE:
            self.say(f"final table: {event.players_left} players, redrawn")

    def progress(self) -> str:
        return (
            f"level {self.level} | tables {self.open_tables} | players left {self.left} | "
            f"eliminated {self.eliminated} | hands {self.report.hands}"
        )


async def run(
    lobby_process: ServiceProcess,
    table_process: ServiceProcess,
    request: tpb.CreateTournamentRequest,
    players: int,
    *,
    say: Callable[[str], None] = lambda _line: None,
    progress_s: float = 2.0,
    timeout_s: float = 600.0,
    stop: asyncio.Event | None = None,
) -> Report:
    """Register ``players`` bots, run the tournament to its end (or until ``stop``
    is set), check it.

    The tournament is created and started as the operator (mutual TLS on the
    lobby's internal port); the bots register and play as players."""
    report = Report()
    started = time.monotonic()
    async with (
        lobby_process.aio_channel("operator") as lobby,
        table_process.player_channel() as tables,
    ):
        lobby_stub = staff_lobby(lobby)
        tstub = Stubs(
            tournament_pb2_grpc.TournamentsStub(lobby),
            tournament_pb2_grpc.TournamentOperatorStub(lobby),
        )
        tournament = await tstub.CreateTournament(request)
        tid = tournament.tournament_id
        report.tournament_id = tid
        names: dict[str, str] = {}
        credentials: list[tuple[str, str, str]] = []
        for i in range(players):
            kind = BOT_KINDS[i % len(BOT_KINDS)]
            reply = await lobby_stub.RegisterPlayer(
                lpb.RegisterPlayerRequest(name=f"{kind}-{i + 1}")
            )
            pid, token = reply.player.player_id, reply.token
            names[pid] = reply.player.name
            credentials.append((pid, token, kind))
            await tstub.Register(
                tpb.RegisterEntryRequest(tournament_id=tid, player_id=pid, token=token)
            )
        tournament = await tstub.Start(tpb.StartTournamentRequest(tournament_id=tid))
        report.entries = tournament.entries
        report.tables_at_start = len(tournament.tables)
        report.prize_pool = tournament.prize_pool
        say(
            f"{tournament.name}: {tournament.entries} entries, {len(tournament.tables)} tables, "
            f"prize pool {tournament.prize_pool}"
        )
        watcher = _Watcher(tournament.entries * tournament.starting_stack, report, say)
        bots = [
            asyncio.create_task(
                play_tournament(lobby, tables, tid, pid, token, make_bot(kind, seed=n))
            )
            for n, (pid, token, kind) in enumerate(credentials)
        ]

        async def watch() -> None:
            async for event in tstub.WatchTournament(
                tpb.WatchTournamentRequest(tournament_id=tid, from_seq=1)
            ):
                watcher.on(event)
                if event.kind == K.TOURNAMENT_EVENT_KIND_FINISHED:
                    return

        async def tick() -> None:
            while True:
                await asyncio.sleep(progress_s)
                say(watcher.progress())

        ticker = asyncio.create_task(tick())
        watching = asyncio.create_task(watch())
        stopping = asyncio.create_task((stop or asyncio.Event()).wait())
        try:
            done, _ = await asyncio.wait(
                {watching, stopping}, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED
            )
            if watching in done:
                watching.result()  # its error, if it failed
            elif stopping in done:
                report.stopped = True
            else:
                report.problems.append(f"the tournament did not finish within {timeout_s:.0f} s")
        finally:
            for waiter in (ticker, watching, stopping):
                waiter.cancel()
        report.players_left = watcher.left
        await asyncio.wait(bots, timeout=0 if report.stopped else 10)
        for task in bots:
            if not task.done():
                task.cancel()
            elif task.exception() is not None:
                report.problems.append(f"a bot failed: {task.exception()!r}")
        await asyncio.gather(*bots, return_exceptions=True)  # the cancelled ones end
        standings = await tstub.GetStandings(tpb.GetStandingsRequest(tournament_id=tid))
        final = await tstub.GetTournament(tpb.GetTournamentRequest(tournament_id=tid))
        totals = await lobby_stub.GetLedgerTotals(lpb.GetLedgerTotalsRequest())
    report.seconds = time.monotonic() - started
    _check_results(report, standings, final, totals, names)
    return report


def _check_results(
    report: Report,
    standings: tpb.Standings,
    final: tpb.Tournament,
    totals: lpb.LedgerTotals,
    names: dict[str, str],
) -> None:
    problems = report.problems
    _check_ledger(problems, totals)
    if report.stopped:  # not over: the places and payouts are not decided yet
        report.results = sorted(
            (s.place, names.get(s.player_id, s.player_id), s.prize)
            for s in standings.standings
            if s.has_prize
        )
        return
    if not standings.final:
        problems.append("the standings are not final")
    lines = list(standings.standings)
    if len(lines) != final.entries:
        problems.append(f"{len(lines)} standings lines for {final.entries} entries")
    keys = Counter((s.player_id, s.entry) for s in lines)
    if any(n != 1 for n in keys.values()):
        problems.append("an entry has more than one line in the standings")
    places = Counter(s.place for s in lines)
    for s in lines:
        if not 1 <= s.place <= final.entries or not s.has_prize:
            problems.append(f"{s.player_id}: place {s.place}, prize decided {s.has_prize}")
    for place, count in places.items():  # a tie of n covers n places
        tied = {s.tied for s in lines if s.place == place}
        if tied != {count}:
            problems.append(f"place {place}: {count} players but tied {sorted(tied)}")
    paid = sum(s.prize for s in lines)
    if paid != final.prize_pool:
        problems.append(f"payouts sum to {paid}, the prize pool is {final.prize_pool}")
    report.results = sorted((s.place, names.get(s.player_id, s.player_id), s.prize) for s in lines)


def _check_ledger(problems: list[str], totals: lpb.LedgerTotals) -> None:
    if totals.granted != totals.balances + totals.at_tables or (
        totals.ledger_balances != totals.balances or totals.ledger_tables != totals.at_tables
    ):
        problems.append(f"the ledger does not balance: {totals}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", choices=sorted(GAMES), default="stud_hilo")
    parser.add_argument("--players", type=int, default=120)
    parser.add_argument("--hands-per-level", type=int, default=40)
    parser.add_argument("--clock-ms", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--ports",
        type=ports_option,
        default="free",
        metavar="fixed|free|BASE",
        help="free: any free ports (default); fixed: the documented ports, the gateway's "
        "50050 and the services' 50051-50055; " + BASE_HELP,
    )
    args = parser.parse_args(argv)
    return event_loop.run(_main(args))


def say(line: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {line}", flush=True)


async def _main(args: argparse.Namespace) -> int:
    """Start the services, run the tournament, print the summary, stop the services
    (on every way out: the end, a signal, an error)."""
    signals = StopSignals()
    request = tournament_request(
        args.game,
        hands_per_level=args.hands_per_level,
        action_clock_ms=args.clock_ms,
        seed=args.seed,
    )
    env = {"table": {"TABLE_IDLE_POLL_S": "0.05", "TABLE_DISCOVERY_S": "0.2"}}
    stack = Stack(ports=args.ports, env=env)
    try:
        stack.start()
    except PortInUseError as error:
        print(f"tournament: {error}; stop what holds it or use --ports free", file=sys.stderr)
        return 2
    report: Report | None = None
    try:
        if not await signals.pending():
            report = await run(
                stack["lobby"],
                stack["table"],
                request,
                args.players,
                say=say,
                stop=signals.event,
            )
    except asyncio.CancelledError:
        if signals.count < 2:
            raise
    finally:
        stack.stop()
    if report is None:
        print(f"stopped by {signals.name} before the tournament ran: no summary")
        return signals.exit_code
    return _summary(report, signals)


def _summary(report: Report, signals: StopSignals) -> int:
    """Print what was played and the checks; the exit code."""
    print(
        f"\n{report.entries} entries, {report.hands} hands, {report.levels} levels, "
        f"{report.tables_at_start} tables at the start ({report.tables_broken} broken), "
        f"{report.moves} moves, {report.seconds:.1f} s"
    )
    if report.stopped:
        print(
            f"stopped early by {signals.name}: {report.players_left} players left, "
            "places decided so far:"
        )
    else:
        print(f"prize pool {report.prize_pool}; places and payouts:")
    for place, name, prize in report.results:
        if prize or place <= 10:
            print(f"  {place:>4}  {name:<16} {prize:>8}")
    if report.problems:
        print(f"\n{len(report.problems)} problems:")
        for problem in report.problems[:20]:
            print(f"  - {problem}")
        return 1
    if report.stopped:
        print(
            "every check held so far: tables balanced, chips constant, ledger balanced; "
            f"exit {signals.exit_code}"
        )
        return signals.exit_code
    print("every check held: tables balanced, chips constant, one place each, payouts = pool")
    return 0


if __name__ == "__main__":
    sys.exit(main())
