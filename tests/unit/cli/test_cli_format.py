"""The poker CLI's output: the texts of configurations, actions and menus, a whole
hand formatted, and a view that shows only what the viewer knows.
"""

from __future__ import annotations

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker_bots import TableView
from poker_cli.format import action_text, config_text, format_event, format_view, legal_text
from tests.unit.bots import events as build

from .support import DRAW, FL, NL

# ------------------------------------------------------------------ formatting


def test_texts() -> None:
    assert config_text(build.STUD) == "Seven Card Stud, fixed limit 100/200, ante 25, bring-in 50"
    assert config_text(build.HILO).startswith("Stud Hi-Lo")
    assert config_text(build.DRAW_NL) == "Five Card Draw 7-A, no limit blinds 50/100"
    assert action_text(c.Action(kind=c.ACTION_KIND_RAISE, amount=1_500)) == "raises to 1,500"
    assert action_text(c.Action(kind=c.ACTION_KIND_DISCARD)) == "stands pat"
    assert action_text(c.Action(kind=c.ACTION_KIND_DISCARD, cards=["7c"])) == "discards (7c)"
    assert legal_text(FL) == "[f]old  [c]all 100  [r N] raise to 200"
    assert "bet to 100..2,000" in legal_text(NL)
    assert "discard up to 3" in legal_text(DRAW)


def test_format_a_hand() -> None:
    view = TableView()
    events = [
        build.snapshot(build.STUD, 2, [build.seat(1), build.seat(2)], hand=""),
        build.hand_started(
            [build.seat(1), build.seat(2)], posts=[(1, 25, "ante"), (2, 25, "ante")]
        ),
        build.dealt(2, ["As", "Ad"]),
        build.dealt(1, hidden=2),
        build.dealt(1, ["2c"], up=True),
        build.street(3, "third"),
        build.action(1, c.ACTION_KIND_BRING_IN, stack=925),
        build.your_turn(build.fixed_menu(2, call=100, raise_kind=c.ACTION_KIND_RAISE, to=[200]), 3),
        build.action(2, c.ACTION_KIND_RAISE, stack=0, amount=975),
        build.ev(
            8, showdown=t.ShowdownEvent(hands=[t.ShownHand(seat=2, cards=["As"], high="aces")])
        ),
        build.finished({1: 925, 2: 1_075}),
        build.ev(10, action_rejected=t.ActionRejected(action_seq=3, message="late")),
        build.ev(11, seat_changed=t.SeatChanged(seat=build.seat(1), left=True)),
    ]
    lines: list[str] = []
    for event in events:
        view.apply(event)
        lines += format_event(event, view)
    text = "\n".join(lines)
    assert "== table t1: Seven Card Stud" in text
    assert "== hand h1: P1 [1] 1,000, P2 (you) [2] 1,000" in text
    assert "P1 [1] posts ante 25" in text
    assert "P2 (you) [2] is dealt down As Ad" in text
    assert "P1 [1] is dealt 2 down" in text
    assert "-- third" in text
    assert "P1 [1] brings in" in text
    assert ">> your turn (action 3): [f]old  [c]all 100" in text
    assert "P2 (you) [2] raises to 975 and is all in" in text
    assert "P2 (you) [2] shows As: aces" in text
    assert "P1 [1] wins 100 from the main pot" in text
    assert "!! action 3 rejected: late" in text
    assert "P1 leaves seat 1" in text
    # a batch formats as its events
    assert format_event(build.batch(*events[:3]), view) == [
        line for e in events[:3] for line in format_event(e, view)
    ]


def test_format_view_shows_only_what_the_viewer_knows() -> None:
    view = TableView()
    view.apply(build.snapshot(build.STUD, 2, [build.seat(1), build.seat(2)]))
    view.apply(build.hand_started([build.seat(1), build.seat(2)]))
    view.apply(build.dealt(2, ["As", "Ad"]))
    view.apply(build.dealt(1, hidden=2))
    view.apply(build.dealt(1, ["2c"], up=True))
    lines = format_view(view)
    assert any(line.startswith("   1 P1") and "?? ?? 2c" in line for line in lines)
    assert any(line.startswith(" * 2 P2") and "[As Ad]" in line for line in lines)
