# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __T3)
"""T2 (seating draw) and T3 (TDA balancing, pausing, breaking, final table redraw)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import (
    BlindPositions,
    Move,
    Seat,
    Table,
    draw_seats,
    mover_by_position,
    rebalance,
    seat_entrant,
    tables_needed,
)


def table(
    table_id: str, seats: int, occupied: list[int], positions: tuple[int, int, int] | None = None
) -> Table:
    """A table whose player in seat s is named ``<table id lowercased><s>``."""
    return Table(
        table_id,
        seats,
        {s: f"{table_id.lower()}{s}" for s in occupied},
        BlindPositions(*positions) if positions else None,
    )


def full(seats: int) -> list[int]:
    return list(range(1, seats + 1))


# ---------------------------------------------------------------- T2


def test_draw_fills_tables_evenly__T2() -> None:
    players = [f"p{i}" for i in range(20)]
    seats = draw_seats(players, ["A", "B", "C"], 8, random.Random(7))
    assert Counter(seat.table for seat in seats) == {"A": 7, "B": 7, "C": 6}
    assert sorted(seat.player for seat in seats) == sorted(players)
    assert len({(seat.table, seat.seat) for seat in seats}) == 20
    assert all(1 <= seat.seat <= 8 for seat in seats)


def test_draw_of_120_players_fills_15_tables_of_8__T2() -> None:
    players = [f"p{i}" for i in range(120)]
    assert tables_needed(120, 8) == 15
    assert tables_needed(121, 8) == 16
    seats = draw_seats(players, [f"T{i}" for i in range(15)], 8, random.Random(1))
    assert set(Counter(seat.table for seat in seats).values()) == {8}


def test_draw_is_random_but_reproducible_from_the_passed_rng__T2() -> None:
    players = [f"p{i}" for i in range(10)]
    first = draw_seats(players, ["A", "B"], 9, random.Random(3))
    assert first == draw_seats(players, ["A", "B"], 9, random.Random(3))
    assert first != draw_seats(players, ["A", "B"], 9, random.Random(4))


def test_draw_refuses_too_many_players_or_tables__T2() -> None:
    with pytest.raises(InvalidConfigError, match="3 tables are needed"):
        draw_seats([f"p{i}" for i in range(17)], ["A", "B"], 8, random.Random(0))
    with pytest.raises(InvalidConfigError, match="two each"):
        draw_seats(["p1", "p2", "p3"], ["A", "B"], 8, random.Random(0))
    with pytest.raises(InvalidConfigError, match="duplicate"):
        draw_seats(["p1", "p1"], ["A"], 8, random.Random(0))


# ---------------------------------------------------------------- T3 balancing (button games)


def test_next_big_blind_moves_to_seat_that_posts_big_blind_soonest__T3() -> None:
    # A: button 3, small blind 4 -> big blind next is seat 5.
    # B: button 9, small blind 1, big blind 3; seat 2 is empty: a player there is the
    # first after the small blind, so posts the big blind in the very next hand.
    a = table("A", 9, full(9), (3, 4, 5))
    b = table("B", 9, [1, 3, 4, 5, 6, 8, 9], (9, 1, 3))
    plan = rebalance([a, b], ["A", "B"], button_game=True, rng=random.Random(0))
    assert plan.moves == (Move("a5", "A", 5, "B", 2),)
    assert plan.paused == frozenset()
    assert plan.broken == ()


def test_worst_position_is_never_the_small_blind__T3() -> None:
    # B's small blind is dead (seat 9 empty: its big blind of last hand busted) and the
    # button is on seat 8.  Seat 9 would be the small blind: the mover gets seat 7.
    a = table("A", 9, full(9), (1, 2, 3))
    b = table("B", 9, [1, 2, 3, 4, 5, 6, 8], (8, 9, 1))
    plan = rebalance([a, b], ["A", "B"], button_game=True, rng=random.Random(0))
    assert plan.moves == (Move("a3", "A", 3, "B", 7),)


def test_several_moves_from_one_table_go_in_big_blind_order__T3() -> None:
    # 9 / 7 / 5 -> 7 / 7 / 7: the next two big blinds of A move to C, each to the seat
    # that will post the big blind soonest at that moment.  C is 4 short: paused.
    a = table("A", 9, full(9), (1, 2, 3))
    b = table("B", 9, [1, 2, 3, 4, 5, 6, 7], (1, 2, 3))
    c = table("C", 9, [1, 2, 3, 4, 5], (3, 4, 5))
    plan = rebalance([a, b, c], ["A", "B", "C"], button_game=True, rng=random.Random(0))
    assert plan.moves == (Move("a3", "A", 3, "C", 6), Move("a4", "A", 4, "C", 7))
    assert plan.paused == frozenset({"C"})


def test_tables_within_one_player_need_no_move__T3() -> None:
    a = table("A", 9, full(9), (1, 2, 3))
    b = table("B", 9, full(8), (1, 2, 3))
    plan = rebalance([a, b], ["A", "B"], button_game=True, rng=random.Random(0))
    assert plan.moves == () and plan.paused == frozenset() and plan.broken == ()


def test_table_three_short_pauses_two_short_does_not__T3() -> None:
    tables = [table("A", 9, full(9)), table("B", 9, full(8)), table("C", 9, full(6))]
    assert rebalance(tables, ["A", "B", "C"], button_game=False, rng=random.Random(0)).paused == {
        "C"
    }
    tables = [table("A", 9, full(9)), table("B", 9, full(9)), table("C", 9, full(7))]
    plan = rebalance(tables, ["A", "B", "C"], button_game=False, rng=random.Random(0))
    assert plan.paused == frozenset()
    assert len(plan.moves) == 1


def test_big_blind_must_follow_the_small_blind_seat__T3() -> None:
    a = table("A", 9, full(9), (1, 2, 4))  # seat 3 is occupied: it is the big blind
    b = table("B", 9, full(7), (1, 2, 3))
    with pytest.raises(InvalidConfigError, match=r"i\.e\. seat 3, got 4"):
        rebalance([a, b], ["A", "B"], button_game=True, rng=random.Random(0))


# ---------------------------------------------------------------- T3 stud: by position


def test_stud_moves_by_position_same_seat_number__T3() -> None:
    a = table("A", 8, full(8))
    b = table("B", 8, [1, 2, 4, 5, 7, 8])
    plan = rebalance([a, b], ["A", "B"], button_game=False, rng=random.Random(0))
    assert plan.moves == (Move("a3", "A", 3, "B", 3),)


def test_stud_moves_next_seat_in_order_when_that_seat_is_empty__T3() -> None:
    a = table("A", 8, [1, 2, 4, 5, 6, 7, 8])
    b = table("B", 8, [1, 2, 4, 5, 8])
    plan = rebalance([a, b], ["A", "B"], button_game=False, rng=random.Random(0))
    assert plan.moves == (Move("a4", "A", 4, "B", 3),)
    a = table("A", 8, [1, 2, 3, 4, 5, 6, 7])
    b = table("B", 8, [1, 2, 3, 4, 5])
    plan = rebalance([a, b], ["A", "B"], button_game=False, rng=random.Random(0))
    assert plan.moves == (Move("a6", "A", 6, "B", 6),)
    a = table("A", 8, [1, 2, 3, 4, 5, 6, 7])
    b = table("B", 8, [2, 3, 4, 5, 6])
    plan = rebalance([a, b], ["A", "B"], button_game=False, rng=random.Random(0))
    assert plan.moves == (Move("a1", "A", 1, "B", 1),)


def test_stud_position_order_wraps_to_seat_one__T3() -> None:
    # Only reachable by the helper itself (balancing never needs to wrap), but defined.
    assert mover_by_position({1: "x", 2: "y", 5: "z"}, 6) == 1
    assert mover_by_position({1: "x", 2: "y", 5: "z"}, 3) == 5
    assert mover_by_position({1: "x", 2: "y", 5: "z"}, 2) == 2


# ---------------------------------------------------------------- T3 breaking


def test_table_breaks_as_soon_as_players_fit_one_fewer_table__T3() -> None:
    tables = [table("A", 9, full(7)), table("B", 9, full(6)), table("C", 9, full(6))]
    plan = rebalance(tables, ["A", "B", "C"], button_game=False, rng=random.Random(0))
    assert plan.broken == ()  # 19 players need three tables of 9
    tables = [table("A", 9, full(6)), table("B", 9, full(6)), table("C", 9, full(6))]
    plan = rebalance(tables, ["A", "B", "C"], button_game=False, rng=random.Random(0))
    assert plan.broken == ("A",)
    assert {m.player for m in plan.moves} == {f"a{s}" for s in range(1, 7)}
    # B and C are filled: the six arrivals take exactly their empty seats.
    assert sorted((m.to_table, m.to_seat) for m in plan.moves) == [
        (t, s) for t in ("B", "C") for s in (7, 8, 9)
    ]


def test_tables_break_in_the_pre_set_order__T3() -> None:
    tables = [table("A", 9, full(5)), table("B", 9, full(7)), table("C", 9, full(6))]
    plan = rebalance(tables, ["B", "C", "A"], button_game=False, rng=random.Random(0))
    assert plan.broken == ("B",)  # B breaks first though it is the fullest
    assert Counter(m.to_table for m in plan.moves) == {"A": 4, "C": 3}


def test_two_tables_break_in_one_hand_when_players_fit__T3() -> None:
    tables = [table(t, 9, full(n)) for t, n in (("A", 5), ("B", 5), ("C", 4), ("D", 4))]
    plan = rebalance(tables, ["C", "A", "B", "D"], button_game=False, rng=random.Random(2))
    assert plan.broken == ("C", "A")
    arrivals = Counter(m.to_table for m in plan.moves)
    assert arrivals == {"B": 4, "D": 5}  # 9 and 9
    assert plan.final_table is None


def test_broken_table_players_never_sit_between_small_blind_and_button__T3() -> None:
    # B: button 1, small blind 3: seat 2 is between them; seat 6 is the other gap.
    # C: button 4, small blind 6: seat 5 is between them; seat 9 is the other gap.
    for seed in range(40):
        tables = [
            table("A", 9, [1, 2]),
            table("B", 9, [1, 3, 4, 5, 7, 8, 9], (1, 3, 4)),
            table("C", 9, [1, 2, 3, 4, 6, 7, 8], (4, 6, 7)),
        ]
        plan = rebalance(tables, ["A", "B", "C"], button_game=True, rng=random.Random(seed))
        assert plan.broken == ("A",)
        assert {(m.to_table, m.to_seat) for m in plan.moves} == {("B", 6), ("C", 9)}
        assert not any(m.waits_for_button for m in plan.moves)


def test_broken_table_player_waits_for_button_when_only_that_seat_is_left__T3() -> None:
    # 16 players, 2 of them on A: B and C get filled to 8 of 8, including seat 2 of B
    # (between the button 1 and the small blind 3): that arrival waits for the button.
    tables = [
        table("A", 8, [1, 2]),
        table("B", 8, [1, 3, 4, 5, 6, 7, 8], (1, 3, 4)),
        table("C", 8, [1, 2, 3, 4, 5, 6, 8], (4, 5, 6)),
    ]
    plan = rebalance(tables, ["A", "B", "C"], button_game=True, rng=random.Random(0))
    landing = {(m.to_table, m.to_seat): m.waits_for_button for m in plan.moves}
    assert landing == {("B", 2): True, ("C", 7): False}


def test_final_table_is_redrawn__T3() -> None:
    tables = [table("A", 9, full(5), (1, 2, 3)), table("B", 9, [2, 4, 6, 8], (2, 4, 6))]
    plan = rebalance(tables, ["A", "B"], button_game=True, rng=random.Random(11))
    assert plan.final_table == "B" and plan.broken == ("A",)
    seating = {m.player: m.to_seat for m in plan.moves}
    for seat, player in tables[1].players.items():
        seating.setdefault(player, seat)  # B players who drew their own seat again
    assert sorted(seating.values()) == full(9)
    assert {m.to_table for m in plan.moves} == {"B"}
    assert {m.player for m in plan.moves} >= {f"a{s}" for s in range(1, 6)}
    assert (
        plan.moves != rebalance(tables, ["A", "B"], button_game=True, rng=random.Random(12)).moves
    )


def test_no_player_is_moved_twice_in_one_plan__T3() -> None:
    rng = random.Random(5)
    for _ in range(200):
        counts = [rng.randint(1, 9) for _ in range(5)]
        tables = [table(f"T{i}", 9, rng.sample(full(9), n)) for i, n in enumerate(counts)]
        order = [t.table_id for t in tables]
        rng.shuffle(order)
        plan = rebalance(tables, order, button_game=False, rng=rng)
        players = [m.player for m in plan.moves]
        assert len(players) == len(set(players))
        final = {t.table_id: dict(t.players) for t in tables}
        for m in plan.moves:
            assert final[m.from_table].pop(m.from_seat) == m.player
        for m in plan.moves:
            assert m.to_seat not in final[m.to_table]
            final[m.to_table][m.to_seat] = m.player
        remaining = [len(final[t]) for t in order if t not in plan.broken]
        assert max(remaining) - min(remaining) <= 1
        assert all(not final[t] for t in plan.broken)


def test_late_entrant_takes_a_random_seat_at_the_shortest_table__T3() -> None:
    tables = [
        table("A", 9, full(8), (1, 2, 3)),
        table("B", 9, [1, 3, 4, 5, 6, 7, 8], (1, 3, 4)),  # seat 2 is between button and SB
    ]
    for seed in range(20):
        seat = seat_entrant("new", tables, button_game=True, rng=random.Random(seed))
        assert seat == Seat("new", "B", 9)
    full_room = [table("A", 2, [1, 2]), table("B", 2, [1, 2])]
    assert seat_entrant("new", full_room, button_game=False, rng=random.Random(0)) is None


def test_three_tables_collapse_straight_to_a_redrawn_final_table__T3() -> None:
    tables = [table("A", 9, full(3)), table("B", 9, full(3)), table("C", 9, full(3))]
    plan = rebalance(tables, ["A", "B", "C"], button_game=False, rng=random.Random(4))
    assert plan.broken == ("A", "B") and plan.final_table == "C"
    moved_from_a = [m for m in plan.moves if m.from_table == "A"]
    assert len(moved_from_a) == 3 and {m.to_table for m in plan.moves} == {"C"}
    seats = {m.to_seat for m in plan.moves} | {
        s for s, p in tables[2].players.items() if p not in {m.player for m in plan.moves}
    }
    assert len(seats) == 9
