"""Cards, ranks, suits and decks.

A card is a plain ``int`` in ``0..51``: ``rank_index * 4 + suit``.  ``rank_index`` runs
``0..12`` for deuce..ace, and suits are numbered in the bring-in/odd-chip order of
rule G2 (clubs 0 < diamonds 1 < hearts 2 < spades 3).  With that encoding, comparing
two card ints compares "rank, then suit" exactly as S5 and S13 need, and the hot
evaluators can index lookup tables directly.  Strings such as ``"As"`` and ``"Tc"`` are
only for people, protos and hand histories.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

Card = int
"""A card: ``rank_index * 4 + suit`` (see module docstring)."""

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "cdhs"  # G2 order, lowest first: clubs, diamonds, hearts, spades

CLUBS: Final = 0
DIAMONDS: Final = 1
HEARTS: Final = 2
SPADES: Final = 3

# Rank indexes (0 = deuce ... 12 = ace).
TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)


def make_card(rank_index: int, suit: int) -> Card:
    """Build a card from a rank index (0 = deuce .. 12 = ace) and a suit (G2 order)."""
    if not (0 <= rank_index <= 12 and 0 <= suit <= 3):
        raise ValueError(f"no such card: rank index {rank_index}, suit {suit}")
    return rank_index * 4 + suit


def rank_of(card: Card) -> int:
    """Rank index of a card, 0 (deuce) .. 12 (ace)."""
    return card >> 2


def suit_of(card: Card) -> int:
    """Suit of a card in G2 order: clubs 0, diamonds 1, hearts 2, spades 3."""
    return card & 3


def parse_card(text: str) -> Card:
    """Parse ``"As"``, ``"td"``, ``"7c"`` (rank then suit, case-insensitive rank).

    A card is ``rank_index * 4 + suit``: ints order by rank, then by suit (G2:
    clubs, diamonds, hearts, spades).

    >>> parse_card("2c"), parse_card("2d"), parse_card("As")
    (0, 1, 51)
    >>> parse_card("Xx")
    Traceback (most recent call last):
    ...
    ValueError: unknown card 'Xx': rank must be one of 23456789TJQKA, suit one of cdhs
    """
    if len(text) != 2:
        raise ValueError(f"a card is two characters like 'As' or 'Tc', got {text!r}")
    rank = RANK_CHARS.find(text[0].upper())
    suit = SUIT_CHARS.find(text[1].lower())
    if rank < 0 or suit < 0:
        raise ValueError(
            f"unknown card {text!r}: rank must be one of {RANK_CHARS}, suit one of {SUIT_CHARS}"
        )
    return rank * 4 + suit


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"As Kd 7c"``, ``"AsKd7c"`` or a list of two-character strings.

    >>> parse_cards("As Kd 7c") == parse_cards("AsKd7c") == parse_cards(["As", "Kd", "7c"])
    True
    >>> cards_str(parse_cards("td 2C"))
    'Td2c'
    """
    if isinstance(text, str):
        compact = text.replace(" ", "").replace(",", "")
        if len(compact) % 2:
            raise ValueError(f"cards are two characters each, got {text!r}")
        return [parse_card(compact[i : i + 2]) for i in range(0, len(compact), 2)]
    return [parse_card(t) for t in text]


def card_str(card: Card) -> str:
    """``"As"`` style name of a card."""
    if not 0 <= card < 52:
        raise ValueError(f"not a card: {card}")
    return RANK_CHARS[card >> 2] + SUIT_CHARS[card & 3]


def cards_str(cards: Iterable[Card]) -> str:
    """Cards joined without separators, as PHH writes them (``"AsKd7c"``)."""
    return "".join(card_str(c) for c in cards)


def standard_deck() -> list[Card]:
    """The 52-card deck of the stud games (G1), in a fixed order (2c, 2d, ... As)."""
    return list(range(52))


def short_deck(with_sixes: bool = False) -> list[Card]:
    """The 7-A draw deck (G1): 32 cards 7..A, or 36 with the four sixes added."""
    lowest = SIX if with_sixes else SEVEN
    return list(range(lowest * 4, 52))


def highest_card(cards: Sequence[Card]) -> Card:
    """The highest card by rank then suit (S13 odd chip: all of a player's cards count)."""
    return max(cards)


def lowest_card_ace_low(cards: Sequence[Card]) -> tuple[int, int]:
    """Sort key of a player's lowest card for the low odd chip (H5): ace low, clubs lowest.

    Returns ``(low_rank, suit)`` where ``low_rank`` counts the ace as 0.
    """
    return min(((0 if c >> 2 == ACE else (c >> 2) + 1), c & 3) for c in cards)
