"""Cards on the wire: two-character strings ("As", "Td") to library ints and back."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from poker_rules.cards import Card, card_str, parse_card

from .errors import WireError


def one_card(text: str, field: str) -> Card:
    """Parse one card; the error names the field and the accepted form."""
    if len(text) != 2:
        shown = text if len(text) <= 8 else text[:8] + "..."
        raise WireError(f"{field}: a card is two characters like 'As' or 'Td', got {shown!r}")
    try:
        return parse_card(text)
    except ValueError as error:
        raise WireError(f"{field}: {error}") from None


def card_list(
    texts: Sequence[str], field: str, *, most: int, fewest: int = 0, distinct: bool = True
) -> list[Card]:
    """Parse a repeated card field of ``fewest..most`` cards (distinct by default)."""
    if not fewest <= len(texts) <= most:
        raise WireError(f"{field} must hold {fewest}..{most} cards, got {len(texts)}")
    cards = [one_card(t, f"{field}[{i}]") for i, t in enumerate(texts)]
    if distinct and len(set(cards)) != len(cards):
        # The positions, not the card: a refused call's message can reach a log
        # line (the table logs why it voided a hand), and no card is ever logged.
        first: dict[Card, int] = {}
        for i, c in enumerate(cards):
            if c in first:
                raise WireError(f"{field}[{i}] repeats {field}[{first[c]}]: cards are distinct")
            first[c] = i
    return cards


def card_strs(cards: Iterable[Card]) -> list[str]:
    """Library cards to their wire strings."""
    return [card_str(c) for c in cards]
