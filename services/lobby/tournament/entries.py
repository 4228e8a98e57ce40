"""A player's entries: registering, re-entering after busting, unregistering
before the start, and being away (T6).  Each moves its money through the ledger
(``t_buy_in``, ``t_fee``, ``t_refund``) in the tournament's transaction."""

from __future__ import annotations

import uuid

from poker.lobby.v1 import tournament_pb2 as tpb
from poker_rules.config import Game
from poker_rules.tournament import EntryRefusedError, seat_entrant
from service_kit.errors import FailedPreconditionError
from service_kit.logs import get_logger

from .balancing import rtable
from .models import Entry, Tournament, TTable
from .registry import TournamentRegistry

log = get_logger()

K = tpb.TournamentEventKind


def enter(
    book: TournamentRegistry, t: Tournament, player_id: str, balance: int, *, re_entry: bool
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
    with book.atomic(t):
        entry = Entry(player_id, len(previous) + 1, t.structure.starting_stack)
        t.entries.append(entry)
        if t.structure.buy_in:
            book.store.move_money(t.tournament_id, player_id, "t_buy_in", t.structure.buy_in, 0)
        if t.structure.fee:
            book.store.move_money(t.tournament_id, player_id, "t_fee", 0, t.structure.fee)
        if t.status == "running":
            _seat_late(book, t, player_id)
        book.save(t)
        after = book.store.balance(player_id)
    log.info("tournament entry", tournament_id=t.tournament_id, player_id=player_id)
    return entry, after


def _seat_late(book: TournamentRegistry, t: Tournament, player_id: str) -> None:
    """A late entry's seat (T3's seat for a new player), or a new table when all
    are full (the next rebalance fills it)."""
    button = t.game is Game.DRAW_7A
    tables = [rtable(t, table) for table in t.open_tables()]
    seat = seat_entrant(player_id, tables, button_game=button, rng=t.rng(player_id))
    if seat is None:
        table = TTable(f"tt-{uuid.uuid4().hex}", f"{t.request.name} #{len(t.tables) + 1}")
        t.break_order.insert(0, table.table_id)
        book.add_table(t, table)
        table_id, seat_no = table.table_id, 1
    else:
        table_id, seat_no = seat.table, seat.seat
        if seat.waits_for_button:
            t.tables[table_id].wait_button.append(seat_no)
    t.seat(player_id, table_id, seat_no)
    book.emit(
        t,
        K.TOURNAMENT_EVENT_KIND_SEATED,
        player_id=player_id,
        table_id=table_id,
        seat=seat_no,
        message="late registration",
    )


def unregister(book: TournamentRegistry, t: Tournament, player_id: str) -> tuple[int, int]:
    """Before the start only: the entry goes and its buy-in and fee come back.
    Returns the amount refunded and the balance."""
    if t.status != "registering":
        raise FailedPreconditionError(
            f"unregistering is only possible before the start; the tournament is {t.status}"
        )
    entry = t.live(player_id)
    if entry is None:
        raise FailedPreconditionError(f"player {player_id} is not registered here")
    cost = t.structure.buy_in + t.structure.fee
    with book.atomic(t):
        t.entries.remove(entry)
        balance = book.store.balance(player_id)
        if cost:
            balance = book.store.move_money(
                t.tournament_id, player_id, "t_refund", -t.structure.buy_in, -t.structure.fee
            )
        book.save(t)
    return cost, balance


def set_away(book: TournamentRegistry, t: Tournament, player_id: str, away: bool) -> None:
    """T6: an away player is dealt in and folded at each turn (``fold_on_turn``)."""
    if t.status == "finished":
        raise FailedPreconditionError(
            f"tournament {t.tournament_id} is over: nobody is dealt in any more, away or not"
        )
    entry = t.live(player_id)
    if entry is None:
        raise FailedPreconditionError(
            f"player {player_id} has no chips in this tournament (not entered, or out): "
            "only a player still in may be set away or back"
        )
    with book.atomic(t):
        entry.away = away
        book.save(t)
