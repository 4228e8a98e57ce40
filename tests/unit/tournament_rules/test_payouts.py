# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __T3)
"""T5: payout tables over the prize pool, and chip conservation."""

from __future__ import annotations

import pytest

from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import (
    DEFAULT_PAYOUT_TABLE,
    ChipConservationError,
    PayoutTable,
    PayoutTier,
    allocate,
    check_chips,
    prize_pool,
    split_evenly,
    total_chips,
)


def test_payouts_by_basis_points__T5() -> None:
    assert allocate(1000, (5000, 3000, 2000)) == (500, 300, 200)


def test_remainder_goes_to_the_top_places_first__T5() -> None:
    assert allocate(100, (1, 1, 1)) == (34, 33, 33)
    assert allocate(1001, (5000, 3000, 2000)) == (501, 300, 200)
    assert allocate(7, (5000, 3000, 2000)) == (4, 2, 1)  # 3.5, 2.1, 1.4 -> 3,2,1 +1 to 1st


def test_tier_chosen_by_number_of_entries__T5() -> None:
    table = PayoutTable(
        (
            PayoutTier(1, (10_000,)),
            PayoutTier(6, (7_000, 3_000)),
            PayoutTier(20, (5_000, 3_000, 2_000)),
        )
    )
    assert table.payouts(5, 100) == (500,)
    assert table.payouts(6, 100) == (420, 180)
    assert table.payouts(19, 100) == (1330, 570)
    assert table.payouts(20, 100) == (1000, 600, 400)


def test_integer_weights_instead_of_basis_points__T5() -> None:
    table = PayoutTable((PayoutTier(1, (1,)), PayoutTier(3, (5, 3, 2))), basis_points=False)
    assert table.payouts(10, 333) == (1665, 999, 666)  # exact: no remainder
    assert table.payouts(7, 333) == (1166, 699, 466)  # 1165.5, 699.3, 466.2 + 1 to 1st


def test_payouts_sum_exactly_to_the_prize_pool__T5() -> None:
    for entries in range(1, 400):
        for buy_in in (1, 7, 99, 1000, 2_499):
            payouts = DEFAULT_PAYOUT_TABLE.payouts(entries, buy_in)
            assert sum(payouts) == prize_pool(entries, buy_in) == entries * buy_in
            assert list(payouts) == sorted(payouts, reverse=True)
            assert len(payouts) <= entries


def test_split_evenly_odd_units_to_the_first__T5() -> None:
    assert split_evenly(10, 3) == [4, 3, 3]
    assert split_evenly(9, 3) == [3, 3, 3]
    assert split_evenly(2, 3) == [1, 1, 0]


@pytest.mark.parametrize(
    ("tiers", "message"),
    [
        ((), "at least one tier"),
        ((PayoutTier(2, (10_000,)),), "start at 1 entry"),
        ((PayoutTier(1, (9_999,)),), "sum to 9999"),
        ((PayoutTier(1, (10_000,)), PayoutTier(5, (4_000, 6_000))), "more than the place above"),
        ((PayoutTier(1, (5_000, 5_000)),), "more paid places than entries"),
        ((PayoutTier(1, (10_000,)), PayoutTier(1, (10_000,))), "strictly increasing"),
        ((PayoutTier(1, (10_000.0,)),), "int of chips"),  # type: ignore[arg-type]
        ((PayoutTier(1, (10_000, 0)),), "positive share"),
    ],
)
def test_invalid_payout_tables_are_refused__T5(tiers: tuple[PayoutTier, ...], message: str) -> None:
    with pytest.raises(InvalidConfigError, match=message):
        PayoutTable(tiers)


def test_chips_conserved_entries_times_starting_stack__T5() -> None:
    assert total_chips(120, 1500) == 180_000
    check_chips([3000, 1000, 2000], entries=4, starting_stack=1500)
    check_chips([2000, 1000, 2000], entries=4, starting_stack=1500, in_pots=1000)  # mid-hand
    with pytest.raises(ChipConservationError, match=r"\+1 chips created"):
        check_chips([3001, 1000, 2000], entries=4, starting_stack=1500)
    with pytest.raises(ChipConservationError, match="-500 chips"):
        check_chips([2500, 1000, 2000], entries=4, starting_stack=1500)
