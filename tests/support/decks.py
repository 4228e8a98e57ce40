"""Preset deck orders from "who gets which card" (tests only).

:func:`stud_order` and :func:`draw_order` turn the cards each player should get
into the dealer's preset order (first dealt first), filling burns and the rest of
the deck from the unused cards, so that a test can script a hand's deal.
"""

from __future__ import annotations

from collections.abc import Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"  # G2 order, clubs lowest
STUD_DECK = [r + s for r in RANKS for s in SUITS]
SHORT_DECK = [r + s for r in "789TJQKA" for s in SUITS]  # G1: 7-A, 32 cards
SHORT_DECK_SIXES = [r + s for r in "6789TJQKA" for s in SUITS]  # G1: five players, 36


def _complete(prefix: Sequence[str | None], deck: Sequence[str]) -> list[str]:
    """``prefix`` with every ``None`` (a burn or a card nobody cares about) and the
    tail filled from the unused cards of ``deck``, in deck order."""
    used = [c for c in prefix if c is not None]
    if len(set(used)) != len(used):
        raise ValueError(f"a card is used twice: {used}")
    strangers = set(used) - set(deck)
    if strangers:
        raise ValueError(f"not in this deck: {sorted(strangers)}")
    spare = iter([c for c in deck if c not in set(used)])
    order = [c if c is not None else next(spare) for c in prefix]
    order.extend(spare)
    return order


def stud_order(
    third: Sequence[tuple[str, str, str]],
    streets: Sequence[Sequence[str]] = (),
    river: Sequence[str] = (),
    burns: Sequence[str] = (),
) -> list[str]:
    """A 52-card stud preset order.

    ``third[i]`` is (down, down, door) of the i-th player dealt in (seat order from
    seat 1); ``streets`` are fourth, fifth and sixth street, each the upcards of the
    players still in, in seat order; ``river`` the seventh-street down cards (a
    normal river: burn one, one each).  Burns come from ``burns`` in order, then
    from the unused cards.  No burn before third street (S4 default).
    """
    n = len(third)
    prefix: list[str | None] = [third[k % n][k // n] for k in range(3 * n)]
    burn = iter(burns)
    for street in (*streets, *([river] if river else [])):
        prefix.append(next(burn, None))
        prefix.extend(street)
    return _complete(prefix, STUD_DECK)


def draw_order(
    hands: Sequence[Sequence[str]],
    stub: Sequence[str] = (),
    burn: str | None = None,
    sixes: bool = False,
) -> list[str]:
    """A 7-A preset order: ``hands[i]`` are the five cards of the i-th player in
    dealing order (from the left of the button, D4), dealt one at a time round the
    table; then the burn before the draw (D6) and ``stub``, the cards the draws
    take in order.  ``sixes``: the 36-card deck of five players (G1)."""
    n = len(hands)
    prefix: list[str | None] = [hands[k % n][k // n] for k in range(5 * n)]
    prefix.append(burn)
    prefix.extend(stub)
    return _complete(prefix, SHORT_DECK_SIXES if sixes else SHORT_DECK)
