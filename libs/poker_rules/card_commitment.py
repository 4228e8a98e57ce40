"""Per-card deck commitments: each viewer checks the cards it saw, and only those (G4a).

The dealer's ``cardroom-deck-v1`` commitment (``commitment``) binds the whole order
and can only be checked with the whole reveal, which shows every hidden card: it is
the auditors'.  A player may see no card it was not shown (G4), so the deal is also
committed card by card, in a way that can be opened one position at a time.

Scheme ``cardroom-cards-v1``.  For each position ``i`` of the shuffled order (0 is
the first card dealt), with ``i`` written in decimal and the card as ``"As"``::

    nonce_i = HMAC-SHA256(key=salt, message="cardroom-card-v1/" + i)
    leaf_i  = SHA-256("cardroom-card-v1\\n" + i + "\\n" + card_i + "\\n" + hex(nonce_i) + "\\n")
    R       = SHA-256(leaf_0 || leaf_1 || ... || leaf_{k-1})       (raw 32-byte leaves)

``salt`` is the deck's secret 32-byte salt (the one ``cardroom-deck-v1`` hashes,
revealed to auditors only).  The dealer computes ``R`` when it opens the deck,
before the first card, and the table publishes it in ``HandStarted``.  After the
hand a viewer's proof *opens* the positions of the cards that viewer saw (card and
nonce) and *seals* every other one (its leaf alone: 32 bytes that say nothing about
the card, whose nonce is secret).  The verifier recomputes the opened leaves, hashes
all the leaves in order and compares with ``R``.

Opening a card at its position is only worth something if the position is the one
the deal had to use, or a dealer could pick, after the fact, any committed card for
a player.  The deal procedure is public (S4, S11, D4, D6: who is dealt in, the
burns, the streets, the draw counts), so ``deal_positions`` computes from what
every viewer sees where each card dealt must have come from, and the verifier
requires each card it saw to be opened exactly there.

Cards dealt after a mid-hand reshuffle (S11's river shortage, D6's draw) come from
a new order drawn with the deck's secret reshuffle seed, at no position of the
committed one, and the pool reshuffled holds burns and other players' discards that
may not be shown: opening them would leak.  They are listed as ``reshuffled``: this
proof does not cover them; the auditors' check of the ``cardroom-deck-v1`` reveal
(order, salt and seed replayed, ``services.dealer.audit``) does, and the auditors
check ``R`` against the revealed order too.

Everything here is pure: the table builds proofs with ``prove`` and ``openings``, a
client checks them with ``verify_deal`` (``clients/web/src/deckproof.ts`` is the
browser's copy of the same verifier).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Final

from .cards import card_str, parse_card, short_deck, standard_deck
from .config import Game, RiverShortage

SCHEME: Final = "cardroom-cards-v1"
LABEL: Final = "cardroom-card-v1"
DIGEST_BYTES: Final = 32
STUD_LATER_STREETS: Final = ("fourth", "fifth", "sixth")


def card_nonce(salt: bytes, position: int) -> bytes:
    """The secret nonce of ``position``: HMAC-SHA256 keyed by the deck's salt.

    >>> card_nonce(bytes(32), 0).hex()[:16]
    '4961a20b3cbed361'
    >>> card_nonce(bytes(32), 0) != card_nonce(bytes(32), 1)
    True
    """
    if position < 0:
        raise ValueError("positions start at 0")
    return hmac.digest(salt, f"{LABEL}/{position}".encode(), "sha256")


def card_leaf(position: int, card: str, nonce: bytes) -> bytes:
    """The leaf of one position: SHA-256 of the documented text (module docstring).

    >>> nonce = card_nonce(bytes(32), 3)
    >>> leaf = card_leaf(3, "As", nonce)
    >>> leaf == card_leaf(3, "As", nonce), leaf == card_leaf(3, "Ks", nonce), len(leaf)
    (True, False, 32)
    """
    text = f"{LABEL}\n{position}\n{card}\n{nonce.hex()}\n"
    return hashlib.sha256(text.encode()).digest()


def root_of(leaves: Sequence[bytes]) -> bytes:
    """The commitment ``R``: SHA-256 of the 32-byte leaves concatenated in order.

    >>> root_of([bytes(32)]) == hashlib.sha256(bytes(32)).digest()
    True
    >>> root_of([b"short"])
    Traceback (most recent call last):
    ...
    ValueError: a leaf is 32 bytes, got 5
    """
    for leaf in leaves:
        if len(leaf) != DIGEST_BYTES:
            raise ValueError(f"a leaf is {DIGEST_BYTES} bytes, got {len(leaf)}")
    return hashlib.sha256(b"".join(leaves)).digest()


_BLOCK = 64  # SHA-256's block: HMAC's key pads (RFC 2104)


def _nonces(salt: bytes, count: int) -> list[bytes]:
    """``card_nonce(salt, i)`` for ``i`` in ``0..count-1``, the same bytes, about
    three times faster: the dealer makes 52 of them before every hand's first card,
    so HMAC's two keyed SHA-256 states are made once and copied per position."""
    key = salt if len(salt) <= _BLOCK else hashlib.sha256(salt).digest()
    key = key.ljust(_BLOCK, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in key))
    outer = hashlib.sha256(bytes(b ^ 0x5C for b in key))
    out = []
    for i in range(count):
        h = inner.copy()
        h.update(f"{LABEL}/{i}".encode())
        o = outer.copy()
        o.update(h.digest())
        out.append(o.digest())
    return out


def commit_cards(order: Sequence[str], salt: bytes) -> bytes:
    """``R`` of a deck order (cards as ``"As"``, first dealt first) and its salt: what
    the dealer publishes before the first card.

    >>> order = ["As", "Kd", "7c"]
    >>> commit_cards(order, bytes(32)) == root_of(
    ...     [card_leaf(i, c, card_nonce(bytes(32), i)) for i, c in enumerate(order)])
    True
    >>> commit_cards(order, bytes(32)) != commit_cards(["Kd", "As", "7c"], bytes(32))
    True
    """
    root = hashlib.sha256()
    for i, (card, nonce) in enumerate(zip(order, _nonces(salt, len(order)), strict=True)):
        root.update(card_leaf(i, card, nonce))
    return root.digest()


@dataclass(frozen=True, slots=True)
class Opened:
    """A position opened to the viewer: its card and nonce (the leaf follows)."""

    position: int
    card: str
    nonce: bytes

    @property
    def leaf(self) -> bytes:
        """The leaf these make (``card_leaf``).

        >>> Opened(0, "As", bytes(32)).leaf == card_leaf(0, "As", bytes(32))
        True
        """
        return card_leaf(self.position, self.card, self.nonce)


@dataclass(frozen=True, slots=True)
class Sealed:
    """A position kept from the viewer: its leaf alone."""

    position: int
    leaf: bytes


Entry = Opened | Sealed


def prove(order: Sequence[str], salt: bytes, opened: Collection[int]) -> list[Entry]:
    """One entry per position of ``order``: ``Opened`` at the positions in
    ``opened``, ``Sealed`` everywhere else.  Their leaves hash to ``commit_cards``.

    >>> order, salt = ["As", "Kd", "7c"], bytes(range(32))
    >>> entries = prove(order, salt, {1})
    >>> [type(e).__name__ for e in entries]
    ['Sealed', 'Opened', 'Sealed']
    >>> entries[1].card, root_of([e.leaf for e in entries]) == commit_cards(order, salt)
    ('Kd', True)
    """
    entries: list[Entry] = []
    for i, (card, nonce) in enumerate(zip(order, _nonces(salt, len(order)), strict=True)):
        if i in opened:
            entries.append(Opened(i, card, nonce))
        else:
            entries.append(Sealed(i, card_leaf(i, card, nonce)))
    return entries


# ---------------------------------------------------------------- the deal's positions


@dataclass(frozen=True, slots=True)
class Delivery:
    """Cards one seat (0: the S11 community card) received in one step of the deal,
    as a viewer knows them: ``count`` is public, ``cards`` only when the viewer saw
    them (else empty).  ``street`` is the table's street name ("third".."seventh",
    "pre_draw", "draw"); ``up`` marks stud upcards."""

    seat: int
    street: str
    count: int
    cards: tuple[str, ...] = ()
    up: bool = False


@dataclass(frozen=True, slots=True)
class DealRules:
    """What fixes the positions of a hand's deal: the game, the seats dealt in (in
    dealing order, G5), and the configurable burns and river procedure (S4, S11, D6)."""

    game: Game
    players: tuple[int, ...]
    burn_before_third: bool = False
    burn_before_draw: bool = True
    river_shortage: RiverShortage = RiverShortage.RESHUFFLE_BURNS

    @property
    def deck(self) -> tuple[str, ...]:
        """The cards of this hand's deck (G1): 52 in stud, 32 in 7-A draw, 36 with
        five players dealt in.

        >>> [len(DealRules(Game.DRAW_7A, tuple(range(1, n + 1))).deck) for n in (2, 5)]
        [32, 36]
        >>> len(DealRules(Game.STUD, (1, 2)).deck)
        52
        """
        if self.game is Game.DRAW_7A:
            return tuple(card_str(c) for c in short_deck(with_sixes=len(self.players) == 5))
        return tuple(card_str(c) for c in standard_deck())


def deal_positions(
    rules: DealRules, deliveries: Sequence[Delivery]
) -> list[tuple[int | None, ...]]:
    """Where in the committed order each delivered card had to come from: one tuple
    per delivery, one position per card, ``None`` for a card dealt after a mid-hand
    reshuffle (S11, D6) or the community card.  Raises ValueError for a sequence
    of deliveries the procedure cannot produce.

    Stud (S4): after the optional burn, the first ``3n`` cards are two down cards
    and the door card to each seat in dealing order (card ``k`` of seat index ``i``
    at ``k*n + i``); each later street burns one and deals one card to each seat
    still in; seventh street follows S11 (burn and deal when the stub holds more
    cards than players, else the reshuffle, or under the STUB_FIRST procedure the
    stub's cards but its last first).  Draw (D4, D6): five cards each, one at a
    time; the first draw that replaces cards is preceded by a burn (unless the
    table does not burn); a draw the stub cannot serve while keeping its last card
    comes from the reshuffle, and so does every later one.

    >>> rules = DealRules(Game.STUD, (1, 2))
    >>> deal_positions(rules, [Delivery(1, "third", 2), Delivery(2, "third", 2),
    ...     Delivery(1, "third", 1, up=True), Delivery(2, "third", 1, up=True),
    ...     Delivery(1, "fourth", 1, up=True), Delivery(2, "fourth", 1, up=True)])
    [(0, 2), (1, 3), (4,), (5,), (7,), (8,)]
    >>> draw = DealRules(Game.DRAW_7A, (3, 1))
    >>> deal_positions(draw, [Delivery(3, "pre_draw", 5), Delivery(1, "pre_draw", 5),
    ...     Delivery(3, "draw", 0), Delivery(1, "draw", 2)])
    [(0, 2, 4, 6, 8), (1, 3, 5, 7, 9), (), (11, 12)]
    """
    n = len(rules.players)
    index = {seat: i for i, seat in enumerate(rules.players)}
    size = len(rules.deck)
    out: list[tuple[int | None, ...]] = []
    groups: list[tuple[str, list[Delivery]]] = []
    for d in deliveries:
        if d.seat and d.seat not in index:
            raise ValueError(f"seat {d.seat} was not dealt in")
        if groups and groups[-1][0] == d.street:
            groups[-1][1].append(d)
        else:
            groups.append((d.street, [d]))
    seen_streets = [street for street, _ in groups]
    if len(set(seen_streets)) != len(seen_streets):
        raise ValueError(f"the streets come out of order: {seen_streets}")
    if rules.game is Game.DRAW_7A:
        top = 5 * n
        burn_owed = rules.burn_before_draw
        reshuffled = False
        for street, group in groups:
            for d in group:
                if street == "pre_draw" and d.count == 5 and d.seat:
                    out.append(tuple(index[d.seat] + k * n for k in range(5)))
                elif street == "draw" and 0 <= d.count <= 5 and d.seat:
                    if d.count and burn_owed:
                        top += 1
                        burn_owed = False
                    if d.count and (reshuffled or d.count > size - top - 1):
                        reshuffled = True
                        out.append((None,) * d.count)
                    else:
                        out.append(tuple(range(top, top + d.count)))
                        top += d.count
                else:
                    raise ValueError(f"no 7-A draw deal gives {d.count} cards on {street}")
        return out
    burns = 1 if rules.burn_before_third else 0
    top = burns
    for street, group in groups:
        if street == "third":
            for d in group:
                if d.up and d.count == 1:
                    out.append((top + 2 * n + index[d.seat],))
                elif not d.up and d.count == 2:
                    out.append((top + index[d.seat], top + n + index[d.seat]))
                else:
                    raise ValueError(
                        f"third street deals two down and one up, not {d.count} "
                        f"{'up' if d.up else 'down'} to seat {d.seat}"
                    )
            top += 3 * n
            continue
        if any(d.count != 1 or not d.seat for d in group) and street != "seventh":
            raise ValueError(f"{street} street deals one card to each seat still in")
        if street in STUD_LATER_STREETS:
            top += 1  # the burn (S4)
            burns += 1
            for _ in group:
                out.append((top,))
                top += 1
        elif street == "seventh":
            if any(not d.seat for d in group):
                if len(group) != 1 or group[0].count != 1:
                    raise ValueError("a community card is the only card of seventh street")
                out.append((None,))
                continue
            if any(d.count != 1 for d in group):
                raise ValueError("seventh street deals one card to each seat still in")
            players, stub = len(group), size - top
            if stub >= players + 1:  # S11 1: burn one and deal
                top += 1
                from_stub = players
            elif rules.river_shortage is RiverShortage.STUB_FIRST and stub - 1 + burns >= players:
                from_stub = stub - 1  # [002]: the stub but its last card, then the reshuffle
            else:
                from_stub = 0  # S11 2: the burns and the stub reshuffled
            for k in range(players):
                out.append((top + k,) if k < from_stub else (None,))
        else:
            raise ValueError(f"no stud street is called {street!r}")
    return out


def _holders(
    deliveries: Sequence[Delivery], positions: Sequence[tuple[int | None, ...]]
) -> dict[int, int]:
    """The seat each dealt position went to."""
    return {
        p: d.seat
        for d, places in zip(deliveries, positions, strict=True)
        for p in places
        if p is not None
    }


def _card_order(cards: Collection[str]) -> tuple[str, ...]:
    """Cards sorted by rank then suit (G2): an order that says nothing of the deal."""
    return tuple(sorted(cards, key=parse_card))


Shown = Sequence[tuple[int, Sequence[str]]]


def openings(
    order: Sequence[str],
    rules: DealRules,
    dealt: Sequence[Delivery],
    seen: Sequence[Delivery],
    shown: Shown,
) -> tuple[frozenset[int], tuple[str, ...]]:
    """The table's side: which positions a viewer's proof opens, and which cards it
    saw came from a reshuffle.  ``dealt`` is the hand's deal with every card,
    ``seen`` the same deliveries as this viewer saw them (``cards`` empty where
    hidden) and ``shown`` the hands its view shows at the showdown (seat, cards).

    A position is opened when the viewer saw its card dealt from it, or saw that
    card in the showdown hand of the seat it was dealt to; never otherwise, and
    never when the order holds another card there: nothing this opens was not in
    the viewer's view.  A card dealt to a hidden hand and later, after a reshuffle,
    to the viewer (D6: a discard) is not opened at its first position.

    >>> rules = DealRules(Game.STUD, (1, 2))
    >>> order = ["As", "Kd", "7c", "2h", "Qs", "Jd", "9c", "8h"]
    >>> dealt = [Delivery(1, "third", 2, ("As", "7c")), Delivery(2, "third", 2, ("Kd", "2h")),
    ...     Delivery(1, "third", 1, ("Qs",), up=True), Delivery(2, "third", 1, ("Jd",), up=True)]
    >>> seen_by_1 = [dealt[0], Delivery(2, "third", 2), dealt[2], dealt[3]]
    >>> sorted(openings(order, rules, dealt, seen_by_1, [])[0])
    [0, 2, 4, 5]
    >>> sorted(openings(order, rules, dealt, seen_by_1, [(2, ("Kd", "2h", "Jd"))])[0])
    [0, 1, 2, 3, 4, 5]
    """
    if len(seen) != len(dealt):
        raise ValueError("the viewer's deliveries must be the hand's, one for one")
    positions = deal_positions(rules, dealt)
    holders = _holders(dealt, positions)
    where = {card: p for p, card in enumerate(order)}
    opened: set[int] = set()
    covered: set[str] = set()
    reshuffled: set[str] = set()
    for d, places in zip(seen, positions, strict=True):
        for card, p in zip(d.cards, places, strict=False):
            if p is None:
                reshuffled.add(card)
            elif p < len(order) and order[p] == card:
                opened.add(p)
                covered.add(card)
    for seat, cards in shown:
        for card in cards:
            p = where.get(card)
            if p is not None and holders.get(p) == seat:
                opened.add(p)
                covered.add(card)
            elif card not in covered:
                reshuffled.add(card)
    return frozenset(opened), _card_order(reshuffled - covered)


# ---------------------------------------------------------------- the viewer's check


@dataclass(frozen=True, slots=True)
class CardProof:
    """A viewer's proof of one hand (the DeckProof message, unwrapped)."""

    scheme: str
    commitment: bytes
    entries: tuple[Entry, ...]
    reshuffled: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a check found: ``checked`` are the cards the viewer saw that were found
    at their committed positions, ``reshuffled`` those dealt after a reshuffle (not
    covered), ``problems`` what did not match (none: verified)."""

    problems: tuple[str, ...]
    checked: tuple[str, ...] = ()
    reshuffled: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """True when nothing failed.

        >>> Verdict(()).ok, Verdict(("the leaves do not hash to R",)).ok
        (True, False)
        """
        return not self.problems


def _check_entries(proof: CardProof, rules: DealRules, published: bytes) -> list[str]:
    """The proof's shape, its cards and its hash against ``published``."""
    deck = set(rules.deck)
    if len(proof.entries) != len(deck):
        return [
            f"the proof has {len(proof.entries)} positions; a {rules.game.value} deck for "
            f"{len(rules.players)} players has {len(deck)} (G1)"
        ]
    problems: list[str] = []
    cards: set[str] = set()
    for i, entry in enumerate(proof.entries):
        if entry.position != i:
            return [f"position {i} of the proof is numbered {entry.position}"]
        if isinstance(entry, Opened):
            if len(entry.nonce) != DIGEST_BYTES:
                problems.append(f"position {i}: a nonce of {len(entry.nonce)} bytes")
            if entry.card not in deck:
                problems.append(f"position {i}: {entry.card!r} is not a card of this deck")
            if entry.card in cards:
                problems.append(f"position {i}: {entry.card} is opened twice")
            cards.add(entry.card)
        elif len(entry.leaf) != DIGEST_BYTES:
            problems.append(f"position {i}: a leaf of {len(entry.leaf)} bytes")
    if problems:
        return problems
    root = root_of([e.leaf for e in proof.entries])
    if not hmac.compare_digest(root, published):
        return [
            f"the deck's leaves hash to {root.hex()[:12]}..., not to the commitment "
            f"{published.hex()[:12]}... published when the hand started"
        ]
    return []


def verify_deal(
    published: bytes, proof: CardProof, rules: DealRules, seen: Sequence[Delivery], shown: Shown
) -> Verdict:
    """Check a viewer's proof against the commitment ``published`` at the hand's
    start and against what the viewer saw (``seen``: every delivery of the hand,
    with the cards it was shown; ``shown``: the showdown hands of its view).

    Verified when: the scheme is ``cardroom-cards-v1``; the proof holds one entry
    per card of the game's deck, the opened cards distinct and of that deck; the
    leaves hash to ``published``; every card the viewer saw dealt is opened at the
    position the deal procedure gives it (``deal_positions``), or came after a
    reshuffle; every card of a shown hand is opened at a position dealt to that
    seat, or is one of that seat's reshuffled cards; no opened card is one the
    viewer was not shown; and ``reshuffled`` lists exactly the cards it saw from a
    reshuffle.

    >>> rules = DealRules(Game.STUD, (1, 2))
    >>> order = [card_str(c) for c in standard_deck()][::-1]
    >>> salt = bytes(range(32))
    >>> order[:6]
    ['As', 'Ah', 'Ad', 'Ac', 'Ks', 'Kh']
    >>> seen = [Delivery(1, "third", 2, ("As", "Ad")), Delivery(2, "third", 2),
    ...     Delivery(1, "third", 1, ("Ks",), up=True), Delivery(2, "third", 1, ("Kh",), up=True)]
    >>> root = commit_cards(order, salt)
    >>> proof = CardProof(SCHEME, root, tuple(prove(order, salt, {0, 2, 4, 5})))
    >>> verdict = verify_deal(root, proof, rules, seen, [])
    >>> verdict.ok, verdict.checked
    (True, ('Kh', 'Ks', 'Ad', 'As'))
    >>> verify_deal(bytes(32), proof, rules, seen, []).problems
    ('the proof is for another commitment than the one published',)
    >>> tampered = CardProof(SCHEME, bytes(32), proof.entries)
    >>> verify_deal(bytes(32), tampered, rules, seen, []).problems
    ("the deck's leaves hash to ..., not to the commitment 000000000000... published ...",)
    """
    if proof.scheme != SCHEME:
        return Verdict((f"unknown card commitment scheme {proof.scheme!r} (expected {SCHEME})",))
    if not hmac.compare_digest(proof.commitment, published):
        return Verdict(("the proof is for another commitment than the one published",))
    problems = _check_entries(proof, rules, published)
    if problems:
        return Verdict(tuple(problems))
    try:
        positions = deal_positions(rules, seen)
    except ValueError as error:
        return Verdict((f"the hand's deal does not follow the rules: {error}",))
    opened = {e.position: e.card for e in proof.entries if isinstance(e, Opened)}
    holders = _holders(seen, positions)
    checked: set[str] = set()
    reshuffled: set[str] = set()
    saw: set[str] = set()
    from_reshuffle: dict[int, int] = {}  # seat -> cards it got after a reshuffle
    for d, places in zip(seen, positions, strict=True):
        from_reshuffle[d.seat] = from_reshuffle.get(d.seat, 0) + places.count(None)
        for card, p in zip(d.cards, places, strict=False):
            saw.add(card)
            if p is None:
                reshuffled.add(card)
            elif opened.get(p) == card:
                checked.add(card)
            elif p in opened:
                problems.append(
                    f"{card}, dealt to seat {d.seat} on {d.street} street, should be at "
                    f"position {p}, which holds {opened[p]}"
                )
            else:
                problems.append(
                    f"{card}, dealt to seat {d.seat} on {d.street} street, is not opened at "
                    f"position {p}, where the deal took it from"
                )
    at = {card: p for p, card in opened.items()}
    for seat, cards in shown:
        unaccounted = from_reshuffle.get(seat, 0)
        for card in cards:
            saw.add(card)
            if card in checked or card in reshuffled:
                continue
            p = at.get(card)
            if p is not None and holders.get(p) == seat:
                checked.add(card)
            elif unaccounted > 0:
                unaccounted -= 1
                reshuffled.add(card)
            else:
                problems.append(
                    f"{card}, shown by seat {seat}, is not opened at a position dealt to that seat"
                )
    for p, card in sorted(opened.items()):
        if card not in saw:
            problems.append(f"position {p} opens {card}, a card you were not shown")
    claimed = set(proof.reshuffled)
    if claimed != reshuffled:
        if extra := claimed - reshuffled:
            listed = " ".join(_card_order(extra))
            problems.append(f"listed as dealt after a reshuffle but not so dealt to you: {listed}")
        if missing := reshuffled - claimed:
            problems.append(
                f"dealt after a reshuffle but not listed so: {' '.join(_card_order(missing))}"
            )
    return Verdict(tuple(problems), _card_order(checked), _card_order(reshuffled))


__all__ = [
    "DIGEST_BYTES",
    "LABEL",
    "SCHEME",
    "CardProof",
    "DealRules",
    "Delivery",
    "Entry",
    "Opened",
    "Sealed",
    "Verdict",
    "card_leaf",
    "card_nonce",
    "commit_cards",
    "deal_positions",
    "openings",
    "prove",
    "root_of",
    "verify_deal",
]
