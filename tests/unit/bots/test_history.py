# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B5_...)
"""TableView.actions: the hand's actions in order, and the questions bots ask of them
(raises this street, the last aggressor), from hand-built events."""

from __future__ import annotations

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker_bots import HandAction, TableView

from . import events as build

FOLD, CHECK, CALL = c.ACTION_KIND_FOLD, c.ACTION_KIND_CHECK, c.ACTION_KIND_CALL
BET, RAISE, COMPLETE = c.ACTION_KIND_BET, c.ACTION_KIND_RAISE, c.ACTION_KIND_COMPLETE
BRING_IN, DISCARD = c.ACTION_KIND_BRING_IN, c.ACTION_KIND_DISCARD


def stud_hand() -> TableView:
    """Third street: seat 1 brings in, seat 2 completes, seat 3 raises, seat 1 folds,
    seat 2 calls; fourth street: seat 2 bets."""
    view = TableView(my_seat=2)
    for event in (
        build.hand_started(
            [build.seat(1), build.seat(2), build.seat(3)],
            posts=[(1, 25, "ante"), (2, 25, "ante"), (3, 25, "ante")],
        ),
        build.street(0, "third"),
        build.action(1, BRING_IN, stack=925),
        build.action(2, COMPLETE, stack=875, amount=100),
        build.action(3, RAISE, stack=775, amount=200),
        build.action(1, FOLD, stack=925),
        build.action(2, CALL, stack=775),
        build.street(1, "fourth"),
        build.action(2, BET, stack=675, amount=100),
    ):
        view.apply(event)
    return view


def test_the_hands_actions_in_order_with_streets_and_amounts() -> None:
    view = stud_hand()
    assert view.history_complete
    assert [(a.street, a.seat, a.kind_name, a.to, a.put_in) for a in view.actions] == [
        (0, 1, "BRING_IN", 50, 50),
        (0, 2, "COMPLETE", 100, 100),
        (0, 3, "RAISE", 200, 200),
        (0, 1, "FOLD", 50, 0),
        (0, 2, "CALL", 200, 100),
        (1, 2, "BET", 100, 100),
    ]
    assert view.actions_this_street == [HandAction(1, 2, BET, 100, 100)]
    assert view.last_action == HandAction(1, 2, BET, 100, 100)
    assert [a.kind_name for a in view.actions_by(2)] == ["COMPLETE", "CALL", "BET"]


def test_raises_bets_and_aggressors_per_street() -> None:
    view = stud_hand()
    # fourth street: one bet, no raise yet
    assert (view.raises_this_street, view.bets_this_street) == (0, 1)
    assert view.last_aggressor == 2 and view.street_aggressor == 2
    view.apply(build.action(3, RAISE, stack=575, amount=200))
    assert (view.raises_this_street, view.bets_this_street) == (1, 2)
    assert view.last_aggressor == 3
    view.apply(build.street(2, "fifth"))
    assert view.actions_this_street == [] and view.raises_this_street == 0
    assert view.street_aggressor is None and view.last_aggressor == 3  # the hand's


def test_all_in_and_the_action_clock_are_recorded() -> None:
    view = TableView(my_seat=1)
    view.apply(build.hand_started([build.seat(1, stack=100), build.seat(2)]))
    view.apply(
        build.ev(
            3,
            action_taken=t.ActionTaken(
                seat=2, action=c.Action(kind=FOLD), stack=1_000, timeout=True
            ),
        )
    )
    view.apply(build.action(1, BET, stack=0, amount=100))
    fold, shove = view.actions
    assert fold.timeout and not fold.all_in
    assert shove.all_in and shove.aggressive and (shove.to, shove.put_in) == (100, 100)


def test_S10_all_in_protection_is_no_action() -> None:
    """S10's all-in protection (an ActionTaken of kind 0) applies no action."""
    view = TableView(my_seat=1)
    view.apply(build.hand_started([build.seat(1), build.seat(2)]))
    view.apply(build.action(2, c.ACTION_KIND_UNSPECIFIED, stack=1_000))
    assert view.actions == []


def test_D7_a_draw_is_recorded_from_draw_taken_with_its_public_count() -> None:
    """D7: the table tells a draw with DrawTaken (the count public); the drawer's own
    stream also names the cards."""
    view = TableView(my_seat=1)
    view.apply(build.snapshot(build.DRAW_NL, 1, [build.seat(1), build.seat(2)], hand=""))
    view.apply(build.hand_started([build.seat(1), build.seat(2)]))
    view.apply(build.street(1, "draw"))
    view.apply(build.ev(5, draw_taken=t.DrawTaken(seat=2, count=3)))
    view.apply(
        build.ev(6, draw_taken=t.DrawTaken(seat=1, count=1, discarded=["2c"], received=["As"]))
    )
    assert [(a.street, a.seat, a.kind, a.discards) for a in view.actions] == [
        (1, 2, DISCARD, 3),
        (1, 1, DISCARD, 1),
    ]
    # an ActionTaken DISCARD just before its DrawTaken is the same action
    view.apply(build.action(2, DISCARD, stack=1_000))
    view.apply(build.ev(8, draw_taken=t.DrawTaken(seat=2, count=0)))
    assert len(view.actions) == 3 and view.actions[-1].discards == 0


def test_history_resets_at_hand_start_and_a_snapshot_says_it_has_none() -> None:
    view = stud_hand()
    view.apply(build.hand_started([build.seat(1), build.seat(2)]))
    assert view.actions == [] and view.history_complete
    view.apply(build.action(1, CHECK, stack=1_000))
    snap = build.snapshot(build.STUD, 2, [build.seat(1, bet=100), build.seat(2)], hand="h1")
    view.apply(snap)
    assert view.actions == [] and not view.history_complete
    view.apply(build.action(2, CALL, stack=900))
    assert [a.kind for a in view.actions] == [CALL] and not view.history_complete
