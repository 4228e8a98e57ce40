"""Audit a dealer reveal: what any player or regulator can check after a hand.

Two checks, both from the CloseDeck response alone: the commitment published
before the hand is the hash of the revealed order and secrets
(``poker_rules.commitment.verify``), and replaying the logged operations on the
deck those secrets define gives exactly the cards that were served, burns and
reshuffles included.  Together they show that the deal was fixed before the first
card and that the dealer dealt from it.  When the reveal carries the per-card
commitment (``cardroom-cards-v1``, G4a), it must be the one of the revealed order
and salt, so the players' per-card proofs stand on the same deck the audit checks.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence
from typing import Protocol

from poker.dealer.v1 import dealer_pb2 as pb
from poker_rules.card_commitment import commit_cards
from poker_rules.cards import card_str, parse_card
from poker_rules.commitment import SCHEME, committed_deck, verify
from poker_rules.deck import Deck
from poker_rules.errors import RulesError
from poker_wire import river_shortage_of


class Reveal(Protocol):
    """What an audit reads: the dealer's CloseDeckResponse, or the table service's
    DeckReveal (GetDeckReveal), which carries the same fields."""

    @property
    def scheme(self) -> str: ...
    @property
    def commitment(self) -> bytes: ...
    @property
    def order(self) -> Sequence[str]: ...
    @property
    def salt(self) -> bytes: ...
    @property
    def reshuffle_seed(self) -> bytes: ...
    @property
    def log(self) -> Sequence[pb.DeckOperation]: ...
    @property
    def card_commitment(self) -> bytes: ...


def audit_reveal(reveal: Reveal) -> list[str]:
    """The problems found in ``reveal`` (an empty list: the deal verifies)."""
    if reveal.scheme != SCHEME:
        return [f"unknown commitment scheme {reveal.scheme!r}"]
    try:
        order = [parse_card(c) for c in reveal.order]
    except ValueError as error:
        return [f"the revealed order is not a deck: {error}"]
    if not verify(reveal.commitment, order, reveal.salt, reveal.reshuffle_seed):
        return ["the commitment does not match the revealed order and secrets"]
    if reveal.card_commitment and not hmac.compare_digest(
        reveal.card_commitment, commit_cards(list(reveal.order), reveal.salt)
    ):
        return ["the per-card commitment does not match the revealed order and salt (G4a)"]
    deck = committed_deck(order, reveal.reshuffle_seed)
    problems: list[str] = []
    for k, op in enumerate(reveal.log):
        try:
            _put_back(deck, op, reveal.log[k - 1] if k else None)
            problems.extend(f"operation {k}: {p}" for p in _replay(deck, op))
        except (RulesError, ValueError) as error:
            problems.append(f"operation {k}: cannot be replayed: {error}")
    return problems


def unused_cards(previous: pb.DeckOperation | None, count: int) -> list[str]:
    """The cards a ``return_unused`` of ``count`` puts back: the last ``count`` the
    previous operation served, which must be a Deal (a street dealt ahead, its
    folded players' cards given to nobody).  Raises ValueError otherwise.  The
    dealer checks a request with it, the audit replays a log with it."""
    if not count:
        return []
    served = len(previous.cards) if previous and previous.WhichOneof("op") == "deal" else 0
    if served < count:
        raise ValueError(
            f"only the cards of the previous Deal on this deck can go back, and it served {served}"
        )
    assert previous is not None
    return list(previous.cards[served - count :])


def _put_back(deck: Deck, op: pb.DeckOperation, previous: pb.DeckOperation | None) -> None:
    """Replay a Deal or DealRiver's ``return_unused``, before the operation."""
    kind = op.WhichOneof("op")
    count = (
        op.deal.return_unused
        if kind == "deal"
        else op.river.return_unused
        if kind == "river"
        else 0
    )
    deck.undeal([parse_card(c) for c in unused_cards(previous, count)])


def _replay(deck: Deck, op: pb.DeckOperation) -> list[str]:
    """Apply one logged operation to ``deck`` and compare with what was served."""
    kind = op.WhichOneof("op")
    expected = list(op.cards)
    if kind == "deal":
        burned = [card_str(deck.burn())] if op.deal.burn_first else []
        cards = [card_str(c) for c in deck.deal_many(op.deal.count)]
        return _compare(cards, expected, "dealt") + _compare(burned, list(op.burned), "burned")
    if kind == "river":
        river = deck.deal_river(op.river.players, river_shortage_of(op.river.procedure))
        community = card_str(river.community) if river.community is not None else ""
        problems = _compare([card_str(c) for c in river.cards], expected, "dealt")
        problems += _compare([card_str(c) for c in river.burned], list(op.burned), "burned")
        if community != op.community_card:
            problems.append(f"community card {community!r}, logged {op.community_card!r}")
        return problems
    if kind == "draw":
        burned = [card_str(deck.burn())] if op.draw.burn_first else []
        new, reshuffled = deck.draw([parse_card(c) for c in op.draw.discards])
        problems = _compare([card_str(c) for c in new], expected, "drawn")
        problems += _compare(burned, list(op.burned), "burned")
        if reshuffled != op.reshuffled:
            problems.append(f"reshuffled {reshuffled}, logged {op.reshuffled}")
        return problems
    return [f"unknown operation {kind!r}"]


def _compare(actual: list[str], logged: list[str], what: str) -> list[str]:
    if actual == logged:
        return []
    return [f"replay {what} {' '.join(actual)}, the dealer served {' '.join(logged)}"]
