"""Balancing and breaking tables (T3), applied between hands.

Tables run their hands independently, so a move can only be made while both
tables are between hands.  At each NextHand of a table the balancing plan
(``rebalance``: breaks in the pre-set order, TDA moves, the final redraw) is
computed for the whole tournament; it is applied when no table it takes a
player from is in a hand.  Otherwise nothing moves yet, and a table the plan
involves (giving, receiving, breaking) does not deal: it is ``waiting`` until the
busy tables finish their hands.  So a table deals only when it is within one
player of every table that is not waiting (T3 lets a table three short pause; we
pause a table two short for the moment the move takes).

The dead-button positions of draw tables (B1 as the rule book's tournaments play
it: the big blind moves one player each hand, the small blind is the previous big
blind's seat, the button the previous small blind's, dead when empty) come from
``poker_rules.tournament.next_positions``; balancing is told the coming hand's
(``coming_positions``, for a lone survivor's table too), so arriving players are
dealt in at once: T3 never seats them from the button through the small blind
unless no other seat is free, and then they are not dealt in until the button has
passed them (``dealt_positions``, which deals everyone afresh rather than leave a
lone survivor with nobody to play).
"""

from __future__ import annotations

from poker.lobby.v1 import tournament_pb2 as tpb
from poker_rules.config import Game
from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import Table as RTable
from poker_rules.tournament import coming_positions, rebalance
from service_kit.logs import get_logger

from .models import Tournament, TTable
from .registry import TournamentRegistry
from .structure import stored_positions

log = get_logger()

K = tpb.TournamentEventKind


def rtable(t: Tournament, table: TTable) -> RTable:
    """The table as ``rebalance`` sees it, with its next hand's positions (draw).

    Every table that has dealt gets them, a lone survivor's or a heads-up
    pair's included: those are the tables broken tables' players land at, and
    without positions the library would seat them anywhere, between the
    button and the small blind too.
    """
    positions = None
    if t.game is Game.DRAW_7A:
        last = table.pending_last if table.pending_id else table.last
        positions = coming_positions(table.seats, t.request.seats_per_table, stored_positions(last))
    return RTable(table.table_id, t.request.seats_per_table, dict(table.seats), positions)


def balance(book: TournamentRegistry, t: Tournament, table: TTable) -> bool:
    """Apply the T3 plan if it can be applied now; True when ``table`` may deal."""
    open_tables = t.open_tables()
    if len(open_tables) < 2:
        return True
    try:
        plan = rebalance(
            [rtable(t, x) for x in open_tables],
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
        t.seat(move.player, move.to_table, move.to_seat)
        if move.waits_for_button:
            t.tables[move.to_table].wait_button.append(move.to_seat)
        book.emit(
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
        book.emit(t, K.TOURNAMENT_EVENT_KIND_TABLE_BROKEN, table_id=broken)
    if plan.final_table:
        t.final_table_id = plan.final_table
        t.tables[plan.final_table].last = None  # redrawn: the button is drawn afresh
        t.tables[plan.final_table].wait_button = []  # a new game: everyone plays
        book.emit(
            t,
            K.TOURNAMENT_EVENT_KIND_FINAL_TABLE,
            table_id=plan.final_table,
            players_left=len(t.alive()),
        )
    for x in t.open_tables():
        x.waiting = False
    return not table.broken
