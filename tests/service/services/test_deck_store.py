"""The dealer's open decks stay bounded: a maximum count and an expiry."""

from __future__ import annotations

import pytest

from poker_rules.cards import standard_deck
from poker_rules.commitment import open_deck
from poker_rules.config import Game
from service_kit import NotFoundError, ResourceExhaustedError
from services.dealer.decks import DeckStore


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _add(store: DeckStore) -> str:
    deck, secrets = open_deck(standard_deck())
    entry = store.add(deck, secrets, game=Game.STUD, hand_id="h", table_id="t", preset=False)
    return entry.deck_id


def test_deck_store_refuses_past_its_maximum_until_a_deck_is_closed() -> None:
    store = DeckStore(max_decks=2, ttl=60, clock=Clock())
    first, _ = _add(store), _add(store)
    with pytest.raises(ResourceExhaustedError):
        _add(store)
    store.pop(first)
    _add(store)
    assert len(store) == 2


def test_deck_store_drops_decks_never_closed_after_the_ttl() -> None:
    clock = Clock()
    store = DeckStore(max_decks=2, ttl=60, clock=clock)
    old = _add(store)
    clock.now = 30
    young = _add(store)
    clock.now = 61
    with pytest.raises(NotFoundError):
        store.get(old)
    assert store.get(young).deck_id == young
    _add(store)  # the expired deck's room is free again
    assert len(store) == 2
