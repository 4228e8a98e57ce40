# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __T3)
"""T4: simultaneous busts ranked by starting stack; ties share places and prizes.

Also the standings and results built from the elimination log.
"""

from __future__ import annotations

import pytest

from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import (
    Bust,
    Finish,
    Result,
    Standing,
    finishes_from_log,
    prizes,
    rank_busts,
    results,
    standings,
)


def test_simultaneous_busts_ranked_by_starting_stack__T4() -> None:
    busts = [Bust("x", 500), Bust("y", 1200), Bust("z", 800)]
    assert rank_busts(busts, players_left=10) == [
        Finish("y", 8),
        Finish("z", 9),
        Finish("x", 10),
    ]


def test_equal_starting_stacks_share_places__T4() -> None:
    busts = [Bust("x", 500), Bust("y", 800), Bust("z", 500)]
    assert rank_busts(busts, players_left=10) == [
        Finish("y", 8),
        Finish("x", 9, tied=2),
        Finish("z", 9, tied=2),
    ]
    assert list(Finish("x", 9, tied=2).places) == [9, 10]


def test_tied_players_split_the_summed_prizes__T4() -> None:
    # Three left; two bust with equal stacks: they share 2nd and 3rd: (300 + 200) / 2.
    finishes = rank_busts([Bust("a", 400), Bust("b", 400)], players_left=3)
    assert finishes == [Finish("a", 2, 2), Finish("b", 2, 2)]
    assert prizes(finishes, [500, 300, 200]) == {"a": 250, "b": 250}


def test_odd_chip_of_a_shared_prize_goes_first_in_odd_chip_order__T4() -> None:
    # 300 + 201 = 501 units for two: the player listed first (clockwise from the
    # button, D9's odd-chip order) gets the odd unit.
    finishes = rank_busts([Bust("b", 400), Bust("a", 400)], players_left=3)
    assert prizes(finishes, [499, 300, 201]) == {"b": 251, "a": 250}
    three = rank_busts([Bust("c", 70), Bust("a", 70), Bust("b", 70)], players_left=4)
    assert prizes(three, [600, 200, 150, 50]) == {"c": 134, "a": 133, "b": 133}


def test_tie_across_the_money_bubble_shares_the_paid_place__T4() -> None:
    finishes = rank_busts([Bust("a", 90), Bust("b", 90)], players_left=4)  # places 3 and 4
    assert prizes(finishes, [600, 300, 100]) == {"a": 50, "b": 50}


def test_places_from_the_log_of_several_hands__T4() -> None:
    log = [[Bust("f", 300)], [Bust("d", 700), Bust("e", 200)], [Bust("c", 900)]]
    assert finishes_from_log(log, total_entries=6) == [
        Finish("f", 6),
        Finish("d", 4),
        Finish("e", 5),
        Finish("c", 3),
    ]


def test_impossible_busts_are_refused__T4() -> None:
    with pytest.raises(InvalidConfigError, match="someone must win"):
        rank_busts([Bust("a", 10), Bust("b", 20)], players_left=2)
    with pytest.raises(InvalidConfigError, match="positive int"):
        rank_busts([Bust("a", 0)], players_left=5)
    with pytest.raises(InvalidConfigError, match="busts twice"):
        finishes_from_log([[Bust("a", 10)], [Bust("a", 10)]], total_entries=5)


def test_standings_mid_tournament_rank_live_players_by_chips__T4() -> None:
    stacks = {"a": 5000, "b": 3000, "c": 3000}
    log = [[Bust("f", 1000)], [Bust("d", 2000), Bust("e", 500)]]
    assert standings(stacks, log, [600, 400]) == [
        Standing(1, "a", 5000, None, False),
        Standing(2, "b", 3000, None, False),
        Standing(2, "c", 3000, None, False),
        Standing(4, "d", 0, 0, True),
        Standing(5, "e", 0, 0, True),
        Standing(6, "f", 0, 0, True),
    ]
    assert results(stacks, log, [600, 400]) == [
        Result(4, "d", 0),
        Result(5, "e", 0),
        Result(6, "f", 0),
    ]


def test_final_results_give_every_entry_one_place_and_the_whole_pool__T5() -> None:
    stacks = {"a": 6000}
    log = [
        [Bust("f", 1000)],
        [Bust("d", 2000), Bust("e", 2000)],
        [Bust("b", 2500)],
        [Bust("c", 3000)],
    ]
    payouts = [300, 200, 100]
    final = results(stacks, log, payouts)
    assert final == [
        Result(1, "a", 300),
        Result(2, "c", 200),
        Result(3, "b", 100),
        Result(4, "d", 0),
        Result(4, "e", 0),
        Result(6, "f", 0),
    ]
    assert sum(r.prize for r in final) == sum(payouts)


def test_standings_refuse_a_busted_player_with_chips__T4() -> None:
    with pytest.raises(InvalidConfigError, match="still has a stack"):
        standings({"a": 10, "b": 5}, [[Bust("b", 5)]], [10])
