# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __B3)
"""Ring-game seating scenarios, the button and the blinds' positions: the dead
button (B1) and heads-up play (D3).

Conventions (seats, the default table, ``play``): ``seating_support.py``.
"""

from __future__ import annotations

from poker_rules import DrawHand
from poker_rules.seating import Choice, PostKind, Waiting

from .seating_support import BB, DRAW, SB, draw_table, play, positions, posts, waiting

# ---------------------------------------------------------------- B1 dead button


def test_big_blind_moves_one_player_and_small_blind_and_button_follow__B1() -> None:
    t = draw_table([1, 2, 3, 4, 5])
    first = play(t, button=1)
    assert positions(first) == (1, 2, 3)
    assert first.seats == (2, 3, 4, 5, 1)  # engine order: left of the button, button last
    assert posts(first) == [
        (2, PostKind.SMALL_BLIND, SB, True),
        (3, PostKind.BIG_BLIND, BB, True),
    ]
    assert first.big_blind_player == 1
    assert [positions(play(t)) for _ in range(5)] == [
        (2, 3, 4),
        (3, 4, 5),
        (4, 5, 1),
        (5, 1, 2),
        (1, 2, 3),
    ]


def test_small_blind_left_button_is_dead_on_the_empty_seat__B1() -> None:
    t = draw_table([1, 2, 3, 4, 5])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.leave(2)
    plan = play(t)
    assert positions(plan) == (2, 3, 4)  # the button stays on the empty seat 2
    assert plan.seats == (3, 4, 5, 1)  # player 1, last hand's button, acts last again
    assert posts(plan) == [
        (3, PostKind.SMALL_BLIND, SB, True),
        (4, PostKind.BIG_BLIND, BB, True),
    ]


def test_big_blind_left_no_small_blind_that_hand__B1() -> None:
    t = draw_table([1, 2, 3, 4, 5])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.leave(3)
    plan = play(t)
    assert positions(plan) == (2, None, 4)  # no small blind: its seat (3) is empty
    assert plan.small_blind_position == 3
    assert posts(plan) == [(4, PostKind.BIG_BLIND, BB, True)]
    assert plan.seats == (4, 5, 1, 2)
    following = play(t)
    assert positions(following) == (3, 4, 5)  # button dead on the empty seat 3
    assert following.seats == (4, 5, 1, 2)  # player 2 is last to act twice, not button


def test_nobody_skips_the_big_blind_when_players_leave_and_arrive__B1() -> None:
    t = draw_table([1, 2, 4, 5])
    play(t, button=1)  # button 1, SB 2, BB 4
    t.sit_down(3, "p3", 10_000)  # between the SB and the BB: already passed
    plan = play(t)
    assert positions(plan) == (2, 4, 5)
    assert waiting(plan) == {3: Waiting.BUTTON_MUST_PASS}
    t.leave(1)
    bbs = [play(t).big_blind for _ in range(4)]
    assert bbs == [2, 3, 4, 5]  # every player still seated, in turn, none twice


# ---------------------------------------------------------------- D3 heads-up


def test_heads_up_button_posts_small_blind_and_acts_first__D3() -> None:
    t = draw_table([2, 4])
    plan = t.plan_hand(button=4)
    assert plan is not None
    assert plan.heads_up
    assert positions(plan) == (4, 4, 2)
    assert plan.seats == (2, 4)  # the button is index 1, as DrawHand expects
    assert posts(plan) == [(2, PostKind.BIG_BLIND, BB, True), (4, PostKind.SMALL_BLIND, SB, True)]
    hand = DrawHand(
        DRAW, plan.stacks, posts=plan.draw_posts(), big_blind_player=plan.big_blind_player
    )
    assert hand.to_act == plan.index(4)  # the button acts first before the draw
    t.finish_hand(plan, plan.stacks)
    assert positions(play(t)) == (2, 2, 4)  # the blinds alternate


def test_three_to_two_button_leaves__D3() -> None:
    t = draw_table([1, 2, 3])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.leave(1)
    plan = play(t)
    # The big blind moves on to player 2; the last big blind (3) is now button + SB.
    assert plan.heads_up
    assert positions(plan) == (3, 3, 2)
    assert posts(plan) == [(2, PostKind.BIG_BLIND, BB, True), (3, PostKind.SMALL_BLIND, SB, True)]
    assert positions(play(t)) == (2, 2, 3)


def test_three_to_two_big_blind_leaves__D3() -> None:
    t = draw_table([1, 2, 3])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.leave(3)
    plan = play(t)
    # The big blind moves on from seat 3 to player 1; player 2 takes button + SB.
    assert positions(plan) == (2, 2, 1)
    assert plan.heads_up and plan.seats == (1, 2)


def test_two_to_three_new_player_due_big_blind__D3() -> None:
    t = draw_table([1, 3])
    play(t, button=1)  # heads-up: button/SB 1, BB 3
    assert positions(play(t)) == (3, 3, 1)
    t.sit_down(2, "p2", 10_000)  # the seat due the big blind (left of BB 1)
    plan = play(t)
    assert not plan.heads_up
    assert plan.big_blind == 2 and plan.small_blind == 1
    # Player 3 had the button heads-up: it goes dead right of the small blind.
    assert plan.button == 5 and plan.button_dead and plan.button_player is None
    assert plan.seats == (1, 2, 3)
    assert posts(plan) == [(1, PostKind.SMALL_BLIND, SB, True), (2, PostKind.BIG_BLIND, BB, True)]
    assert positions(play(t)) == (1, 2, 3)


def test_two_to_three_no_seat_for_the_dead_button__B1() -> None:
    """Back from heads-up, B1 would give the button to the last small blind, who
    was the heads-up button (D3): the same player twice.  Here the holder sits just
    right of the small blind, so there is no empty seat to take the dead button:
    it lies dead between them.  Player 1 still acts last (as under any dead
    button) but nobody holds the button, and the next hand it moves on."""
    t = draw_table([1, 2])
    heads_up = play(t, button=1)
    assert positions(heads_up) == (1, 1, 2) and heads_up.button_player == "p1"  # D3
    t.sit_down(4, "p4", 10_000)  # due the big blind, which moves on from seat 2
    plan = play(t)
    assert not plan.heads_up
    assert plan.big_blind == 4 and plan.small_blind == 2  # B1, B2a
    assert plan.button == 1 and plan.button_dead and plan.button_player is None
    assert plan.seats == (2, 4, 1)  # play still runs from the left of seat 1
    assert posts(plan) == [(2, PostKind.SMALL_BLIND, SB, True), (4, PostKind.BIG_BLIND, BB, True)]
    following = play(t)
    assert positions(following) == (2, 4, 1)  # the last small blind gets it
    assert not following.button_dead and following.button_player == "p2"
    third = play(t)
    assert positions(third) == (4, 1, 2) and third.button_player == "p4"


def test_heads_up_button_owes_only_the_small_blind__D3() -> None:
    t = draw_table([1, 2, 3])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.sit_out(1)
    assert positions(play(t)) == (3, 3, 2)  # heads-up; the BB passed player 1: ML
    t.sit_out(2)
    t.sit_in(1, Choice.POST)
    plan = play(t)
    # Two players dealt in: player 1 has the button and posts the small blind; the
    # make-up is waived, as each heads-up player posts a blind every hand.
    assert plan.heads_up and positions(plan) == (1, 1, 3)
    assert posts(plan) == [(3, PostKind.BIG_BLIND, BB, True), (1, PostKind.SMALL_BLIND, SB, True)]
    p1 = t.seat(1)
    assert p1 is not None and not p1.missed_big


def test_play_restarts_when_only_the_big_blind_could_play__D3() -> None:
    t = draw_table([1, 2, 3, 4])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.sit_out(1)
    t.sit_out(2)
    assert positions(play(t)) == (3, 3, 4)  # heads-up 3 and 4
    missed = play(t)
    assert missed.big_blind == 3 and missed.missed_big == (1, 2)
    t.sit_in(1, Choice.WAIT)
    t.sit_in(2, Choice.WAIT)
    t.leave(4)
    t.sit_out(3)
    # The BB reaches player 1; player 2 would wait for it, and nobody else can
    # play: rather than stall, play restarts with both dealt in, owing nothing.
    plan = play(t)
    assert plan.new_game and plan.heads_up
    assert positions(plan) == (2, 2, 1)
    assert posts(plan) == [(1, PostKind.BIG_BLIND, BB, True), (2, PostKind.SMALL_BLIND, SB, True)]
    assert plan.missed_small == (3,)
    p2 = t.seat(2)
    assert p2 is not None and not p2.missed_big
