# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __B3)
"""The seating table's durable form (``snapshot`` / ``restore``) and B2's
"wait for the button" entry.

The lobby stores ``snapshot()`` with every change and rebuilds its tables with
``restore`` after a restart; the promise is that the next plan is the one the
table would have made without the restart.  The random test checks exactly that,
hand after hand, on the library's own property simulation (arrivals, departures,
sit-outs, busts, rebuys), through a JSON round trip as the lobby stores it.
"""

from __future__ import annotations

import json
import random

import pytest

from poker_rules import DrawConfig, StudConfig
from poker_rules.errors import InvalidConfigError
from poker_rules.seating import Choice, PostKind, SeatingConfig, SeatingTable, Waiting
from tests.unit.lobby_rules.test_seating_properties import Simulation

DRAW = DrawConfig()
SB, BB = DRAW.small_blind, DRAW.big_blind


def restored(t: SeatingTable) -> SeatingTable:
    """``t`` as a restarted lobby rebuilds it: JSON snapshot plus the stored seats."""
    occupants = {}
    for s in t.occupied():
        p = t.seat(s)
        assert p is not None
        occupants[s] = (p.player_id, p.chips)
    data = json.loads(json.dumps(t.snapshot()))
    return SeatingTable.restore(t.config, data, occupants, hands_played=t.hands_played)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_restored_table_plans_the_same_next_hand__B1(seed: int) -> None:
    sim = Simulation(random.Random(seed), 0.15)
    compared = markers = 0
    for _ in range(400):
        sim.events()
        twin = restored(sim.t)
        assert twin.snapshot() == sim.t.snapshot()
        plan = sim.t.plan_hand()
        again = twin.plan_hand()
        assert again == plan
        if plan is None:
            continue
        compared += 1
        markers += any(
            (p := sim.t.seat(s)) is not None and (p.missed_big or p.missed_small)
            for s in sim.t.occupied()
        )
        sim.finish(plan)
    assert compared > 200 and markers > 0  # real hands, with ML/MS markers to keep


def test_restore_without_snapshot_seats_everyone_as_new_posting__B2() -> None:
    t = SeatingTable.restore(
        SeatingConfig.for_draw(DRAW), None, {1: ("a", 1000), 3: ("b", 0)}, hands_played=7
    )
    a, b = t.seat(1), t.seat(3)
    assert a is not None and a.new and a.choice is Choice.POST and a.chips == 1000
    assert b is not None and b.chips == 0  # a stack of 0 stays seated, waiting
    assert t.hands_played == 7 and t.button is None


def test_restore_takes_money_from_the_seats_not_the_snapshot__B5() -> None:
    t = SeatingTable(SeatingConfig.for_stud(StudConfig(ante=10), seats=4))
    t.sit_down(1, "a", 500)
    t.sit_down(2, "b", 500)
    t.set_auto_post(2, False)
    data = t.snapshot()
    back = SeatingTable.restore(t.config, data, {1: ("a", 700), 2: ("b", 300), 3: ("c", 200)})
    a, b, c = back.seat(1), back.seat(2), back.seat(3)
    assert a is not None and a.chips == 700
    assert b is not None and b.chips == 300 and not b.auto_post  # S3 switch kept
    assert c is not None and c.new  # not in the snapshot: a new player


def test_restore_refuses_a_malformed_snapshot__B1() -> None:
    t = SeatingTable(SeatingConfig.for_draw(DRAW))
    data = t.snapshot()
    data["seats"] = [{"seat": 1, "player_id": "a"}]
    with pytest.raises(InvalidConfigError, match="malformed seating snapshot"):
        SeatingTable.restore(t.config, data, {1: ("a", 100)})


def test_new_player_may_choose_to_wait_for_the_button__B2() -> None:
    """Seat 5 is neither due the big blind nor between the button and the blinds:
    B2c would let it post now, but the player asks to wait for the button.  The big
    blind travels ahead of the button, so it reaches the seat first: the player
    comes in posting it (B2a), never having paid an entry blind."""
    t = SeatingTable(SeatingConfig.for_draw(DRAW, seats=5))
    for s in (1, 2, 3, 4):
        t.sit_down(s, f"p{s}", 10_000)
    first = t.plan_hand(button=1)  # button 1, SB 2, BB 3
    assert first is not None
    t.finish_hand(first, first.stacks)
    t.sit_down(5, "p5", 10_000, choice=Choice.POST, wait_for_button=True)
    seated = t.seat(5)
    assert seated is not None and seated.button_must_pass
    waits = t.plan_hand()  # button 2, SB 3, BB 4: seat 5 could have posted now
    assert waits is not None and (waits.button, waits.big_blind) == (2, 4)
    assert dict(waits.waiting) == {5: Waiting.BUTTON_MUST_PASS}
    t.finish_hand(waits, waits.stacks)
    plays = t.plan_hand()
    assert plays is not None and plays.big_blind == 5
    assert [(p.kind, p.amount, p.live) for p in plays.posts_of(5)] == [
        (PostKind.BIG_BLIND, BB, True)
    ]
    t.finish_hand(plays, plays.stacks)
    after = t.seat(5)
    assert after is not None and not (after.new or after.button_must_pass)


def test_wait_for_the_button_between_button_and_blinds_enters_once_passed__B2() -> None:
    """Between the button and the blinds the wait is B2b's anyway; once the button
    has passed the seat the player enters with a live big blind."""
    t = SeatingTable(SeatingConfig.for_draw(DRAW, seats=5))
    for s in (1, 2, 4, 5):
        t.sit_down(s, f"p{s}", 10_000)
    first = t.plan_hand(button=1)  # button 1, SB 2, BB 4
    assert first is not None
    t.finish_hand(first, first.stacks)
    t.sit_down(3, "p3", 10_000, choice=Choice.POST, wait_for_button=True)
    blocked = t.plan_hand()  # button 2, SB 4, BB 5
    assert blocked is not None and dict(blocked.waiting) == {3: Waiting.BUTTON_MUST_PASS}
    t.finish_hand(blocked, blocked.stacks)
    passed = t.plan_hand()  # the button moves from 2 to 4, past seat 3
    assert passed is not None and passed.button == 4
    assert [(p.kind, p.live) for p in passed.posts_of(3)] == [(PostKind.ENTRY_BIG_BLIND, True)]


def test_im_in_said_during_the_hand_counts_for_the_next__S3() -> None:
    """The plan uses "I'm in" up: said again while that hand runs, it is for the next
    hand; a voided hand gives it back; the snapshot of a table with a hand pending
    is the table as if that hand were voided (a restart voids it)."""
    t = SeatingTable(SeatingConfig.for_stud(StudConfig(ante=10), seats=4))
    for s in (1, 2, 3):
        t.sit_down(s, f"p{s}", 1_000)
    t.set_auto_post(3, False)
    t.im_in(3)
    plan = t.plan_hand()
    assert plan is not None and plan.seats == (1, 2, 3) and plan.im_in_used == (3,)
    used = t.seat(3)
    assert used is not None and not used.im_in
    assert t.snapshot()["seats"][2]["im_in"] is True  # as if voided
    t.void_hand(plan)
    back = t.seat(3)
    assert back is not None and back.im_in
    plan = t.plan_hand()
    assert plan is not None
    t.im_in(3)  # during the hand: for the next one
    t.finish_hand(plan, plan.stacks)
    following = t.plan_hand()
    assert following is not None and following.seats == (1, 2, 3)
    t.finish_hand(following, following.stacks)
    last = t.plan_hand()
    assert last is not None and last.seats == (1, 2)
