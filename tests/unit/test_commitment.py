# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S11)
"""Deck commitments (G4): the documented scheme, verification and replayable reshuffles."""

from __future__ import annotations

import hashlib
from collections import Counter

from poker_rules import RiverShortage
from poker_rules.cards import card_str, standard_deck
from poker_rules.commitment import (
    SCHEME,
    SeededShuffler,
    commit,
    committed_deck,
    open_deck,
    verify,
)


def test_commitment_is_sha256_of_the_documented_text__G4() -> None:
    order = standard_deck()
    salt, seed = bytes(range(32)), bytes(32)
    text = (
        "cardroom-deck-v1\n"
        f"order={' '.join(card_str(c) for c in order)}\n"
        f"salt={salt.hex()}\n"
        f"reshuffle_seed={seed.hex()}\n"
    )
    assert SCHEME == "cardroom-deck-v1"
    assert commit(order, salt, seed) == hashlib.sha256(text.encode()).digest()


def test_verify_refuses_any_change__G4() -> None:
    deck, secrets = open_deck(standard_deck())
    order = list(secrets.order)
    assert verify(secrets.commitment, order, secrets.salt, secrets.reshuffle_seed)
    assert not verify(secrets.commitment, order[::-1], secrets.salt, secrets.reshuffle_seed)
    assert not verify(secrets.commitment, order, secrets.reshuffle_seed, secrets.salt)
    assert not verify(
        secrets.commitment, order[:-1] + order[:1], secrets.salt, secrets.reshuffle_seed
    )
    assert not verify(secrets.commitment, order, b"short", secrets.reshuffle_seed)
    assert deck.order == secrets.order


def test_reshuffles_replay_from_the_seed__S11() -> None:
    """The dealer's deck and a verifier's deck built from the reveal deal alike."""
    _, secrets = open_deck(standard_deck())
    decks = [committed_deck(secrets.order, secrets.reshuffle_seed) for _ in range(2)]
    rivers = []
    for deck in decks:
        deck.deal_many(21)  # seven players to sixth street: R = 7, B = 3
        for _ in range(3):
            deck.burn()
            deck.deal_many(7)
        rivers.append(deck.deal_river(7, RiverShortage.RESHUFFLE_BURNS))
    assert [r.outcome for r in rivers] == ["reshuffled", "reshuffled"]
    assert rivers[0].cards == rivers[1].cards


def test_seeded_shuffler_is_deterministic_and_uniform() -> None:
    seed = bytes(range(32))
    first, second = list(range(52)), list(range(52))
    SeededShuffler(seed).shuffle(first)
    SeededShuffler(seed).shuffle(second)
    assert first == second != list(range(52))
    other = list(range(52))
    SeededShuffler(bytes(31) + b"\x01").shuffle(other)
    assert other != first
    shuffler = SeededShuffler(seed)
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(6000):
        items = [0, 1, 2]
        shuffler.shuffle(items)
        counts[tuple(items)] += 1
    assert len(counts) == 6 and all(850 < n < 1150 for n in counts.values()), counts
