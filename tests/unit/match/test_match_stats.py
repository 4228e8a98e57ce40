# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs)
"""The duplicate match's statistics and plan, on inputs whose answers are known.

``bot_result`` must give the mean in big bets per 100 hands, the 95 % interval
over duplicate deals (a deal's mean over its seatings is one sample), the plain
interval over the same hands taken one by one, and the variance reduction
``1 - var_dup / var_plain`` of the mean: checked against a worked example and
against ``statistics`` on random data.
"""

from __future__ import annotations

import math
import random
import statistics

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.common.v1 import common_pb2 as common
from poker_bots.match import (
    Z95,
    big_bet_of,
    bot_result,
    deals,
    rotations,
)
from poker_bots.match_types import HandPlayed
from poker_rules.cards import card_str, short_deck, standard_deck


def heads_up(nets: list[tuple[int, int]]) -> list[HandPlayed]:
    """Deal k played twice: bot a nets ``nets[k]`` (first seating, second), b the
    opposite."""
    hands = []
    for deal, (first, second) in enumerate(nets):
        hands.append(HandPlayed(deal, ("a", "b"), {"a": first, "b": -first}, ""))
        hands.append(HandPlayed(deal, ("b", "a"), {"a": second, "b": -second}, ""))
    return hands


def test_a_worked_example() -> None:
    """Four deals, big bet 200: a's nets 300 -100 | 100 100 | -200 0 | 0 0.

    Mean 200 / 8 = 25 chips a hand = 12.5 bb/100.  Deal means 100, 100, -100, 0:
    sample variance 27,500 / 3, so the mean's variance is 27,500 / 12.  The eight
    hands: sample variance 155,000 / 7, the mean's 155,000 / 56.
    """
    r = bot_result("a", heads_up([(300, -100), (100, 100), (-200, 0), (0, 0)]), 200)
    assert (r.hands, r.deals, r.chips) == (8, 4, 200)
    assert r.bb_per_100 == 12.5
    dup_half = Z95 * math.sqrt(27_500 / 12) * 100 / 200
    plain_half = Z95 * math.sqrt(155_000 / 56) * 100 / 200
    assert r.duplicate is not None and r.plain is not None
    assert r.duplicate.low == pytest.approx(12.5 - dup_half)
    assert r.duplicate.high == pytest.approx(12.5 + dup_half)
    assert r.duplicate.half_width == pytest.approx(46.914, abs=1e-3)
    assert r.plain.low == pytest.approx(12.5 - plain_half)
    assert r.plain.half_width == pytest.approx(51.557, abs=1e-3)
    assert r.variance_reduction == pytest.approx(1 - (27_500 / 12) / (155_000 / 56))
    other = bot_result("b", heads_up([(300, -100), (100, 100), (-200, 0), (0, 0)]), 200)
    assert other.bb_per_100 == -12.5  # heads-up: the mirror image
    assert other.duplicate is not None
    assert other.duplicate.half_width == pytest.approx(r.duplicate.half_width)


@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(
    seatings=st.integers(2, 6),
    deal_count=st.integers(2, 40),
    big_bet=st.sampled_from([2, 100, 200, 1000]),
    seed=st.integers(0, 2**32),
)
def test_the_numbers_are_those_of_statistics(
    seatings: int, deal_count: int, big_bet: int, seed: int
) -> None:
    rng = random.Random(seed)
    hands = []
    per_deal: list[list[int]] = []
    for deal in range(deal_count):
        nets = [rng.randint(-5_000, 5_000) for _ in range(seatings)]
        per_deal.append(nets)
        names = tuple(f"x{k}" for k in range(seatings))
        for net in nets:
            hands.append(HandPlayed(deal, names, {"me": net, "x0": -net}, ""))
    r = bot_result("me", hands, big_bet)
    flat = [x for nets in per_deal for x in nets]
    scale = 100 / big_bet
    mean = statistics.fmean(flat)
    assert r.bb_per_100 == pytest.approx(mean * scale)
    units = [statistics.fmean(nets) for nets in per_deal]
    dup_se = statistics.stdev(units) / math.sqrt(deal_count)
    plain_se = statistics.stdev(flat) / math.sqrt(len(flat))
    assert r.duplicate is not None and r.plain is not None
    assert r.duplicate.half_width == pytest.approx(Z95 * dup_se * scale)
    assert r.plain.half_width == pytest.approx(Z95 * plain_se * scale)
    assert (r.duplicate.low + r.duplicate.high) / 2 == pytest.approx(mean * scale)
    if plain_se > 0:
        assert r.variance_reduction == pytest.approx(1 - dup_se**2 / plain_se**2)


def test_identical_play_cancels_the_cards_completely() -> None:
    """Two bots that play the same way: each deal's seatings cancel, so the
    duplicate interval is a point and duplication removed all the variance."""
    r = bot_result("a", heads_up([(500, -500), (-75, 75), (1200, -1200)]), 200)
    assert r.bb_per_100 == 0.0
    assert r.duplicate is not None and r.duplicate.half_width == 0.0
    assert r.plain is not None and r.plain.half_width > 0
    assert r.variance_reduction == 1.0


def test_one_deal_has_no_duplicate_interval() -> None:
    r = bot_result("a", heads_up([(300, -100)]), 200)
    assert r.duplicate is None and r.variance_reduction is None
    assert r.plain is not None


def test_deals_must_have_every_seating() -> None:
    hands = heads_up([(1, 2), (3, 4)])[:-1]
    with pytest.raises(ValueError, match="different numbers of seatings"):
        bot_result("a", hands, 200)
    with pytest.raises(ValueError, match="played no hand"):
        bot_result("c", heads_up([(1, 2)]), 200)
    with pytest.raises(ValueError, match="big bet"):
        bot_result("a", heads_up([(1, 2)]), 0)


def test_the_unit_is_the_big_bet_in_fixed_limit_and_the_big_blind_otherwise() -> None:
    stud = common.GameConfig(game=common.GAME_STUD_HILO, small_bet=100, big_bet=200)
    assert big_bet_of(stud) == (200, "big bet")
    fixed = common.GameConfig(
        game=common.GAME_DRAW_7A, small_bet=50, big_bet=100, structure=common.STRUCTURE_FIXED_LIMIT
    )
    assert big_bet_of(fixed) == (100, "big bet")
    for structure in (common.STRUCTURE_POT_LIMIT, common.STRUCTURE_NO_LIMIT):
        draw = common.GameConfig(
            game=common.GAME_DRAW_7A, small_bet=50, big_bet=100, structure=structure
        )
        assert big_bet_of(draw) == (50, "big blind")


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_every_bot_sits_in_every_position_once(n: int) -> None:
    names = [f"b{k}" for k in range(n)]
    seatings = rotations(names)
    assert len(seatings) == n
    for position in range(n):
        assert sorted(s[position] for s in seatings) == sorted(names)
    assert rotations(["a", "b"]) == [("a", "b"), ("b", "a")]


def test_the_deals_are_seeded_decks_G1() -> None:
    stud = common.GameConfig(game=common.GAME_STUD, small_bet=100, big_bet=200)
    first = deals(stud, 2, 50, seed=9)
    assert first == deals(stud, 2, 50, seed=9)
    assert first != deals(stud, 2, 50, seed=10)
    assert [d.number for d in first] == list(range(50))
    full = sorted(card_str(c) for c in standard_deck())
    assert all(sorted(d.order) == full for d in first)
    assert len({d.order for d in first}) == 50
    draw = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)
    assert sorted(deals(draw, 4, 1, seed=1)[0].order) == sorted(
        card_str(c) for c in short_deck(False)
    )
    assert len(deals(draw, 5, 1, seed=1)[0].order) == 36  # G1: the sixes with five players


def test_the_modules_examples_run() -> None:
    """The docstring examples of ``poker_bots.match`` (not in test_doctests' packages)."""
    import doctest

    import poker_bots.match

    outcome = doctest.testmod(poker_bots.match, optionflags=doctest.ELLIPSIS)
    assert outcome.attempted > 0 and outcome.failed == 0
