# ruff: noqa: N802  (test names carry the docs/rules.md rule ID)
"""The next hand's button and blinds at a tournament table (B1 dead button, D3
heads-up), as ``rebalance`` (T3) expects them: the big blind is always the first
player after the small-blind position."""

from __future__ import annotations

import random

import pytest

from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import BlindPositions, next_big_blind, next_positions


def test_B1_a_new_game_puts_the_button_on_the_lowest_seat() -> None:
    assert next_positions({2, 4, 5}, 5, None) == BlindPositions(2, 4, 5)


def test_D3_heads_up_the_button_posts_the_small_blind() -> None:
    assert next_positions({1, 3}, 5, None) == BlindPositions(1, 1, 3)
    # The big blind moves; the other player has the button and the small blind.
    assert next_positions({1, 3}, 5, BlindPositions(1, 1, 3)) == BlindPositions(3, 3, 1)


def test_B1_the_blinds_move_one_player_each_hand() -> None:
    assert next_positions({1, 2, 3, 4, 5}, 5, BlindPositions(1, 2, 3)) == BlindPositions(2, 3, 4)
    assert next_positions({1, 2, 3, 4, 5}, 5, BlindPositions(4, 5, 1)) == BlindPositions(5, 1, 2)


def test_B1_the_previous_big_blind_left_no_small_blind_is_posted() -> None:
    # Seat 3 (the last big blind) busted: its seat is the small-blind position, dead.
    positions = next_positions({1, 2, 4, 5}, 5, BlindPositions(1, 2, 3))
    assert positions == BlindPositions(2, 3, 4)
    assert positions.small_blind not in {1, 2, 4, 5}


def test_B1_the_previous_small_blind_left_the_button_is_dead() -> None:
    positions = next_positions({1, 3, 4, 5}, 5, BlindPositions(1, 2, 3))
    assert positions == BlindPositions(2, 3, 4) and positions.button not in {1, 3, 4, 5}


def test_T3_the_big_blind_is_the_player_rebalance_calls_next_big_blind() -> None:
    rng = random.Random(5)
    last = None
    seats = {1, 2, 3, 4, 5}
    for _ in range(300):
        positions = next_positions(seats, 5, last)
        players = {s: f"p{s}" for s in seats}
        assert positions.big_blind == next_big_blind(players, 5, positions)
        assert positions.big_blind in seats
        if last is not None and len(seats) > 2:
            assert positions.big_blind != last.big_blind  # nobody posts it twice in a row
        last = positions
        # Players leave and arrive at random between hands (busts, T3 moves).
        if len(seats) > 2 and rng.random() < 0.3:
            seats.discard(rng.choice(sorted(seats)))
        if len(seats) < 5 and rng.random() < 0.3:
            seats.add(rng.choice(sorted({1, 2, 3, 4, 5} - seats)))


def test_T3_positions_need_two_players_on_real_seats() -> None:
    with pytest.raises(InvalidConfigError, match="two players"):
        next_positions({3}, 5, None)
    with pytest.raises(InvalidConfigError, match=r"1\.\.5"):
        next_positions({3, 6}, 5, None)
