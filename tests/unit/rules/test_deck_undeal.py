# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs)
"""``Deck.undeal``: cards dealt ahead and given to nobody go back on top of the
stub, and the deal goes on exactly as if they had never left it (S4: burn one,
one card to each player still in).  The dealer's ``return_unused`` is this."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from poker_rules.cards import standard_deck
from poker_rules.deck import Deck


@given(
    seed=st.integers(0, 2**32),
    ahead=st.integers(1, 8),
    unused=st.integers(0, 8),
    burns=st.booleans(),
    later=st.integers(0, 20),
)
def test_undeal_then_deal_is_the_deal_without_the_unused_cards__S4(
    seed: int, ahead: int, unused: int, burns: bool, later: int
) -> None:
    unused = min(unused, ahead)
    spec, plain = Deck(standard_deck(), seed), Deck(standard_deck(), seed)
    dealt = spec.deal_many(ahead)
    spec.undeal(dealt[ahead - unused :])
    assert dealt[: ahead - unused] == plain.deal_many(ahead - unused)
    assert spec.remaining == plain.remaining
    if burns:
        assert spec.burn() == plain.burn()
    assert spec.deal_many(later) == plain.deal_many(later)


def test_undeal_refuses_cards_still_in_the_stub() -> None:
    deck = Deck(standard_deck(), 7)
    dealt = deck.deal_many(2)
    with pytest.raises(ValueError):
        deck.undeal([dealt[1], dealt[1]])  # the same card twice
    top = deck.deal()
    deck.undeal([top])
    with pytest.raises(ValueError):
        deck.undeal([top])  # already back in the stub
    assert deck.deal() == top
