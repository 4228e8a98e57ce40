"""The Lobby gRPC servicer: players, tables, seats, and each hand's plan and result.

Every request is checked in full (``poker_wire`` for ids, amounts and the game
configuration) before anything changes; then the seating library and the store
change together: the writes of one RPC are one transaction, and if anything fails
inside it the table's ``SeatingTable`` is put back as it was (``_change``), so a
refused request changes nothing, in memory or on disk.  Handlers never await, so
on the one asyncio loop each RPC runs alone.

Semantics decided here (the proto has the contract):

- Tokens: ``auth.new_token`` (``secrets.token_urlsafe``, never beginning with
  ``-``) shown once; only the SHA-256 is stored and it is compared with
  ``hmac.compare_digest``.  Unknown player: NOT_FOUND; wrong token:
  PERMISSION_DENIED.
- SitDown: seat 0 = the lowest free seat; a buy-in outside the table's
  [min_buy_in, max_buy_in] is INVALID_ARGUMENT (S2); a taken seat, a full table,
  a second seat at the same table or a short balance is FAILED_PRECONDITION.  A
  draw player's ``entry`` (B2): post a live big blind now (``Choice.POST``, also
  when unset and ``wait_for_big_blind`` is false), wait for the big blind
  (``Choice.WAIT``), or wait for the button to pass the seat first (the library's
  ``wait_for_button``); B2a/B2b are the library's whatever the choice.
- SitOut / SitIn / SetAutoPost / ImIn: the library's markers (B3-B6, S3) for the
  next hand planned; a hand in progress is unaffected.  SitIn only after SitOut
  and with chips; the stud switches only at stud tables, ImIn only with auto-post
  off and sitting in.  Each answers the seat with every marker.
- Durable markers: ``_change`` writes the table's ``SeatingTable.snapshot`` in the
  transaction of every change, and ``_restore`` rebuilds the table from it and the
  stored seats (money only from the seats).
- StandUp: immediate, unless the player is dealt into the hand in progress: then
  it is pending and done when that hand is finished or voided.  A seat whose stack
  is 0 after a hand stays seated (the library's NO_CHIPS: not dealt in) until the
  player stands up (returning 0) or loses the seat (B5).
- NextHand: the library's ``plan_hand``; while that hand is in progress, every
  NextHand returns the same plan and hand_id, so the table service can retry after
  a timeout.  The first hand's button is the first ready seat (no draw).  The plan
  is stored (``hands`` row, pending) in the same transaction.
- FinishHand: the pending hand_id only; final stacks for exactly the seats dealt
  in, adding up to the chips they were dealt in with (the library checks).  Then
  the B5 seats lost and the pending stand-ups return their chips to the balances.
  A repeat of the request that finished a hand is answered OK again, changing
  nothing (a retried call whose answer was lost; the stored digest of the request
  makes this hold after a restart too).  A hand the lobby voided itself is refused
  (FAILED_PRECONDITION) with the reason it was voided.

Crash durability: a hand that cannot finish is voided, every chip where it was at
the hand's start, and the void is recorded (the ``hands`` row: status voided, the
reason, when).  The seats always hold the stacks as at the start of the hand in
progress, since results are written at FinishHand only, so a void never moves a
chip.  Three ways a hand is voided:

- the table service reports it voided (a downstream service failed):
  ``FinishHand(voided=True, void_reason=...)``;
- the table service process died mid-hand: its successor calls
  ``VoidPendingHand`` for each table the first time it takes it over, before its
  first NextHand.  A fresh process never resumes a hand it did not start, and
  never gets an old plan dealt again under the same hand_id; this "void at
  takeover" is simpler than a claim/epoch scheme and enough while one table
  service replica runs each table (``TABLE_SHARD``);
- the lobby itself restarted while a hand was pending (the pending row is in
  SQLite): ``_restore`` voids it, "voided by the lobby restart", and the table's
  late FinishHand for it is refused with that reason, so the table records the
  hand voided and tells its players.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import uuid
from collections import Counter as Tally
from collections.abc import AsyncIterator, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import lobby_pb2_grpc as pb_grpc
from poker_rules.config import DrawConfig, Game
from poker_rules.errors import InvalidConfigError
from poker_rules.seating import (
    Choice,
    HandPlan,
    SeatedPlayer,
    SeatingConfig,
    SeatingError,
    SeatingTable,
)
from poker_wire import check_chips, check_count, check_id, game_config, game_of
from service_kit.batches import Handler, answer_batches
from service_kit.errors import (
    ErrorCodes,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
)
from service_kit.logs import bound_contextvars, get_logger

from .auth import authenticate, new_token, token_hash
from .metrics import (
    BUY_IN_CHIPS,
    BUY_INS,
    CASH_OUT_CHIPS,
    CASH_OUTS,
    CHIPS_GRANTED,
    HANDS_FINISHED,
    HANDS_PLANNED,
    HANDS_VOIDED,
    PLAYERS_REGISTERED,
    SEATED,
    SESSION_BATCH_CALLS,
    SESSION_CALLS,
    TABLES,
    set_ledger_totals,
)
from .store import HandRow, LobbyStore, PlayerRow, TableRow
from .tournaments import TournamentBook

# The library's exceptions the servicer does not turn into a status itself (its
# own checks come first): the unary calls' ErrorInterceptor and the Session's
# replies map them the same way.
ERROR_CODES: ErrorCodes = {
    SeatingError: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT,
}
MAX_PLAYER_NAME = 32
MAX_TABLE_NAME = 64
MAX_VOID_REASON = 300  # characters of a void's reason kept (longer ones are cut)
LIST_HANDS = (20, 500)  # ListHands: the default and the largest limit
MAX_PAGE_TOKEN = 400  # characters of a ListHands page token (ours are about 70)
VOIDED_BY_RESTART = "voided by the lobby restart"
VOIDED_AT_TAKEOVER = "voided when a table service took the table over"
VOIDED_BY_TABLE = "voided by the table service"
HAND_STATUSES = {
    "pending": pb.HAND_STATUS_PENDING,
    "finished": pb.HAND_STATUS_FINISHED,
    "voided": pb.HAND_STATUS_VOIDED,
}
MOST_SEATS = {Game.STUD: 8, Game.STUD_HILO: 8, Game.DRAW_7A: 5}  # S1, D1
DEFAULT_ACTION_CLOCK_MS = 10_000  # S10
ACTION_CLOCK_MS = (50, 600_000)
MAX_ORBITS_AWAY = 1_000  # the largest B5 setting, as LOBBY_MAX_ORBITS_AWAY's
# B2 entry (SitDown) and B3/B4 return (SitIn) choices: the library's choice and
# whether the player waits for the button to pass first.
ENTRIES = {
    pb.ENTRY_POST_NOW: (Choice.POST, False),
    pb.ENTRY_WAIT_FOR_BIG_BLIND: (Choice.WAIT, False),
    pb.ENTRY_WAIT_FOR_BUTTON: (Choice.POST, True),
}
RETURN_CHOICES = {
    pb.RETURN_CHOICE_UNSPECIFIED: Choice.POST,
    pb.RETURN_CHOICE_POST: Choice.POST,
    pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND: Choice.WAIT,
}
RETURN_CHOICE_VALUES = {
    Choice.POST: pb.RETURN_CHOICE_POST,
    Choice.WAIT: pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND,
}

log = get_logger()


@dataclass(frozen=True, slots=True)
class LobbySettings:
    """The LOBBY_* settings (see the package docstring)."""

    default_balance: int = 100_000
    max_balance: int = 1_000_000_000
    max_orbits_away: int = 3


def check_name(value: str, field: str, most: int) -> str:
    """A display name: 1..most printable characters, not only spaces."""
    if not value.strip():
        raise InvalidArgumentError(f"{field} is required: 1..{most} characters")
    if len(value) > most:
        raise InvalidArgumentError(
            f"{field} is {len(value)} characters long; at most {most} are allowed"
        )
    if not value.isprintable():
        raise InvalidArgumentError(f"{field} must be printable characters")
    return value


@dataclass(slots=True)
class _PendingHand:
    hand_id: str
    response: pb.NextHandResponse


@dataclass(slots=True)
class _Table:
    """A table's definition and its live seating state."""

    row: TableRow
    config: common.GameConfig
    game: Game
    seating: SeatingTable
    max_orbits_away: int
    pending: _PendingHand | None = None
    leaving: set[int] = field(default_factory=set)  # stand up after the hand in progress
    last_finished: tuple[str, bytes] | None = None  # hand_id and the FinishHand request

    def seat_of(self, player_id: str) -> int:
        """The player's seat here, 0 when not seated."""
        for s in self.seating.occupied():
            p = self.seating.seat(s)
            if p is not None and p.player_id == player_id:
                return s
        return 0


@dataclass(frozen=True, slots=True)
class _CashOut:
    game: Game
    reason: str
    chips: int


def _seating_config(
    config: common.GameConfig, seats: int, max_orbits_away: int
) -> tuple[Game, SeatingConfig]:
    """The library's table configuration; INVALID_ARGUMENT when it refuses it."""
    cfg = game_config(config)
    most = MOST_SEATS[cfg.game]
    check_count(seats, f"seats (a {cfg.game.value} table)", 2, most)
    if isinstance(cfg, DrawConfig):
        seating = SeatingConfig.for_draw(cfg, seats=seats, max_orbits_away=max_orbits_away)
    else:
        seating = SeatingConfig.for_stud(cfg, seats=seats, max_orbits_away=max_orbits_away)
    try:
        seating.validate()
    except InvalidConfigError as error:
        raise InvalidArgumentError(
            f"config: {error} (the small blind is small_bet // 2, D3)"
        ) from None
    return cfg.game, seating


class LobbyServicer(pb_grpc.LobbyServicer):
    """Players, tables and seats over a ``LobbyStore``; see the proto for the contract."""

    def __init__(self, store: LobbyStore, settings: LobbySettings) -> None:
        self._store = store
        self._settings = settings
        self._tables: dict[str, _Table] = {}
        # Tournaments (tournaments.py): their tables' calls are handed to the book.
        self.tournaments: TournamentBook | None = None
        self._session_calls: dict[str, Handler] = {
            "next_hand": self.NextHand,
            "finish_hand": self.FinishHand,
            "void_pending_hand": self.VoidPendingHand,
        }
        self._restore()

    # ------------------------------------------------------------ start-up

    def _restore(self) -> None:
        """Rebuild every SeatingTable from the store: the seats and stacks from the
        ``seats`` rows, the markers and button history from the table's stored
        snapshot (so the next plan is the one the lobby would have made without the
        restart); a hand that was pending is voided and recorded (the seats hold
        its starting stacks, and a void changes no marker); pending stand-ups are
        cashed out.  A seat with a stack of 0 stays seated, as it would have."""
        stored = self._store.seating()
        for row in self._store.tables():
            config = common.GameConfig.FromString(row.config)
            orbits = stored.get(row.table_id, (self._settings.max_orbits_away, ""))[0]
            game, seating_config = _seating_config(config, row.seats, orbits)
            seating = SeatingTable(seating_config)
            seating.hands_played = row.hands_played
            self._tables[row.table_id] = _Table(row, config, game, seating, orbits)
        self._void_after_restart()
        cash_outs: list[_CashOut] = []
        occupants: dict[str, dict[int, tuple[str, int]]] = {t: {} for t in self._tables}
        with self._store.transaction():
            for seat in self._store.seats():
                table = self._tables[seat.table_id]
                if seat.leaving:
                    self._store.cash_out(seat.player_id, seat.table_id, seat.seat, seat.chips)
                    cash_outs.append(_CashOut(table.game, "restart", seat.chips))
                else:
                    occupants[seat.table_id][seat.seat] = (seat.player_id, seat.chips)
            for table_id, table in self._tables.items():
                state = stored.get(table_id, (0, ""))[1]
                table.seating = SeatingTable.restore(
                    table.seating.config,
                    json.loads(state) if state else None,
                    occupants[table_id],
                    hands_played=table.row.hands_played,
                )
                self._save_seating(table)
        self._count_cash_outs(cash_outs)
        self._update_gauges()
        log.info("lobby restored", tables=len(self._tables), released_seats=len(cash_outs))

    def _void_after_restart(self) -> None:
        """Every hand pending when the lobby stopped is voided, and recorded so."""
        pending = self._store.pending_hands()
        if not pending:
            return
        seats = {(s.table_id, s.seat): s for s in self._store.seats()}
        with self._store.transaction():
            for hand in pending:
                self._store.end_hand(hand.hand_id, "voided", reason=VOIDED_BY_RESTART)
        for hand in pending:
            table = self._tables[hand.table_id]
            HANDS_VOIDED.labels(table.game.value).inc()
            plan = pb.NextHandResponse.FromString(hand.plan)
            stacks = {s.seat: s.stack for s in plan.dealt_in}
            stored = {
                s.seat: seats[(hand.table_id, s.seat)].chips
                for s in plan.dealt_in
                if (hand.table_id, s.seat) in seats
            }
            with bound_contextvars(table_id=hand.table_id, hand_id=hand.hand_id):
                log.warning(VOIDED_BY_RESTART, stacks=stacks)
                if stored != stacks:  # cannot happen: results are written at FinishHand
                    log.error("seats differ from the voided hand's plan", seats=stored)

    # ------------------------------------------------------------ helpers

    @contextmanager
    def _change(self, table: _Table | None = None) -> Iterator[None]:
        """One transaction; on any error the table's in-memory state is restored."""
        saved = None
        if table is not None:
            saved = (
                table.seating.copy(),
                table.pending,
                set(table.leaving),
                table.last_finished,
            )
        try:
            with self._store.transaction():
                yield
                if table is not None:
                    self._save_seating(table)
        except BaseException:
            if table is not None and saved is not None:
                table.seating, table.pending, table.leaving, table.last_finished = saved
            raise

    def _save_seating(self, table: _Table) -> None:
        """The table's markers to the store, in the transaction of the change."""
        state = json.dumps(table.seating.snapshot(), separators=(",", ":"))
        self._store.save_seating(table.row.table_id, table.max_orbits_away, state)

    def _authenticate(self, player_id: str, token: str) -> PlayerRow:
        return authenticate(self._store, player_id, token)

    def _table(self, table_id: str) -> _Table:
        tid = check_id(table_id, "table_id")
        table = self._tables.get(tid)
        if table is None:
            raise NotFoundError(f"no table {tid}")
        return table

    def _player_pb(self, row: PlayerRow) -> pb.Player:
        return pb.Player(
            player_id=row.player_id,
            name=row.name,
            balance=row.balance,
            at_tables=self._store.at_tables(row.player_id),
        )

    def _seat_infos(self, table: _Table) -> list[pb.SeatInfo]:
        seated = [(s, table.seating.seat(s)) for s in table.seating.occupied()]
        names = self._store.names(p.player_id for _, p in seated if p is not None)
        return [_seat_info(s, p, names.get(p.player_id, "")) for s, p in seated if p is not None]

    def _table_pb(self, table: _Table) -> pb.Table:
        row = table.row
        return pb.Table(
            table_id=row.table_id,
            name=row.name,
            config=table.config,
            seats=row.seats,
            min_buy_in=row.min_buy_in,
            max_buy_in=row.max_buy_in,
            action_clock_ms=row.action_clock_ms,
            occupied=self._seat_infos(table),
            hands_played=table.seating.hands_played,
            max_orbits_away=table.max_orbits_away,
            button_seat=table.seating.button or 0,
            button_dead=table.seating.button_dead,
        )

    def _update_gauges(self) -> None:
        tables: Tally[Game] = Tally()
        seated: Tally[Game] = Tally()
        for table in self._tables.values():
            tables[table.game] += 1
            seated[table.game] += len(table.seating.occupied())
        for game in Game:
            TABLES.labels(game.value).set(tables[game])
            SEATED.labels(game.value).set(seated[game])
        set_ledger_totals(self._store.totals)

    @staticmethod
    def _count_cash_outs(cash_outs: Iterable[_CashOut]) -> None:
        for c in cash_outs:
            CASH_OUTS.labels(c.game.value, c.reason).inc()
            CASH_OUT_CHIPS.labels(c.game.value, c.reason).inc(c.chips)

    def _leave(self, table: _Table, seat: int, reason: str) -> tuple[int, int, _CashOut]:
        """Empty the seat, chips to the balance: (chips, balance after, metric)."""
        player = table.seating.seat(seat)
        assert player is not None
        chips = table.seating.leave(seat)
        balance = self._store.cash_out(player.player_id, table.row.table_id, seat, chips)
        log.info("stood up", player_id=player.player_id, seat=seat, chips=chips, reason=reason)
        return chips, balance, _CashOut(table.game, reason, chips)

    # ------------------------------------------------------------ players

    async def RegisterPlayer(
        self, request: pb.RegisterPlayerRequest, context: Any
    ) -> pb.RegisterPlayerResponse:
        name = check_name(request.name, "name", MAX_PLAYER_NAME)
        settings = self._settings
        if not 0 <= request.initial_balance <= settings.max_balance:
            raise InvalidArgumentError(
                f"initial_balance must be 0..{settings.max_balance} "
                f"(0 = the default {settings.default_balance}), got {request.initial_balance}"
            )
        grant = request.initial_balance or settings.default_balance
        player_id = f"p-{uuid.uuid4().hex}"
        token = new_token()
        with self._change():
            self._store.add_player(player_id, name, token_hash(token), grant)
        PLAYERS_REGISTERED.inc()
        CHIPS_GRANTED.inc(grant)
        log.info("player registered", player_id=player_id, granted=grant)
        player = pb.Player(player_id=player_id, name=name, balance=grant, at_tables=0)
        return pb.RegisterPlayerResponse(player=player, token=token)

    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Any) -> pb.Player:
        return self._player_pb(self._authenticate(request.player_id, request.token))

    async def Authenticate(
        self, request: pb.AuthenticateRequest, context: Any
    ) -> pb.AuthenticateResponse:
        row = self._authenticate(request.player_id, request.token)
        seat = 0
        if request.table_id and self._tournament_table(request.table_id):
            assert self.tournaments is not None
            seat = self.tournaments.seat_of(request.table_id, row.player_id)
        elif request.table_id:
            seat = self._table(request.table_id).seat_of(row.player_id)
        return pb.AuthenticateResponse(player=self._player_pb(row), seat=seat)

    # ------------------------------------------------------------ tables

    async def CreateTable(self, request: pb.CreateTableRequest, context: Any) -> pb.Table:
        name = check_name(request.name, "name", MAX_TABLE_NAME)
        if not request.HasField("config"):
            raise InvalidArgumentError("config is required: the table's GameConfig")
        orbits = self._settings.max_orbits_away
        if request.HasField("max_orbits_away"):
            orbits = check_count(
                request.max_orbits_away,
                f"max_orbits_away (B5; unset = the lobby's {orbits})",
                0,
                MAX_ORBITS_AWAY,
            )
        game, seating_config = _seating_config(request.config, request.seats, orbits)
        min_buy_in = check_chips(request.min_buy_in, "min_buy_in", positive=True)
        max_buy_in = check_chips(request.max_buy_in, "max_buy_in")
        if max_buy_in and max_buy_in < min_buy_in:
            raise InvalidArgumentError(
                f"max_buy_in must be 0 (no maximum) or at least min_buy_in {min_buy_in}, "
                f"got {max_buy_in}"
            )
        clock = request.action_clock_ms
        if clock == 0:
            clock = DEFAULT_ACTION_CLOCK_MS
        else:
            check_count(clock, "action_clock_ms (0 = 10000, S10)", *ACTION_CLOCK_MS)
        row = TableRow(
            table_id=f"t-{uuid.uuid4().hex}",
            name=name,
            game=game.value,
            config=request.config.SerializeToString(deterministic=True),
            seats=request.seats,
            min_buy_in=min_buy_in,
            max_buy_in=max_buy_in,
            action_clock_ms=clock,
        )
        table = _Table(row, request.config, game, SeatingTable(seating_config), orbits)
        with self._change():
            self._store.add_table(row)
            self._save_seating(table)
        self._tables[row.table_id] = table
        self._update_gauges()
        with bound_contextvars(table_id=row.table_id):
            log.info("table created", game=game.value, seats=row.seats, min_buy_in=min_buy_in)
        return self._table_pb(table)

    def _tournament_table(self, table_id: str) -> bool:
        """True for a tournament's table (its calls go to the TournamentBook)."""
        return self.tournaments is not None and self.tournaments.owns(table_id)

    def _tournament_table_pb(self, table_id: str) -> pb.Table:
        assert self.tournaments is not None
        _t, table = self.tournaments.owner(table_id)
        return self.tournaments.table_pb(table_id, self._store.names(table.seats.values()))

    async def GetTable(self, request: pb.GetTableRequest, context: Any) -> pb.Table:
        if self._tournament_table(request.table_id):
            return self._tournament_table_pb(request.table_id)
        return self._table_pb(self._table(request.table_id))

    async def ListTables(
        self, request: pb.ListTablesRequest, context: Any
    ) -> pb.ListTablesResponse:
        game = game_of(request.game) if request.game else None
        response = pb.ListTablesResponse(
            tables=[
                self._table_pb(t) for t in self._tables.values() if game is None or t.game is game
            ]
        )
        if self.tournaments is not None:  # the open tables of running tournaments
            for table_id in self.tournaments.listed_tables():
                info = self._tournament_table_pb(table_id)
                if game is None or info.config.game == request.game:
                    response.tables.append(info)
        return response

    # ------------------------------------------------------------ seats

    async def SitDown(self, request: pb.SitDownRequest, context: Any) -> pb.SitDownResponse:
        player = self._authenticate(request.player_id, request.token)
        table = self._table(request.table_id)
        row, seating = table.row, table.seating
        seat = check_count(request.seat, f"seat (0 = any, seats are 1..{row.seats})", 0, row.seats)
        buy_in = check_chips(request.buy_in, "buy_in", positive=True)
        choice, wait_for_button = _entry(request)
        if buy_in < row.min_buy_in:
            raise InvalidArgumentError(
                f"buy_in {buy_in} is below the table's minimum buy-in {row.min_buy_in} (S2)"
            )
        if row.max_buy_in and buy_in > row.max_buy_in:
            raise InvalidArgumentError(
                f"buy_in {buy_in} is above the table's maximum buy-in {row.max_buy_in}"
            )
        taken = table.seat_of(player.player_id)
        if taken:
            raise FailedPreconditionError(
                f"player {player.player_id} already sits in seat {taken} at this table"
            )
        free = [s for s in range(1, row.seats + 1) if seating.seat(s) is None]
        if not free:
            raise FailedPreconditionError(f"the table is full ({row.seats} seats)")
        if seat == 0:
            seat = free[0]
        elif seat not in free:
            raise FailedPreconditionError(f"seat {seat} is taken; free seats: {free}")
        if player.balance < buy_in:
            raise FailedPreconditionError(
                f"balance {player.balance} is short of the buy-in {buy_in}"
            )
        with bound_contextvars(table_id=row.table_id), self._change(table):
            seating.sit_down(
                seat, player.player_id, buy_in, choice=choice, wait_for_button=wait_for_button
            )
            balance = self._store.buy_in(player.player_id, row.table_id, seat, buy_in)
            log.info("sat down", player_id=player.player_id, seat=seat, chips=buy_in, choice=choice)
        BUY_INS.labels(table.game.value).inc()
        BUY_IN_CHIPS.labels(table.game.value).inc(buy_in)
        self._update_gauges()
        return pb.SitDownResponse(seat=seat, stack=buy_in, balance=balance)

    async def StandUp(self, request: pb.StandUpRequest, context: Any) -> pb.StandUpResponse:
        player = self._authenticate(request.player_id, request.token)
        table = self._table(request.table_id)
        seat = table.seat_of(player.player_id)
        if not seat:
            raise FailedPreconditionError(f"player {player.player_id} is not seated at this table")
        if seat in table.leaving:
            return pb.StandUpResponse(returned=0, balance=player.balance, pending=True)
        plan = table.seating.hand_in_progress
        with bound_contextvars(table_id=table.row.table_id):
            if plan is not None and seat in plan.seats:
                with self._change(table):
                    table.leaving.add(seat)
                    self._store.set_leaving(table.row.table_id, seat)
                log.info("stands up after the hand", player_id=player.player_id, seat=seat)
                return pb.StandUpResponse(returned=0, balance=player.balance, pending=True)
            with self._change(table):
                chips, balance, cash_out = self._leave(table, seat, "stand_up")
        self._count_cash_outs([cash_out])
        self._update_gauges()
        return pb.StandUpResponse(returned=chips, balance=balance, pending=False)

    # ------------------------------------------------------------ away, back, "I'm in"

    def _seated(self, player_id: str, token: str, table_id: str) -> tuple[_Table, int]:
        """The table and the caller's seat there; FAILED_PRECONDITION when not seated."""
        player = self._authenticate(player_id, token)
        if self._tournament_table(table_id):
            raise FailedPreconditionError(
                f"table {table_id} is a tournament's: ring-game seating does not apply; "
                "Tournaments.SetAway marks a player away there (T6)"
            )
        table = self._table(table_id)
        seat = table.seat_of(player.player_id)
        if not seat:
            raise FailedPreconditionError(
                f"player {player.player_id} is not seated at table {table.row.table_id}"
            )
        return table, seat

    def _seat_status(self, table: _Table, seat: int) -> pb.SeatStatusResponse:
        p = table.seating.seat(seat)
        assert p is not None
        name = self._store.names([p.player_id]).get(p.player_id, "")
        return pb.SeatStatusResponse(seat=_seat_info(seat, p, name))

    def _stud_only(self, table: _Table, what: str) -> None:
        if table.game is Game.DRAW_7A:
            raise FailedPreconditionError(
                f"{what} is for stud tables (S3 antes); this 7-A draw table has blinds "
                "(B1-B5): SitOut and SitIn instead"
            )

    async def SitOut(self, request: pb.SitOutRequest, context: Any) -> pb.SeatStatusResponse:
        table, seat = self._seated(request.player_id, request.token, request.table_id)
        with bound_contextvars(table_id=table.row.table_id), self._change(table):
            table.seating.sit_out(seat)
            log.info("sat out", seat=seat)
        return self._seat_status(table, seat)

    async def SitIn(self, request: pb.SitInRequest, context: Any) -> pb.SeatStatusResponse:
        choice = RETURN_CHOICES.get(request.return_choice)
        if choice is None:
            raise InvalidArgumentError(
                f"return_choice {request.return_choice} is unknown; allowed: "
                "RETURN_CHOICE_POST (or unspecified) and RETURN_CHOICE_WAIT_FOR_BIG_BLIND"
            )
        table, seat = self._seated(request.player_id, request.token, request.table_id)
        p = table.seating.seat(seat)
        assert p is not None
        if not p.away:
            raise FailedPreconditionError(
                f"seat {seat} is not sitting out; SitIn is for coming back after SitOut"
            )
        if p.chips == 0:
            raise FailedPreconditionError(
                f"seat {seat} has no chips and cannot be dealt in: stand up and sit down "
                "again with a buy-in"
            )
        with bound_contextvars(table_id=table.row.table_id), self._change(table):
            table.seating.sit_in(seat, choice)
            log.info("sat in", seat=seat, choice=choice)
        return self._seat_status(table, seat)

    async def SetAutoPost(
        self, request: pb.SetAutoPostRequest, context: Any
    ) -> pb.SeatStatusResponse:
        table, seat = self._seated(request.player_id, request.token, request.table_id)
        self._stud_only(table, "SetAutoPost")
        with bound_contextvars(table_id=table.row.table_id), self._change(table):
            table.seating.set_auto_post(seat, request.auto_post)
            log.info("auto-post", seat=seat, on=request.auto_post)
        return self._seat_status(table, seat)

    async def ImIn(self, request: pb.ImInRequest, context: Any) -> pb.SeatStatusResponse:
        table, seat = self._seated(request.player_id, request.token, request.table_id)
        self._stud_only(table, "ImIn")
        p = table.seating.seat(seat)
        assert p is not None
        if p.auto_post:
            raise FailedPreconditionError(
                f"seat {seat} has auto-post on: the ante is posted every hand (S3); "
                "ImIn is for a player who switched it off with SetAutoPost"
            )
        if p.away:
            raise FailedPreconditionError(f"seat {seat} is sitting out: SitIn first")
        if p.chips == 0:
            raise FailedPreconditionError(f"seat {seat} has no chips to post the ante with")
        with bound_contextvars(table_id=table.row.table_id), self._change(table):
            table.seating.im_in(seat)
            log.info("I'm in", seat=seat)
        return self._seat_status(table, seat)

    # ------------------------------------------------------------ hands

    async def NextHand(self, request: pb.NextHandRequest, context: Any) -> pb.NextHandResponse:
        if self.tournaments is not None and self.tournaments.owns(request.table_id):
            return self.tournaments.next_hand(request.table_id)
        table = self._table(request.table_id)
        if table.pending is not None:
            with bound_contextvars(table_id=table.row.table_id, hand_id=table.pending.hand_id):
                log.info("hand plan repeated")
            return table.pending.response
        with self._change(table):
            plan = table.seating.plan_hand()  # None changes nothing
            if plan is None:
                return pb.NextHandResponse(play=False)
            hand_id = f"h-{uuid.uuid4().hex}"
            response = self._plan_pb(table, plan, hand_id)
            self._store.add_hand(
                hand_id, table.row.table_id, response.SerializeToString(deterministic=True)
            )
            table.pending = _PendingHand(hand_id, response)
        HANDS_PLANNED.labels(table.game.value).inc()
        with bound_contextvars(table_id=table.row.table_id, hand_id=hand_id):
            log.info(
                "hand planned",
                hand_number=plan.hand_number,
                seats=list(plan.seats),
                button=plan.button,
                big_blind=plan.big_blind,
            )
        return response

    def _plan_pb(self, table: _Table, plan: HandPlan, hand_id: str) -> pb.NextHandResponse:
        names = self._store.names(plan.players)
        dealt_in = [
            pb.SeatInfo(seat=s, player_id=p, name=names.get(p, ""), stack=c)
            for s, p, c in zip(plan.seats, plan.players, plan.stacks, strict=True)
        ]
        posts = [
            pb.Post(seat=plan.seats[p.player], amount=p.amount, live=p.live)
            for p in plan.draw_posts()
        ]
        return pb.NextHandResponse(
            hand_id=hand_id,
            play=True,
            dealt_in=dealt_in,
            button_seat=plan.button or 0,
            button_dead=plan.button_dead,
            big_blind_seat=plan.big_blind or 0,
            small_blind_seat=plan.small_blind or 0,
            posts=posts,
        )

    def _final_stacks(
        self, table: _Table, plan: HandPlan, infos: Sequence[pb.SeatInfo]
    ) -> list[int]:
        """The stacks in the plan's order; the library then checks the sum."""
        by_seat: dict[int, int] = {}
        for i, info in enumerate(infos):
            seat = check_count(info.seat, f"final_stacks[{i}].seat", 1, table.row.seats)
            if seat in by_seat:
                raise InvalidArgumentError(f"final_stacks lists seat {seat} twice")
            check_chips(info.stack, f"final_stacks[{i}].stack")
            if (
                info.player_id
                and seat in plan.seats
                and plan.players[plan.index(seat)] != info.player_id
            ):
                raise FailedPreconditionError(
                    f"final_stacks[{i}]: seat {seat} was dealt in to "
                    f"{plan.players[plan.index(seat)]}, not {info.player_id}"
                )
            by_seat[seat] = info.stack
        if set(by_seat) != set(plan.seats):
            raise FailedPreconditionError(
                f"final_stacks must list exactly the seats dealt in, {sorted(plan.seats)}; "
                f"got {sorted(by_seat)}"
            )
        return [by_seat[s] for s in plan.seats]

    async def FinishHand(
        self, request: pb.FinishHandRequest, context: Any
    ) -> pb.FinishHandResponse:
        if self.tournaments is not None and self.tournaments.owns(request.table_id):
            return self.tournaments.finish_hand(request)
        table = self._table(request.table_id)
        hand_id = check_id(request.hand_id, "hand_id")
        table_id = table.row.table_id
        seating = table.seating
        pending = table.pending
        with bound_contextvars(table_id=table_id, hand_id=hand_id):
            fingerprint = request.SerializeToString(deterministic=True)
            if pending is None or pending.hand_id != hand_id:
                stored = self._store.hand(hand_id)
                if table.last_finished == (hand_id, fingerprint) or (
                    stored is not None
                    and stored.table_id == table_id
                    and stored.digest == hashlib.sha256(fingerprint).digest()
                ):
                    log.info("hand finish repeated")
                    return await self._finished(request, seating.hands_played, context)
                current = f"{pending.hand_id} is" if pending else "none is; NextHand starts one"
                if stored is not None and stored.table_id == table_id and stored.reason:
                    raise FailedPreconditionError(
                        f"hand {hand_id} was {stored.reason}: every stack stayed as at its "
                        f"start, and it is not the hand in progress ({current})"
                    )
                raise FailedPreconditionError(
                    f"hand {hand_id} is not the hand in progress at this table ({current})"
                )
            plan = seating.hand_in_progress
            assert plan is not None
            stacks = [] if request.voided else self._final_stacks(table, plan, request.final_stacks)
            cash_outs: list[_CashOut] = []
            reason = f"{VOIDED_BY_TABLE}: {request.void_reason or 'no reason given'}"
            reason = reason[:MAX_VOID_REASON]
            with self._change(table):
                self._store.end_hand(
                    hand_id,
                    "voided" if request.voided else "finished",
                    reason=reason if request.voided else "",
                    digest=hashlib.sha256(fingerprint).digest(),
                )
                if request.voided:
                    seating.void_hand(plan)
                else:
                    try:
                        lost = seating.finish_hand(plan, stacks)
                    except SeatingError as error:
                        raise FailedPreconditionError(f"final_stacks: {error}") from None
                    self._store.hand_result(
                        table_id,
                        hand_id,
                        zip(plan.seats, plan.players, plan.stacks, stacks, strict=True),
                    )
                    self._store.set_hands_played(table_id, seating.hands_played)
                    for seat_lost in lost:  # B5: already emptied by the library
                        self._store.cash_out(
                            seat_lost.player_id, table_id, seat_lost.seat, seat_lost.chips
                        )
                        table.leaving.discard(seat_lost.seat)
                        cash_outs.append(_CashOut(table.game, "seat_lost", seat_lost.chips))
                        log.info(
                            "seat lost (B5)", player_id=seat_lost.player_id, seat=seat_lost.seat
                        )
                for seat in sorted(table.leaving):
                    cash_outs.append(self._leave(table, seat, "stand_up")[2])
                table.leaving.clear()
                table.pending = None
                table.last_finished = (hand_id, fingerprint)
            if request.voided:
                HANDS_VOIDED.labels(table.game.value).inc()
                log.info("hand voided", reason=reason)
            else:
                HANDS_FINISHED.labels(table.game.value).inc()
                log.info("hand finished", stacks=stacks)
        self._count_cash_outs(cash_outs)
        self._update_gauges()
        return await self._finished(request, seating.hands_played, context)

    async def _finished(
        self, request: pb.FinishHandRequest, hands_played: int, context: Any
    ) -> pb.FinishHandResponse:
        response = pb.FinishHandResponse(hands_played=hands_played)
        if request.plan_next:
            response.next_hand.CopyFrom(
                await self.NextHand(pb.NextHandRequest(table_id=request.table_id), context)
            )
        return response

    async def Session(
        self, request_iterator: AsyncIterator[pb.SessionBatch], context: Any
    ) -> AsyncIterator[pb.SessionBatchReply]:
        """NextHand, FinishHand and VoidPendingHand in batches, each answered in
        order by the unary method itself (see the proto)."""
        async for replies in answer_batches(
            request_iterator,
            pb.SessionBatchReply,
            self._session_calls,
            ERROR_CODES,
            context,
            SESSION_CALLS,
            SESSION_BATCH_CALLS,
        ):
            yield replies

    async def VoidPendingHand(
        self, request: pb.VoidPendingHandRequest, context: Any
    ) -> pb.VoidPendingHandResponse:
        if self.tournaments is not None and self.tournaments.owns(request.table_id):
            return self.tournaments.void_pending(request.table_id)
        table = self._table(request.table_id)
        seating = table.seating
        pending = table.pending
        if pending is None:
            return pb.VoidPendingHandResponse(hands_played=seating.hands_played)
        plan = seating.hand_in_progress
        assert plan is not None
        reason = (request.reason or VOIDED_AT_TAKEOVER)[:MAX_VOID_REASON]
        with bound_contextvars(table_id=table.row.table_id, hand_id=pending.hand_id):
            with self._change(table):
                self._store.end_hand(pending.hand_id, "voided", reason=reason)
                seating.void_hand(plan)
                cash_outs = [self._leave(table, s, "stand_up")[2] for s in sorted(table.leaving)]
                table.leaving.clear()
                table.pending = None
            HANDS_VOIDED.labels(table.game.value).inc()
            log.warning("hand voided", reason=reason, stacks=list(plan.stacks))
        self._count_cash_outs(cash_outs)
        self._update_gauges()
        return pb.VoidPendingHandResponse(
            hand_id=pending.hand_id, hands_played=seating.hands_played
        )

    async def ListHands(self, request: pb.ListHandsRequest, context: Any) -> pb.ListHandsResponse:
        if self._tournament_table(request.table_id):
            # The table exists, so not NOT_FOUND: its hands are kept elsewhere.
            raise FailedPreconditionError(
                f"table {request.table_id} belongs to tournament "
                f"{self.tournaments.table_owner[request.table_id]}"  # type: ignore[union-attr]
                ": ListHands lists ring tables' hands; a tournament's hands are its "
                "HAND_STARTED and HAND_FINISHED events (WatchTournament)"
            )
        table = self._table(request.table_id)
        limit = check_count(request.limit, f"limit (0 = {LIST_HANDS[0]})", 0, LIST_HANDS[1])
        limit = limit or LIST_HANDS[0]
        before = _page_after(request.page_token)
        # One more than the page: whether a next page exists.
        rows = self._store.hands(table.row.table_id, limit + 1, before)
        page = rows[:limit]
        return pb.ListHandsResponse(
            hands=[_hand_record(r) for r in page],
            next_page_token=_page_token(page[-1]) if len(rows) > limit else "",
        )

    # ------------------------------------------------------------ audit

    async def GetLedgerTotals(
        self, request: pb.GetLedgerTotalsRequest, context: Any
    ) -> pb.LedgerTotals:
        t = self._store.totals()
        return pb.LedgerTotals(
            granted=t.granted,
            balances=t.balances,
            at_tables=t.at_tables,
            ledger_balances=t.ledger_balances,
            ledger_tables=t.ledger_tables,
            entries=t.entries,
        )


def _entry(request: pb.SitDownRequest) -> tuple[Choice, bool]:
    """B2's choice of a SitDown: the library's choice and whether to wait for the
    button; INVALID_ARGUMENT for an unknown entry or a contradiction."""
    if request.entry == pb.ENTRY_UNSPECIFIED:
        return (Choice.WAIT if request.wait_for_big_blind else Choice.POST), False
    entry = ENTRIES.get(request.entry)
    if entry is None:
        raise InvalidArgumentError(
            f"entry {request.entry} is unknown; allowed: ENTRY_POST_NOW, "
            "ENTRY_WAIT_FOR_BIG_BLIND, ENTRY_WAIT_FOR_BUTTON (or unspecified: "
            "wait_for_big_blind decides)"
        )
    if request.wait_for_big_blind and request.entry != pb.ENTRY_WAIT_FOR_BIG_BLIND:
        raise InvalidArgumentError(
            f"wait_for_big_blind contradicts entry {pb.Entry.Name(request.entry)}: set one of them"
        )
    return entry


def _seat_info(seat: int, p: SeatedPlayer, name: str) -> pb.SeatInfo:
    """A seat as GetTable shows it: the stack and every seating marker."""
    return pb.SeatInfo(
        seat=seat,
        player_id=p.player_id,
        name=name,
        stack=p.chips,
        sitting_out=p.away or p.chips == 0,
        away=p.away,
        missed_big_blind=p.missed_big,
        missed_small_blind=p.missed_small,
        new_player=p.new,
        return_choice=RETURN_CHOICE_VALUES[p.choice],
        wait_for_button=p.button_must_pass,
        orbits_away=p.orbits_away,
        auto_post=p.auto_post,
        im_in=p.im_in,
    )


def _page_token(last: HandRow) -> str:
    """ListHands' next page starts after ``last``: its (planned_at, hand_id), the
    listing's order, opaque to clients (planned_at's repr is exact)."""
    return base64.urlsafe_b64encode(f"{last.planned_at!r}/{last.hand_id}".encode()).decode()


def _page_after(token: str) -> tuple[float, str] | None:
    """The (planned_at, hand_id) a page token names, None for the first page;
    INVALID_ARGUMENT for anything ListHands did not hand out."""
    if not token:
        return None
    refused = InvalidArgumentError(
        "page_token must be empty (the newest hands) or a next_page_token from ListHands"
    )
    if len(token) > MAX_PAGE_TOKEN:
        raise refused
    try:
        planned_at, slash, hand_id = base64.urlsafe_b64decode(token).decode().partition("/")
        after = float(planned_at), hand_id
    except ValueError:
        raise refused from None
    if not slash or not hand_id or not math.isfinite(after[0]):
        raise refused
    return after


def _hand_record(row: HandRow) -> pb.HandRecord:
    plan = pb.NextHandResponse.FromString(row.plan)
    return pb.HandRecord(
        hand_id=row.hand_id,
        table_id=row.table_id,
        status=HAND_STATUSES[row.status],
        void_reason=row.reason,
        dealt_in=plan.dealt_in,
        planned_at_unix_ms=round(row.planned_at * 1000),
        ended_at_unix_ms=0 if row.ended_at is None else round(row.ended_at * 1000),
    )
