"""Reference bots: :class:`RandomBot`, :class:`CallingStation`, :class:`HandStrengthBot`.

Each decision is a handful of list operations and at most one evaluator lookup, so
that one process can run a hundred bots against a table service.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from poker_rules.cards import ACE, EIGHT, SIX, Card
from poker_rules.evaluate import (
    HandCategory,
    ShortDeckCategory,
    category_of,
    high_rank,
    low_rank,
    short_deck_category_of,
    short_deck_rank,
)

from .sdk import (
    AGGRESSIVE,
    BRING_IN,
    CALL,
    CHECK,
    DISCARD,
    FOLD,
    Action,
    Bot,
    LegalActions,
    choose,
    legal_kinds,
    passive,
    safest,
)
from .view import TableView, card_int

__all__ = [
    "BOT_KINDS",
    "CallingStation",
    "HandStrengthBot",
    "RandomBot",
    "draw_discards",
    "make_bot",
    "strength",
]


class RandomBot:
    """Uniform over the legal kinds; a random legal amount (often the minimum or
    all-in, so that side pots happen); a random subset of its cards to discard."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return "RandomBot()"

    def act(self, view: TableView, legal: LegalActions) -> Action:
        rng = self.rng
        kinds = legal_kinds(legal)
        if not kinds:
            return safest(legal)
        kind = kinds[int(rng.random() * len(kinds))]
        if kind in AGGRESSIVE:
            if legal.to_choices:
                return Action(kind=kind, amount=rng.choice(legal.to_choices))
            roll = rng.random()
            if roll < 0.3:
                amount = legal.min_to
            elif roll < 0.4:
                amount = legal.max_to
            else:
                amount = rng.randint(legal.min_to, legal.max_to)
            return Action(kind=kind, amount=amount)
        if kind == DISCARD:
            mine = view.my_down_cards
            k = rng.randint(0, min(legal.max_discards, len(mine)))
            return Action(kind=DISCARD, cards=rng.sample(mine, k))
        return Action(kind=kind)


class CallingStation:
    """Checks, else calls (brings in when it must); never bets or raises; stands pat."""

    def __repr__(self) -> str:
        return "CallingStation()"

    def act(self, view: TableView, legal: LegalActions) -> Action:
        return passive(legal)


# ---------------------------------------------------------------------- strength

_HIGH_BASE = {
    HandCategory.HIGH_CARD: 0.12,
    HandCategory.PAIR: 0.3,
    HandCategory.TWO_PAIR: 0.58,
    HandCategory.THREE_OF_A_KIND: 0.76,
    HandCategory.STRAIGHT: 0.84,
    HandCategory.FLUSH: 0.88,
    HandCategory.FULL_HOUSE: 0.94,
    HandCategory.FOUR_OF_A_KIND: 0.98,
    HandCategory.STRAIGHT_FLUSH: 1.0,
}
_DRAW_BASE = {
    ShortDeckCategory.HIGH_CARD: 0.1,
    ShortDeckCategory.PAIR: 0.25,
    ShortDeckCategory.TWO_PAIR: 0.55,
    ShortDeckCategory.THREE_OF_A_KIND: 0.72,
    ShortDeckCategory.STRAIGHT: 0.82,
    ShortDeckCategory.FULL_HOUSE: 0.88,
    ShortDeckCategory.FLUSH: 0.92,
    ShortDeckCategory.FOUR_OF_A_KIND: 0.97,
    ShortDeckCategory.STRAIGHT_FLUSH: 1.0,
}


def _counts(cards: Sequence[Card]) -> tuple[list[int], list[int]]:
    ranks = [0] * 13
    suits = [0] * 4
    for c in cards:
        ranks[c >> 2] += 1
        suits[c & 3] += 1
    return ranks, suits


def _partial_strength(cards: Sequence[Card]) -> float:
    """Fewer than five cards (third and fourth street): pairs, trips, suits, high cards."""
    ranks, suits = _counts(cards)
    best = max(ranks)
    pairs = [r for r in range(13) if ranks[r] >= 2]
    if best >= 3:
        s = 0.8
    elif len(pairs) >= 2:
        s = 0.6
    elif pairs:
        s = 0.3 + 0.2 * pairs[0] / 12
    else:
        s = 0.1 + 0.15 * max((c >> 2 for c in cards), default=0) / 12
    if max(suits) >= 3:
        s += 0.1  # three or four to a flush
    return min(s, 1.0)


def _high_strength(cards: Sequence[Card]) -> float:
    if len(cards) < 5:
        return _partial_strength(cards)
    cat = category_of(high_rank(cards))
    s = _HIGH_BASE[cat]
    ranks, suits = _counts(cards)
    if cat == HandCategory.PAIR:
        s += 0.2 * max(r for r in range(13) if ranks[r] >= 2) / 12
    elif cat == HandCategory.TWO_PAIR:
        s += 0.1 * max(r for r in range(13) if ranks[r] >= 2) / 12
    if len(cards) < 7 and cat < HandCategory.STRAIGHT and max(suits) >= 4:
        s += 0.1  # a flush draw with cards to come
    return min(s, 1.0)


def _low_strength(cards: Sequence[Card]) -> float:
    """Eight-or-better low potential (Stud Hi-Lo)."""
    if len(cards) >= 5:
        value = low_rank(cards)
        if value is not None:
            return 0.45 + 0.5 * value / 56
    distinct = len({r for r in (c >> 2 for c in cards) if r == ACE or r <= EIGHT})
    cards_to_come = 7 - len(cards)
    needed = 5 - distinct
    if needed <= 0:
        return 0.45
    if needed > cards_to_come:
        return 0.0
    if len(cards) <= 4 and distinct == len(cards):
        return 0.35 + 0.07 * distinct  # three low cards: 0.56, four: 0.63
    return 0.3 if needed == 1 else 0.15


def _draw_strength(cards: Sequence[Card], with_sixes: bool, before_draw: bool) -> float:
    if len(cards) != 5:
        return _partial_strength(cards)
    try:
        cat = short_deck_category_of(short_deck_rank(cards, with_sixes), with_sixes)
    except ValueError:
        return _partial_strength(cards)
    s = _DRAW_BASE[cat]
    ranks, suits = _counts(cards)
    if cat == ShortDeckCategory.PAIR:
        s += 0.2 * max(r for r in range(13) if ranks[r] >= 2) / 12
    elif cat == ShortDeckCategory.HIGH_CARD:
        s += 0.1 * max(c >> 2 for c in cards) / 12
    if before_draw and cat < ShortDeckCategory.STRAIGHT and max(suits) == 4:
        s += 0.12
    return min(s, 1.0)


def strength(view: TableView, cards: Sequence[Card] | None = None) -> float:
    """A 0..1 guess of how good the viewer's known cards are for this game."""
    mine = view.my_card_ints if cards is None else list(cards)
    if not mine:
        return 0.0
    if view.is_draw:
        sixes = any(c >> 2 == SIX for c in mine) or view.dealt_in == 5
        before_draw = not any(s.draw_count is not None for s in view.seats.values())
        return _draw_strength(mine, sixes, before_draw and view.street <= 1)
    high = _high_strength(mine)
    if not view.is_hilo:
        return high
    low = _low_strength(mine)
    s = max(high, low)
    if high >= 0.45 and low >= 0.45:
        s += 0.1  # both ways: a scoop
    return min(s, 1.0)


def _straight_windows(with_sixes: bool) -> list[frozenset[int]]:
    low = SIX if with_sixes else SIX + 1  # the deck's lowest rank: 6 or 7
    windows = [frozenset(range(r, r + 5)) for r in range(low, ACE - 3)]
    windows.append(frozenset((ACE, *range(low, low + 4))))  # the low-ace straight
    return windows


_WINDOWS = {False: _straight_windows(False), True: _straight_windows(True)}


def draw_discards(cards: Sequence[str], with_sixes: bool = False) -> list[str]:
    """The discards of a 7-A hand: keep made hands (straight or better), pairs, trips,
    two pair, four to a flush or a straight; else keep only the highest card."""
    if len(cards) != 5:
        return []
    ints = [card_int(c) for c in cards]
    ranks, suits = _counts(ints)
    try:
        cat = short_deck_category_of(short_deck_rank(ints, with_sixes), with_sixes)
    except ValueError:
        cat = ShortDeckCategory.HIGH_CARD
    if cat >= ShortDeckCategory.STRAIGHT:
        return []
    if cat >= ShortDeckCategory.PAIR:
        return [c for c, i in zip(cards, ints, strict=True) if ranks[i >> 2] < 2]
    flush_suit = next((s for s in range(4) if suits[s] == 4), None)
    if flush_suit is not None:
        return [c for c, i in zip(cards, ints, strict=True) if i & 3 != flush_suit]
    present = {i >> 2 for i in ints}
    for window in _WINDOWS[with_sixes]:
        if len(present & window) == 4:
            return [c for c, i in zip(cards, ints, strict=True) if i >> 2 not in window]
    top = max(ints)
    return [c for c, i in zip(cards, ints, strict=True) if i != top]


class HandStrengthBot:
    """Bets and raises strong made hands, calls medium ones (and cheap prices), folds
    weak ones facing a bet; draws to pairs, trips and four-card flushes and straights.
    In Stud Hi-Lo a good low counts as much as a good high."""

    def __init__(self, strong: float = 0.7, medium: float = 0.4) -> None:
        self.strong = strong
        self.medium = medium

    def __repr__(self) -> str:
        return "HandStrengthBot()"

    def act(self, view: TableView, legal: LegalActions) -> Action:
        kinds = legal_kinds(legal)
        if DISCARD in kinds:
            mine = view.my_down_cards
            sixes = any(c[0] == "6" for c in mine) or view.dealt_in == 5
            discards = draw_discards(mine, sixes)
            discards = sorted(discards, key=card_int)[: legal.max_discards]
            return choose(legal, DISCARD, cards=discards)
        s = strength(view)
        can_raise = legal.raise_kind in AGGRESSIVE and legal.raise_kind in kinds
        if BRING_IN in kinds:
            if s >= self.strong and can_raise:
                return choose(legal, legal.raise_kind)
            return choose(legal, BRING_IN)
        if s >= self.strong and can_raise:
            call = legal.call_amount if legal.HasField("call_amount") else 0
            big_call = call * 2 > max(view.pot_total, 1)
            if s >= 0.9 or not big_call:
                return choose(legal, legal.raise_kind, self._size(view, s))
        if legal.can_check:
            return choose(legal, CHECK)
        if CALL in kinds:
            call = legal.call_amount
            cheap = call * 5 <= view.pot_total and s >= 0.2
            if s >= self.medium or cheap:
                return choose(legal, CALL)
        if FOLD in kinds:
            return choose(legal, FOLD)
        return passive(legal)

    @staticmethod
    def _size(view: TableView, s: float) -> int:
        """Pot and no limit: raise by about half the pot to the whole pot."""
        return view.current_bet + int(max(view.pot_total, 1) * (0.5 + 0.5 * s))


BOT_KINDS = ("random", "station", "strength")


def make_bot(kind: str, seed: int | None = None) -> Bot:
    """A reference bot by name: ``random``, ``station`` or ``strength``."""
    if kind == "random":
        return RandomBot(seed)
    if kind == "station":
        return CallingStation()
    if kind == "strength":
        return HandStrengthBot()
    raise ValueError(f"unknown bot kind {kind!r}; known: {', '.join(BOT_KINDS)}")
