# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_..._S5)
"""The poker CLI as a person reads it: every test here reads the rendered lines
(what the terminal shows), not the protos: dashes in values, whose turn it is,
seat names, the street, the pot, refused keys, quitting, history and watch.
"""

from __future__ import annotations

import shlex

import pytest

from poker.common.v1 import common_pb2 as c
from poker.room.v1 import room_pb2
from poker.table.v1 import table_pb2 as t
from poker_bots import TableView
from poker_cli.__main__ import main
from poker_cli.format import EventPrinter, format_event, format_view, pot_text, seat_name
from poker_cli.lobby_commands import export_line
from poker_cli.options import build_parser, glue_values
from poker_cli.play import HELP, KEYS, parse_command
from tests.unit.bots import events as build

from .conftest import Door
from .support import DRAW, FL, HAND, NL


def to_act(seat_no: int, action_seq: int, seq: int = 6) -> t.TableEvent:
    return build.ev(seq, to_act=t.ToAct(seat=seat_no, action_seq=action_seq))


@pytest.mark.parametrize(
    "value",
    [["--token", "-abc"], ["--token=-abc"], ["--tok", "-abc"], ["--token", "--abc"]],
    ids=["spaced", "glued", "abbreviated", "two-dashes"],
)
def test_a_value_that_begins_with_a_dash_is_read_as_the_value(value: list[str]) -> None:
    """Issue 13, defect 5: ``--token -abc`` was read as an unknown option ``-abc``."""
    parser = build_parser()
    argv = glue_values(["stand", "T1", "--player", "-p1", "-v", *value], parser)
    args = parser.parse_args(argv)
    assert args.token == value[-1].removeprefix("--token=") and args.player == "-p1"
    assert args.verbose and args.table_id == "T1"
    args = parser.parse_args(glue_values(["history", "T1", "h1", "--limit", "3"], parser))
    assert (args.table_id, args.hand_id, args.limit) == ("T1", "h1", 3)


def test_a_value_that_begins_with_a_dash_in_a_credential() -> None:
    parser = build_parser()
    argv = glue_values(["stand", "T1", "--credential", "-p1.-abc", "--room", "-h:1"], parser)
    args = parser.parse_args(argv)
    assert (args.credential, args.room) == ("-p1.-abc", "-h:1")


def test_a_token_that_begins_with_a_dash_reaches_the_door(
    door: Door, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the command line and in the environment (POKER_TOKEN, POKER_CREDENTIAL):
    the credential the door gets is the player id and the token joined by a dot."""
    argv = ["sit", "T1", "--buy-in", "2000", *door.at]
    assert main([*argv, "--player", "p-1", "--token", "-tok-1"]) == 0
    assert main([*argv, "--credential", "p-1.-tok-1"]) == 0
    monkeypatch.setenv("POKER_PLAYER_ID", "p-1")
    monkeypatch.setenv("POKER_TOKEN", "-tok-1")
    assert main(argv) == 0
    monkeypatch.setenv("POKER_CREDENTIAL", "p-1.-tok-1")
    assert main(argv) == 0
    assert door.room.bearers == [("SitDown", "p-1.-tok-1")] * 4
    assert capsys.readouterr().out.count("seat 3 at T1: stack 2,000") == 4


def test_register_prints_a_shell_safe_export_line(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["register", "alice", *door.at]) == 0
    out = capsys.readouterr().out
    assert "export POKER_CREDENTIAL='p-1.tok-1'" in out
    line = export_line("p-1.-a'b")
    assert shlex.split(line) == ["export", "POKER_CREDENTIAL=p-1.-a'b"]


def test_whose_turn_is_said_in_words_and_only_when_it_tells__S5() -> None:
    """``(to_act)`` was printed after almost every action: now ``P2 [2] to act`` when
    a round opens (in stud the cards decide who goes first), never after an action,
    where the next line says it anyway; the viewer's own turn is ``>> your turn``."""
    seats = [build.seat(1), build.seat(2), build.seat(3)]
    events = [
        build.snapshot(build.STUD, 1, seats, hand=""),
        build.hand_started(seats, posts=[(1, 25, "ante"), (2, 25, "ante"), (3, 25, "ante")]),
        build.dealt(2, ["2c"], up=True),
        build.street(0, "third"),
        to_act(2, 1),
        build.action(2, c.ACTION_KIND_BRING_IN, stack=925),
        to_act(3, 2),
        build.action(3, c.ACTION_KIND_CALL, stack=925),
        build.your_turn(FL, 3),
        build.action(1, c.ACTION_KIND_FOLD, stack=975),
        to_act(2, 4),
        build.street(1, "fourth"),
        build.dealt(3, ["As"], up=True),
        to_act(3, 5),
    ]
    view = TableView()
    printer = EventPrinter()
    lines: list[str] = []
    for event in events:
        view.apply(event)
        lines += printer.lines(event, view)
    turns = [line for line in lines if "to act" in line or "turn" in line]
    assert turns == [
        "   P2 [2] to act",
        ">> your turn (action 3): [f]old  [c]all 100  [r N] raise to 200",
        "   P3 [3] to act",
    ]
    assert "   P2 [2] brings in 50" in lines  # defect 9: the bring-in's amount
    assert "-- third street" in lines and "-- fourth street" in lines
    assert not [line for line in lines if "(to_act)" in line or "p2" in line]
    assert format_event(to_act(2, 1), view) == ["   P2 [2] to act"]


def test_seats_are_named_never_by_player_id() -> None:
    """A snapshot between hands carries player ids only: ``watch`` showed them until
    the next hand.  Names come from the lobby; unknown, it is the seat number."""
    ids_only = [t.SeatView(seat=1, player_id="p-7f3a", stack=1_000)]
    ids_only.append(t.SeatView(seat=4, player_id="p-99cc", stack=2_500))
    join = build.snapshot(build.STUD, 0, ids_only, hand="")
    view = TableView()
    view.apply(join)
    lines = EventPrinter({"p-7f3a": "alice"}).lines(join, view)
    assert lines[1:] == [
        "   waiting for the next hand",
        "   1 alice              1,000",
        "   4 -                  2,500",
    ]
    came = build.ev(seat_changed=t.SeatChanged(seat=t.SeatView(seat=5, player_id="p-1", stack=900)))
    assert format_event(came, view) == ["   a player sits in seat 5 with 900"]
    assert seat_name(view, 4) == "seat 4" and seat_name(view, 1) == "alice [1]"
    assert not [line for line in lines if "p-" in line]


@pytest.mark.parametrize(
    ("config", "street_no", "hand", "expected"),
    [
        (build.STUD, 0, build.HAND, "third street"),
        (build.STUD, 4, build.HAND, "seventh street"),
        (build.DRAW_NL, 0, build.HAND, "before the draw"),
        (build.DRAW_NL, 1, build.HAND, "the draw"),
        (build.DRAW_NL, 2, build.HAND, "after the draw"),
        (build.STUD, 0, "", "waiting for the next hand"),
    ],
)
def test_the_join_view_names_the_street(
    config: c.GameConfig, street_no: int, hand: str, expected: str
) -> None:
    """The join view printed ``street: -`` on third street (a snapshot's street 0)."""
    join = build.snapshot(config, 1, [build.seat(1), build.seat(2)], hand=hand)
    join.snapshot.street = street_no
    view = TableView()
    view.apply(join)
    head = format_event(join, view)[1]
    assert head.startswith(f"   {expected}") and "street: -" not in head


def test_the_pot_says_what_its_numbers_are() -> None:
    """``pot: 80 (pot 40)`` was the chips in this hand and the pot as counted at the
    end of the last betting round: the difference is what is bet on this street."""
    assert pot_text(80) == "pot 80"
    assert pot_text(80, [c.Pot(amount=80)]) == "pot 80"
    assert pot_text(80, [c.Pot(amount=40)]) == "pot 80 (40 + 40 bet this street)"
    assert pot_text(90, [c.Pot(amount=60), c.Pot(amount=30)]) == "pot 90 (main 60, side 30)"
    three = [c.Pot(amount=300), c.Pot(amount=200), c.Pot(amount=100)]
    assert (
        pot_text(1_600, three)
        == "pot 1,600 (main 300, side pots 200 + 100, + 1,000 bet this street)"
    )
    # a reconnect's snapshot: pots as at the last round's end, this street's bets
    join = build.snapshot(build.STUD, 1, [build.seat(1, bet=20), build.seat(2, bet=20)])
    join.snapshot.pots.add(amount=40)
    join.snapshot.street = 1
    join.snapshot.to_act_seat = 2
    view = TableView()
    view.apply(join)
    assert EventPrinter().lines(join, view)[1] == (
        "   fourth street   pot 80 (40 + 40 bet this street)   P2 [2] to act"
    )
    # before the first betting round ends a snapshot has no pot: the antes are added
    first = build.snapshot(
        build.STUD, 1, [build.seat(1, upcards=["2c"]), build.seat(2, bet=50, upcards=["Ks"])]
    )
    view = TableView()
    view.apply(first)
    assert format_view(view)[0] == "   third street   pot 50"  # the snapshot: no antes
    assert EventPrinter().lines(first, view)[1] == "   third street   pot 100"
    closed = build.action(2, c.ACTION_KIND_CALL, stack=0)
    closed.action_taken.pots.extend([c.Pot(amount=60), c.Pot(amount=30)])
    (line,) = format_event(closed, view)
    assert line == "   P2 [2] calls and is all in; pot 90 (main 60, side 30)"


BRING = build.fixed_menu(fold=False, bring_in=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])


def test_a_refused_key_names_the_menu_in_words__S5() -> None:
    """``c`` on the bring-in menu said ``ACTION_KIND_CALL is not allowed``."""
    with pytest.raises(ValueError, match="call") as info:
        parse_command("c", BRING)
    assert str(info.value) == (
        "call is not allowed here; you may: [b]ring in 50  [r N] complete to 100"
    )
    assert parse_command("b", BRING) == c.Action(kind=c.ACTION_KIND_BRING_IN)
    for menu in (FL, NL, DRAW, BRING):  # no enum name in any message
        for text in ("f", "k", "c", "b", "r", "r 7", "a", "d As", "zz", "?"):
            try:
                parse_command(text, menu, HAND)
            except ValueError as exc:
                assert "ACTION_KIND" not in str(exc), (text, str(exc))
    for key in (
        "f fold",
        "k check",
        "c call",
        "b bring in",
        "r N",
        "a all in",
        "d CARDS",
        "q quit",
    ):
        assert key in KEYS
    assert "b, bring" in HELP


def test_quit_says_you_are_still_seated__S10(
    door: Door, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    assert main(["play", "T1", *door.at, "--player", "p2", "--token", "tok"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "you sit in seat 2 at T1"
    assert out[-2:] == [
        "you are still seated at T1 (seat 2) and will be dealt in: the action clock "
        "checks or folds for you when your time runs out (S10).",
        "to leave the table: poker stand T1   to miss hands but keep the seat: poker sit-out T1",
    ]


def test_play_where_you_are_not_seated_is_refused(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    """It spectated silently and then said ``played 1 hands; stack 0``."""
    for command in ("play", "bot"):
        assert main([command, "T1", *door.at, "--player", "p9", "--token", "x"]) == 1
        out, err = capsys.readouterr()
        assert err == (
            f"poker {command}: you are not seated at T1: take a seat first "
            "(poker sit T1 --buy-in 2000)\n"
        )
        assert "played" not in out
    assert door.room.messages == []  # no stream was opened


def test_history_lists_hands_and_shows_one__S5(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["history", "T1", *door.at]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "h1  P1 [1], P2 [2]: P1 [1] wins 100",
        "h2  P1 [1], P2 [2]: voided: chips returned",
        "(poker history T1 HAND: one hand in full)",
    ]
    assert main(["history", "T1", "h1", *door.at, "--player", "p1", "--token", "-t"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "== hand h1: P1 (you) [1] 1,000, P2 [2] 1,000",
        "   P1 (you) [1] posts ante 25",
        "   P2 [2] posts ante 25",
        "   P1 (you) [1] is dealt 2 down",
        "   P1 (you) [1] is dealt up 2c",
        "-- third street",
        "   P1 (you) [1] to act",
        "   P1 (you) [1] brings in 50",
        "   P2 [2] folds",
        "   P1 (you) [1] wins 100 from the main pot",
        "== hand h1 over: P1 (you) [1] 1,025, P2 [2] 975",
    ]
    assert main(["history", "T1", "h1", "--phh", *door.at]) == 0
    assert capsys.readouterr().out == "variant = 'FT'\n"
    asked = [
        (r, b)
        for r, (m, b) in zip(door.room.requests, door.room.bearers, strict=True)
        if m == "GetHandHistory"
    ]
    (public, nobody), (mine, bearer), _phh = asked[0], asked[1], asked[-1]
    assert isinstance(public, room_pb2.GetHandHistoryRequest)
    assert (public.table_id, public.hand_id, public.limit, nobody) == ("T1", "", 10, "")
    assert (mine.hand_id, bearer) == ("h1", "p1.-t")


def test_watch_names_the_seats_before_the_first_hand(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    """``watch`` printed the player ids until the next hand: the lobby has the names."""
    ids_only = [t.SeatView(seat=n, player_id=f"p{n}", stack=1_000) for n in (1, 2)]
    door.room.watch = [
        build.snapshot(build.STUD, 0, ids_only, hand=""),
        build.hand_started([build.seat(1), build.seat(2)]),
        build.finished({1: 1_000, 2: 1_000}),
    ]
    assert main(["watch", "T1", "--hands", "1", *door.at, "--credential", "p2.tok"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:4] == [
        "   waiting for the next hand",
        "   1 P1                 1,000",
        "   2 P2                 1,000",
    ]
