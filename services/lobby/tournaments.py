"""Tournaments over the services (T1-T6): state, hands, moves, and the gRPC servicer.

The rules are ``poker_rules.tournament``'s (structure and clock, the draw,
balancing and breaking, eliminations, payouts, standings); this module keeps the
state, translates, and decides only what the rule book leaves to the room:

- A tournament table is a lobby table (``Table.tournament_id``) that the table
  service runs like a ring table: ``LobbyServicer`` hands its NextHand,
  FinishHand, VoidPendingHand, GetTable, ListTables and Authenticate calls for
  such a table to :class:`TournamentBook`.  NextHand sends the level's stakes
  (``NextHandResponse.config``) and the blinds (``posts``); players away are
  dealt in with ``fold_on_turn`` (T6: the table folds them at each turn).
- Tables run their hands independently, so a move can only be made while both
  tables are between hands.  At each NextHand of a table the balancing plan
  (``rebalance``: breaks in the pre-set order, TDA moves, the final redraw) is
  computed for the whole tournament; it is applied when no table it takes a
  player from is in a hand.  Otherwise nothing moves yet, and a table the plan
  involves (giving, receiving, breaking) does not deal: it is ``waiting`` until
  the busy tables finish their hands.  So a table deals only when it is within
  one player of every table that is not waiting (T3 lets a table three short
  pause; we pause a table two short for the moment the move takes).
- The dead-button positions of draw tables (B1 as the rule book's tournaments
  play it: the big blind moves one player each hand, the small blind is the
  previous big blind's seat, the button the previous small blind's, dead when
  empty) come from ``poker_rules.tournament.next_positions``; balancing is told
  the coming hand's (``coming_positions``, for a lone survivor's table too), so
  arriving players are dealt in at once: T3 never seats them from the button
  through the small blind unless no other seat is free, and then they are not
  dealt in until the button has passed them (``dealt_positions``, which deals
  everyone afresh rather than leave a lone survivor with nobody to play).
- The level clock in hands counts the hands finished in the whole tournament.
- The tournament ends when one player has chips; late registration then closes.
  Prizes are paid to the balances at once (ledger ``t_prize``).
- A lobby restart voids the hand each tournament table had in progress (stacks as
  at its start), as it does at ring tables.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import random
import secrets
import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import asdict, dataclass, field
from typing import Any

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import tournament_pb2 as tpb
from poker.lobby.v1 import tournament_pb2_grpc as tpb_grpc
from poker_rules.config import Game, Structure
from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import (
    DEFAULT_PAYOUT_TABLE,
    BlindPositions,
    BlindStakes,
    Break,
    Bust,
    ChipConservationError,
    EntryRefusedError,
    Level,
    LevelClock,
    PayoutTable,
    PayoutTier,
    StudStakes,
    TournamentStructure,
    check_chips,
    coming_positions,
    dealt_positions,
    draw_seats,
    rank_busts,
    rebalance,
    seat_entrant,
    standings,
    tables_needed,
)
from poker_rules.tournament import Table as RTable
from poker_wire import check_chips as check_amount
from poker_wire import check_count, check_id, game_of
from poker_wire.enums import structure_of
from service_kit.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from service_kit.logs import get_logger

from .auth import authenticate
from .tournament_store import TournamentStore

log = get_logger()

MOST_SEATS = {Game.STUD: 8, Game.STUD_HILO: 8, Game.DRAW_7A: 5}  # S1, D1
DEFAULT_ACTION_CLOCK_MS = 10_000
ACTION_CLOCK_MS = (50, 600_000)
MAX_LEVELS = 200
MAX_NAME = 64
STATUS = {
    "registering": tpb.TOURNAMENT_STATUS_REGISTERING,
    "running": tpb.TOURNAMENT_STATUS_RUNNING,
    "finished": tpb.TOURNAMENT_STATUS_FINISHED,
}
K = tpb.TournamentEventKind


# ---------------------------------------------------------------- state


@dataclass(slots=True)
class Entry:
    """One entry (a re-entry is a new one): ``key`` names it in the bust log."""

    player_id: str
    number: int
    chips: int
    table_id: str = ""
    seat: int = 0
    busted: bool = False
    place: int = 0
    tied: int = 1
    away: bool = False

    @property
    def key(self) -> str:
        return f"{self.player_id}#{self.number}"


@dataclass(slots=True)
class TTable:
    """A tournament table between (or during) hands.

    ``last`` is the positions of the last hand planned (button, small-blind
    position, big blind), draw only; ``wait_button`` the seats whose players are
    not dealt in until the button has passed them (T3: seated between the button
    and the small blind because no other seat was free); ``pending`` the hand in
    progress: its id, the NextHandResponse bytes and the seats dealt in with their
    stacks.
    """

    table_id: str
    name: str
    seats: dict[int, str] = field(default_factory=dict)
    last: list[int] | None = None
    wait_button: list[int] = field(default_factory=list)
    broken: bool = False
    waiting: bool = False
    hands_played: int = 0
    pending_id: str = ""
    pending_plan: bytes = b""
    pending_dealt: list[list[Any]] = field(default_factory=list)  # [seat, player, stack]
    pending_last: list[int] | None = None
    finished_id: str = ""
    finished_digest: str = ""


@dataclass(slots=True)
class Tournament:
    """Everything about one tournament; ``to_state``/``from_state`` for SQLite."""

    tournament_id: str
    request: tpb.CreateTournamentRequest
    structure: TournamentStructure
    game: Game
    status: str = "registering"
    entries: list[Entry] = field(default_factory=list)
    tables: dict[str, TTable] = field(default_factory=dict)
    break_order: list[str] = field(default_factory=list)
    bust_log: list[list[list[Any]]] = field(default_factory=list)  # [[key, stack], ...]
    hands_played: int = 0
    started_at: float = 0.0
    level: int = 0
    on_break: bool = False
    final_table_id: str = ""
    seed: int = 0
    events: list[tpb.TournamentEvent] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    # ------------------------------------------------------------ lookups

    def live(self, player_id: str) -> Entry | None:
        """The player's entry with chips in play (or registered), if any."""
        for entry in reversed(self.entries):
            if entry.player_id == player_id and not entry.busted:
                return entry
        return None

    def latest(self, player_id: str) -> Entry | None:
        for entry in reversed(self.entries):
            if entry.player_id == player_id:
                return entry
        return None

    def alive(self) -> list[Entry]:
        return [e for e in self.entries if not e.busted]

    def open_tables(self) -> list[TTable]:
        return [self.tables[t] for t in self.break_order if not self.tables[t].broken]

    def elapsed(self) -> int:
        if self.status == "registering":
            return 0
        if self.structure.clock is LevelClock.HANDS:
            return self.hands_played
        return int(time.time() - self.started_at)

    def entry_elapsed(self) -> int:
        """The clock for entries: once play has started it counts as started (at
        least 1), so a freezeout without late registration is closed at once."""
        return 0 if self.status == "registering" else max(1, self.elapsed())

    def registration_open(self) -> bool:
        if self.status == "finished":
            return False
        return self.structure.registration_open(self.entry_elapsed())

    def rng(self, salt: str) -> random.Random:
        """Reproducible randomness per decision (no generator state to store)."""
        return random.Random(f"{self.seed}:{self.hands_played}:{len(self.events)}:{salt}")

    def chips_in_play(self) -> int:
        return sum(e.chips for e in self.entries if not e.busted)

    def to_state(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "entries": [asdict(e) for e in self.entries],
            "tables": [
                asdict(t) | {"pending_plan": t.pending_plan.hex()} for t in self.tables.values()
            ],
            "break_order": self.break_order,
            "bust_log": self.bust_log,
            "hands_played": self.hands_played,
            "started_at": self.started_at,
            "level": self.level,
            "on_break": self.on_break,
            "final_table_id": self.final_table_id,
            "seed": self.seed,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.status = state["status"]
        self.entries = [Entry(**e) for e in state["entries"]]
        for t in state["tables"]:
            t = dict(t)
            t["seats"] = {int(k): v for k, v in t["seats"].items()}
            t["pending_plan"] = bytes.fromhex(t["pending_plan"])
            table = TTable(**t)
            self.tables[table.table_id] = table
        self.break_order = state["break_order"]
        self.bust_log = state["bust_log"]
        self.hands_played = state["hands_played"]
        self.started_at = state["started_at"]
        self.level = state["level"]
        self.on_break = state["on_break"]
        self.final_table_id = state["final_table_id"]
        self.seed = state["seed"]


# ---------------------------------------------------------------- pure helpers


def _stakes_pb(stakes: BlindStakes | StudStakes, duration: int = 0) -> tpb.TournamentLevel:
    if isinstance(stakes, BlindStakes):
        return tpb.TournamentLevel(
            small_blind=stakes.small_blind,
            big_blind=stakes.big_blind,
            ante=stakes.ante,
            duration=duration,
        )
    return tpb.TournamentLevel(
        ante=stakes.ante,
        bring_in=stakes.bring_in,
        small_bet=stakes.small_bet,
        big_bet=stakes.big_bet,
        duration=duration,
    )


def _stored(last: list[int] | None) -> BlindPositions | None:
    """A table's last positions as kept in its state: [button, small blind, big blind]."""
    return BlindPositions(last[0], last[1], last[2]) if last else None


def hand_config(base: common.GameConfig, stakes: BlindStakes | StudStakes) -> common.GameConfig:
    """The GameConfig of a hand at this level (draw: the big blind is small_bet)."""
    config = common.GameConfig()
    config.CopyFrom(base)
    if isinstance(stakes, BlindStakes):
        config.ante = stakes.ante
        config.small_bet = stakes.big_blind
        config.big_bet = 2 * stakes.big_blind
        config.bring_in = 0
    else:
        config.ante = stakes.ante
        config.bring_in = stakes.bring_in
        config.small_bet = stakes.small_bet
        config.big_bet = stakes.big_bet
    return config


def structure_from(request: tpb.CreateTournamentRequest, game: Game) -> TournamentStructure:
    """The library's structure from the request; INVALID_ARGUMENT saying what is wrong."""
    if not request.schedule:
        raise InvalidArgumentError("schedule is required: one or more levels")
    if len(request.schedule) > MAX_LEVELS:
        raise InvalidArgumentError(f"schedule has at most {MAX_LEVELS} items")
    stud = game is not Game.DRAW_7A
    schedule: list[Level | Break] = []
    for i, item in enumerate(request.schedule):
        where = f"schedule[{i}]"
        check_count(item.duration, f"{where}.duration", 1, 10**9)
        if item.is_break:
            schedule.append(Break(item.duration))
            continue
        for name in ("small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet"):
            check_amount(getattr(item, name), f"{where}.{name}")
        if stud:
            if item.small_blind or item.big_blind:
                raise InvalidArgumentError(
                    f"{where}: stud levels have ante, bring_in, small_bet and big_bet, not blinds"
                )
            stakes: BlindStakes | StudStakes = StudStakes(
                item.ante, item.bring_in, item.small_bet, item.big_bet
            )
        else:
            if item.bring_in or item.small_bet or item.big_bet:
                raise InvalidArgumentError(
                    f"{where}: draw levels have small_blind, big_blind and ante, not stud stakes"
                )
            stakes = BlindStakes(item.small_blind, item.big_blind, item.ante)
        problem = stakes.problem()
        if problem:
            raise InvalidArgumentError(f"{where}: {problem}")
        schedule.append(Level(stakes, item.duration))
    payout_table = DEFAULT_PAYOUT_TABLE
    try:
        if request.payouts:
            payout_table = PayoutTable(
                tuple(PayoutTier(t.min_entries, tuple(t.shares)) for t in request.payouts)
            )
        return TournamentStructure(
            tuple(schedule),
            check_amount(request.starting_stack, "starting_stack", positive=True),
            check_amount(request.buy_in, "buy_in"),
            check_amount(request.fee, "fee"),
            LevelClock.HANDS if request.clock == tpb.LEVEL_CLOCK_HANDS else LevelClock.SECONDS,
            check_count(request.late_registration_level, "late_registration_level", 0, MAX_LEVELS),
            check_count(request.max_entries, "max_entries (0 = 1, freezeout)", 0, 100) or 1,
            payout_table,
        )
    except InvalidConfigError as error:
        raise InvalidArgumentError(str(error)) from None


# ---------------------------------------------------------------- the book


class TournamentBook:
    """Every tournament, their tables, and what the lobby asks about them."""

    def __init__(self, store: TournamentStore) -> None:
        self.store = store
        self.tournaments: dict[str, Tournament] = {}
        self.table_owner: dict[str, str] = {}  # table_id -> tournament_id
        self._restore()

    # ------------------------------------------------------------ durability

    def _restore(self) -> None:
        voided = 0
        for tid, request_bytes, state in self.store.load():
            request = tpb.CreateTournamentRequest.FromString(request_bytes)
            game = game_of(request.config.game)
            t = Tournament(tid, request, structure_from(request, game), game)
            t.load_state(state)
            t.events = [tpb.TournamentEvent.FromString(b) for b in self.store.events(tid)]
            for table in t.tables.values():
                self.table_owner[table.table_id] = tid
                if table.pending_id:  # the hand in progress is voided: stacks as at its start
                    self._clear_pending(table)
                    voided += 1
            self.tournaments[tid] = t
        if voided:
            with self.store.transaction():
                for t in self.tournaments.values():
                    self.store.save(t.tournament_id, t.to_state())
        log.info("tournaments restored", tournaments=len(self.tournaments), voided=voided)

    def _save(self, t: Tournament) -> None:
        self.store.save(t.tournament_id, t.to_state())

    def _emit(
        self, t: Tournament, kind: tpb.TournamentEventKind.ValueType, **fields: Any
    ) -> tpb.TournamentEvent:
        event = tpb.TournamentEvent(
            seq=len(t.events) + 1, unix_ms=int(time.time() * 1000), kind=kind, **fields
        )
        t.events.append(event)
        self.store.add_event(t.tournament_id, event.seq, event.SerializeToString())
        return event

    def _notify(self, t: Tournament) -> None:
        t.changed.set()
        t.changed = asyncio.Event()

    def _atomic(self, t: Tournament) -> Any:
        """A transaction that restores ``t`` from its saved state if anything fails."""
        book = self

        class _Guard:
            def __enter__(self) -> None:
                self.state = t.to_state()
                self.events = len(t.events)
                self.tx = book.store.transaction()
                self.tx.__enter__()

            def __exit__(self, kind: Any, error: Any, tb: Any) -> None:
                if kind is None:
                    self.tx.__exit__(None, None, None)
                    book._notify(t)
                    return
                self.tx.__exit__(kind, error, tb)
                t.tables.clear()
                t.load_state(self.state)
                del t.events[self.events :]

        return _Guard()

    # ------------------------------------------------------------ lookups

    def get(self, tournament_id: str) -> Tournament:
        tid = check_id(tournament_id, "tournament_id")
        t = self.tournaments.get(tid)
        if t is None:
            raise NotFoundError(f"no tournament {tid}")
        return t

    def owns(self, table_id: str) -> bool:
        return table_id in self.table_owner

    def owner(self, table_id: str) -> tuple[Tournament, TTable]:
        t = self.tournaments[self.table_owner[table_id]]
        return t, t.tables[table_id]

    def table_pb(self, table_id: str, names: dict[str, str]) -> pb.Table:
        t, table = self.owner(table_id)
        stakes = t.structure.position(t.elapsed()).stakes
        occupied = []
        for seat, player in sorted(table.seats.items()):
            entry = t.live(player)
            occupied.append(
                pb.SeatInfo(
                    seat=seat,
                    player_id=player,
                    name=names.get(player, ""),
                    stack=entry.chips if entry else 0,
                    fold_on_turn=bool(entry and entry.away),
                )
            )
        return pb.Table(
            table_id=table.table_id,
            name=table.name,
            config=hand_config(t.request.config, stakes),
            seats=t.request.seats_per_table,
            action_clock_ms=t.request.action_clock_ms,
            occupied=occupied,
            hands_played=table.hands_played,
            tournament_id=t.tournament_id,
        )

    def listed_tables(self) -> list[str]:
        """Tables the table service should run: open tables of running tournaments."""
        return [
            table.table_id
            for t in self.tournaments.values()
            if t.status == "running"
            for table in t.open_tables()
        ]

    def seat_of(self, table_id: str, player_id: str) -> int:
        _t, table = self.owner(table_id)
        for seat, player in table.seats.items():
            if player == player_id:
                return seat
        return 0

    # ------------------------------------------------------------ operators

    def create(self, request: tpb.CreateTournamentRequest) -> Tournament:
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
        with self.store.transaction():
            self.store.add(tid, stored.SerializeToString(deterministic=True), t.to_state())
        self.tournaments[tid] = t
        log.info("tournament created", tournament_id=tid, game=game.value)
        return t

    def start(self, tournament_id: str) -> Tournament:
        t = self.get(tournament_id)
        if t.status != "registering":
            raise FailedPreconditionError(f"tournament {t.tournament_id} has already started")
        players = [e.player_id for e in t.entries]
        if len(players) < 2:
            raise FailedPreconditionError(
                f"a tournament starts with at least 2 entries, it has {len(players)}"
            )
        size = t.request.seats_per_table
        count = tables_needed(len(players), size)
        with self._atomic(t):
            ids = []
            for i in range(count):
                table = TTable(f"tt-{uuid.uuid4().hex}", f"{t.request.name} #{i + 1}")
                t.tables[table.table_id] = table
                ids.append(table.table_id)
            # The highest-numbered table breaks first; table #1 is the final table.
            t.break_order = list(reversed(ids))
            t.status = "running"
            t.started_at = time.time()
            self._emit(t, K.TOURNAMENT_EVENT_KIND_STARTED, players_left=len(players))
            for seat in draw_seats(players, ids, size, t.rng("draw")):
                self._seat(t, seat.player, seat.table, seat.seat)
                self._emit(
                    t,
                    K.TOURNAMENT_EVENT_KIND_SEATED,
                    player_id=seat.player,
                    table_id=seat.table,
                    seat=seat.seat,
                    message="seating draw (T2)",
                )
            self._clock(t)
            self._save(t)
        for table_id in ids:
            self.table_owner[table_id] = t.tournament_id
        log.info("tournament started", tournament_id=t.tournament_id, tables=count)
        return t

    def _seat(self, t: Tournament, player_id: str, table_id: str, seat: int) -> None:
        entry = t.live(player_id)
        assert entry is not None
        t.tables[table_id].seats[seat] = player_id
        entry.table_id, entry.seat = table_id, seat

    def _clock(self, t: Tournament) -> None:
        """Level changes and breaks (T1), with their events."""
        position = t.structure.position(t.elapsed())
        if position.level != t.level:
            t.level = position.level
            self._emit(
                t,
                K.TOURNAMENT_EVENT_KIND_LEVEL_UP,
                level=position.level,
                stakes=_stakes_pb(position.stakes),
                message=f"level {position.level}",
            )
        if position.on_break != t.on_break:
            t.on_break = position.on_break
            if position.on_break:
                self._emit(t, K.TOURNAMENT_EVENT_KIND_BREAK, level=position.level)

    # ------------------------------------------------------------ players

    def enter(
        self, t: Tournament, player_id: str, balance: int, *, re_entry: bool
    ) -> tuple[Entry, int]:
        """Register or re-enter: checks, money, seat.  Returns the entry and the balance."""
        if t.status == "finished":
            raise FailedPreconditionError(f"tournament {t.tournament_id} is over")
        previous = [e for e in t.entries if e.player_id == player_id]
        live = t.live(player_id)
        if not re_entry and previous:
            raise FailedPreconditionError(
                f"player {player_id} is already registered in this tournament"
                + ("" if live else "; after busting, ReEnter (if re-entry is allowed)")
            )
        if re_entry and not previous:
            raise FailedPreconditionError(
                f"player {player_id} has no entry to re-enter after; Register first"
            )
        if re_entry and t.status != "running":
            raise FailedPreconditionError("re-entry is after busting, once the tournament runs")
        try:
            t.structure.check_entry(t.entry_elapsed(), len(previous), live is not None)
        except EntryRefusedError as error:
            raise FailedPreconditionError(f"entry refused: {error}") from None
        cost = t.structure.buy_in + t.structure.fee
        if balance < cost:
            raise FailedPreconditionError(
                f"balance {balance} is short of the buy-in {t.structure.buy_in} + fee "
                f"{t.structure.fee} = {cost}"
            )
        with self._atomic(t):
            entry = Entry(player_id, len(previous) + 1, t.structure.starting_stack)
            t.entries.append(entry)
            if t.structure.buy_in:
                self.store.move_money(t.tournament_id, player_id, "t_buy_in", t.structure.buy_in, 0)
            if t.structure.fee:
                self.store.move_money(t.tournament_id, player_id, "t_fee", 0, t.structure.fee)
            if t.status == "running":
                self._seat_late(t, player_id)
            self._save(t)
            after = self.store.balance(player_id)
        log.info("tournament entry", tournament_id=t.tournament_id, player_id=player_id)
        return entry, after

    def _seat_late(self, t: Tournament, player_id: str) -> None:
        button = t.game is Game.DRAW_7A
        tables = [self._rtable(t, table) for table in t.open_tables()]
        seat = seat_entrant(player_id, tables, button_game=button, rng=t.rng(player_id))
        if seat is None:  # every table full: a new one (the next rebalance fills it)
            table = TTable(f"tt-{uuid.uuid4().hex}", f"{t.request.name} #{len(t.tables) + 1}")
            t.tables[table.table_id] = table
            t.break_order.insert(0, table.table_id)
            self.table_owner[table.table_id] = t.tournament_id
            table_id, seat_no = table.table_id, 1
        else:
            table_id, seat_no = seat.table, seat.seat
            if seat.waits_for_button:
                t.tables[table_id].wait_button.append(seat_no)
        self._seat(t, player_id, table_id, seat_no)
        self._emit(
            t,
            K.TOURNAMENT_EVENT_KIND_SEATED,
            player_id=player_id,
            table_id=table_id,
            seat=seat_no,
            message="late registration",
        )

    def unregister(self, t: Tournament, player_id: str) -> tuple[int, int]:
        if t.status != "registering":
            raise FailedPreconditionError(
                f"unregistering is only possible before the start; the tournament is {t.status}"
            )
        entry = t.live(player_id)
        if entry is None:
            raise FailedPreconditionError(f"player {player_id} is not registered here")
        cost = t.structure.buy_in + t.structure.fee
        with self._atomic(t):
            t.entries.remove(entry)
            balance = self.store.balance(player_id)
            if cost:
                balance = self.store.move_money(
                    t.tournament_id, player_id, "t_refund", -t.structure.buy_in, -t.structure.fee
                )
            self._save(t)
        return cost, balance

    def set_away(self, t: Tournament, player_id: str, away: bool) -> None:
        entry = t.live(player_id)
        if entry is None or t.status == "finished":
            raise FailedPreconditionError(f"player {player_id} has no chips in this tournament")
        with self._atomic(t):
            entry.away = away
            self._save(t)

    # ------------------------------------------------------------ balancing

    def _rtable(self, t: Tournament, table: TTable) -> RTable:
        """The table as ``rebalance`` sees it, with its next hand's positions (draw).

        Every table that has dealt gets them, a lone survivor's or a heads-up
        pair's included: those are the tables broken tables' players land at, and
        without positions the library would seat them anywhere, between the
        button and the small blind too (issue 13, defect 12).
        """
        positions = None
        if t.game is Game.DRAW_7A:
            last = table.pending_last if table.pending_id else table.last
            positions = coming_positions(table.seats, t.request.seats_per_table, _stored(last))
        return RTable(table.table_id, t.request.seats_per_table, dict(table.seats), positions)

    def _balance(self, t: Tournament, table: TTable) -> bool:
        """Apply the T3 plan if it can be applied now; True when ``table`` may deal."""
        open_tables = t.open_tables()
        if len(open_tables) < 2:
            return True
        try:
            plan = rebalance(
                [self._rtable(t, x) for x in open_tables],
                [x.table_id for x in open_tables],
                button_game=t.game is Game.DRAW_7A,
                rng=t.rng("rebalance"),
            )
        except InvalidConfigError as error:  # positions the library refuses: no positions
            log.warning("rebalance with positions refused", why=str(error))
            plan = rebalance(
                [RTable(x.table_id, t.request.seats_per_table, dict(x.seats)) for x in open_tables],
                [x.table_id for x in open_tables],
                button_game=False,
                rng=t.rng("rebalance"),
            )
        if not plan.moves and not plan.broken:
            for x in open_tables:
                x.waiting = False
            return True
        busy = {x.table_id for x in open_tables if x.pending_id}
        involved = (
            {m.from_table for m in plan.moves}
            | {m.to_table for m in plan.moves}
            | set(plan.broken)
            | set(plan.paused)
        )
        if any(m.from_table in busy for m in plan.moves) or busy & set(plan.broken):
            # Not yet: every table the plan involves waits (a busy one after its
            # hand) until the plan can be made whole.
            for x in open_tables:
                x.waiting = x.table_id in involved
            return not table.waiting
        for move in plan.moves:
            source = t.tables[move.from_table]
            del source.seats[move.from_seat]
            if move.from_seat in source.wait_button:
                source.wait_button.remove(move.from_seat)
        for move in plan.moves:
            self._seat(t, move.player, move.to_table, move.to_seat)
            if move.waits_for_button:
                t.tables[move.to_table].wait_button.append(move.to_seat)
            self._emit(
                t,
                K.TOURNAMENT_EVENT_KIND_MOVED,
                player_id=move.player,
                table_id=move.to_table,
                seat=move.to_seat,
                from_table_id=move.from_table,
                from_seat=move.from_seat,
                message="final table redraw" if plan.final_table else "balancing (T3)",
            )
        for broken in plan.broken:
            t.tables[broken].broken = True
            t.tables[broken].waiting = False
            self._emit(t, K.TOURNAMENT_EVENT_KIND_TABLE_BROKEN, table_id=broken)
        if plan.final_table:
            t.final_table_id = plan.final_table
            t.tables[plan.final_table].last = None  # redrawn: the button is drawn afresh
            t.tables[plan.final_table].wait_button = []  # a new game: everyone plays
            self._emit(
                t,
                K.TOURNAMENT_EVENT_KIND_FINAL_TABLE,
                table_id=plan.final_table,
                players_left=len(t.alive()),
            )
        for x in t.open_tables():
            x.waiting = False
        return not table.broken

    # ------------------------------------------------------------ hands

    def next_hand(self, table_id: str) -> pb.NextHandResponse:
        t, table = self.owner(table_id)
        if table.pending_id:
            return pb.NextHandResponse.FromString(table.pending_plan)
        if t.status != "running" or table.broken:
            return pb.NextHandResponse(play=False)
        with self._atomic(t):
            before = (len(t.events), [x.waiting for x in t.tables.values()])
            self._clock(t)
            may_deal = not t.on_break and self._balance(t, table)
            if not may_deal or len(table.seats) < 2:
                # A waiting table asks again every poll: write only what changed.
                if (len(t.events), [x.waiting for x in t.tables.values()]) != before:
                    self._save(t)
                return pb.NextHandResponse(play=False)
            response = self._plan(t, table)
            self._emit(
                t,
                K.TOURNAMENT_EVENT_KIND_HAND_STARTED,
                table_id=table.table_id,
                hand_id=response.hand_id,
                level=t.level,
                table_counts=[
                    tpb.TableCount(table_id=x.table_id, players=len(x.seats), waiting=x.waiting)
                    for x in t.open_tables()
                ],
            )
            self._save(t)
        return response

    def _plan(self, t: Tournament, table: TTable) -> pb.NextHandResponse:
        size = t.request.seats_per_table
        stakes = t.structure.position(t.elapsed()).stakes
        occupied = sorted(table.seats)  # draw: without the seats waiting for the button
        response = pb.NextHandResponse(
            hand_id=f"h-{uuid.uuid4().hex}",
            play=True,
            config=hand_config(t.request.config, stakes),
        )
        order = occupied
        if isinstance(stakes, BlindStakes):
            occupied, positions = dealt_positions(
                occupied, table.wait_button, size, _stored(table.last)
            )
            button, big = positions.button, positions.big_blind
            small = positions.small_blind if positions.small_blind in occupied else 0
            start = next((i for i, s in enumerate(occupied) if s > button), 0)
            order = occupied[start:] + occupied[:start]
            chips = {s: t.live(table.seats[s]).chips for s in occupied}  # type: ignore[union-attr]
            posts = []
            if small:
                posts.append((small, min(stakes.small_blind, chips[small])))
            posts.append((big, min(stakes.big_blind, chips[big])))
            posts.sort(key=lambda p: order.index(p[0]))
            response.posts.extend(pb.Post(seat=s, amount=a, live=True) for s, a in posts)
            response.button_seat = button
            response.button_dead = button not in occupied or positions.button_dead
            response.small_blind_seat = small
            response.big_blind_seat = big
            # The small-blind position even when it is dead (nobody posts it).
            table.pending_last = [button, positions.small_blind, big]
        for seat in order:
            player = table.seats[seat]
            entry = t.live(player)
            assert entry is not None
            response.dealt_in.append(
                pb.SeatInfo(seat=seat, player_id=player, stack=entry.chips, fold_on_turn=entry.away)
            )
        table.pending_id = response.hand_id
        table.pending_plan = response.SerializeToString(deterministic=True)
        table.pending_dealt = [[s.seat, s.player_id, s.stack] for s in response.dealt_in]
        table.waiting = False
        return response

    @staticmethod
    def _clear_pending(table: TTable) -> None:
        table.pending_id = ""
        table.pending_plan = b""
        table.pending_dealt = []
        table.pending_last = None

    def void_pending(self, table_id: str) -> pb.VoidPendingHandResponse:
        t, table = self.owner(table_id)
        hand_id = table.pending_id
        if hand_id:
            with self._atomic(t):
                self._clear_pending(table)
                self._save(t)
            log.warning("tournament hand voided", table_id=table_id, hand_id=hand_id)
        return pb.VoidPendingHandResponse(hand_id=hand_id, hands_played=table.hands_played)

    def finish_hand(self, request: pb.FinishHandRequest) -> pb.FinishHandResponse:
        t, table = self.owner(request.table_id)
        hand_id = check_id(request.hand_id, "hand_id")
        digest = hashlib.sha256(request.SerializeToString(deterministic=True)).hexdigest()
        if table.pending_id != hand_id:
            if table.finished_id == hand_id and hmac.compare_digest(table.finished_digest, digest):
                return self._finished(request, table)
            current = table.pending_id or "none is; NextHand starts one"
            raise FailedPreconditionError(
                f"hand {hand_id} is not the hand in progress at this table ({current})"
            )
        dealt = [(int(s), str(p), int(c)) for s, p, c in table.pending_dealt]
        if request.voided:
            with self._atomic(t):
                self._clear_pending(table)
                table.finished_id, table.finished_digest = hand_id, digest
                self._save(t)
            return self._finished(request, table)
        finals: dict[int, int] = {}
        for i, info in enumerate(request.final_stacks):
            check_amount(info.stack, f"final_stacks[{i}].stack")
            if info.seat in finals:
                raise InvalidArgumentError(f"final_stacks lists seat {info.seat} twice")
            finals[info.seat] = info.stack
            known = {s: p for s, p, _ in dealt}
            if info.player_id and known.get(info.seat) not in (None, info.player_id):
                raise FailedPreconditionError(
                    f"final_stacks[{i}]: seat {info.seat} was dealt in to {known[info.seat]}"
                )
        seats_dealt = sorted(s for s, _, _ in dealt)
        if sorted(finals) != seats_dealt:
            raise FailedPreconditionError(
                f"final_stacks must list exactly the seats dealt in, {seats_dealt}; "
                f"got {sorted(finals)}"
            )
        if sum(finals.values()) != sum(c for _, _, c in dealt):
            raise FailedPreconditionError(
                f"final stacks add up to {sum(finals.values())}, the hand was dealt "
                f"{sum(c for _, _, c in dealt)}: chips are never created or destroyed (T5)"
            )
        with self._atomic(t):
            left_before = len(t.alive())
            busts: list[Bust] = []
            for seat, player, before in dealt:
                entry = t.live(player)
                assert entry is not None
                entry.chips = finals[seat]
                if entry.chips == 0:
                    busts.append(Bust(entry.key, before))
            for finish in rank_busts(busts, left_before):
                player = finish.player.rsplit("#", 1)[0]
                entry = t.live(player)
                assert entry is not None
                entry.busted, entry.place, entry.tied = True, finish.place, finish.tied
                del table.seats[entry.seat]
                entry.table_id, entry.seat = "", 0
                self._emit(
                    t,
                    K.TOURNAMENT_EVENT_KIND_ELIMINATED,
                    player_id=player,
                    table_id=table.table_id,
                    hand_id=hand_id,
                    place=finish.place,
                    tied=finish.tied,
                    players_left=left_before - len(busts),
                )
            if busts:
                t.bust_log.append([[b.player, b.starting_stack] for b in busts])
            try:
                check_chips(
                    [e.chips for e in t.alive()], len(t.entries), t.structure.starting_stack
                )
            except ChipConservationError as error:
                raise FailedPreconditionError(str(error)) from None
            table.last = table.pending_last
            table.wait_button = [
                s for s in table.wait_button if s in table.seats and s not in seats_dealt
            ]
            self._clear_pending(table)
            table.finished_id, table.finished_digest = hand_id, digest
            table.hands_played += 1
            t.hands_played += 1
            self._emit(
                t,
                K.TOURNAMENT_EVENT_KIND_HAND_FINISHED,
                table_id=table.table_id,
                hand_id=hand_id,
                chips_in_play=t.chips_in_play(),
                players_left=len(t.alive()),
            )
            if len(t.alive()) == 1:
                self._finish(t)
            else:
                self._clock(t)
            self._save(t)
        return self._finished(request, table)

    def _finished(self, request: pb.FinishHandRequest, table: TTable) -> pb.FinishHandResponse:
        response = pb.FinishHandResponse(hands_played=table.hands_played)
        if request.plan_next:
            response.next_hand.CopyFrom(self.next_hand(request.table_id))
        return response

    def _finish(self, t: Tournament) -> None:
        """One player left: places final, prizes to the balances (T4, T5)."""
        (winner,) = t.alive()
        winner.place = 1
        t.status = "finished"
        results = self.standings(t)
        for line in results:
            entry = line[0]
            prize = line[1]
            if prize:
                self.store.move_money(t.tournament_id, entry.player_id, "t_prize", -prize, 0)
        for table in t.tables.values():
            table.broken = True
        self._emit(
            t,
            K.TOURNAMENT_EVENT_KIND_FINISHED,
            player_id=winner.player_id,
            place=1,
            prize=results[0][1] if results else 0,
            players_left=1,
        )
        log.info("tournament finished", tournament_id=t.tournament_id, winner=winner.player_id)

    # ------------------------------------------------------------ standings

    def payouts(self, t: Tournament) -> tuple[int, ...]:
        return t.structure.payouts(max(1, len(t.entries))) if t.entries else ()

    def standings(self, t: Tournament) -> list[tuple[Entry, int | None, int]]:
        """(entry, prize or None while undecided, place), best first (library standings)."""
        by_key = {e.key: e for e in t.entries}
        if t.status == "registering" or not t.entries:
            return [(e, None, 0) for e in t.entries]
        log_ = [[Bust(k, s) for k, s in hand] for hand in t.bust_log]
        lines = standings({e.key: e.chips for e in t.alive()}, log_, self.payouts(t))
        return [(by_key[line.player], line.prize, line.place) for line in lines]


# ---------------------------------------------------------------- gRPC


class TournamentsServicer(tpb_grpc.TournamentsServicer):
    """The Tournaments service; see tournament.proto for the contract."""

    def __init__(self, book: TournamentBook) -> None:
        self.book = book
        self.store = book.store.store

    def _authenticate(self, player_id: str, token: str) -> tuple[str, int]:
        row = authenticate(self.store, player_id, token)
        return row.player_id, row.balance

    def _tournament_pb(self, t: Tournament) -> tpb.Tournament:
        r = t.request
        position = t.structure.position(t.elapsed())
        out = tpb.Tournament(
            tournament_id=t.tournament_id,
            name=r.name,
            config=r.config,
            status=STATUS[t.status],
            seats_per_table=r.seats_per_table,
            schedule=r.schedule,
            clock=tpb.LEVEL_CLOCK_HANDS
            if t.structure.clock is LevelClock.HANDS
            else tpb.LEVEL_CLOCK_SECONDS,
            starting_stack=t.structure.starting_stack,
            buy_in=t.structure.buy_in,
            fee=t.structure.fee,
            late_registration_level=t.structure.late_registration_level,
            max_entries=t.structure.max_entries,
            entries=len(t.entries),
            players_left=len(t.alive()),
            prize_pool=t.structure.prize_pool(len(t.entries)),
            payouts=self.book.payouts(t),
            level=t.level,
            stakes=_stakes_pb(position.stakes),
            on_break=t.on_break,
            registration_open=t.registration_open(),
            hands_played=t.hands_played,
            chips_in_play=t.chips_in_play(),
            action_clock_ms=r.action_clock_ms,
            final_table_id=t.final_table_id,
        )
        out.tables.extend(
            tpb.TournamentTable(
                table_id=x.table_id,
                players=len(x.seats),
                waiting=x.waiting,
                broken=x.broken,
                hands_played=x.hands_played,
            )
            for x in t.tables.values()
        )
        return out

    async def CreateTournament(
        self, request: tpb.CreateTournamentRequest, context: Any
    ) -> tpb.Tournament:
        return self._tournament_pb(self.book.create(request))

    async def GetTournament(
        self, request: tpb.GetTournamentRequest, context: Any
    ) -> tpb.Tournament:
        return self._tournament_pb(self.book.get(request.tournament_id))

    async def ListTournaments(
        self, request: tpb.ListTournamentsRequest, context: Any
    ) -> tpb.ListTournamentsResponse:
        return tpb.ListTournamentsResponse(
            tournaments=[self._tournament_pb(t) for t in self.book.tournaments.values()]
        )

    async def Register(
        self, request: tpb.RegisterEntryRequest, context: Any
    ) -> tpb.RegisterEntryResponse:
        return self._enter(request, re_entry=False)

    async def ReEnter(
        self, request: tpb.RegisterEntryRequest, context: Any
    ) -> tpb.RegisterEntryResponse:
        return self._enter(request, re_entry=True)

    def _enter(
        self, request: tpb.RegisterEntryRequest, *, re_entry: bool
    ) -> tpb.RegisterEntryResponse:
        t = self.book.get(request.tournament_id)
        pid, balance = self._authenticate(request.player_id, request.token)
        entry, after = self.book.enter(t, pid, balance, re_entry=re_entry)
        return tpb.RegisterEntryResponse(
            entry=entry.number, balance=after, table_id=entry.table_id, seat=entry.seat
        )

    async def Unregister(
        self, request: tpb.UnregisterEntryRequest, context: Any
    ) -> tpb.UnregisterEntryResponse:
        t = self.book.get(request.tournament_id)
        pid, _ = self._authenticate(request.player_id, request.token)
        refunded, balance = self.book.unregister(t, pid)
        return tpb.UnregisterEntryResponse(refunded=refunded, balance=balance)

    async def Start(self, request: tpb.StartTournamentRequest, context: Any) -> tpb.Tournament:
        return self._tournament_pb(self.book.start(request.tournament_id))

    async def SetAway(self, request: tpb.SetAwayRequest, context: Any) -> tpb.SetAwayResponse:
        t = self.book.get(request.tournament_id)
        pid, _ = self._authenticate(request.player_id, request.token)
        self.book.set_away(t, pid, request.away)
        return tpb.SetAwayResponse(away=request.away)

    async def GetMySeat(self, request: tpb.GetMySeatRequest, context: Any) -> tpb.MySeat:
        t = self.book.get(request.tournament_id)
        pid, _ = self._authenticate(request.player_id, request.token)
        entry = t.latest(pid)
        if entry is None:
            raise FailedPreconditionError(f"player {pid} is not registered in this tournament")
        return tpb.MySeat(
            table_id=entry.table_id,
            seat=entry.seat,
            chips=0 if entry.busted else entry.chips,
            busted=entry.busted,
            place=entry.place,
            away=entry.away,
        )

    async def GetStandings(self, request: tpb.GetStandingsRequest, context: Any) -> tpb.Standings:
        t = self.book.get(request.tournament_id)
        names = self.store.names(e.player_id for e in t.entries)
        out = tpb.Standings(tournament_id=t.tournament_id, final=t.status == "finished")
        for entry, prize, place in self.book.standings(t):
            out.standings.append(
                tpb.Standing(
                    place=place,
                    player_id=entry.player_id,
                    name=names.get(entry.player_id, ""),
                    entry=entry.number,
                    chips=0 if entry.busted else entry.chips,
                    busted=entry.busted,
                    prize=prize or 0,
                    has_prize=prize is not None,
                    tied=entry.tied if entry.busted else 1,
                )
            )
        return out

    async def WatchTournament(
        self, request: tpb.WatchTournamentRequest, context: Any
    ) -> AsyncIterator[tpb.TournamentEvent]:
        t = self.book.get(request.tournament_id)
        if request.from_seq < 0:
            raise InvalidArgumentError(f"from_seq must be 0 or more, got {request.from_seq}")
        if request.player_id:
            check_id(request.player_id, "player_id")
        position = max(0, request.from_seq - 1)
        wanted = request.player_id
        while True:
            changed = t.changed
            while position < len(t.events):
                event = t.events[position]
                position += 1
                if (
                    not wanted
                    or event.player_id == wanted
                    or event.kind == K.TOURNAMENT_EVENT_KIND_FINISHED
                ):
                    yield event
            if t.status == "finished":
                return
            await changed.wait()
