"""A player's hand history in PHH, written from the events that player received.

Why from the events: they are the viewer's view, already computed by the one
function that decides what a seat may see (``services/table/facts.py``), so the PHH
text can hold no card the viewer was not shown; a card nobody showed this viewer is
``??``, as PHH writes unknown cards.  The house record (every card, burns on
request) is ``poker_rules.phh.to_phh`` of the replayed hand; this is what a player,
a spectator or a bot-research pipeline gets with ``GetHandHistory``.

The dialect is the library's (``poker_rules.phh``: same variants, fields, user
fields and comments), written by the same ``write_phh``:

- players ``p1``..``pN`` in dealing order (``HandStarted.seats``): stud from the
  first seat dealt, draw from the first seat left of the button, so heads-up the
  blinds are reversed as PHH expects (D3);
- ``antes``/``blinds_or_straddles`` from ``HandStarted.posts``; dead money (B3, B4)
  is in the pot but nobody's bet, which PHH cannot say: ``_dead_blinds``;
- cards dealt are grouped per player and street (``d dh p1 ????Jc``), the stud
  community card (S11) is ``d db``; the draw is written as PHH orders it, every
  discard (``pN sd``) first and then the new cards, ``??`` for what the viewer did
  not see (a discard's count is public, D7);
- timeouts (S10) are comments on the forced action and listed in ``_timeouts``; an
  all-in protection timeout (S10), which has no action and no PHH verb, is a
  commentary-only line, as in the house record (it was once written ``pN cbr 0``,
  which PokerKit refuses and then "repairs" by dealing ``??`` cards of its own: its
  ``KeyError: Rank.UNKNOWN`` opening the next street's betting);
- the 7-A draw under its own variant codes (``poker_rules.phh.DRAW_VARIANTS``), which
  a reader that does not know the game refuses rather than paying the wrong hand;
- the showdown in show order (S12): ``pN sm CARDS``, or ``pN sm`` with a comment for
  a hand mucked and not shown to this viewer;
- ``finishing_stacks`` and ``winnings`` when the hand finished; a voided hand has
  ``_voided = true`` and the stacks as they were before it.
"""

from __future__ import annotations

from collections.abc import Sequence

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_rules.config import Structure
from poker_rules.phh import (
    DRAW_VARIANTS,
    STUD_HILO_VARIANT,
    STUD_VARIANT,
    PhhValue,
    draw_bet_fields,
    write_phh,
)

UNKNOWN = "??"

_GAMES = {
    common.GAME_STUD: "stud",
    common.GAME_STUD_HILO: "stud_hilo",
    common.GAME_DRAW_7A: "draw_7a",
}
_STRUCTURES = {
    common.STRUCTURE_UNSPECIFIED: "fixed_limit",
    common.STRUCTURE_FIXED_LIMIT: "fixed_limit",
    common.STRUCTURE_POT_LIMIT: "pot_limit",
    common.STRUCTURE_NO_LIMIT: "no_limit",
}
_STREETS = {
    "third": "third street",
    "fourth": "fourth street",
    "fifth": "fifth street",
    "sixth": "sixth street",
    "seventh": "seventh street",
    "pre_draw": "before the draw",
    "draw": "the draw",
    "post_draw": "after the draw",
}


def _action_text(player: str, action: common.Action) -> str:
    kind = action.kind
    if kind == common.ACTION_KIND_BRING_IN:
        return f"{player} pb"
    if kind == common.ACTION_KIND_FOLD:
        return f"{player} f"
    if kind in (common.ACTION_KIND_CHECK, common.ACTION_KIND_CALL):
        return f"{player} cc"
    return f"{player} cbr {action.amount}"  # COMPLETE, BET, RAISE: a *to* amount


class _Writer:
    """The ``(comment, action)`` pairs of the ``actions`` field, as events arrive."""

    def __init__(self, players: dict[int, str]) -> None:
        self.players = players
        self.out: list[tuple[str, str]] = []
        self.comment = ""
        self.dealt: dict[int, list[str]] = {}  # seat -> cards of the current deal
        self.draw_deals: list[str] = []  # the draw's new cards, after every discard
        self.held: dict[int, list[str]] = {}  # stud: seat -> every card dealt so far

    def emit(self, text: str) -> None:
        self.out.append((self.comment, text))
        self.comment = ""

    def flush(self, *, draw_goes_on: bool = False) -> None:
        """Write the pending deals; the draw's new cards wait until the last
        discard (``draw_goes_on``: another discard follows)."""
        for seat, cards in self.dealt.items():
            self.emit(f"d dh {self.players[seat]} {''.join(cards)}")
        self.dealt.clear()
        if draw_goes_on:
            return
        for line in self.draw_deals:
            self.emit(line)
        self.draw_deals.clear()

    def cards_dealt(self, dealt: tpb.CardsDealt) -> None:
        if dealt.community_card:
            self.flush()
            self.emit(f"d db {dealt.community_card} # community card, every player's (S11)")
            return
        cards = list(dealt.cards) or [UNKNOWN] * dealt.hidden_count
        self.dealt.setdefault(dealt.seat, []).extend(cards)
        self.held.setdefault(dealt.seat, []).extend(cards)

    def held_by(self, seat: int, shown: Sequence[str]) -> list[str]:
        """The cards ``seat`` holds so far as written, each ``??`` replaced by the
        next of its down cards in ``shown`` (the showdown's cards, down cards
        first in the order dealt: ``facts.PlayerCards.all``); ``??`` stays where
        this viewer never saw them."""
        held = self.held.get(seat, [])
        known = set(held)
        down = iter([c for c in shown if c not in known])
        return [next(down, UNKNOWN) if c == UNKNOWN else c for c in held]

    def draw_taken(self, draw: tpb.DrawTaken) -> None:
        player = self.players[draw.seat]
        discarded = "".join(draw.discarded) or UNKNOWN * draw.count
        self.emit(f"{player} sd {discarded}" if draw.count else f"{player} sd")
        if draw.count:
            received = "".join(draw.received) or UNKNOWN * draw.count
            self.draw_deals.append(f"d dh {player} {received}")


class _AllIns:
    """Who is still in and who is all-in, from the posts and each action's stack
    after it (PHH shows the hands when all-ins close the betting, a moment the
    events do not mark)."""

    def __init__(self, started: tpb.HandStarted) -> None:
        self.stacks = {s.seat: s.stack for s in started.seats}
        for post in started.posts:
            if post.seat in self.stacks:
                self.stacks[post.seat] -= post.amount
        self.folded: set[int] = set()
        self.protected: set[int] = set()  # all-in protection (S10): acts no more

    def action(self, taken: tpb.ActionTaken) -> None:
        self.stacks[taken.seat] = taken.stack
        if taken.action.kind == common.ACTION_KIND_FOLD:
            self.folded.add(taken.seat)
        elif taken.action.kind == common.ACTION_KIND_UNSPECIFIED and taken.timeout:
            self.protected.add(taken.seat)  # S10: all in for what is committed

    def alive(self) -> list[int]:
        return [seat for seat in self.stacks if seat not in self.folded]

    def betting_closed(self) -> bool:
        """Two or more players left and at most one of them can still bet."""
        alive = self.alive()
        able = [seat for seat in alive if self.stacks[seat] > 0 and seat not in self.protected]
        return len(alive) >= 2 and len(able) <= 1


def history_phh(
    config: common.GameConfig,
    events: Sequence[tpb.TableEvent],
    *,
    hand_id: str = "",
    table_id: str = "",
) -> str:
    """The hand of ``events`` (one viewer's, in order, as ``HandHistory.events``)
    in PHH; empty when the events hold no ``HandStarted``."""
    started = next((e.hand_started for e in events if e.HasField("hand_started")), None)
    if started is None:
        return ""
    seats = [s.seat for s in started.seats]
    n = len(seats)
    index = {seat: i for i, seat in enumerate(seats)}
    players = {seat: f"p{i + 1}" for i, seat in enumerate(seats)}
    antes, blinds, dead = [0] * n, [0] * n, [0] * n
    for post in started.posts:
        into = {"ante": antes, "blind": blinds, "dead": dead}.get(post.kind)
        if into is not None and post.seat in index:
            into[index[post.seat]] += post.amount

    fields: dict[str, PhhValue] = {}
    user: dict[str, PhhValue] = {"_game": _GAMES.get(config.game, "unknown")}
    stud = config.game in (common.GAME_STUD, common.GAME_STUD_HILO)
    structure = Structure(_STRUCTURES.get(config.structure, "fixed_limit"))
    if stud:
        fields["variant"] = (
            STUD_HILO_VARIANT if config.game == common.GAME_STUD_HILO else STUD_VARIANT
        )
    else:
        fields["variant"] = DRAW_VARIANTS[structure]
    fields["ante_trimming_status"] = True
    fields["antes"] = list(antes)
    if stud:
        fields["bring_in"] = config.bring_in
        fields["small_bet"] = config.small_bet
        fields["big_bet"] = config.big_bet
        user["_structure"] = "fixed_limit"
    else:
        live = list(blinds)
        if n == 2:
            live.reverse()  # PHH reverses the blinds heads-up; D3 already did
        fields["blinds_or_straddles"] = list(live)
        fields.update(draw_bet_fields(structure, config.small_bet, config.big_bet))
        user["_structure"] = structure.value
        user["_small_bet"] = config.small_bet
        user["_big_bet"] = config.big_bet
        user["_button_seat"] = started.button_seat
        if started.button_dead:
            user["_button_dead"] = True  # B1: nobody held it
        if any(dead):
            user["_dead_blinds"] = list(dead)  # B3/B4: in the pot, part of nobody's bet
    fields["starting_stacks"] = [s.stack for s in started.seats]

    writer = _Writer(players)
    chips = _AllIns(started)
    shown_at_end = {
        h.seat: list(h.cards)
        for e in events
        if e.HasField("showdown")
        for h in e.showdown.hands
        if h.cards
    }
    shown_early = False
    timeouts: list[int] = []
    finished: tpb.HandFinished | None = None
    for event in events:
        kind = event.WhichOneof("event")
        if kind == "cards_dealt":
            writer.cards_dealt(event.cards_dealt)
            continue
        if kind in ("your_turn", "to_act"):
            continue  # whose turn it was: implied by the actions
        writer.flush(draw_goes_on=kind == "draw_taken")
        if kind == "street_started":
            name = event.street_started.name
            if stud and not shown_early and chips.betting_closed():
                # As the house record does (poker_rules.phh): PHH, and PokerKit,
                # turn the hands up once all-ins close the betting, before the rest
                # is dealt (S12), with the cards held then.
                shown_early = True
                for seat in chips.alive():
                    held = writer.held_by(seat, shown_at_end.get(seat, []))
                    writer.emit(f"{players[seat]} sm {''.join(held)} # all-in (S12)")
            writer.comment = _STREETS.get(name, name)
        elif kind == "action_taken":
            taken = event.action_taken
            chips.action(taken)
            if taken.action.kind == common.ACTION_KIND_DISCARD:
                continue  # written from its DrawTaken, with the public count
            if taken.action.kind == common.ACTION_KIND_UNSPECIFIED:
                # S10 all-in protection: no action was applied, so no PHH verb (the
                # house record's commentary); the player acts no more this hand.
                writer.emit(
                    f"# {players[taken.seat]} timeout: all-in protection (S10), plays on "
                    "for the chips already committed"
                )
                timeouts.append(index[taken.seat] + 1)
                continue
            text = _action_text(players[taken.seat], taken.action)
            if taken.timeout:
                text += " # timeout (S10)"
                timeouts.append(index[taken.seat] + 1)
            writer.emit(text)
        elif kind == "draw_taken":
            writer.draw_taken(event.draw_taken)
        elif kind == "showdown":
            for shown in event.showdown.hands:
                player = players[shown.seat]
                if shown.cards:
                    note = " # mucked, shown to the hand's players (S12)" if shown.mucked else ""
                    writer.emit(f"{player} sm {''.join(shown.cards)}{note}")
                else:
                    writer.emit(f"{player} sm # mucks (S12)")
        elif kind == "hand_finished":
            finished = event.hand_finished
    writer.flush()
    fields["actions"] = [action for _, action in writer.out]
    if hand_id:
        fields["hand"] = hand_id
    fields["seats"] = list(seats)
    fields["players"] = [s.name or s.player_id for s in started.seats]
    if finished is not None:
        final = {s.seat: s.stack for s in finished.seats}
        if finished.voided:
            user["_voided"] = True
        fields["finishing_stacks"] = [final.get(seat, 0) for seat in seats]
        winnings = [0] * n
        for award in finished.awards:
            if award.seat in index:
                winnings[index[award.seat]] += award.amount
        fields["winnings"] = list(winnings)
    if timeouts:
        user["_timeouts"] = list(timeouts)
    if table_id:
        user["_table_id"] = table_id
    fields.update(user)
    return write_phh(fields, writer.out)


__all__ = ["UNKNOWN", "history_phh"]
