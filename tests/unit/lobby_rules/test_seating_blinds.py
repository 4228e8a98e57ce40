# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __B3)
"""Ring-game seating scenarios, what each player owes: new players (B2), missed big
and small blinds (B3, B4), sitting out (B5), and the table's guards against bad
requests.

Conventions (seats, the default table, ``play``): ``seating_support.py``.
"""

from __future__ import annotations

import random

from poker_rules import DrawHand
from poker_rules.events import DeadBlind
from poker_rules.randomplay import random_action
from poker_rules.seating import Choice, HandPlan, PostKind, SeatingTable, SeatLost, Waiting

from .seating_support import BB, DRAW, SB, draw_table, play, positions, posts, waiting

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
    dead = [(e.player, e.amount) for e in hand.events if isinstance(e, DeadBlind)]
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
