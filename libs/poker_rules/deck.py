"""The dealer's deck: shuffle, burn, deal, and the reshuffles the rules allow.

A ``Deck`` is shuffled once when the hand starts (G4): from the operating system's
CSPRNG by default, or from an explicit seed for replay and tests.  The order is kept
(``order``) so a dealer can commit to it before the hand and reveal it afterwards;
nothing in this module ever hands it to a player.
"""

from __future__ import annotations

import hashlib
import random
import secrets
import struct
from collections.abc import Iterable, Sequence

from .cards import Card
from .config import RiverShortage
from .errors import DeckExhaustedError

_WORD_BITS = 62  # fits mypyc's unboxed ints, so the arithmetic below stays native
_WORD_LIMIT = 1 << _WORD_BITS
_RADIX_GROUPS: dict[int, list[tuple[list[int], int]]] = {}


def _radix_groups(n: int) -> list[tuple[list[int], int]]:
    """The radices ``n, n-1, .., 2`` of a Fisher-Yates shuffle, grouped so that
    each group's product (the number of outcomes it covers) fits in one word."""
    groups = _RADIX_GROUPS.get(n)
    if groups is None:
        groups = []
        radices: list[int] = []
        product = 1
        for k in range(n, 1, -1):
            if product * k >= _WORD_LIMIT:
                groups.append((radices, product))
                radices, product = [], 1
            radices.append(k)
            product *= k
        if radices:
            groups.append((radices, product))
        _RADIX_GROUPS[n] = groups
    return groups


class _Words:
    """Uniform random 62-bit words: from the CSPRNG, or from SHA-512 of a seed."""

    def __init__(self, seed: int | None) -> None:
        self.seed = seed
        self.block = 0
        self.buffer: list[int] = []

    def next(self) -> int:
        if not self.buffer:
            if self.seed is None:
                raw = secrets.token_bytes(64)
            else:
                raw = hashlib.sha512(f"deck:{self.seed}:{self.block}".encode()).digest()
                self.block += 1
            self.buffer = [w >> 2 for w in struct.unpack("<8Q", raw)]
        return self.buffer.pop()


def shuffled(cards: Sequence[Card], seed: int | None) -> list[Card]:
    """A uniformly random order of ``cards`` (G4): a Fisher-Yates shuffle whose
    choices come from a few machine words rather than one generator call per card.

    Each group of choices is one uniform number below the product of its radices,
    drawn by rejection (never by a biased modulo), then split digit by digit.  From
    the CSPRNG by default; from a seed, the same order every time (replay, tests).
    """
    order = list(cards)
    words = _Words(seed)
    top = len(order) - 1
    for radices, product in _radix_groups(len(order)):
        zone = _WORD_LIMIT - _WORD_LIMIT % product  # largest multiple of product
        value = words.next()
        while value >= zone:
            value = words.next()
        value %= product
        for k in radices:
            j = value % k
            value //= k
            # swap position top (the k-th card from the end) with a uniform pick
            pick = top - (k - 1) + j
            order[top - (k - 1)], order[pick] = order[pick], order[top - (k - 1)]
    return order


class RiverDeal:
    """What the dealer did for seventh street (S11).

    ``cards`` holds one down card per player still in, in dealing order, or is empty
    when a ``community`` card was turned up instead.  ``outcome`` is ``normal``,
    ``reshuffled``, ``stub_first`` or ``community``.  Under ``stub_first`` the first
    ``served_from_stub`` players were dealt before the reshuffle.  ``burned`` lists
    the cards burned during the deal, for the audit trail only (G4).
    """

    def __init__(
        self,
        cards: list[Card],
        community: Card | None,
        outcome: str,
        served_from_stub: int,
        burned: list[Card],
    ) -> None:
        self.cards = cards
        self.community = community
        self.outcome = outcome
        self.served_from_stub = served_from_stub
        self.burned = burned


class Deck:
    """A shuffled stub plus the burned cards.

    The next card to deal is at the end of ``_stub`` so dealing is a ``list.pop``.
    """

    __slots__ = ("_rng", "_seed", "_stub", "burned", "discards", "order", "reshuffles")

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
        self._rng: random.Random | None = rng
        self._seed = seed
        order = list(cards)
        if len(set(order)) != len(order):
            raise ValueError("a deck cannot hold the same card twice")
        if not preset:
            if rng is not None:
                rng.shuffle(order)
            else:
                order = shuffled(order, seed)
        self.order: tuple[Card, ...] = tuple(order)
        self._stub: list[Card] = order[::-1]
        self.burned: list[Card] = []
        self.discards: list[Card] = []  # D6: discards of the players who have drawn
        self.reshuffles = 0

    def _reshuffle_rng(self) -> random.Random:
        """The generator of mid-hand reshuffles (S11, D6), made on first use: the
        CSPRNG, or one derived from the seed so replays reshuffle identically."""
        if self._rng is None:
            if self._seed is None:
                self._rng = secrets.SystemRandom()
            else:
                self._rng = random.Random(f"reshuffle:{self._seed}")
        return self._rng

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

    def undeal(self, cards: Sequence[Card]) -> None:
        """Put ``cards`` (the last ones dealt, in dealing order) back on top of the
        stub, so that they are dealt again next, in the same order: a street dealt
        ahead for players who then folded gives their cards back, and the deal
        goes on exactly as if they had never left the stub (S4)."""
        held = set(self._stub)
        if any(c in held for c in cards) or len(set(cards)) != len(cards):
            raise ValueError("only cards dealt from this deck, each once, can be put back")
        self._stub.extend(reversed(cards))

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
        self._reshuffle_rng().shuffle(pool)
        self._stub = pool
        self.reshuffles += 1

    def deal_river(self, players: int, procedure: RiverShortage) -> RiverDeal:
        """Seventh street for ``players`` players still in, by the rules of S11.

        With ``R`` cards in the stub and ``B`` burned: if ``R >= N + 1``, burn one
        and deal ``N``.  Otherwise (default procedure) gather the burns and the
        stub, shuffle, and deal ``N`` down cards without a burn when they suffice,
        else turn up one community card.  The alternative of seed [002]
        (``STUB_FIRST``) serves players from the stub keeping its last card,
        shuffles that card with the burns, burns one and continues; when even that
        cannot serve everyone, a community card.  Folded cards are never used.
        """
        stub, burns = len(self._stub), len(self.burned)
        if stub >= players + 1:
            burned = [self.burn()]
            return RiverDeal(self.deal_many(players), None, "normal", 0, burned)
        if procedure is RiverShortage.STUB_FIRST and (stub - 1) + burns >= players:
            served = self.deal_many(stub - 1)
            self.shuffle_into_stub((), include_burns=True)
            burned = [self.burn()]
            rest = self.deal_many(players - len(served))
            return RiverDeal(served + rest, None, "stub_first", len(served), burned)
        self.shuffle_into_stub((), include_burns=True)
        if procedure is RiverShortage.RESHUFFLE_BURNS and len(self._stub) >= players:
            return RiverDeal(self.deal_many(players), None, "reshuffled", 0, [])
        return RiverDeal([], self.deal(), "community", 0, [])

    def draw(self, discards: Sequence[Card]) -> tuple[list[Card], bool]:
        """Replace a player's ``discards`` (D6); returns the new cards and whether
        the stub had to be rebuilt first.

        The stub's last card is never dealt.  When the stub cannot serve the draw,
        it is shuffled with the burns and the discards of the players who already
        drew (not this player's own, which join the discards afterwards).
        """
        k = len(discards)
        reshuffled = False
        if k > len(self._stub) - 1:
            self.shuffle_into_stub(self.discards, include_burns=True)
            self.discards = []
            reshuffled = True
            if k > len(self._stub) - 1:
                raise DeckExhaustedError("the draw cannot be served even after the reshuffle")
        new = self.deal_many(k)
        self.discards.extend(discards)
        return new, reshuffled
