"""The open decks: bounded in number, per caller and in idle time, so memory
stays bounded and no caller can take the dealer from the others.

A deck lives with its hand, from OpenDeck to CloseDeck.  A table that crashes
mid-hand never closes its deck, so each deck also expires ``ttl`` seconds after it
was last used (opened or dealt from).  With one fixed TTL, keeping the ordered dict
in order of last use (a used deck moves to the end) makes it the expiry order, and
dropping expired decks is a walk from the front that stops at the first live one.

Each deck belongs to the caller identity that opened it (``ANONYMOUS`` for a
caller without one); a caller holds at most ``max_per_caller`` decks, all callers
together at most ``max_decks``.
"""

from __future__ import annotations

import secrets
import time
from collections import Counter, OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from poker.dealer.v1 import dealer_pb2 as pb
from poker_rules.cards import Card
from poker_rules.commitment import DeckSecrets
from poker_rules.config import Game
from poker_rules.deck import Deck
from service_kit.errors import NotFoundError, ResourceExhaustedError

from .metrics import DECKS_EXPIRED, DECKS_OPEN

ANONYMOUS = "anonymous"  # the owner of decks opened by callers without an identity


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
    expires_at: float  # pushed back by every use
    owner: str = ANONYMOUS  # the caller identity that opened it
    held: set[Card] = field(default_factory=set)  # dealt to players, not discarded since
    log: list[pb.DeckOperation] = field(default_factory=list)


class DeckStore:
    """Open decks by id: at most ``max_decks``, at most ``max_per_caller`` of one
    owner (None: no limit but ``max_decks``), each dropped ``ttl`` seconds after
    its last use."""

    def __init__(
        self,
        max_decks: int,
        ttl: float,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_per_caller: int | None = None,
    ) -> None:
        self._decks: OrderedDict[str, DeckEntry] = OrderedDict()
        self._owned: Counter[str] = Counter()
        self._max = max_decks
        self._max_per_caller = max_decks if max_per_caller is None else max_per_caller
        self._ttl = ttl
        self._clock = clock

    def __len__(self) -> int:
        return len(self._decks)

    def held_by(self, owner: str) -> int:
        """How many open decks ``owner`` holds."""
        self._expire()
        return self._owned[owner]

    def _drop(self, deck_id: str) -> DeckEntry:
        entry = self._decks.pop(deck_id)
        self._owned[entry.owner] -= 1
        if not self._owned[entry.owner]:
            del self._owned[entry.owner]
        return entry

    def _expire(self) -> None:
        now = self._clock()
        while self._decks:
            deck_id, deck = next(iter(self._decks.items()))
            if deck.expires_at > now:
                break
            self._drop(deck_id)
            DECKS_EXPIRED.inc()
        DECKS_OPEN.set(len(self._decks))

    def check_room(self, owner: str) -> None:
        """RESOURCE_EXHAUSTED when ``owner`` holds its limit of open decks, or the
        dealer its own: checked before a deck is shuffled, so a refused call costs
        next to nothing."""
        self._expire()
        if self._owned[owner] >= self._max_per_caller:
            raise ResourceExhaustedError(
                f"caller {owner!r} holds its limit of {self._max_per_caller} open decks "
                "(DEALER_MAX_OPEN_DECKS_PER_CALLER); a deck is closed with its hand: "
                "close the decks of finished hands"
            )
        if len(self._decks) >= self._max:
            raise ResourceExhaustedError(
                f"the dealer holds its maximum of {self._max} open decks (DEALER_MAX_DECKS); "
                "a deck is closed with its hand: close the decks of finished hands"
            )

    def add(
        self,
        deck: Deck,
        deck_secrets: DeckSecrets,
        *,
        game: Game,
        hand_id: str,
        table_id: str,
        preset: bool,
        owner: str = ANONYMOUS,
    ) -> DeckEntry:
        """Keep a new deck of ``owner`` under a fresh unguessable id."""
        self.check_room(owner)
        entry = DeckEntry(
            deck_id=secrets.token_urlsafe(16),
            deck=deck,
            secrets=deck_secrets,
            game=game,
            hand_id=hand_id,
            table_id=table_id,
            preset=preset,
            expires_at=self._clock() + self._ttl,
            owner=owner,
        )
        self._decks[entry.deck_id] = entry
        self._owned[owner] += 1
        DECKS_OPEN.set(len(self._decks))
        return entry

    def get(self, deck_id: str) -> DeckEntry:
        """The open deck, now used (its expiry pushed back), or NOT_FOUND (never
        opened, closed, or expired).  The message never repeats the id: callers
        log it, and a deck id opens the live order to whoever holds it."""
        self._expire()
        entry = self._decks.get(deck_id)
        if entry is None:
            raise NotFoundError("no open deck with this deck_id (closed, expired or never opened)")
        entry.expires_at = self._clock() + self._ttl
        self._decks.move_to_end(deck_id)
        return entry

    def pop(self, deck_id: str) -> DeckEntry:
        """Remove and return the open deck (CloseDeck)."""
        self.get(deck_id)
        entry = self._drop(deck_id)
        DECKS_OPEN.set(len(self._decks))
        return entry
