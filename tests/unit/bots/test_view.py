"""TableView: state from hand-built TableEvents (Snapshot, stud and draw hands, batches)."""

from __future__ import annotations

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker_bots.view import TableView, card_ints, unpack
from poker_rules import parse_cards

from . import events as build


def stud_third_street() -> list[t.TableEvent]:
    """Seat 2 (the viewer) and seats 1, 3; seat 1 brings in."""
    return [
        build.hand_started(
            [build.seat(1), build.seat(2), build.seat(3)],
            posts=[(1, 25, "ante"), (2, 25, "ante"), (3, 25, "ante")],
        ),
        build.dealt(1, hidden=2),
        build.dealt(2, ["As", "Ad"]),
        build.dealt(3, hidden=2),
        build.dealt(1, ["2c"], up=True),
        build.dealt(2, ["Ah"], up=True),
        build.dealt(3, ["Kd"], up=True),
        build.street(3, "third"),
        build.action(1, c.ACTION_KIND_BRING_IN, stack=925),
    ]


def test_snapshot_replaces_everything() -> None:
    view = TableView()
    for event in stud_third_street():
        view.apply(event)
    assert view.seats[1].upcards == ["2c"]
    legal = build.fixed_menu(2, call=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])
    turn = t.YourTurn(action_seq=4, legal=legal)
    snap = build.snapshot(
        config=build.STUD,
        your_seat=2,
        seats=[build.seat(2, stack=500, own_cards=["Qs", "Qd"], upcards=["Qh"], in_hand=True)],
        turn=turn,
        hand="h9",
        seq=40,
    )
    view.apply(snap)
    assert list(view.seats) == [2]
    assert view.hand_id == "h9"
    assert view.my_seat == 2
    assert view.my_cards == ["Qs", "Qd", "Qh"]
    assert view.my_card_ints == parse_cards("Qs Qd Qh")
    assert view.is_my_turn and view.legal == legal and view.action_seq == 4
    assert view.event_seq == 40
    assert view.my_stack == 500


def test_stud_hand_flow() -> None:
    view = TableView(my_seat=2)
    for event in stud_third_street():
        view.apply(event)
    assert view.hand_id == build.HAND and not view.hand_over
    assert view.my_cards == ["As", "Ad", "Ah"]
    assert view.my_down_cards == ["As", "Ad"]
    assert view.seats[1].down_cards == 2 and view.seats[1].own_cards == []
    assert view.all_upcards() == {1: ["2c"], 2: ["Ah"], 3: ["Kd"]}
    # antes 3 x 25 and the bring-in 50: the stack change is the bet
    assert view.seats[1].stack == 925 and view.seats[1].bet == 50
    assert view.pot_total == 125
    assert view.current_bet == 50
    assert view.street == 3 and view.street_name == "third"

    legal = build.fixed_menu(2, call=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])
    view.apply(build.your_turn(legal, action_seq=2))
    assert view.legal is not None and view.legal.call_amount == 50
    assert view.to_act == 2
    view.apply(build.action(2, c.ACTION_KIND_COMPLETE, stack=875, amount=100))
    assert view.turn is None and view.seats[2].bet == 100 and view.pot_total == 225
    view.apply(build.action(3, c.ACTION_KIND_FOLD, stack=975))
    assert not view.seats[3].in_hand
    assert [s.seat for s in view.opponents()] == [1]
    view.apply(build.action(1, c.ACTION_KIND_CALL, stack=875))
    view.apply(build.street(4, "fourth"))
    assert all(s.bet == 0 for s in view.seats.values())
    view.apply(build.dealt(2, ["7c"], up=True))
    assert view.my_cards == ["As", "Ad", "Ah", "7c"]

    view.apply(
        build.ev(7, showdown=t.ShowdownEvent(hands=[t.ShownHand(seat=1, cards=["2c", "2d"])]))
    )
    assert view.seats[1].shown == ["2c", "2d"]
    view.apply(build.finished({1: 875, 2: 1_125, 3: 975}))
    assert view.hand_over and view.hands_finished == 1
    assert view.stacks() == {1: 875, 2: 1_125, 3: 975}
    assert view.last_finish is not None and view.last_finish.awards[0].amount == 100

    # the next hand starts clean
    view.apply(build.hand_started([build.seat(1), build.seat(2)], seq=1))
    assert view.my_cards == [] and not view.hand_over
    assert not view.seats[3].in_hand and view.pot_total == 0


def test_batch_is_unpacked_in_order() -> None:
    events = stud_third_street()
    legal = build.fixed_menu(2, call=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])
    events.append(build.your_turn(legal, action_seq=2))
    one_by_one = TableView(my_seat=2)
    for event in events:
        one_by_one.apply(event)
    batched = TableView(my_seat=2)
    msg = build.batch(*events)
    batched.apply(msg)
    assert list(unpack(msg)) == events
    assert batched.my_cards == one_by_one.my_cards
    assert batched.stacks() == one_by_one.stacks()
    assert batched.pot_total == one_by_one.pot_total
    assert batched.turn == one_by_one.turn and batched.turn is not None


def test_draw_hand_discards_and_draw_counts() -> None:
    view = TableView(my_seat=1)
    view.apply(
        build.snapshot(
            config=build.DRAW_NL, your_seat=1, seats=[build.seat(1), build.seat(2)], hand=""
        )
    )
    assert view.hand_over and view.is_draw
    view.apply(
        build.hand_started(
            [build.seat(1), build.seat(2)], posts=[(1, 50, "blind"), (2, 100, "blind")]
        )
    )
    # the table's order: HandStarted (the blinds), the first street, the cards
    view.apply(build.street(0, "pre_draw"))
    view.apply(build.dealt(1, ["As", "Ks", "7d", "8c", "Ah"]))
    view.apply(build.dealt(2, hidden=5))
    # the blinds stay the pre-draw street's bets: seat 1 owes 50 more to call
    assert view.seats[1].bet == 50 and view.seats[2].bet == 100 and view.pot_total == 150
    assert view.street_name == "pre_draw"
    view.apply(build.action(1, c.ACTION_KIND_CALL, stack=900))
    assert view.seats[1].bet == 100 and view.actions[-1].to == 100  # called the big blind
    view.apply(build.action(2, c.ACTION_KIND_CHECK, stack=900))
    view.apply(build.street(1, "draw"))
    assert view.seats[1].bet == 0 and view.seats[2].bet == 0
    view.apply(build.action(1, c.ACTION_KIND_DISCARD, stack=900, cards=["7d", "8c"]))
    view.apply(
        build.ev(
            5,
            draw_taken=t.DrawTaken(seat=1, count=2, discarded=["7d", "8c"], received=["Ac", "9s"]),
        )
    )
    assert view.my_cards == ["As", "Ks", "Ah", "Ac", "9s"]
    assert view.my_card_ints == card_ints(["As", "Ks", "Ah", "Ac", "9s"])
    # the opponent's draw: a public count, and replacements never double its hand
    view.apply(build.ev(6, draw_taken=t.DrawTaken(seat=2, count=3)))
    view.apply(build.dealt(2, hidden=3))
    assert view.seats[2].draw_count == 3 and view.seats[2].card_count == 5
    view.apply(build.street(2, "post_draw"))
    view.apply(build.action(1, c.ACTION_KIND_BET, stack=700, amount=200))
    assert view.seats[2].draw_count is None  # D7: public until the first action after
    assert view.seats[1].bet == 200 and view.pot_total == 400


def test_seat_changed_and_rejection() -> None:
    view = TableView(my_seat=1)
    view.apply(build.snapshot(your_seat=1, seats=[build.seat(1), build.seat(2)]))
    view.apply(build.ev(3, seat_changed=t.SeatChanged(seat=build.seat(3, stack=700))))
    assert view.seats[3].stack == 700
    view.apply(build.ev(4, seat_changed=t.SeatChanged(seat=build.seat(2), left=True)))
    assert sorted(view.seats) == [1, 3]
    view.apply(build.ev(5, action_rejected=t.ActionRejected(action_seq=3, code=9, message="late")))
    assert view.last_rejection is not None and view.last_rejection.message == "late"
    assert view.me is not None and view.me.label == "P1"


def test_spectator_sees_no_own_cards() -> None:
    view = TableView()
    view.apply(
        build.snapshot(
            your_seat=0, seats=[build.seat(1, upcards=["Kd"], down_cards=2, in_hand=True)]
        )
    )
    assert view.me is None and view.my_cards == [] and view.my_stack == 0
    assert view.upcards(1) == ["Kd"] and view.seats[1].card_count == 3
