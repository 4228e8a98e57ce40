# ruff: noqa: N802  (test names end with the RULES.md rule ID, e.g. __B3)
"""Ring-game seating scenarios (B1-B6, D3, S3): who is dealt in, where the button and
blinds are, what each player posts, and the markers a hand leaves behind.

Seats are 1..N.  Unless a test says otherwise the draw table has five seats and
blinds 50/100 (``DrawConfig()``: small bet 100), and ``play`` finishes each hand with
the stacks unchanged (positions, not chips, are under test; the engine tests at the
end play real hands).
"""

from __future__ import annotations

import random

import pytest

from poker_rules import DrawConfig, DrawHand, StudConfig, StudHand
from poker_rules.randomplay import random_action
from poker_rules.seating import (
    Choice,
    HandPlan,
    PostKind,
    SeatingConfig,
    SeatingError,
    SeatingTable,
    SeatLost,
    Waiting,
)

DRAW = DrawConfig()
SB, BB = DRAW.small_blind, DRAW.big_blind  # 50, 100


def draw_table(seats: list[int], *, size: int = 5, max_orbits_away: int = 3) -> SeatingTable:
    t = SeatingTable(SeatingConfig.for_draw(DRAW, seats=size, max_orbits_away=max_orbits_away))
    for s in seats:
        t.sit_down(s, f"p{s}", 10_000)
    return t


def play(t: SeatingTable, *, button: int | None = None) -> HandPlan:
    plan = t.plan_hand(button=button)
    assert plan is not None
    t.finish_hand(plan, plan.stacks)
    return plan


def posts(plan: HandPlan) -> list[tuple[int, PostKind, int, bool]]:
    return [(p.seat, p.kind, p.amount, p.live) for p in plan.posts]


def positions(plan: HandPlan) -> tuple[int | None, int | None, int | None]:
    return plan.button, plan.small_blind, plan.big_blind


def waiting(plan: HandPlan) -> dict[int, Waiting]:
    return dict(plan.waiting)


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


# ---------------------------------------------------------------- B2 new players


def test_new_player_in_seat_due_big_blind_posts_it_and_plays__B2() -> None:
    t = draw_table([1, 2, 4])
    play(t, button=1)  # button 1, SB 2, BB 4
    t.sit_down(5, "p5", 10_000)  # left of the big blind: due it next hand
    plan = play(t)
    assert positions(plan) == (2, 4, 5)
    assert posts(plan) == [(4, PostKind.SMALL_BLIND, SB, True), (5, PostKind.BIG_BLIND, BB, True)]
    assert plan.seats == (4, 5, 1, 2)
    seated = t.seat(5)
    assert seated is not None and not seated.new


def test_new_player_between_button_and_blinds_waits_for_button__B2() -> None:
    t = draw_table([1, 2, 4, 5])
    play(t, button=1)  # button 1, SB 2, BB 4 (seat 3 empty)
    t.sit_down(3, "p3", 10_000, choice=Choice.POST)  # next hand: button 2, SB 4
    blocked = play(t)
    assert positions(blocked) == (2, 4, 5)
    assert waiting(blocked) == {3: Waiting.BUTTON_MUST_PASS}
    assert 3 not in blocked.seats
    passed = play(t)  # the button moves from 2 to 4, past seat 3
    assert positions(passed) == (4, 5, 1)
    assert 3 in passed.seats
    assert passed.posts_of(3)[0].kind is PostKind.ENTRY_BIG_BLIND
    assert [(p.amount, p.live) for p in passed.posts_of(3)] == [(BB, True)]


def test_new_player_on_the_dead_button_seat_waits__B2() -> None:
    t = draw_table([1, 2, 3, 4, 5])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.leave(2)
    t.sit_down(2, "new", 10_000, choice=Choice.POST)  # where the button goes next
    plan = play(t)
    assert positions(plan) == (2, 3, 4)
    assert waiting(plan) == {2: Waiting.BUTTON_MUST_PASS}  # no button before blinds
    following = play(t)
    assert positions(following) == (3, 4, 5)
    assert [(p.kind, p.live) for p in following.posts_of(2)] == [(PostKind.ENTRY_BIG_BLIND, True)]


def test_new_player_elsewhere_posts_live_big_blind_now__B2() -> None:
    t = draw_table([1, 2, 3, 4])
    play(t, button=1)  # button 1, SB 2, BB 3; next: button 2, SB 3, BB 4
    t.sit_down(5, "p5", 10_000, choice=Choice.POST)
    plan = t.plan_hand()
    assert plan is not None
    assert positions(plan) == (2, 3, 4)
    assert plan.seats == (3, 4, 5, 1, 2)
    assert posts(plan) == [
        (3, PostKind.SMALL_BLIND, SB, True),
        (4, PostKind.BIG_BLIND, BB, True),
        (5, PostKind.ENTRY_BIG_BLIND, BB, True),
    ]
    # Live: it is part of the new player's bet, who therefore only needs to check.
    hand = DrawHand(
        DRAW, plan.stacks, posts=plan.draw_posts(), big_blind_player=plan.big_blind_player
    )
    assert hand.to_act == plan.index(5)
    assert hand.legal_actions().can_check
    assert hand.dead == 0


def test_new_player_elsewhere_may_wait_for_big_blind__B2() -> None:
    t = draw_table([1, 2, 3, 4])
    play(t, button=1)
    t.sit_down(5, "p5", 10_000, choice=Choice.WAIT)
    plan = play(t)
    assert waiting(plan) == {5: Waiting.WAIT_FOR_BIG_BLIND}
    due = play(t)
    assert due.big_blind == 5
    assert due.posts_of(5)[0].kind is PostKind.BIG_BLIND and len(due.posts_of(5)) == 1


# ---------------------------------------------------------------- B3 missed big blind


def _miss_big_blind() -> SeatingTable:
    """Five players; player 4 goes away after hand 1 and misses the big blind in
    hand 2 (button 2, SB 3, BB 5) and stays away in hand 3 (button 3, SB 5, BB 1)."""
    t = draw_table([1, 2, 3, 4, 5])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.sit_out(4)
    missed = play(t)
    assert positions(missed) == (2, 3, 5)  # the next active player posts the BB
    assert missed.missed_big == (4,)
    assert waiting(missed) == {4: Waiting.AWAY}
    p4 = t.seat(4)
    assert p4 is not None and p4.missed_big and not p4.missed_small
    assert positions(play(t)) == (3, 5, 1)
    return t


def test_missed_big_blind_marked_and_next_player_posts__B3() -> None:
    t = _miss_big_blind()
    p4 = t.seat(4)
    assert p4 is not None and p4.missed_big


def test_missed_big_blind_returns_posts_big_live_small_dead__B3() -> None:
    t = _miss_big_blind()
    t.sit_in(4, Choice.POST)  # back two hands after missing it
    plan = t.plan_hand()
    assert plan is not None
    assert positions(plan) == (5, 1, 2)
    assert plan.seats == (1, 2, 3, 4, 5)
    assert posts(plan) == [
        (1, PostKind.SMALL_BLIND, SB, True),
        (2, PostKind.BIG_BLIND, BB, True),
        (4, PostKind.MAKE_UP_BIG_BLIND, BB, True),
        (4, PostKind.DEAD_SMALL_BLIND, SB, False),
    ]
    assert plan.dead_money == SB
    hand = DrawHand(
        DRAW, plan.stacks, posts=plan.draw_posts(), big_blind_player=plan.big_blind_player
    )
    i4 = plan.index(4)
    dead = [(e.player, e.amount) for e in hand.events if e.kind == "dead"]
    assert dead == [(i4, SB)]  # the history shows the dead small blind apart
    assert hand.bets[i4] == BB  # only the big blind is part of the bet
    rng = random.Random(4)
    while not hand.is_over:
        hand.act(random_action(hand.legal_actions(), hand.hand_cards(hand.to_act or 0), rng))
    assert hand.result is not None and hand.result.dead == SB
    assert sum(hand.result.final_stacks) == sum(plan.stacks)
    t.finish_hand(plan, hand.result.final_stacks)
    p4 = t.seat(4)
    assert p4 is not None and not (p4.missed_big or p4.missed_small)


def test_missed_big_blind_waits_and_posts_only_the_big_blind__B3() -> None:
    t = _miss_big_blind()
    t.sit_in(4, Choice.WAIT)
    assert waiting(play(t)) == {4: Waiting.WAIT_FOR_BIG_BLIND}  # BB 2
    assert waiting(play(t)) == {4: Waiting.WAIT_FOR_BIG_BLIND}  # BB 3
    due = play(t)
    assert due.big_blind == 4
    assert [(p.kind, p.amount) for p in due.posts_of(4)] == [(PostKind.BIG_BLIND, BB)]
    p4 = t.seat(4)
    assert p4 is not None and not p4.missed_big


def test_voided_hand_marks_nobody__B3() -> None:
    t = draw_table([1, 2, 3, 4, 5])
    play(t, button=1)
    t.sit_out(4)
    plan = t.plan_hand()
    assert plan is not None and plan.missed_big == (4,)
    t.void_hand(plan)  # issue 4: a hand that cannot finish leaves no trace
    p4 = t.seat(4)
    assert p4 is not None and not p4.missed_big
    assert t.hands_played == 1
    again = t.plan_hand()
    assert again is not None and positions(again) == positions(plan)


# ---------------------------------------------------------------- B4 missed small blind


def _miss_small_blind(choice: Choice) -> tuple[SeatingTable, HandPlan]:
    """Player 3 has the big blind in hand 1, then is away when due the small blind
    (hand 2) and comes straight back: the button lands on seat 3 in hand 3."""
    t = draw_table([1, 2, 3, 4, 5])
    play(t, button=1)  # button 1, SB 2, BB 3
    t.sit_out(3)
    missed = play(t)
    assert positions(missed) == (2, None, 4)  # no small blind posted
    assert missed.small_blind_position == 3 and missed.missed_small == (3,)
    p3 = t.seat(3)
    assert p3 is not None and p3.missed_small and not p3.missed_big
    t.sit_in(3, choice)
    on_button = play(t)
    assert positions(on_button) == (3, 4, 5)
    assert waiting(on_button) == {3: Waiting.BUTTON_MUST_PASS}
    return t, on_button


def test_missed_small_blind_waits_for_button_then_posts_it_dead__B4() -> None:
    t, _ = _miss_small_blind(Choice.POST)
    plan = play(t)  # the button moves from 3 to 4: it has passed seat 3
    assert positions(plan) == (4, 5, 1)
    assert posts(plan) == [
        (5, PostKind.SMALL_BLIND, SB, True),
        (1, PostKind.BIG_BLIND, BB, True),
        (3, PostKind.DEAD_SMALL_BLIND, SB, False),
    ]
    p3 = t.seat(3)
    assert p3 is not None and not p3.missed_small


def test_missed_small_blind_may_wait_for_big_blind__B4() -> None:
    t, _ = _miss_small_blind(Choice.WAIT)
    assert waiting(play(t)) == {3: Waiting.WAIT_FOR_BIG_BLIND}  # BB 1
    assert waiting(play(t)) == {3: Waiting.WAIT_FOR_BIG_BLIND}  # BB 2
    due = play(t)
    assert due.big_blind == 3
    assert [(p.kind, p.amount) for p in due.posts_of(3)] == [(PostKind.BIG_BLIND, BB)]


def test_missed_small_blind_too_short_to_post_it_dead_waits__B4() -> None:
    t = draw_table([1, 2, 4, 5])
    t.sit_down(3, "p3", SB - 10)
    play(t, button=1)  # button 1, SB 2, BB 3 (all-in for 40)
    t.sit_out(3)
    assert play(t).missed_small == (3,)
    t.sit_in(3, Choice.POST)
    assert waiting(play(t)) == {3: Waiting.BUTTON_MUST_PASS}
    # Posting the small blind dead would put every chip out of reach: wait instead.
    assert waiting(play(t)) == {3: Waiting.WAIT_FOR_BIG_BLIND}


# ---------------------------------------------------------------- B5


def test_owes_at_most_one_big_and_one_small_blind__B5() -> None:
    t = draw_table([1, 2, 3, 4, 5], max_orbits_away=10)
    play(t, button=1)  # button 1, SB 2, BB 3
    t.sit_out(3)  # misses the small blind next hand, then the big blind every orbit
    plans = [play(t) for _ in range(13)]  # the BB passes seat 3 in hands 6, 10, 14
    assert sum(3 in p.missed_small for p in plans) == 1
    assert sum(3 in p.missed_big for p in plans) == 3  # three orbits missed
    t.sit_in(3, Choice.POST)
    back = t.plan_hand()
    assert back is not None
    assert [(p.kind, p.amount, p.live) for p in back.posts_of(3)] == [
        (PostKind.MAKE_UP_BIG_BLIND, BB, True),
        (PostKind.DEAD_SMALL_BLIND, SB, False),
    ]


def test_sitting_out_too_many_orbits_loses_seat__B5() -> None:
    t = draw_table([1, 2, 3, 4, 5], max_orbits_away=1)
    play(t, button=1)  # BB 3
    t.sit_out(4)
    lost: list[SeatLost] = []
    hands = 0
    while not lost:
        plan = t.plan_hand()
        assert plan is not None
        lost = t.finish_hand(plan, plan.stacks)
        hands += 1
    # The BB passes seat 4 in hand 2 (first orbit) and hand 6 (second: more than 1).
    assert hands == 5
    assert lost == [SeatLost(4, "p4", 10_000)]
    assert t.seat(4) is None


def test_returning_resets_the_orbit_count__B5() -> None:
    t = draw_table([1, 2, 3, 4, 5], max_orbits_away=1)
    play(t, button=1)
    t.sit_out(4)
    for _ in range(4):  # BB passes 4 once
        assert play(t).passed_away in ((), (4,))
    t.sit_in(4, Choice.POST)
    assert play(t).big_blind == 4  # plays (the BB reached seat 4): the count restarts
    t.sit_out(4)
    for _ in range(5):  # misses the SB, then the BB passes seat 4 once more (hand 11)
        plan = t.plan_hand()
        assert plan is not None
        assert t.finish_hand(plan, plan.stacks) == []
    p4 = t.seat(4)
    assert p4 is not None and p4.orbits_away == 1


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
