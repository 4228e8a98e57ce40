"""A player's seat at a ring table: sitting down with a buy-in (S2, B2), standing
up (now, or after the hand in progress), and the switches of B3-B6 and S3.

The switches are the library's markers for the next hand planned; a hand in
progress is unaffected.  SitIn is only after SitOut and with chips; the stud
switches only at stud tables, ImIn only with auto-post off and sitting in.  Each
answers the seat with every marker.
"""

from __future__ import annotations

from dataclasses import dataclass

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.config import Game
from poker_rules.seating import Choice, SeatedPlayer
from poker_wire import check_chips, check_count
from service_kit.errors import FailedPreconditionError, InvalidArgumentError
from service_kit.logs import bound_contextvars, get_logger

from ..checks import present
from ..metrics import BUY_IN_CHIPS, BUY_INS
from ..store import PlayerRow
from .table import RingTable
from .tables import RingTables
from .wire import entry_choice, seat_info

log = get_logger()


def sit_down(
    tables: RingTables, player: PlayerRow, request: pb.SitDownRequest
) -> pb.SitDownResponse:
    """Seat 0 = the lowest free seat; a buy-in outside the table's [min_buy_in,
    max_buy_in] is INVALID_ARGUMENT (S2); a taken seat, a full table, a second
    seat at the same table or a short balance is FAILED_PRECONDITION.  A draw
    player's ``entry`` (B2): post a live big blind now (``Choice.POST``, also when
    unset and ``wait_for_big_blind`` is false), wait for the big blind
    (``Choice.WAIT``), or wait for the button to pass the seat first (the
    library's ``wait_for_button``); B2a/B2b are the library's whatever the choice."""
    table = tables.table(request.table_id)
    row, seating = table.row, table.seating
    seat = check_count(request.seat, f"seat (0 = any, seats are 1..{row.seats})", 0, row.seats)
    allowed = (
        f"{row.min_buy_in}..{row.max_buy_in} chips"
        if row.max_buy_in
        else f"at least {row.min_buy_in} chips"
    )
    if request.buy_in == 0:  # not sent: say what to send
        raise InvalidArgumentError(f"buy_in is required: this table takes {allowed} (S2)")
    buy_in = check_chips(request.buy_in, "buy_in", positive=True)
    choice, wait_for_button = entry_choice(request)
    if buy_in < row.min_buy_in:
        raise InvalidArgumentError(
            f"buy_in {buy_in} is below the table's minimum buy-in {row.min_buy_in}: "
            f"it takes {allowed} (S2)"
        )
    if row.max_buy_in and buy_in > row.max_buy_in:
        raise InvalidArgumentError(
            f"buy_in {buy_in} is above the table's maximum buy-in {row.max_buy_in}: "
            f"it takes {allowed} (S2)"
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
        raise FailedPreconditionError(f"balance {player.balance} is short of the buy-in {buy_in}")
    with bound_contextvars(table_id=row.table_id), tables.change(table):
        seating.sit_down(
            seat, player.player_id, buy_in, choice=choice, wait_for_button=wait_for_button
        )
        balance = tables.store.buy_in(player.player_id, row.table_id, seat, buy_in)
        log.info("sat down", player_id=player.player_id, seat=seat, chips=buy_in, choice=choice)
    BUY_INS.labels(table.game.value).inc()
    BUY_IN_CHIPS.labels(table.game.value).inc(buy_in)
    return pb.SitDownResponse(seat=seat, stack=buy_in, balance=balance)


def stand_up(tables: RingTables, player: PlayerRow, table_id: str) -> pb.StandUpResponse:
    """Immediate, unless the player is dealt into the hand in progress: then it is
    pending and done when that hand is finished or voided."""
    table = tables.table(table_id)
    seat = table.seat_of(player.player_id)
    if not seat:
        raise FailedPreconditionError(f"player {player.player_id} is not seated at this table")
    if seat in table.leaving:
        return pb.StandUpResponse(returned=0, balance=player.balance, pending=True)
    plan = table.seating.hand_in_progress
    with bound_contextvars(table_id=table.row.table_id):
        if plan is not None and seat in plan.seats:
            with tables.change(table):
                table.leaving.add(seat)
                tables.store.set_leaving(table.row.table_id, seat)
            log.info("stands up after the hand", player_id=player.player_id, seat=seat)
            return pb.StandUpResponse(returned=0, balance=player.balance, pending=True)
        with tables.change(table):
            chips, balance, cash_out = tables.leave(table, seat, "stand_up")
    tables.count_cash_outs([cash_out])
    return pb.StandUpResponse(returned=chips, balance=balance, pending=False)


@dataclass(frozen=True, slots=True)
class RingSeat:
    """A seated player's switches (B3-B6, S3) at one ring table."""

    tables: RingTables
    table: RingTable
    seat: int

    def _player(self) -> SeatedPlayer:
        return present(self.table.seating.seat(self.seat), f"player in seat {self.seat}")

    def _status(self) -> pb.SeatStatusResponse:
        p = self._player()
        name = self.tables.store.names([p.player_id]).get(p.player_id, "")
        return pb.SeatStatusResponse(seat=seat_info(self.seat, p, name))

    def _stud_only(self, what: str) -> None:
        if self.table.game is Game.DRAW_7A:
            raise FailedPreconditionError(
                f"{what} is for stud tables (S3 antes); this 7-A draw table has blinds "
                "(B1-B5): SitOut and SitIn instead"
            )

    def sit_out(self) -> pb.SeatStatusResponse:
        table, seat = self.table, self.seat
        with bound_contextvars(table_id=table.row.table_id), self.tables.change(table):
            table.seating.sit_out(seat)
            log.info("sat out", seat=seat)
        return self._status()

    def sit_in(self, choice: Choice) -> pb.SeatStatusResponse:
        table, seat = self.table, self.seat
        p = self._player()
        if not p.away:
            raise FailedPreconditionError(
                f"seat {seat} is not sitting out; SitIn is for coming back after SitOut"
            )
        if p.chips == 0:
            raise FailedPreconditionError(
                f"seat {seat} has no chips and cannot be dealt in: stand up and sit down "
                "again with a buy-in"
            )
        with bound_contextvars(table_id=table.row.table_id), self.tables.change(table):
            table.seating.sit_in(seat, choice)
            log.info("sat in", seat=seat, choice=choice)
        return self._status()

    def set_auto_post(self, auto_post: bool) -> pb.SeatStatusResponse:
        table, seat = self.table, self.seat
        self._stud_only("SetAutoPost")
        with bound_contextvars(table_id=table.row.table_id), self.tables.change(table):
            table.seating.set_auto_post(seat, auto_post)
            log.info("auto-post", seat=seat, on=auto_post)
        return self._status()

    def im_in(self) -> pb.SeatStatusResponse:
        table, seat = self.table, self.seat
        self._stud_only("ImIn")
        p = self._player()
        if p.auto_post:
            raise FailedPreconditionError(
                f"seat {seat} has auto-post on: the ante is posted every hand (S3); "
                "ImIn is for a player who switched it off with SetAutoPost"
            )
        if p.away:
            raise FailedPreconditionError(f"seat {seat} is sitting out: SitIn first")
        if p.chips == 0:
            raise FailedPreconditionError(f"seat {seat} has no chips to post the ante with")
        with bound_contextvars(table_id=table.row.table_id), self.tables.change(table):
            table.seating.im_in(seat)
            log.info("I'm in", seat=seat)
        return self._status()
