"""The ring tables in memory over the store: how they are rebuilt at start, how
a change is one transaction, and the bookkeeping every change shares.

Every change of a table runs inside ``change(table)``: the writes are one
transaction with the table's seating snapshot, and if anything fails inside it
the table's ``SeatingTable`` and hand state are put back as they were, so a
refused request changes nothing, in memory or on disk.
"""

from __future__ import annotations

import json
import uuid
from collections import Counter as Tally
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.config import Game
from poker_rules.seating import SeatingTable
from poker_wire import check_chips, check_count, check_id
from service_kit.errors import InvalidArgumentError, NotFoundError
from service_kit.logs import bound_contextvars, get_logger

from ..checks import ACTION_CLOCK_MS, DEFAULT_ACTION_CLOCK_MS, present
from ..metrics import CASH_OUT_CHIPS, CASH_OUTS, HANDS_VOIDED, SEATED, TABLES, set_ledger_totals
from ..store import LobbyStore, TableRow
from .table import VOIDED_BY_RESTART, CashOut, RingTable, seating_config

MAX_ORBITS_AWAY = 1_000  # the largest B5 setting, as LOBBY_MAX_ORBITS_AWAY's

log = get_logger()


class RingTables:
    """Every ring table, rebuilt from the store at start and kept in step with it."""

    def __init__(self, store: LobbyStore, max_orbits_away: int) -> None:
        self.store = store
        self.max_orbits_away = max_orbits_away  # B5 for tables created without one
        self.tables: dict[str, RingTable] = {}
        # The ledger gauges follow the store's running totals, commit by commit.
        store.on_totals = set_ledger_totals
        set_ledger_totals(store.running_totals)
        self._restore()

    # ------------------------------------------------------------ start-up

    def _restore(self) -> None:
        """Rebuild every SeatingTable from the store: the seats and stacks from the
        ``seats`` rows, the markers and button history from the table's stored
        snapshot (so the next plan is the one the lobby would have made without the
        restart); a hand that was pending is voided and recorded (the seats hold
        its starting stacks, and a void changes no marker); pending stand-ups are
        cashed out.  A seat with a stack of 0 stays seated, as it would have."""
        stored = self.store.seating()
        for row in self.store.tables():
            config = common.GameConfig.FromString(row.config)
            orbits = stored.get(row.table_id, (self.max_orbits_away, ""))[0]
            game, config_ = seating_config(config, row.seats, orbits)
            seating = SeatingTable(config_)
            seating.hands_played = row.hands_played
            self.tables[row.table_id] = RingTable(row, config, game, seating, orbits)
        self._void_after_restart()
        cash_outs: list[CashOut] = []
        occupants: dict[str, dict[int, tuple[str, int]]] = {t: {} for t in self.tables}
        with self.store.transaction():
            for seat in self.store.seats():
                table = self.tables[seat.table_id]
                if seat.leaving:
                    self.store.cash_out(seat.player_id, seat.table_id, seat.seat, seat.chips)
                    cash_outs.append(CashOut(table.game, "restart", seat.chips))
                else:
                    occupants[seat.table_id][seat.seat] = (seat.player_id, seat.chips)
            for table_id, table in self.tables.items():
                state = stored.get(table_id, (0, ""))[1]
                table.seating = SeatingTable.restore(
                    table.seating.config,
                    json.loads(state) if state else None,
                    occupants[table_id],
                    hands_played=table.row.hands_played,
                )
                self.save_seating(table)
        self.count_cash_outs(cash_outs)
        self.recount_gauges()
        log.info("lobby restored", tables=len(self.tables), released_seats=len(cash_outs))

    def _void_after_restart(self) -> None:
        """Every hand pending when the lobby stopped is voided, and recorded so."""
        pending = self.store.pending_hands()
        if not pending:
            return
        seats = {(s.table_id, s.seat): s for s in self.store.seats()}
        with self.store.transaction():
            for hand in pending:
                self.store.end_hand(hand.hand_id, "voided", reason=VOIDED_BY_RESTART)
        for hand in pending:
            table = self.tables[hand.table_id]
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

    # ------------------------------------------------------------ changes

    @contextmanager
    def change(self, table: RingTable | None = None) -> Iterator[None]:
        """One transaction; on any error the table's in-memory state is restored.
        Once committed, the seated-players gauge moves by the seats the change
        filled or emptied at this table (O(seats), whatever the number of tables)."""
        saved = None
        seated = 0
        if table is not None:
            seated = len(table.seating.occupied())
            saved = (
                table.seating.copy(),
                table.pending,
                set(table.leaving),
                table.last_finished,
                table.saved_seating,
            )
        try:
            with self.store.transaction():
                yield
                if table is not None:
                    self.save_seating(table)
        except BaseException:
            if table is not None and saved is not None:
                (
                    table.seating,
                    table.pending,
                    table.leaving,
                    table.last_finished,
                    table.saved_seating,
                ) = saved
            raise
        if table is not None:
            moved = len(table.seating.occupied()) - seated
            if moved:
                SEATED.labels(table.game.value).inc(moved)

    def save_seating(self, table: RingTable) -> None:
        """The table's markers to the store, in the transaction of the change."""
        state = json.dumps(table.seating.snapshot(), separators=(",", ":"))
        if state == table.saved_seating:
            return  # unchanged (an idle table's poll): no write, no page to the log
        self.store.save_seating(table.row.table_id, table.max_orbits_away, state)
        table.saved_seating = state

    def table(self, table_id: str) -> RingTable:
        """The ring table ``table_id``: INVALID_ARGUMENT for a malformed id,
        NOT_FOUND for an unknown one (a tournament's table is not one of these)."""
        tid = check_id(table_id, "table_id")
        table = self.tables.get(tid)
        if table is None:
            raise NotFoundError(f"no table {tid}")
        return table

    def recount(self) -> tuple[Tally[Game], Tally[Game]]:
        """Tables and seated players by game, counted over every table."""
        tables: Tally[Game] = Tally()
        seated: Tally[Game] = Tally()
        for table in self.tables.values():
            tables[table.game] += 1
            seated[table.game] += len(table.seating.occupied())
        return tables, seated

    def recount_gauges(self) -> None:
        """The table and seat gauges from a count of every table: at start only;
        then ``create`` and ``change`` move them by what each event changed."""
        tables, seated = self.recount()
        for game in Game:
            TABLES.labels(game.value).set(tables[game])
            SEATED.labels(game.value).set(seated[game])

    @staticmethod
    def count_cash_outs(cash_outs: Iterable[CashOut]) -> None:
        for c in cash_outs:
            CASH_OUTS.labels(c.game.value, c.reason).inc()
            CASH_OUT_CHIPS.labels(c.game.value, c.reason).inc(c.chips)

    def leave(self, table: RingTable, seat: int, reason: str) -> tuple[int, int, CashOut]:
        """Empty the seat, chips to the balance: (chips, balance after, metric)."""
        player = present(table.seating.seat(seat), f"player in seat {seat}")
        chips = table.seating.leave(seat)
        balance = self.store.cash_out(player.player_id, table.row.table_id, seat, chips)
        log.info("stood up", player_id=player.player_id, seat=seat, chips=chips, reason=reason)
        return chips, balance, CashOut(table.game, reason, chips)

    # ------------------------------------------------------------ a new table

    def create(self, request: pb.CreateTableRequest, name: str) -> RingTable:
        """A new table from a CreateTable request whose ``name`` is checked."""
        if not request.HasField("config"):
            raise InvalidArgumentError("config is required: the table's GameConfig")
        orbits = self.max_orbits_away
        if request.HasField("max_orbits_away"):
            orbits = check_count(
                request.max_orbits_away,
                f"max_orbits_away (B5; unset = the lobby's {orbits})",
                0,
                MAX_ORBITS_AWAY,
            )
        game, config = seating_config(request.config, request.seats, orbits)
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
        table = RingTable(row, request.config, game, SeatingTable(config), orbits)
        with self.change():
            self.store.add_table(row)
            self.save_seating(table)
        self.tables[row.table_id] = table
        TABLES.labels(game.value).inc()
        with bound_contextvars(table_id=row.table_id):
            log.info("table created", game=game.value, seats=row.seats, min_buy_in=min_buy_in)
        return table
