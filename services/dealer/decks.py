"""The open decks: bounded in number and in age, so memory stays bounded.

A deck lives from OpenDeck to CloseDeck.  A table that crashes mid-hand never
closes its deck, so each deck also expires ``ttl`` seconds after it was opened.
With one fixed TTL the insertion order is the expiry order, and dropping expired
decks is a walk from the front of an ordered dict that stops at the first live one.
"""

from __future__ import annotations

import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from poker.dealer.v1 import dealer_pb2 as pb
from poker_rules.cards import Card
from poker_rules.commitment import DeckSecrets
from poker_rules.config import Game
from poker_rules.deck import Deck
from service_kit.errors import NotFoundError, ResourceExhaustedError

from .metrics import DECKS_EXPIRED, DECKS_OPEN


@dataclass(slots=True)
class DeckEntry:
    """One hand's deck and everything the reveal needs."""

    deck_id: str
    deck: Deck
    secrets: DeckSecrets
    game: Game
    hand_id: str
    table_id: str
    preset: bool
    expires_at: float
    held: set[Card] = field(default_factory=set)  # dealt to players, not discarded since
    log: list[pb.DeckOperation] = field(default_factory=list)


class DeckStore:
    """Open decks by id, at most ``max_decks``, each for at most ``ttl`` seconds."""

    def __init__(
        self, max_decks: int, ttl: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._decks: OrderedDict[str, DeckEntry] = OrderedDict()
        self._max = max_decks
        self._ttl = ttl
        self._clock = clock

    def __len__(self) -> int:
        return len(self._decks)

    def _expire(self) -> None:
        now = self._clock()
        while self._decks:
            deck_id, deck = next(iter(self._decks.items()))
            if deck.expires_at > now:
                break
            del self._decks[deck_id]
            DECKS_EXPIRED.inc()
        DECKS_OPEN.set(len(self._decks))

    def add(
        self,
        deck: Deck,
        deck_secrets: DeckSecrets,
        *,
        game: Game,
        hand_id: str,
        table_id: str,
        preset: bool,
    ) -> DeckEntry:
        """Keep a new deck under a fresh unguessable id."""
        self._expire()
        if len(self._decks) >= self._max:
            raise ResourceExhaustedError(
                f"the dealer holds its maximum of {self._max} open decks; close finished hands"
            )
        entry = DeckEntry(
            deck_id=secrets.token_urlsafe(16),
            deck=deck,
            secrets=deck_secrets,
            game=game,
            hand_id=hand_id,
            table_id=table_id,
            preset=preset,
            expires_at=self._clock() + self._ttl,
        )
        self._decks[entry.deck_id] = entry
        DECKS_OPEN.set(len(self._decks))
        return entry

    def get(self, deck_id: str) -> DeckEntry:
        """The open deck, or NOT_FOUND (never opened, closed, or expired)."""
        self._expire()
        entry = self._decks.get(deck_id)
        if entry is None:
            raise NotFoundError(f"no open deck {deck_id!r} (closed, expired or never opened)")
        return entry

    def pop(self, deck_id: str) -> DeckEntry:
        """Remove and return the open deck (CloseDeck)."""
        entry = self.get(deck_id)
        del self._decks[deck_id]
        DECKS_OPEN.set(len(self._decks))
        return entry
