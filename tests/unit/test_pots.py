# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __G6)
"""Unit tests for ``poker_rules.pots``: uncalled bets, side pots, dead money, odd chips.

Rule IDs: G6 (uncalled bets are returned before the pot is awarded), S13 (pots split
equally, one odd chip at most per player and pot, each pot on its own), H5/H6 (the
odd chip of a halved pot plays high; side pots split on their own).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker_rules import Pot
from poker_rules.pots import side_pots, split_pot, uncalled_bet
from poker_rules.showdown import award_pots

# ------------------------------------------------------------------ G6 uncalled bets


def test_uncalled_bet_returned_to_the_only_top_contributor__G6() -> None:
    assert uncalled_bet([100, 300, 0]) == (1, 200)
    assert uncalled_bet([400, 400, 1000]) == (2, 600)


def test_uncalled_bet_none_when_top_is_matched__G6() -> None:
    assert uncalled_bet([300, 300]) is None
    assert uncalled_bet([300, 100, 300]) is None
    assert uncalled_bet([0, 0, 0]) is None


def test_uncalled_bet_needs_two_players__G6() -> None:
    assert uncalled_bet([]) is None
    assert uncalled_bet([500]) is None


def test_uncalled_bet_above_a_short_all_in_call__G6() -> None:
    # Player 0 is all-in for 50; player 1 bet 200: 150 of it was never called.
    assert uncalled_bet([50, 200]) == (1, 150)


def test_uncalled_bet_counts_folded_players_chips_as_called__G6() -> None:
    # Player 1 called 300 then folded: their chips did call player 2's 300 of 500.
    assert uncalled_bet([25, 300, 500]) == (2, 200)


# ------------------------------------------------------------------ side pots (S13, H6)


def test_three_all_ins_of_different_sizes_make_a_main_and_two_side_pots__S13() -> None:
    # A all-in 100, B all-in 250, C all-in 400; D covered with 600.
    contributions = [100, 250, 400, 600]
    assert uncalled_bet(contributions) == (3, 200)
    after_return = [100, 250, 400, 400]
    pots = side_pots(after_return, [False] * 4)
    assert pots == [
        Pot(400, (0, 1, 2, 3)),  # 100 from each
        Pot(450, (1, 2, 3)),  # 150 from B, C, D
        Pot(300, (2, 3)),  # 150 from C and D
    ]
    assert sum(p.amount for p in pots) == sum(after_return)


def test_folded_players_chips_stay_in_the_pots_they_reach__S13() -> None:
    # Player 4 put in 300 and folded: 100 to the main pot, 150 to the first side
    # pot, 50 to the second; they are eligible for none of them.
    contributions = [100, 250, 400, 400, 300]
    folded = [False, False, False, False, True]
    pots = side_pots(contributions, folded)
    assert pots == [
        Pot(500, (0, 1, 2, 3)),
        Pot(600, (1, 2, 3)),
        Pot(350, (2, 3)),
    ]
    assert sum(p.amount for p in pots) == sum(contributions)
    assert all(4 not in p.eligible for p in pots)


def test_equal_contributions_make_a_single_pot__S13() -> None:
    assert side_pots([200, 200, 200], [False, False, False]) == [Pot(600, (0, 1, 2))]


def test_folded_chips_above_every_live_level_join_the_last_pot__S13() -> None:
    contributions = [250, 250, 100, 100]
    folded = [True, True, False, False]
    assert side_pots(contributions, folded) == [Pot(700, (2, 3))]


def test_all_in_for_the_ante_only_wins_the_main_pot__S13() -> None:
    # Stud: player 0 was all-in for a 25 ante; the others bet on.
    pots = side_pots([25, 525, 525], [False, False, False])
    assert pots == [Pot(75, (0, 1, 2)), Pot(1000, (1, 2))]


def test_dead_money_goes_to_the_main_pot_and_makes_nobody_eligible__G6() -> None:
    # A dead small blind of 25 (B3) plus a 40 all-in and two players at 100.
    pots = side_pots([100, 40, 100], [False, False, False], dead=25)
    assert pots == [Pot(145, (0, 1, 2)), Pot(120, (0, 2))]


def test_dead_money_alone_goes_to_everyone_in_the_hand__G6() -> None:
    assert side_pots([0, 0, 0], [False, True, False], dead=10) == [Pot(10, (0, 2))]
    assert side_pots([0, 0], [False, False]) == []


# ------------------------------------------------------------------ odd chips (S13, H5)


def test_split_pot_even__S13() -> None:
    assert split_pot(300, [2, 0, 1]) == [(2, 100), (0, 100), (1, 100)]


def test_split_pot_odd_chip_goes_to_first_listed__S13() -> None:
    assert split_pot(101, [2, 0]) == [(2, 51), (0, 50)]


def test_split_pot_two_odd_chips_one_each__S13() -> None:
    shares = split_pot(101, [3, 1, 0])
    assert shares == [(3, 34), (1, 34), (0, 33)]
    assert max(a for _, a in shares) - min(a for _, a in shares) <= 1


def test_split_pot_smaller_than_the_winners__S13() -> None:
    assert split_pot(2, [4, 1, 0]) == [(4, 1), (1, 1), (0, 0)]


def test_split_pot_needs_a_winner__S13() -> None:
    with pytest.raises(ValueError):
        split_pot(100, [])


def test_award_pots_odd_chip_follows_the_games_order__S13() -> None:
    # Players 0 and 2 tie; the order function puts player 2 first (highest card).
    pots = [Pot(75, (0, 1, 2))]
    awards = award_pots(pots, [9, 3, 9], lambda ps: sorted(ps, reverse=True))
    assert [(a.player, a.amount) for a in awards] == [(2, 38), (0, 37)]


def test_award_pots_each_side_pot_split_on_its_own__H6() -> None:
    # Main pot: players 0, 1, 2; side pot: 1, 2.  Player 0 has the best high hand,
    # player 1 the only qualifying low.  Main is halved (odd chip high, H5); the side
    # pot is halved between 2 (best high of the two) and 1 (low).
    pots = [Pot(75, (0, 1, 2)), Pot(101, (1, 2))]
    awards = award_pots(
        pots,
        [10, 1, 5],
        list,
        [None, 7, None],
        list,
    )
    got = {(a.pot, a.player, a.half): a.amount for a in awards}
    assert got == {
        (0, 0, "high"): 38,
        (0, 1, "low"): 37,
        (1, 2, "high"): 51,
        (1, 1, "low"): 50,
    }


# ------------------------------------------------------------------ properties


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 1_000), st.booleans()),
        min_size=2,
        max_size=8,
    ),
    st.integers(0, 100),
)
def test_side_pots_hold_exactly_the_chips_put_in__S13(
    players: list[tuple[int, bool]], dead: int
) -> None:
    contributions = [c for c, _ in players]
    folded = [f for _, f in players]
    returned = 0
    uncalled = uncalled_bet(contributions)
    if uncalled is not None:
        who, returned = uncalled
        assert returned > 0
        contributions[who] -= returned
    pots = side_pots(contributions, folded, dead)
    assert sum(p.amount for p in pots) + returned == sum(c for c, _ in players) + dead
    assert all(type(p.amount) is int and p.amount > 0 for p in pots)
    live = [i for i, (c, f) in enumerate(zip(contributions, folded, strict=True)) if not f]
    previous: set[int] | None = None
    for pot in pots:
        eligible = set(pot.eligible)
        assert not any(folded[i] for i in eligible)
        if any(contributions[i] > 0 for i in live):
            level = min(contributions[i] for i in eligible)
            # Every live player who reached this pot's level is eligible for it.
            assert eligible == {i for i in live if contributions[i] >= level}
        if previous is not None:
            assert eligible < previous  # side pots narrow down
        previous = eligible


def test_split_pot_never_gives_more_than_one_odd_chip__S13() -> None:
    for amount in range(0, 40):
        for k in range(1, 9):
            winners = list(range(k))[::-1]
            shares = split_pot(amount, winners)
            assert [w for w, _ in shares] == winners
            assert sum(s for _, s in shares) == amount
            assert all(s in (amount // k, amount // k + 1) for _, s in shares)
            # The odd chips go to the first winners in the game's order.
            assert [s for _, s in shares] == sorted((s for _, s in shares), reverse=True)
