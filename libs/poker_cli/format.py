"""Human-readable text for table events, menus and table state (``watch`` and ``play``).

Every function is pure: protos (and a :class:`~poker_bots.view.TableView` for seat
names) in, strings out.  :func:`format_event` expects the view *after* the event was
applied, so that the names of a new hand's seats are known.  :class:`EventPrinter`
adds the one thing a line cannot know alone: whether saying whose turn it is tells
the reader anything (see :meth:`EventPrinter.lines`).

What a person reads never carries a protobuf enum name or a player id: seats are
their player's name and number (``Alice [3]``), or ``seat 3`` while the name is not
known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2
from poker.table.v1 import table_pb2 as t
from poker_bots.sdk import AGGRESSIVE, legal_kinds
from poker_bots.view import TableView, unpack

__all__ = [
    "GAME_NAMES",
    "KIND_NAMES",
    "STRUCTURE_NAMES",
    "EventPrinter",
    "action_text",
    "cards_text",
    "config_text",
    "format_event",
    "format_view",
    "legal_text",
    "lobby_table_line",
    "money",
    "pot_text",
    "seat_name",
    "snapshot_pot",
    "street_text",
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
# An action kind in words, for messages ("call is not allowed here").
KIND_NAMES: dict[int, str] = {
    c.ACTION_KIND_FOLD: "fold",
    c.ACTION_KIND_CHECK: "check",
    c.ACTION_KIND_CALL: "call",
    c.ACTION_KIND_BRING_IN: "bring in",
    c.ACTION_KIND_COMPLETE: "complete",
    c.ACTION_KIND_BET: "bet",
    c.ACTION_KIND_RAISE: "raise",
    c.ACTION_KIND_DISCARD: "discard",
}
# StreetStarted.name in words; the table numbers the streets from 0 in each game.
STREET_WORDS: dict[str, str] = {
    "third": "third street",
    "fourth": "fourth street",
    "fifth": "fifth street",
    "sixth": "sixth street",
    "seventh": "seventh street",
    "pre_draw": "before the draw",
    "draw": "the draw",
    "post_draw": "after the draw",
}
STUD_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")
DRAW_STREETS = ("pre_draw", "draw", "post_draw")


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
        return f"brings in {money(action.amount)}" if action.amount else "brings in"
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
    """``Alice [3]``, ``Alice (you) [3]``, or ``seat 3`` (``seat 3 (you)``) while the
    player's name is unknown: never the player id, which means nothing to people."""
    you = " (you)" if view is not None and view.my_seat and seat == view.my_seat else ""
    s = view.seats.get(seat) if view is not None else None
    if s is not None and s.name:
        return f"{s.name}{you} [{seat}]"
    return f"seat {seat}{you}"


def street_text(view: TableView) -> str:
    """The street in words (``third street``, ``before the draw``), or ``waiting for
    the next hand`` between hands.  A snapshot names the street only by its number,
    from 0 (third street, or before the draw), hence the tables."""
    if view.hand_over or not view.hand_id:
        return "waiting for the next hand"
    name = view.street_name
    if not name:
        streets = DRAW_STREETS if view.is_draw else STUD_STREETS
        name = streets[view.street] if 0 <= view.street < len(streets) else ""
    return STREET_WORDS.get(name, name) or f"street {view.street}"


def pot_text(total: int, pots: Iterable[c.Pot] = ()) -> str:
    """``pot 80``; with side pots ``pot 90 (main 60, side 30)``; and when chips were
    bet since the pots were last counted (``pots`` are as at the end of the last
    betting round, ``total`` is every chip in), what is bet on this street:
    ``pot 80 (40 + 40 bet this street)``, ``pot 120 (main 60, side 30, + 30 bet this
    street)``."""
    amounts = [p.amount for p in pots]
    counted = sum(amounts)
    this_street = total - counted if amounts else 0
    parts: list[str] = []
    if len(amounts) > 1:
        parts.append(f"main {money(amounts[0])}")
        sides = [money(a) for a in amounts[1:]]
        parts.append(("side " if len(sides) == 1 else "side pots ") + " + ".join(sides))
    if this_street > 0:
        bet = f"{money(this_street)} bet this street"
        parts.append(f"+ {bet}" if parts else f"{money(counted)} + {bet}")
    text = f"pot {money(total)}"
    return f"{text} ({', '.join(parts)})" if parts else text


def _pots(pots: Iterable[c.Pot]) -> str:
    """The pots as an ActionTaken that closed a betting round reports them."""
    pots = list(pots)
    return pot_text(sum(p.amount for p in pots), pots) if pots else ""


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
    action = msg.action
    if action.kind == c.ACTION_KIND_BRING_IN and not action.amount and view is not None:
        # The bring-in carries no amount: it is what the seat has in front now (the
        # view was updated from the stack change; antes are not counted as bets).
        s = view.seats.get(msg.seat)
        amount = s.bet if s is not None and s.bet else view.config.bring_in
        action = c.Action(kind=action.kind, amount=amount)
    text = f"   {seat_name(view, msg.seat)} {action_text(action)}"
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
    return [f"-- {STREET_WORDS.get(msg.name, msg.name) or 'street ' + str(msg.street)}"]


def _to_act(event: t.TableEvent, view: TableView | None) -> list[str]:
    return [f"   {seat_name(view, event.to_act.seat)} to act"]


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
    who = msg.seat.name or "a player"
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
    "to_act": _to_act,
}


def snapshot_pot(view: TableView) -> int:
    """Every chip in the hand, for a view just loaded from a Snapshot.

    A Snapshot has the pots as at the end of the last betting round and each seat's
    bet on this street, so the pot is their sum.  Before the first round ends it has
    no pot at all: the antes (one from each seat dealt in) are then added from the
    configuration; a dead blind posted on entry (B3) cannot be seen and is missing.
    """
    in_front = sum(s.bet for s in view.seats.values())
    counted = sum(p.amount for p in view.pots)
    if not counted and view.hand_id and not view.hand_over:
        counted = view.config.ante * view.dealt_in
    return max(view.pot_total, counted + in_front)


class EventPrinter:
    """:func:`format_event` for a stream, with player names filled in.

    The table tells every viewer whose turn it is after every action (``ToAct``);
    a line for each would double the output with what the next line says anyway.
    It is printed when it tells something: when a betting round or the draw opens
    (after the cards are dealt or the street starts: in stud the best board, not
    the seat order, decides who goes first) and at a hand's first turn.  The
    viewer's own turn is its ``YourTurn`` (``>> your turn``).

    ``names`` (player id -> name, e.g. from the lobby's ``GetTable``) names the
    seats of a snapshot taken between hands, which carries only player ids.
    ``past``: the events are a finished hand's history, where the viewer's own
    ``YourTurn`` is not "your turn" now but a turn they had, shown with its menu.
    """

    QUIET_AFTER = frozenset(("action_taken", "draw_taken", "to_act", "your_turn"))

    def __init__(
        self,
        names: Mapping[str, str] | None = None,
        hidden: Iterable[str] = (),
        *,
        past: bool = False,
    ) -> None:
        self.names: dict[str, str] = dict(names or {})
        self.hidden = frozenset(hidden)  # event kinds someone else prints (play: your_turn)
        self.past = past
        self.last = ""

    def name_seats(self, view: TableView) -> None:
        """Give the view's unnamed seats the names known for their player ids."""
        for s in view.seats.values():
            if not s.name and s.player_id in self.names:
                s.name = self.names[s.player_id]

    def lines(self, event: t.TableEvent, view: TableView) -> list[str]:
        """The lines for one stream message (``view`` already updated with it)."""
        self.name_seats(view)
        out: list[str] = []
        for inner in unpack(event):
            kind = inner.WhichOneof("event") or ""
            if kind == "seat_changed" and inner.seat_changed.seat.name:
                seat = inner.seat_changed.seat
                self.names[seat.player_id] = seat.name
            if kind == "snapshot":
                view.pot_total = snapshot_pot(view)
                if "your_turn" in self.hidden and view.is_my_turn:
                    # whoever prints the turn prints the table with the menu
                    out += format_event(inner, view)[:1]
                    self.last = kind
                    continue
            quiet = kind == "to_act" and self.last in self.QUIET_AFTER
            if self.past and kind == "your_turn":
                legal = inner.your_turn.legal
                who = seat_name(view, legal.seat or view.my_seat)
                out.append(f"   {who} to act: {legal_text(legal)}")
            elif not quiet and kind not in self.hidden:
                out += format_event(inner, view)
            if kind not in ("pong", "action_rejected"):
                self.last = kind
        return out


def format_view(view: TableView) -> list[str]:
    """The table now: the street, the pot and whose turn it is, then one line per
    seat (your cards shown)."""
    lines: list[str] = []
    head = f"   {street_text(view)}"
    if not view.hand_over and view.hand_id:
        # pot_total: every chip put in (from the stack changes; after a Snapshot,
        # as EventPrinter completes it: see snapshot_pot)
        head += f"   {pot_text(view.pot_total, view.pots)}"
        if view.community_card:
            head += f"   community: {view.community_card}"
        if view.to_act:
            turn = "your turn" if view.to_act == view.my_seat else "to act"
            who = "" if turn == "your turn" else f"{seat_name(view, view.to_act)} "
            head += f"   {who}{turn}"
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
        label = s.name or "-"
        line = f" {mark}{n:>2} {label:<14} {money(s.stack):>9}  {' '.join(cards)}"
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
