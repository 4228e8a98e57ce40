"""The dealer's deck: shuffle, burn, deal, and the reshuffles the rules allow.

A ``Deck`` is shuffled once when the hand starts (G4): from the operating system's
CSPRNG by default, or from an explicit seed for replay and tests.  The order is kept
(``order``) so a dealer can commit to it before the hand and reveal it afterwards;
nothing in this module ever hands it to a player.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence

from .cards import Card
from .errors import DeckExhaustedError


class Deck:
    """A shuffled stub plus the burned cards.

    The next card to deal is at the end of ``_stub`` so dealing is a ``list.pop``.
    """

    __slots__ = ("_rng", "_stub", "burned", "order", "reshuffles")

    def __init__(
        self,
        cards: Sequence[Card],
        seed: int | None = None,
        *,
        preset: bool = False,
        rng: random.Random | None = None,
    ) -> None:
        """Shuffle ``cards``.  ``seed`` gives a reproducible shuffle; ``preset=True``
        keeps ``cards`` in the given order (first element dealt first), for
        certification scenarios such as the river shortage.  ``rng`` overrides both
        for the reshuffles that happen mid-hand.
        """
        if rng is not None:
            self._rng: random.Random = rng
        elif seed is None:
            self._rng = secrets.SystemRandom()
        else:
            self._rng = random.Random(seed)
        order = list(cards)
        if len(set(order)) != len(order):
            raise ValueError("a deck cannot hold the same card twice")
        if not preset:
            self._rng.shuffle(order)
        self.order: tuple[Card, ...] = tuple(order)
        self._stub: list[Card] = order[::-1]
        self.burned: list[Card] = []
        self.reshuffles = 0

    def __len__(self) -> int:
        return len(self._stub)

    @property
    def remaining(self) -> int:
        """Cards left in the stub."""
        return len(self._stub)

    def deal(self) -> Card:
        """Deal the top card of the stub."""
        if not self._stub:
            raise DeckExhaustedError("the stub is empty")
        return self._stub.pop()

    def deal_many(self, n: int) -> list[Card]:
        """Deal ``n`` cards from the top of the stub, in order."""
        if n > len(self._stub):
            raise DeckExhaustedError(f"the stub holds {len(self._stub)} cards, {n} needed")
        stub = self._stub
        return [stub.pop() for _ in range(n)]

    def burn(self) -> Card:
        """Burn the top card (S4, D6).  Burned cards are never shown to players (G4)."""
        card = self.deal()
        self.burned.append(card)
        return card

    def shuffle_into_stub(self, extra: Iterable[Card], *, include_burns: bool) -> None:
        """Gather the stub with ``extra`` cards (and the burns), shuffle, new stub.

        This is the reshuffle of S11 (burns + stub) and of D6 (stub + burns +
        discards of the players who already drew).  Folded cards are never passed
        in: mucked cards never return to play (G4).
        """
        pool = list(self._stub)
        pool.extend(extra)
        if include_burns:
            pool.extend(self.burned)
            self.burned = []
        self._rng.shuffle(pool)
        self._stub = pool
        self.reshuffles += 1
