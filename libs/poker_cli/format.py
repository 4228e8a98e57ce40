"""Human-readable text for table events, menus and table state (``watch`` and ``play``).

Every function is pure: protos (and a :class:`~poker_bots.view.TableView` for seat
names) in, strings out.  :func:`format_event` expects the view *after* the event was
applied, so that the names of a new hand's seats are known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2
from poker.table.v1 import table_pb2 as t
from poker_bots.sdk import AGGRESSIVE, legal_kinds
from poker_bots.view import TableView

__all__ = [
    "GAME_NAMES",
    "STRUCTURE_NAMES",
    "action_text",
    "cards_text",
    "config_text",
    "format_event",
    "format_view",
    "legal_text",
    "lobby_table_line",
    "money",
    "seat_name",
    "table_summary_line",
]

GAME_NAMES: dict[int, str] = {
    c.GAME_STUD: "Seven Card Stud",
    c.GAME_STUD_HILO: "Stud Hi-Lo 8-or-better",
    c.GAME_DRAW_7A: "Five Card Draw 7-A",
}
STRUCTURE_NAMES: dict[int, str] = {
    c.STRUCTURE_UNSPECIFIED: "fixed limit",
    c.STRUCTURE_FIXED_LIMIT: "fixed limit",
    c.STRUCTURE_POT_LIMIT: "pot limit",
    c.STRUCTURE_NO_LIMIT: "no limit",
}
SHARE_NAMES: dict[int, str] = {c.POT_SHARE_HIGH: " (high)", c.POT_SHARE_LOW: " (low)"}


def money(amount: int) -> str:
    """Chips with thousands separators: ``12,500``."""
    return f"{amount:,}"


def cards_text(cards: Iterable[str]) -> str:
    text = " ".join(cards)
    return text or "-"


def config_text(config: c.GameConfig) -> str:
    """``Seven Card Stud, fixed limit 100/200, ante 25, bring-in 50``."""
    game = GAME_NAMES.get(config.game, "unknown game")
    if config.game == c.GAME_DRAW_7A:
        structure = STRUCTURE_NAMES.get(config.structure, "?")
        if config.structure in (c.STRUCTURE_POT_LIMIT, c.STRUCTURE_NO_LIMIT):
            stakes = f"blinds {money(config.small_bet // 2)}/{money(config.small_bet)}"
        else:
            stakes = f"{money(config.small_bet)}/{money(config.big_bet)}"
        text = f"{game}, {structure} {stakes}"
        if config.ante:
            text += f", ante {money(config.ante)}"
        return text
    text = f"{game}, fixed limit {money(config.small_bet)}/{money(config.big_bet)}"
    if config.ante:
        text += f", ante {money(config.ante)}"
    return text + f", bring-in {money(config.bring_in)}"


def action_text(action: c.Action) -> str:
    """``folds``, ``calls``, ``raises to 300``, ``discards 2 (7c 8d)``, ``stands pat``."""
    kind = action.kind
    if kind == c.ACTION_KIND_FOLD:
        return "folds"
    if kind == c.ACTION_KIND_CHECK:
        return "checks"
    if kind == c.ACTION_KIND_CALL:
        return "calls"
    if kind == c.ACTION_KIND_BRING_IN:
        return "brings in"
    if kind == c.ACTION_KIND_COMPLETE:
        return f"completes to {money(action.amount)}"
    if kind == c.ACTION_KIND_BET:
        return f"bets {money(action.amount)}"
    if kind == c.ACTION_KIND_RAISE:
        return f"raises to {money(action.amount)}"
    if kind == c.ACTION_KIND_DISCARD:
        if not action.cards:
            return "stands pat"
        return f"discards ({cards_text(action.cards)})"
    return "does nothing"


def legal_text(legal: c.LegalActions) -> str:
    """The menu with the keys ``play`` accepts: ``[f]old  [c]all 50  [r N] complete to 100``."""
    parts: list[str] = []
    for kind in legal_kinds(legal):
        if kind == c.ACTION_KIND_FOLD:
            parts.append("[f]old")
        elif kind == c.ACTION_KIND_CHECK:
            parts.append("[k] check")
        elif kind == c.ACTION_KIND_CALL:
            parts.append(f"[c]all {money(legal.call_amount)}")
        elif kind == c.ACTION_KIND_BRING_IN:
            parts.append(f"[b]ring in {money(legal.bring_in_amount)}")
        elif kind in AGGRESSIVE:
            name = {
                c.ACTION_KIND_COMPLETE: "complete",
                c.ACTION_KIND_BET: "bet",
                c.ACTION_KIND_RAISE: "raise",
            }[kind]
            if legal.to_choices:
                amounts = " or ".join(money(a) for a in legal.to_choices)
            else:
                amounts = f"{money(legal.min_to)}..{money(legal.max_to)}"
            parts.append(f"[r N] {name} to {amounts}")
        elif kind == c.ACTION_KIND_DISCARD:
            parts.append(f"[d CARDS] discard up to {legal.max_discards} ([d] alone: stand pat)")
    return "  ".join(parts) if parts else "(nothing)"


def seat_name(view: TableView | None, seat: int) -> str:
    if view is not None:
        s = view.seats.get(seat)
        if s is not None and (s.name or s.player_id):
            you = " (you)" if seat == view.my_seat else ""
            return f"{s.label}{you} [{seat}]"
    return f"seat {seat}"


def _pots(pots: Iterable[c.Pot]) -> str:
    amounts = [money(p.amount) for p in pots]
    if not amounts:
        return ""
    if len(amounts) == 1:
        return f"pot {amounts[0]}"
    return f"pots {' + '.join(amounts)}"


def format_event(event: t.TableEvent, view: TableView | None = None) -> list[str]:
    """One or a few readable lines for an event (a batch: for each of its events)."""
    kind = event.WhichOneof("event")
    if kind == "batch":
        return [line for inner in event.batch.events for line in format_event(inner, view)]
    formatter = _FORMATTERS.get(kind or "")
    if formatter is None:
        return [f"   ({kind or 'empty event'})"]
    return formatter(event, view)


def _stacks(view: TableView | None, seats: Iterable[t.SeatView]) -> str:
    ordered = sorted(seats, key=lambda s: s.seat)
    return ", ".join(f"{seat_name(view, s.seat)} {money(s.stack)}" for s in ordered)


def _snapshot(event: t.TableEvent, view: TableView | None) -> list[str]:
    snap = event.snapshot
    where = f"hand {snap.hand_id}" if snap.hand_id else "between hands"
    lines = [f"== table {snap.table_id}: {config_text(snap.config)}, {where}"]
    if view is not None:
        lines += format_view(view)
    return lines


def _hand_started(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.hand_started
    lines = [f"== hand {event.hand_id}: {_stacks(view, msg.seats)}"]
    if msg.button_seat:
        dead = " (dead: nobody holds it, B1)" if msg.button_dead else ""
        lines.append(f"   button: {seat_name(view, msg.button_seat)}{dead}")
    lines += [f"   {seat_name(view, p.seat)} posts {p.kind} {money(p.amount)}" for p in msg.posts]
    return lines


def _cards_dealt(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.cards_dealt
    lines = []
    if msg.seat:
        shown = []
        if msg.cards:
            shown.append(("up " if msg.up else "down ") + cards_text(msg.cards))
        if msg.hidden_count:
            shown.append(f"{msg.hidden_count} down")
        lines.append(f"   {seat_name(view, msg.seat)} is dealt {', '.join(shown) or 'nothing'}")
    if msg.community_card:
        lines.append(f"   community card: {msg.community_card}")
    return lines


def _action_taken(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.action_taken
    text = f"   {seat_name(view, msg.seat)} {action_text(msg.action)}"
    if msg.timeout:
        text += " (timed out)"
    if msg.stack == 0 and msg.action.kind not in (c.ACTION_KIND_FOLD, c.ACTION_KIND_DISCARD):
        text += " and is all in"
    pots = _pots(msg.pots)
    if pots:
        text += f"; {pots}"
    return [text]


def _street_started(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.street_started
    return [f"-- {msg.name or 'street ' + str(msg.street)}"]


def _your_turn(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.your_turn
    return [f">> your turn (action {msg.action_seq}): {legal_text(msg.legal)}"]


def _draw_taken(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.draw_taken
    text = f"   {seat_name(view, msg.seat)} draws {msg.count}"
    if msg.discarded or msg.received:
        text += f" (out: {cards_text(msg.discarded)}; in: {cards_text(msg.received)})"
    return [text]


def _showdown(event: t.TableEvent, view: TableView | None) -> list[str]:
    lines = ["-- showdown"]
    for hand in event.showdown.hands:
        if hand.mucked:
            lines.append(f"   {seat_name(view, hand.seat)} mucks")
            continue
        what = hand.high + (f"; low: {hand.low}" if hand.low else "")
        lines.append(f"   {seat_name(view, hand.seat)} shows {cards_text(hand.cards)}: {what}")
    return lines


def _hand_finished(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.hand_finished
    lines = []
    if msg.voided:
        lines.append("   hand voided: chips returned")
    if msg.HasField("uncalled_seat") and msg.uncalled_amount:
        lines.append(
            f"   uncalled {money(msg.uncalled_amount)} returned to "
            f"{seat_name(view, msg.uncalled_seat)}"
        )
    for award in msg.awards:
        pot = "main pot" if award.pot_index == 0 else f"side pot {award.pot_index}"
        share = SHARE_NAMES.get(award.share, "")
        lines.append(
            f"   {seat_name(view, award.seat)} wins {money(award.amount)} from the {pot}{share}"
        )
    stacks = _stacks(view, msg.seats)
    lines.append(f"== hand {event.hand_id} over" + (f": {stacks}" if stacks else ""))
    return lines


def _rejected(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.action_rejected
    return [f"!! action {msg.action_seq} rejected: {msg.message}"]


def _seat_changed(event: t.TableEvent, view: TableView | None) -> list[str]:
    msg = event.seat_changed
    who = msg.seat.name or msg.seat.player_id or "?"
    if msg.left:
        return [f"   {who} leaves seat {msg.seat.seat}"]
    return [f"   {who} sits in seat {msg.seat.seat} with {money(msg.seat.stack)}"]


def _pong(event: t.TableEvent, view: TableView | None) -> list[str]:
    return []


_FORMATTERS: dict[str, Callable[[t.TableEvent, TableView | None], list[str]]] = {
    "snapshot": _snapshot,
    "hand_started": _hand_started,
    "cards_dealt": _cards_dealt,
    "action_taken": _action_taken,
    "street_started": _street_started,
    "your_turn": _your_turn,
    "draw_taken": _draw_taken,
    "showdown": _showdown,
    "hand_finished": _hand_finished,
    "action_rejected": _rejected,
    "seat_changed": _seat_changed,
    "pong": _pong,
}


def format_view(view: TableView) -> list[str]:
    """The table now: street, pots, then one line per seat (your cards shown)."""
    lines: list[str] = []
    head = f"   street: {view.street_name or view.street or '-'}   pot: {money(view.pot_total)}"
    pots = _pots(view.pots)
    if pots:
        head += f" ({pots})"
    if view.community_card:
        head += f"   community: {view.community_card}"
    lines.append(head)
    for n, s in sorted(view.seats.items()):
        mark = "*" if n == view.my_seat else " "
        cards = []
        if s.own_cards:
            cards.append(f"[{cards_text(s.own_cards)}]")
        if s.down_cards:
            cards.append(" ".join(["??"] * s.down_cards))
        if s.upcards:
            cards.append(cards_text(s.upcards))
        status = []
        if not s.in_hand and not view.hand_over:
            status.append("out")
        if s.all_in:
            status.append("all in")
        if s.bet:
            status.append(f"bet {money(s.bet)}")
        if s.draw_count is not None:
            status.append(f"drew {s.draw_count}")
        if n == view.button_seat and view.is_draw:
            status.append("dead button" if view.button_dead else "button")
        line = f" {mark}{n:>2} {s.label:<14} {money(s.stack):>9}  {' '.join(cards)}"
        if status:
            line += f"  ({', '.join(status)})"
        lines.append(line.rstrip())
    return lines


def lobby_table_line(table: lobby_pb2.Table) -> str:
    seated = len(table.occupied)
    clock = f"{table.action_clock_ms / 1000:g}s" if table.action_clock_ms else "10s"
    return (
        f"{table.table_id}  {table.name or '-'}  {config_text(table.config)}  "
        f"{seated}/{table.seats} seated  min buy-in {money(table.min_buy_in)}  clock {clock}  "
        f"hands {table.hands_played}"
    )


def table_summary_line(table: t.TableSummary) -> str:
    clock = f"{table.action_clock_ms / 1000:g}s" if table.action_clock_ms else "10s"
    current = f"  hand {table.current_hand_id}" if table.current_hand_id else ""
    return (
        f"{table.table_id}  {table.name or '-'}  {config_text(table.config)}  "
        f"{table.players}/{table.seats} players  clock {clock}  "
        f"hands {table.hands_played}{current}"
    )
