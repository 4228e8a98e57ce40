# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""The table's count of hands the clock played for each player
(services/table/departures.py; docs/rule-decisions.md#departed-players): what a
hand with no decision, a voided hand, an answer and a new connection do to it."""

from __future__ import annotations

from services.table.departures import FORGET_AFTER_HANDS, ClockHands, Presence

SEATS, PLAYERS = [1, 2], ["ann", "ben"]


def clock(*seats: int) -> Presence:
    """A hand where the clock took ``seats``' decisions and the others answered."""
    return Presence(answered={s for s in SEATS if s not in seats}, clocked=set(seats))


def test_B3_two_clock_hands_in_a_row_name_the_player_once() -> None:
    hands = ClockHands(2)
    assert hands.hand(SEATS, PLAYERS, clock(2)) == []
    assert hands.count("ben") == 1
    assert hands.hand(SEATS, PLAYERS, clock(2)) == ["ben"]
    assert hands.count("ben") == 0  # said once: the count starts over
    assert hands.hand(SEATS, PLAYERS, clock(2)) == []


def test_B3_a_hand_without_a_decision_neither_counts_nor_breaks_the_run() -> None:
    hands = ClockHands(2)
    hands.hand(SEATS, PLAYERS, clock(2))
    hands.hand(SEATS, PLAYERS, Presence(answered={1}))  # ben all-in, or folded to
    assert hands.count("ben") == 1
    assert hands.hand(SEATS, PLAYERS, clock(2)) == ["ben"]


def test_B3_an_answer_or_a_connection_starts_the_count_over() -> None:
    hands = ClockHands(2)
    hands.hand(SEATS, PLAYERS, clock(1, 2))
    hands.hand(SEATS, PLAYERS, Presence(answered={2}, clocked={2}))  # a refused answer, say
    hands.present("ann")
    assert (hands.count("ann"), hands.count("ben")) == (0, 0)
    assert hands.hand(SEATS, PLAYERS, clock(1, 2)) == []


def test_B3_a_voided_hand_adds_no_clock_hand() -> None:
    hands = ClockHands(2)
    hands.hand(SEATS, PLAYERS, clock(2))
    assert hands.hand(SEATS, PLAYERS, clock(2), voided=True) == []
    assert hands.count("ben") == 1


def test_B3_zero_never_sits_anyone_out() -> None:
    hands = ClockHands(0)
    assert all(hands.hand(SEATS, PLAYERS, clock(1, 2)) == [] for _ in range(10))


def test_a_player_gone_from_the_table_is_forgotten() -> None:
    hands = ClockHands(3)
    hands.hand(SEATS, PLAYERS, clock(2))
    for _ in range(FORGET_AFTER_HANDS + 1):
        hands.hand([1, 3], ["ann", "cy"], Presence(answered={1, 3}))
    assert hands.count("ben") == 0
