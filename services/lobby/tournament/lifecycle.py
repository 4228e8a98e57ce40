"""A tournament from creation to its end (T1, T2, T4, T5): the checks of a new
tournament, the start with the seating draw, the level clock and its breaks, the
standings, and the end, when one player has chips and the prizes are paid.

The level clock in hands counts the hands finished in the whole tournament.
The tournament ends when one player has chips; late registration then closes.
Prizes are paid to the balances at once (ledger ``t_prize``).
"""

from __future__ import annotations

import secrets
import time
import uuid

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import tournament_pb2 as tpb
from poker_rules.config import Game, Structure
from poker_rules.tournament import Bust, draw_seats, standings, tables_needed
from poker_wire import check_count, game_of
from poker_wire.enums import structure_of
from service_kit.errors import FailedPreconditionError, InvalidArgumentError
from service_kit.logs import get_logger

from ..checks import ACTION_CLOCK_MS, DEFAULT_ACTION_CLOCK_MS, MOST_SEATS
from .models import Entry, Tournament, TTable
from .registry import TournamentRegistry
from .structure import stakes_pb, structure_from

log = get_logger()

MAX_NAME = 64
K = tpb.TournamentEventKind


def create(book: TournamentRegistry, request: tpb.CreateTournamentRequest) -> Tournament:
    """A new tournament, registering; INVALID_ARGUMENT saying what is wrong."""
    name = request.name
    if not name.strip() or len(name) > MAX_NAME or not name.isprintable():
        raise InvalidArgumentError(f"name is required: 1..{MAX_NAME} printable characters")
    if not request.HasField("config"):
        raise InvalidArgumentError("config is required: the game (and structure for draw)")
    game = game_of(request.config.game, "config.game")
    structure = structure_of(request.config.structure, "config.structure")
    if game is not Game.DRAW_7A and structure is not Structure.FIXED_LIMIT:
        raise InvalidArgumentError("config.structure: the stud games are fixed limit (S1)")
    if request.config.timeout_policy == common.TIMEOUT_POLICY_CHECK_OR_FOLD:
        raise InvalidArgumentError(
            "config.timeout_policy: a tournament folds a player who is away at each "
            "turn (T6), which the table does by running their clock out: use "
            "ALL_IN_PROTECTION (or leave it unspecified), not CHECK_OR_FOLD"
        )
    most = MOST_SEATS[game]
    check_count(request.seats_per_table, f"seats_per_table (a {game.value} table)", 2, most)
    lib = structure_from(request, game)
    clock = request.action_clock_ms
    if clock:
        check_count(clock, "action_clock_ms (0 = 10000, S10)", *ACTION_CLOCK_MS)
    stored = tpb.CreateTournamentRequest()
    stored.CopyFrom(request)
    stored.action_clock_ms = clock or DEFAULT_ACTION_CLOCK_MS
    stored.max_entries = lib.max_entries
    base = common.GameConfig(
        game=request.config.game,
        structure=request.config.structure,
        timeout_policy=request.config.timeout_policy,
        river_shortage=request.config.river_shortage,
    )
    stored.config.CopyFrom(base)
    tid = f"tn-{uuid.uuid4().hex}"
    t = Tournament(tid, stored, lib, game, seed=request.seed or secrets.randbits(62))
    with book.store.transaction():
        book.store.add(tid, stored.SerializeToString(deterministic=True), t.to_state())
    book.tournaments[tid] = t
    log.info("tournament created", tournament_id=tid, game=game.value)
    return t


def start(book: TournamentRegistry, tournament_id: str) -> Tournament:
    """The start (T2): the tables, the seating draw, the first level."""
    t = book.get(tournament_id)
    if t.status != "registering":
        raise FailedPreconditionError(f"tournament {t.tournament_id} has already started")
    players = [e.player_id for e in t.entries]
    if len(players) < 2:
        raise FailedPreconditionError(
            f"a tournament starts with at least 2 entries, it has {len(players)}"
        )
    size = t.request.seats_per_table
    count = tables_needed(len(players), size)
    with book.atomic(t):
        ids = []
        for i in range(count):
            table = TTable(f"tt-{uuid.uuid4().hex}", f"{t.request.name} #{i + 1}")
            t.tables[table.table_id] = table
            ids.append(table.table_id)
        # The highest-numbered table breaks first; table #1 is the final table.
        t.break_order = list(reversed(ids))
        t.status = "running"
        t.started_at = time.time()
        book.emit(t, K.TOURNAMENT_EVENT_KIND_STARTED, players_left=len(players))
        for seat in draw_seats(players, ids, size, t.rng("draw")):
            t.seat(seat.player, seat.table, seat.seat)
            book.emit(
                t,
                K.TOURNAMENT_EVENT_KIND_SEATED,
                player_id=seat.player,
                table_id=seat.table,
                seat=seat.seat,
                message="seating draw (T2)",
            )
        clock(book, t)
        book.save(t)
    for table_id in ids:
        book.table_owner[table_id] = t.tournament_id
    log.info("tournament started", tournament_id=t.tournament_id, tables=count)
    return t


def clock(book: TournamentRegistry, t: Tournament) -> None:
    """Level changes and breaks (T1), with their events."""
    position = t.structure.position(t.elapsed())
    if position.level != t.level:
        t.level = position.level
        book.emit(
            t,
            K.TOURNAMENT_EVENT_KIND_LEVEL_UP,
            level=position.level,
            stakes=stakes_pb(position.stakes),
            message=f"level {position.level}",
        )
    if position.on_break != t.on_break:
        t.on_break = position.on_break
        if position.on_break:
            book.emit(t, K.TOURNAMENT_EVENT_KIND_BREAK, level=position.level)


def finish(book: TournamentRegistry, t: Tournament) -> None:
    """One player left: places final, prizes to the balances (T4, T5)."""
    (winner,) = t.alive()
    winner.place = 1
    t.status = "finished"
    results = standings_of(t)
    for line in results:
        entry = line[0]
        prize = line[1]
        if prize:
            book.store.move_money(t.tournament_id, entry.player_id, "t_prize", -prize, 0)
    for table in t.tables.values():
        table.broken = True
    book.emit(
        t,
        K.TOURNAMENT_EVENT_KIND_FINISHED,
        player_id=winner.player_id,
        place=1,
        prize=results[0][1] if results else 0,
        players_left=1,
    )
    log.info("tournament finished", tournament_id=t.tournament_id, winner=winner.player_id)


def payouts(t: Tournament) -> tuple[int, ...]:
    """The prizes as the entries so far pay them (T4)."""
    return t.structure.payouts(max(1, len(t.entries))) if t.entries else ()


def standings_of(t: Tournament) -> list[tuple[Entry, int | None, int]]:
    """(entry, prize or None while undecided, place), best first (library standings)."""
    by_key = {e.key: e for e in t.entries}
    if t.status == "registering" or not t.entries:
        return [(e, None, 0) for e in t.entries]
    log_ = [[Bust(k, s) for k, s in hand] for hand in t.bust_log]
    lines = standings({e.key: e.chips for e in t.alive()}, log_, payouts(t))
    return [(by_key[line.player], line.prize, line.place) for line in lines]
