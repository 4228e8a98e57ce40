# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __G4a)
"""Per-card deck commitments (G4a, scheme ``cardroom-cards-v1``), property-based.

The deals here are the library's own: a ``Deck`` built from a random committed
order and reshuffle seed (``poker_rules.commitment.committed_deck``, as the dealer
builds it) deals random hands of stud (random folds, burns before third street or
not, both S11 procedures, up to eight players so the river runs short) and of 7-A
draw (random discards, so the D6 reshuffle happens).  Each viewer (every seat, and
the public) sees the hand by the table's rules: its own down cards and draws,
upcards and the community card, the showdown (mucked hands to the hand's
participants only, S12).  Then:

- ``deal_positions``, computed from public facts only, puts every card dealt before
  a reshuffle at the position of the order it came from, and marks exactly the
  others as reshuffled;
- every viewer's proof (``openings`` + ``prove``) verifies, opens only cards that
  viewer saw and covers every card it saw (opened, or listed as reshuffled);
- changing any opened card, nonce, position, sealed leaf or the reshuffled list
  makes it fail.
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import random
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker_rules.card_commitment import (
    LABEL,
    SCHEME,
    CardProof,
    DealRules,
    Delivery,
    Entry,
    Opened,
    Sealed,
    card_leaf,
    card_nonce,
    commit_cards,
    deal_positions,
    openings,
    prove,
    root_of,
    verify_deal,
)
from poker_rules.cards import card_str, parse_card, short_deck, standard_deck
from poker_rules.commitment import committed_deck, open_deck
from poker_rules.config import Game, RiverShortage

PROPERTIES = settings(
    max_examples=300,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


# ------------------------------------------------------------------ the scheme


def test_leaves_and_root_are_the_documented_hashes__G4a() -> None:
    salt = bytes(range(32))
    nonce = hmac.new(salt, b"cardroom-card-v1/7", hashlib.sha256).digest()
    assert card_nonce(salt, 7) == nonce
    text = f"cardroom-card-v1\n7\nTd\n{nonce.hex()}\n".encode()
    assert card_leaf(7, "Td", nonce) == hashlib.sha256(text).digest()
    order = [card_str(c) for c in standard_deck()]
    leaves = [card_leaf(i, c, card_nonce(salt, i)) for i, c in enumerate(order)]
    assert commit_cards(order, salt) == hashlib.sha256(b"".join(leaves)).digest()
    assert (SCHEME, LABEL) == ("cardroom-cards-v1", "cardroom-card-v1")


def test_the_dealer_commits_card_by_card_before_the_first_card__G4a() -> None:
    deck, secrets = open_deck(standard_deck())
    assert len(secrets.card_commitment) == 32
    assert secrets.card_commitment == commit_cards(
        [card_str(c) for c in secrets.order], secrets.salt
    )
    assert deck.remaining == 52  # nothing dealt yet


@st.composite
def orders(draw: st.DrawFn) -> tuple[list[str], bytes]:
    cards = [card_str(c) for c in draw(st.sampled_from([standard_deck(), short_deck()]))]
    return draw(st.permutations(cards)), draw(st.binary(min_size=32, max_size=32))


@given(orders(), st.data())
@PROPERTIES
def test_any_order_and_salt_verify_and_any_change_fails__G4a(
    deck: tuple[list[str], bytes], data: st.DataObject
) -> None:
    order, salt = deck
    root = commit_cards(order, salt)
    opened = data.draw(st.sets(st.integers(0, len(order) - 1), max_size=len(order)))
    entries = prove(order, salt, opened)
    assert root_of([e.leaf for e in entries]) == root
    assert {e.position for e in entries if isinstance(e, Opened)} == opened
    assert all(e.card == order[e.position] for e in entries if isinstance(e, Opened))
    k = data.draw(st.integers(0, len(order) - 1))
    changed = list(entries)
    entry = entries[k]
    if isinstance(entry, Opened):
        how = data.draw(st.sampled_from(["card", "nonce", "position"]))
        if how == "card":
            other = data.draw(st.sampled_from([c for c in order if c != entry.card]))
            changed[k] = dataclasses.replace(entry, card=other)
        elif how == "nonce":
            changed[k] = dataclasses.replace(entry, nonce=bytes(b ^ 1 for b in entry.nonce))
        else:
            moved = data.draw(st.sampled_from([p for p in range(len(order)) if p != k]))
            changed[k] = dataclasses.replace(entry, position=moved)
    else:
        flip = data.draw(st.integers(0, 31))
        leaf = bytearray(entry.leaf)
        leaf[flip] ^= 0x80
        changed[k] = Sealed(entry.position, bytes(leaf))
    assert root_of([e.leaf for e in changed]) != root


# ------------------------------------------------------------------ random deals


@dataclass
class Hand:
    """A dealt hand: the truth (every card) and what the showdown showed."""

    order: list[str]
    salt: bytes
    rules: DealRules
    deliveries: list[Delivery] = field(default_factory=list)
    after_reshuffle: list[tuple[bool, ...]] = field(default_factory=list)
    showdown: list[tuple[int, tuple[str, ...], bool]] = field(default_factory=list)  # mucked?

    def deal(self, seat: int, street: str, cards: list[str], flags: list[bool], up: bool) -> None:
        self.deliveries.append(Delivery(seat, street, len(cards), tuple(cards), up=up))
        self.after_reshuffle.append(tuple(flags))

    def seen_by(self, viewer: int) -> list[Delivery]:
        """The deliveries as ``viewer`` (a seat, 0 = the public) sees them."""
        return [
            d if d.up or not d.seat or d.seat == viewer else dataclasses.replace(d, cards=())
            for d in self.deliveries
        ]

    def shown_to(self, viewer: int) -> list[tuple[int, tuple[str, ...]]]:
        """The hand-history showdown of ``viewer``: mucked hands to participants (S12)."""
        return [(s, cards) for s, cards, mucked in self.showdown if not mucked or viewer]

    def visible(self, viewer: int) -> set[str]:
        cards = {c for d in self.seen_by(viewer) for c in d.cards}
        return cards | {c for _, hand in self.shown_to(viewer) for c in hand}


def _stud(rng: random.Random, order: list[str], salt: bytes, seed: bytes, hand: Hand) -> None:
    rules = hand.rules
    n = len(rules.players)
    deck = committed_deck(_cards(order), seed)
    if rules.burn_before_third:
        deck.burn()
    c = [card_str(x) for x in deck.deal_many(3 * n)]
    held: dict[int, list[str]] = {}
    for i, seat in enumerate(rules.players):
        hand.deal(seat, "third", [c[i], c[n + i]], [False, False], up=False)
        held[seat] = [c[i], c[n + i]]
    for i, seat in enumerate(rules.players):
        hand.deal(seat, "third", [c[2 * n + i]], [False], up=True)
        held[seat].append(c[2 * n + i])
    active = list(rules.players)
    fold_p = rng.choice([0.0, 0.0, 0.05, 0.3])
    community = ""
    for street in ("fourth", "fifth", "sixth", "seventh"):
        active = [s for s in active if rng.random() >= fold_p] or active[:1]
        if len(active) < 2:
            break
        if street != "seventh":
            deck.burn()
            for seat, card in zip(active, deck.deal_many(len(active)), strict=True):
                hand.deal(seat, street, [card_str(card)], [False], up=True)
                held[seat].append(card_str(card))
            continue
        river = deck.deal_river(len(active), rules.river_shortage)
        if river.community is not None:
            community = card_str(river.community)
            hand.deal(0, street, [community], [True], up=True)
            continue
        for k, (seat, card) in enumerate(zip(active, river.cards, strict=True)):
            late = river.outcome != "normal" and k >= river.served_from_stub
            hand.deal(seat, street, [card_str(card)], [late], up=False)
            held[seat].append(card_str(card))
    if len(active) >= 2:
        for seat in active:
            cards = [*held[seat], community] if community else held[seat]
            hand.showdown.append((seat, tuple(cards), rng.random() < 0.3))


def _draw(rng: random.Random, order: list[str], salt: bytes, seed: bytes, hand: Hand) -> None:
    rules = hand.rules
    n = len(rules.players)
    deck = committed_deck(_cards(order), seed)
    c = [card_str(x) for x in deck.deal_many(5 * n)]
    held: dict[int, list[str]] = {}
    for i, seat in enumerate(rules.players):
        held[seat] = [c[i + k * n] for k in range(5)]
        hand.deal(seat, "pre_draw", held[seat], [False] * 5, up=False)
    active = [s for s in rules.players if rng.random() >= 0.2] or list(rules.players[:1])
    if len(active) < 2:
        return
    burn_owed = rules.burn_before_draw
    discard_p = rng.choice([0.3, 0.8])
    for seat in active:
        discards = [x for x in held[seat] if rng.random() < discard_p]
        pool = deck.remaining - 1 + len(deck.burned) + len(deck.discards)
        if len(discards) > pool or (discards and burn_owed and deck.remaining < 1):
            discards = []
        if discards and burn_owed:
            deck.burn()
            burn_owed = False
        before = deck.reshuffles
        new, _ = deck.draw([_card(x) for x in discards])
        late = deck.reshuffles > 0
        assert before == 0 or late
        received = [card_str(x) for x in new]
        hand.deal(seat, "draw", received, [late] * len(received), up=False)
        for old, got in zip(discards, received, strict=True):
            held[seat][held[seat].index(old)] = got
    for seat in active:
        hand.showdown.append((seat, tuple(held[seat]), rng.random() < 0.3))


def _card(text: str) -> int:
    return parse_card(text)


def _cards(order: list[str]) -> list[int]:
    return [_card(c) for c in order]


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    game = draw(st.sampled_from([Game.STUD, Game.STUD_HILO, Game.DRAW_7A]))
    if game is Game.DRAW_7A:
        n = draw(st.sampled_from([2, 3, 4, 5, 5, 5]))  # five: 36 cards, often a D6 reshuffle
        seats = draw(st.permutations(range(1, 6)))[:n]
    else:
        n = draw(st.sampled_from([2, 3, 4, 5, 6, 7, 7, 8, 8, 8]))  # eight: S11 when few fold
        seats = list(range(1, 9))[:n]
    rules = DealRules(
        game=game,
        players=tuple(seats),
        burn_before_third=draw(st.booleans()),
        burn_before_draw=draw(st.booleans()),
        river_shortage=draw(st.sampled_from(list(RiverShortage))),
    )
    order = draw(st.permutations(list(rules.deck)))
    salt = draw(st.binary(min_size=32, max_size=32))
    seed = draw(st.binary(min_size=32, max_size=32))
    rng = random.Random(draw(st.integers(0, 2**32)))
    hand = Hand(list(order), salt, rules)
    (_draw if game is Game.DRAW_7A else _stud)(rng, hand.order, salt, seed, hand)
    return hand


def _proof(hand: Hand, viewer: int) -> CardProof:
    opened, reshuffled = openings(
        hand.order, hand.rules, hand.deliveries, hand.seen_by(viewer), hand.shown_to(viewer)
    )
    entries = tuple(prove(hand.order, hand.salt, opened))
    return CardProof(SCHEME, commit_cards(hand.order, hand.salt), entries, reshuffled)


@given(hands())
@PROPERTIES
def test_the_public_deal_procedure_gives_every_cards_position__G4a(hand: Hand) -> None:
    """S4, S11, D4, D6 from public facts alone: each card dealt from the committed
    order is found at the position computed for it; exactly the cards dealt
    after a reshuffle have none."""
    positions = deal_positions(hand.rules, hand.seen_by(-1))  # nobody's cards: public facts
    for d, places, late in zip(hand.deliveries, positions, hand.after_reshuffle, strict=True):
        assert [p is None for p in places] == list(late), (d.street, d.seat)
        for card, p in zip(d.cards, places, strict=True):
            if p is not None:
                assert hand.order[p] == card, (d.street, d.seat, p)


@given(hands())
@PROPERTIES
def test_every_viewers_proof_verifies_and_opens_only_what_it_saw__G4a(hand: Hand) -> None:
    root = commit_cards(hand.order, hand.salt)
    for viewer in (0, *hand.rules.players):
        proof = _proof(hand, viewer)
        opened = {e.card for e in proof.entries if isinstance(e, Opened)}
        visible = hand.visible(viewer)
        assert opened <= visible, f"viewer {viewer} got cards it was not shown"
        verdict = verify_deal(root, proof, hand.rules, hand.seen_by(viewer), hand.shown_to(viewer))
        assert verdict.ok, verdict.problems
        assert set(verdict.checked) == opened
        assert set(verdict.checked) | set(verdict.reshuffled) == visible
        assert not set(verdict.checked) & set(verdict.reshuffled)


def _tampered(proof: CardProof, hand: Hand, data: st.DataObject) -> CardProof:
    entries: list[Entry] = list(proof.entries)
    opened = [k for k, e in enumerate(entries) if isinstance(e, Opened)]
    how = data.draw(
        st.sampled_from(["leaf", "listed", *(["card", "nonce", "swap", "seal"] if opened else [])])
    )
    if how == "listed":
        missing = [c for c in hand.rules.deck if c not in proof.reshuffled]
        extra = data.draw(st.sampled_from(missing))
        return dataclasses.replace(proof, reshuffled=(*proof.reshuffled, extra))
    if how == "leaf":
        k = data.draw(st.sampled_from([k for k in range(len(entries)) if k not in opened]))
        entries[k] = Sealed(k, hashlib.sha256(entries[k].leaf).digest())
        return dataclasses.replace(proof, entries=tuple(entries))
    k = data.draw(st.sampled_from(opened))
    entry = entries[k]
    assert isinstance(entry, Opened)
    if how == "card":
        other = data.draw(st.sampled_from([c for c in hand.rules.deck if c != entry.card]))
        entries[k] = dataclasses.replace(entry, card=other)
    elif how == "nonce":
        entries[k] = dataclasses.replace(entry, nonce=hashlib.sha256(entry.nonce).digest())
    elif how == "seal":  # withheld: the right leaf, but the card not opened
        entries[k] = Sealed(k, entry.leaf)
    else:  # the card claimed at another position, with that position's nonce
        j = data.draw(st.sampled_from([j for j in range(len(entries)) if j != k]))
        moved = Opened(j, entry.card, card_nonce(hand.salt, j))
        entries[k], entries[j] = (
            Sealed(k, card_leaf(k, hand.order[j], card_nonce(hand.salt, k))),
            moved,
        )
    return dataclasses.replace(proof, entries=tuple(entries))


@given(hands(), st.data())
@PROPERTIES
def test_any_change_to_a_viewers_proof_fails__G4a(hand: Hand, data: st.DataObject) -> None:
    """A changed card, nonce or leaf breaks the hash; a card withheld or moved to
    another position (even with a correct leaf there) breaks the deal check; a
    card listed as reshuffled that was not dealt so is refused."""
    viewer = data.draw(st.sampled_from((0, *hand.rules.players)))
    proof = _proof(hand, viewer)
    bad = _tampered(proof, hand, data)
    root = commit_cards(hand.order, hand.salt)
    verdict = verify_deal(root, bad, hand.rules, hand.seen_by(viewer), hand.shown_to(viewer))
    assert not verdict.ok


def test_a_proof_for_another_commitment_or_scheme_fails__G4a() -> None:
    order = [card_str(c) for c in standard_deck()]
    rules = DealRules(Game.STUD, (1, 2))
    proof = CardProof(SCHEME, commit_cards(order, bytes(32)), tuple(prove(order, bytes(32), ())))
    root = proof.commitment
    assert verify_deal(root, proof, rules, [], []).ok
    assert not verify_deal(commit_cards(order, bytes(range(32))), proof, rules, [], []).ok
    other = dataclasses.replace(proof, scheme="cardroom-deck-v1")
    assert "unknown card commitment scheme" in verify_deal(root, other, rules, [], []).problems[0]
    short = dataclasses.replace(proof, entries=proof.entries[:32])
    assert "52" in verify_deal(root, short, rules, [], []).problems[0]


def test_a_discard_dealt_again_after_the_reshuffle_is_not_opened_at_its_first_place__G4a() -> None:
    """D6 with five players (36 cards): seat 1 throws away its first card X; seat 2's
    draw comes from the reshuffle and gets X back.  Seat 2 saw X, but opening X at
    its first position would tell seat 2 that seat 1 was dealt it: the proof lists
    X among the reshuffled cards instead, and still verifies."""
    rules = DealRules(Game.DRAW_7A, (1, 2, 3, 4, 5))
    order = [card_str(c) for c in short_deck(with_sixes=True)]
    dealt = [
        Delivery(s, "pre_draw", 5, tuple(order[i + 5 * k] for k in range(5)))
        for i, s in enumerate(rules.players)
    ]
    x = order[0]  # seat 1's first card
    dealt.append(Delivery(1, "draw", 5, tuple(order[26:31])))  # after the burn (25)
    back = (x, order[25], order[31], order[32], order[33])  # 5 > 36 - 31 - 1: reshuffled
    dealt.append(Delivery(2, "draw", 5, back))
    dealt += [Delivery(s, "draw", 0) for s in (3, 4, 5)]
    hand = Hand(order, bytes(range(32)), rules, dealt, [])
    hand.showdown = [(2, back, False)]
    assert deal_positions(rules, hand.seen_by(0))[6] == (None,) * 5
    proof = _proof(hand, 2)
    opened = {e.position: e.card for e in proof.entries if isinstance(e, Opened)}
    assert sorted(opened) == [1, 6, 11, 16, 21]  # seat 2's own first five cards
    assert set(proof.reshuffled) == set(back)
    root = commit_cards(order, hand.salt)
    verdict = verify_deal(root, proof, rules, hand.seen_by(2), hand.shown_to(2))
    assert verdict.ok, verdict.problems
    assert set(verdict.reshuffled) == set(back)
    spectator = _proof(hand, 0)  # sees seat 2's shown hand only: all from the reshuffle
    assert not [e for e in spectator.entries if isinstance(e, Opened)]
    assert verify_deal(root, spectator, rules, hand.seen_by(0), hand.shown_to(0)).ok
