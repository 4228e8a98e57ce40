"""Deck commitments: prove after the hand that the deal was fixed before it (G4).

Before the first card the dealer publishes ``commit(order, salt, reshuffle_seed)``,
a SHA-256 of the shuffled order, a secret 32-byte salt (so the commitment of one
deck order cannot be guessed by hashing candidate orders) and a secret 32-byte
*reshuffle seed*.  After the hand it reveals all three; anyone can recompute the
hash (``verify``) and replay every deal, because the mid-hand reshuffles of S11
and D6 draw their randomness from the seed through ``SeededShuffler``, a fully
specified HMAC-SHA256 Fisher-Yates.  So the whole hand's randomness, not just the
first shuffle, is bound by the commitment.

Scheme ``cardroom-deck-v1``: the commitment is SHA-256 of the UTF-8 text::

    cardroom-deck-v1
    order=<cards in dealing order, first dealt first, space-separated, e.g. "As Kd ...">
    salt=<lowercase hex of the salt>
    reshuffle_seed=<lowercase hex of the seed>

with a newline after each of the four lines.  Everything here is pure apart from
``open_deck`` drawing fresh secrets from the operating system's CSPRNG.

This commitment is checked with the whole reveal, which shows every hidden card: it
is the auditors'.  Beside it ``open_deck`` makes the per-card commitment
``cardroom-cards-v1`` of the same order and salt (``card_commitment``, G4a), which
a player checks from the cards it saw alone.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import MutableSequence, Sequence
from dataclasses import dataclass
from typing import Any, Final

from .card_commitment import commit_cards
from .cards import Card, card_str
from .deck import Deck, shuffled

SCHEME: Final = "cardroom-deck-v1"
SECRET_BYTES: Final = 32
_STREAM_LABEL: Final = b"cardroom-reshuffle-v1"


def commitment_payload(order: Sequence[Card], salt: bytes, reshuffle_seed: bytes) -> bytes:
    """The exact bytes that are hashed (see the module docstring)."""
    cards = " ".join(card_str(c) for c in order)
    text = f"{SCHEME}\norder={cards}\nsalt={salt.hex()}\nreshuffle_seed={reshuffle_seed.hex()}\n"
    return text.encode()


def commit(order: Sequence[Card], salt: bytes, reshuffle_seed: bytes) -> bytes:
    """The 32-byte commitment to a deck order and its secrets."""
    if len(salt) != SECRET_BYTES or len(reshuffle_seed) != SECRET_BYTES:
        raise ValueError(f"salt and reshuffle seed are {SECRET_BYTES} bytes each")
    return hashlib.sha256(commitment_payload(order, salt, reshuffle_seed)).digest()


def verify(commitment: bytes, order: Sequence[Card], salt: bytes, reshuffle_seed: bytes) -> bool:
    """True when the revealed order and secrets are the ones committed to.

    Also checks that the order is a deck (distinct cards), so a dealer cannot commit
    to a sequence that repeats a card.
    """
    if len(set(order)) != len(order):
        return False
    try:
        expected = commit(order, salt, reshuffle_seed)
    except ValueError:
        return False
    return hmac.compare_digest(expected, commitment)


class SeededShuffler(random.Random):
    """The generator of a hand's mid-hand reshuffles, fixed by a 32-byte seed.

    Randomness is the byte stream ``HMAC-SHA256(seed, "cardroom-reshuffle-v1" ||
    counter)`` for counter 0, 1, ... (8-byte big-endian), consumed in order.  A
    number below ``n`` takes ``ceil(bits(n) / 8)`` bytes as a big-endian integer,
    keeps its low ``bits(n)`` bits and is rejected and redrawn when ``>= n`` (no
    modulo bias).  ``shuffle`` is the Fisher-Yates of Python's ``random.shuffle``:
    for ``i`` from the last index down to 1, swap ``x[i]`` with ``x[below(i + 1)]``.
    Being specified here rather than inherited, a verifier in any language can
    replay it.  A ``random.Random`` subclass so ``Deck`` accepts it as its ``rng``.
    """

    def __init__(self, seed: bytes) -> None:
        if len(seed) != SECRET_BYTES:
            raise ValueError(f"the reshuffle seed is {SECRET_BYTES} bytes")
        self._key = seed
        self._counter = 0
        self._buffer = b""
        super().__init__(0)  # the Mersenne Twister state is never used

    def _bytes(self, n: int) -> bytes:
        while len(self._buffer) < n:
            block = hmac.new(
                self._key, _STREAM_LABEL + self._counter.to_bytes(8, "big"), hashlib.sha256
            ).digest()
            self._counter += 1
            self._buffer += block
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def getrandbits(self, k: int, /) -> int:
        """``k`` uniform bits from the stream (big-endian, low bits kept)."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        if k == 0:
            return 0
        value = int.from_bytes(self._bytes((k + 7) // 8), "big")
        return value & ((1 << k) - 1)

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` by rejection sampling."""
        if n <= 0:
            raise ValueError("n must be positive")
        k = n.bit_length()
        while True:
            value = self.getrandbits(k)
            if value < n:
                return value

    def random(self) -> float:
        """A float in [0, 1) from 53 bits of the stream (not used by the deck)."""
        return self.getrandbits(53) * (1.0 / (1 << 53))

    def shuffle(self, x: MutableSequence[Any]) -> None:
        """Fisher-Yates over the stream (see the class docstring)."""
        for i in range(len(x) - 1, 0, -1):
            j = self.below(i + 1)
            x[i], x[j] = x[j], x[i]


@dataclass(frozen=True, slots=True)
class DeckSecrets:
    """What the dealer keeps secret until the hand is over, and its commitments:
    ``commitment`` (``cardroom-deck-v1``) and ``card_commitment`` (the per-card
    ``cardroom-cards-v1`` of the same order and salt, G4a)."""

    order: tuple[Card, ...]
    salt: bytes
    reshuffle_seed: bytes
    commitment: bytes
    card_commitment: bytes = b""


def committed_deck(order: Sequence[Card], reshuffle_seed: bytes) -> Deck:
    """The deck that deals ``order`` (first card first) and reshuffles from the seed.

    The dealer and any verifier build the same deck from the same reveal, so a
    replay of the hand's deal produces exactly the cards that were served.
    """
    return Deck(order, preset=True, rng=SeededShuffler(reshuffle_seed))


def open_deck(
    cards: Sequence[Card], preset_order: Sequence[Card] | None = None
) -> tuple[Deck, DeckSecrets]:
    """A new hand's deck: shuffled from the CSPRNG (G4), or ``preset_order`` as given
    (certification), with fresh secrets and the commitments to publish (both made
    before the first card is dealt)."""
    if preset_order is not None:
        if sorted(preset_order) != sorted(cards):
            raise ValueError("a preset order must be a permutation of the game's deck")
        order = tuple(preset_order)
    else:
        order = tuple(shuffled(cards, None))
    salt = secrets.token_bytes(SECRET_BYTES)
    seed = secrets.token_bytes(SECRET_BYTES)
    deck = committed_deck(order, seed)
    cards_root = commit_cards([card_str(c) for c in order], salt)
    return deck, DeckSecrets(order, salt, seed, commit(order, salt, seed), cards_root)
