# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __B3)
"""Ring-game seating scenarios with the games themselves: the stud table's antes and
sitting out (S3, B6), and many plans played on the real draw engine with the
chips conserved.

Conventions (seats, the default table, ``play``): ``seating_support.py``.
"""

from __future__ import annotations

import random

import pytest

from poker_rules import DrawHand, StudConfig, StudHand
from poker_rules.randomplay import random_action
from poker_rules.seating import (
    Choice,
    PostKind,
    SeatingConfig,
    SeatingError,
    SeatingTable,
    SeatLost,
    Waiting,
)

from .seating_support import DRAW, draw_table, play, posts, waiting

# ---------------------------------------------------------------- B6 and S3: stud


def stud_table(seats: list[int]) -> SeatingTable:
    t = SeatingTable(SeatingConfig.for_stud(StudConfig(), seats=8))
    for s in seats:
        t.sit_down(s, f"p{s}", 5_000)
    return t


def test_stud_antes_for_players_dealt_in_from_seat_one__S3() -> None:
    t = stud_table([2, 5, 7])
    plan = t.plan_hand()
    assert plan is not None
    assert plan.seats == (2, 5, 7)
    assert plan.button is None and plan.big_blind is None and plan.small_blind is None
    assert posts(plan) == [(s, PostKind.ANTE, 25, True) for s in (2, 5, 7)]
    assert plan.draw_posts() == []  # StudHand posts the antes itself
    hand = StudHand(StudConfig(), plan.stacks)
    assert hand.totals == [25, 25, 25]


def test_stud_auto_post_off_not_dealt_in_without_im_in__S3() -> None:
    t = stud_table([1, 2, 3])
    t.set_auto_post(2, False)
    plan = play(t)
    assert plan.seats == (1, 3) and waiting(plan) == {2: Waiting.NOT_IN}
    t.im_in(2)
    assert play(t).seats == (1, 2, 3)
    assert play(t).seats == (1, 3)  # "I'm in" is for one hand only


def test_stud_sitting_out_owes_nothing__B6() -> None:
    t = stud_table([1, 2, 3, 4])
    play(t)
    t.sit_out(3)
    for _ in range(5):
        plan = play(t)
        assert plan.seats == (1, 2, 4) and waiting(plan) == {3: Waiting.AWAY}
        assert plan.missed_big == () and plan.missed_small == ()
    t.sit_in(3)
    back = play(t)
    assert back.seats == (1, 2, 3, 4)
    assert back.posts_of(3) == [p for p in back.posts if p.seat == 3]
    assert [(p.kind, p.amount) for p in back.posts_of(3)] == [(PostKind.ANTE, 25)]


def test_stud_sitting_out_too_long_loses_seat__B6() -> None:
    t = SeatingTable(SeatingConfig.for_stud(StudConfig(), seats=4, max_orbits_away=1))
    for s in (1, 2, 3):
        t.sit_down(s, f"p{s}", 5_000)
    t.sit_out(2)
    results = []
    for _ in range(8):
        plan = t.plan_hand()
        assert plan is not None
        results.append(t.finish_hand(plan, plan.stacks))
    # an orbit in stud is as many hands as seats (4): lost after the 8th hand away
    assert results[:7] == [[]] * 7 and results[7] == [SeatLost(2, "p2", 5_000)]


# ---------------------------------------------------------------- the table's guards


def test_guards_against_bad_requests__B2() -> None:
    t = draw_table([1, 2])
    with pytest.raises(SeatingError):
        t.sit_down(1, "x", 100)
    with pytest.raises(SeatingError):
        t.sit_down(3, "p1", 100)
    plan = t.plan_hand()
    assert plan is not None
    with pytest.raises(SeatingError):
        t.leave(1)  # dealt in: leaves after the hand
    with pytest.raises(SeatingError):
        t.plan_hand()
    with pytest.raises(SeatingError):
        t.finish_hand(plan, [plan.stacks[0] + 1, plan.stacks[1]])  # chips from nowhere
    t.finish_hand(plan, plan.stacks)
    assert t.leave(1) == 10_000
    assert t.plan_hand() is None  # one player cannot play


# ---------------------------------------------------------------- real engine


def test_plans_play_in_draw_engine_chips_conserved_dead_money_apart__B3() -> None:
    rng = random.Random(7)
    t = draw_table([1, 2, 3, 4, 5])
    total = t.total_chips()
    off_table = 0
    dead_seen = 0
    for n in range(400):
        if n % 3 == 0:
            s = rng.randint(1, 5)
            seated = t.seat(s)
            if seated is None:
                t.sit_down(s, f"q{n}", 2_000, choice=rng.choice(list(Choice)))
                total += 2_000
            elif rng.random() < 0.3:
                off_table += t.leave(s)
            elif seated.away:
                t.sit_in(s, rng.choice(list(Choice)))
            else:
                t.sit_out(s)
        plan = t.plan_hand()
        if plan is None:
            continue
        hand = DrawHand(
            DRAW,
            plan.stacks,
            seed=n,
            posts=plan.draw_posts(),
            big_blind_player=plan.big_blind_player,
        )
        expected_dead = 0
        for i, s in enumerate(plan.seats):
            left = plan.stacks[i]
            for p in sorted(plan.posts_of(s), key=lambda p: not p.live):
                paid = min(p.amount, left)
                left -= paid
                expected_dead += 0 if p.live else paid
        while not hand.is_over:
            assert hand.to_act is not None
            hand.act(random_action(hand.legal_actions(), hand.hand_cards(hand.to_act), rng))
        result = hand.result
        assert result is not None
        assert result.dead == expected_dead
        dead_seen += result.dead
        assert sum(result.final_stacks) == sum(plan.stacks)
        off_table += sum(lost.chips for lost in t.finish_hand(plan, result.final_stacks))
        assert t.total_chips() + off_table == total
    assert dead_seen > 0  # the scenario mix did exercise dead money
