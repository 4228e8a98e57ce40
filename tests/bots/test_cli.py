# ruff: noqa: N802  (test names carry the RULES.md rule ID, e.g. test_..._S5)
"""The poker CLI: argument parsing, requests, formatting, the play input parser, and
the commands end to end against fake lobby and table servers (threaded grpc)."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc
from poker.table.v1 import table_pb2 as t
from poker.table.v1 import table_pb2_grpc
from poker_bots import TableView
from poker_cli.__main__ import build_parser, create_table_request, export_line, glue_values, main
from poker_cli.format import (
    EventPrinter,
    action_text,
    config_text,
    format_event,
    format_view,
    legal_text,
    pot_text,
    seat_name,
)
from poker_cli.play import HELP, KEYS, QuitRequestedError, parse_command

from .events import (
    DRAW_NL,
    HILO,
    STUD,
    action,
    batch,
    dealt,
    ev,
    finished,
    fixed_menu,
    hand_started,
    seat,
    snapshot,
    street,
    your_turn,
)
from .events import HAND as HAND_ID

# ------------------------------------------------------------------ parsing


def test_parser_defaults_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POKER_PLAYER_ID", "p-env")
    monkeypatch.setenv("POKER_TOKEN", "tok-env")
    args = build_parser().parse_args(["sit", "T1", "--buy-in", "500"])
    assert (args.command, args.table_id, args.buy_in, args.seat) == ("sit", "T1", 500, 0)
    assert (args.player, args.token) == ("p-env", "tok-env")
    assert args.lobby == "127.0.0.1:50054" and args.table == "127.0.0.1:50055"
    args = build_parser().parse_args(["bot", "T1", "--kind", "random", "--player", "me"])
    assert args.kind == "random" and args.player == "me" and args.hands is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bot", "T1", "--kind", "shark"])
    with pytest.raises(SystemExit):
        build_parser().parse_args([])


def test_create_table_request() -> None:
    args = build_parser().parse_args(
        [
            "create-table",
            "--game",
            "draw",
            "--structure",
            "no",
            "--small-bet",
            "100",
            "--clock",
            "2.5",
        ]
    )
    req = create_table_request(args)
    assert req.config.game == c.GAME_DRAW_7A and req.config.structure == c.STRUCTURE_NO_LIMIT
    assert req.config.big_bet == 200 and req.seats == 5 and req.min_buy_in == 2_000
    assert req.action_clock_ms == 2_500 and req.name == "draw 100/200"
    args = build_parser().parse_args(
        [
            "create-table",
            "--game",
            "stud-hilo",
            "--small-bet",
            "100",
            "--ante",
            "25",
            "--seats",
            "6",
        ]
    )
    req = create_table_request(args)
    assert req.config.game == c.GAME_STUD_HILO and req.config.bring_in == 50 and req.seats == 6
    assert not req.config.HasField("max_raises")


def test_missing_credentials_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("POKER_PLAYER_ID", raising=False)
    monkeypatch.delenv("POKER_TOKEN", raising=False)
    assert main(["stand", "T1"]) == 2
    assert "--player and --token" in capsys.readouterr().err


# ------------------------------------------------------------------ the play parser

FL = fixed_menu(call=100, raise_kind=c.ACTION_KIND_RAISE, to=[200])
NL = c.LegalActions(
    seat=1,
    can_fold=True,
    can_check=True,
    raise_kind=c.ACTION_KIND_BET,
    min_to=100,
    max_to=2_000,
    kinds=[c.ACTION_KIND_FOLD, c.ACTION_KIND_CHECK, c.ACTION_KIND_BET],
)
DRAW = c.LegalActions(seat=1, max_discards=3, kinds=[c.ACTION_KIND_DISCARD])
HAND = ["As", "Kd", "7c", "8h", "9s"]


@pytest.mark.parametrize(
    ("text", "legal", "expected"),
    [
        ("f", FL, c.Action(kind=c.ACTION_KIND_FOLD)),
        ("c", FL, c.Action(kind=c.ACTION_KIND_CALL)),
        ("CALL", FL, c.Action(kind=c.ACTION_KIND_CALL)),
        ("r", FL, c.Action(kind=c.ACTION_KIND_RAISE, amount=200)),
        ("r 200", FL, c.Action(kind=c.ACTION_KIND_RAISE, amount=200)),
        ("a", FL, c.Action(kind=c.ACTION_KIND_RAISE, amount=200)),
        ("c", NL, c.Action(kind=c.ACTION_KIND_CHECK)),  # c checks when free
        ("k", NL, c.Action(kind=c.ACTION_KIND_CHECK)),
        ("bet 1,500", NL, c.Action(kind=c.ACTION_KIND_BET, amount=1_500)),
        ("r 1.5k", NL, c.Action(kind=c.ACTION_KIND_BET, amount=1_500)),
        ("allin", NL, c.Action(kind=c.ACTION_KIND_BET, amount=2_000)),
        ("d as kd", DRAW, c.Action(kind=c.ACTION_KIND_DISCARD, cards=["As", "Kd"])),
        ("d AsKd7c", DRAW, c.Action(kind=c.ACTION_KIND_DISCARD, cards=["As", "Kd", "7c"])),
        ("d", DRAW, c.Action(kind=c.ACTION_KIND_DISCARD)),
        ("pat", DRAW, c.Action(kind=c.ACTION_KIND_DISCARD)),
    ],
)
def test_parse_command(text: str, legal: c.LegalActions, expected: c.Action) -> None:
    assert parse_command(text, legal, HAND) == expected


@pytest.mark.parametrize(
    ("text", "legal", "message"),
    [
        ("", FL, "type a command"),
        ("k", FL, "not allowed"),
        ("r 300", FL, "one of [200]"),
        ("r 50", NL, "100..2000"),
        ("r lots", NL, "not an amount"),
        ("d Qs", DRAW, "your own cards"),
        ("d As Kd 7c 8h", DRAW, "at most 3"),
        ("d Zz", DRAW, "cards are like"),
        ("jump", FL, "unknown command"),
        ("?", FL, "stand pat"),
        ("b", FL, "not allowed"),
    ],
)
def test_parse_command_errors(text: str, legal: c.LegalActions, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_command(text, legal, HAND)


def test_parse_quit() -> None:
    with pytest.raises(QuitRequestedError):
        parse_command("q", FL)


# ------------------------------------------------------------------ formatting


def test_texts() -> None:
    assert config_text(STUD) == "Seven Card Stud, fixed limit 100/200, ante 25, bring-in 50"
    assert config_text(HILO).startswith("Stud Hi-Lo")
    assert config_text(DRAW_NL) == "Five Card Draw 7-A, no limit blinds 50/100"
    assert action_text(c.Action(kind=c.ACTION_KIND_RAISE, amount=1_500)) == "raises to 1,500"
    assert action_text(c.Action(kind=c.ACTION_KIND_DISCARD)) == "stands pat"
    assert action_text(c.Action(kind=c.ACTION_KIND_DISCARD, cards=["7c"])) == "discards (7c)"
    assert legal_text(FL) == "[f]old  [c]all 100  [r N] raise to 200"
    assert "bet to 100..2,000" in legal_text(NL)
    assert "discard up to 3" in legal_text(DRAW)


def test_format_a_hand() -> None:
    view = TableView()
    events = [
        snapshot(STUD, 2, [seat(1), seat(2)], hand=""),
        hand_started([seat(1), seat(2)], posts=[(1, 25, "ante"), (2, 25, "ante")]),
        dealt(2, ["As", "Ad"]),
        dealt(1, hidden=2),
        dealt(1, ["2c"], up=True),
        street(3, "third"),
        action(1, c.ACTION_KIND_BRING_IN, stack=925),
        your_turn(FL, 3),
        action(2, c.ACTION_KIND_RAISE, stack=0, amount=975),
        ev(8, showdown=t.ShowdownEvent(hands=[t.ShownHand(seat=2, cards=["As"], high="aces")])),
        finished({1: 925, 2: 1_075}),
        ev(10, action_rejected=t.ActionRejected(action_seq=3, message="late")),
        ev(11, seat_changed=t.SeatChanged(seat=seat(1), left=True)),
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
    assert format_event(batch(*events[:3]), view) == [
        line for e in events[:3] for line in format_event(e, view)
    ]


def test_format_view_shows_only_what_the_viewer_knows() -> None:
    view = TableView()
    view.apply(snapshot(STUD, 2, [seat(1), seat(2)]))
    view.apply(hand_started([seat(1), seat(2)]))
    view.apply(dealt(2, ["As", "Ad"]))
    view.apply(dealt(1, hidden=2))
    view.apply(dealt(1, ["2c"], up=True))
    lines = format_view(view)
    assert any(line.startswith("   1 P1") and "?? ?? 2c" in line for line in lines)
    assert any(line.startswith(" * 2 P2") and "[As Ad]" in line for line in lines)


# ------------------------------------------------------------------ commands end to end
# The fakes serve only the RPCs a test calls; the generated stubs declare every RPC
# abstract (at run time the base class answers the others UNIMPLEMENTED), hence the
# ``type: ignore[abstract]`` where a fake is made.


class FakeLobby(lobby_pb2_grpc.LobbyServicer):
    def __init__(self) -> None:
        self.deadlines: list[float | None] = []
        self.tokens: list[str] = []  # SitDown's, as received

    def _seen(self, context: Any) -> None:
        self.deadlines.append(context.time_remaining())

    def RegisterPlayer(self, request: Any, context: Any) -> Any:
        self._seen(context)
        player = lobby_pb2.Player(player_id="p-1", name=request.name, balance=10_000)
        return lobby_pb2.RegisterPlayerResponse(player=player, token="tok-1")

    def ListTables(self, request: Any, context: Any) -> Any:
        self._seen(context)
        table = lobby_pb2.Table(table_id="T1", name="main", config=STUD, seats=8, min_buy_in=2_000)
        return lobby_pb2.ListTablesResponse(tables=[table])

    def SitDown(self, request: Any, context: Any) -> Any:
        self._seen(context)
        self.tokens.append(request.token)
        if request.token not in ("tok-1", "-tok-1"):  # an old token may begin with "-"
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "wrong token")
        return lobby_pb2.SitDownResponse(seat=3, stack=request.buy_in, balance=8_000)

    def CreateTable(self, request: Any, context: Any) -> Any:
        self._seen(context)
        return lobby_pb2.Table(table_id="T9", name=request.name, config=request.config, seats=5)

    def GetTable(self, request: Any, context: Any) -> Any:
        self._seen(context)
        occupied = [
            lobby_pb2.SeatInfo(seat=1, player_id="p1", name="P1", stack=1_000),
            lobby_pb2.SeatInfo(seat=2, player_id="p2", name="P2", stack=1_000),
        ]
        return lobby_pb2.Table(
            table_id=request.table_id, config=STUD, seats=8, min_buy_in=2_000, occupied=occupied
        )


class FakeWatch(table_pb2_grpc.TableServiceServicer):
    def Watch(self, request: Any, context: Any) -> Iterator[t.TableEvent]:
        yield snapshot(STUD, 0, [seat(1), seat(2)], hand="")
        yield hand_started([seat(1), seat(2)])
        yield dealt(1, ["Kd"], up=True)
        yield finished({1: 1_000, 2: 1_000})
        yield hand_started([seat(1), seat(2)])  # not printed: --hands 1


@pytest.fixture
def servers() -> Iterator[tuple[str, FakeLobby]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    lobby = FakeLobby()  # type: ignore[abstract]
    lobby_pb2_grpc.add_LobbyServicer_to_server(lobby, server)
    table_pb2_grpc.add_TableServiceServicer_to_server(FakeWatch(), server)  # type: ignore[abstract]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", lobby
    finally:
        server.stop(0)


def test_commands(servers: tuple[str, FakeLobby], capsys: pytest.CaptureFixture[str]) -> None:
    addr, lobby = servers
    at = ["--lobby", addr, "--table", addr, "--timeout", "5"]
    assert main(["register", "alice", *at]) == 0
    out = capsys.readouterr().out
    assert "player_id: p-1" in out and "tok-1" in out
    assert main(["tables", *at]) == 0
    assert "T1  main  Seven Card Stud" in capsys.readouterr().out
    assert main(["create-table", "--game", "draw", "--small-bet", "100", *at]) == 0
    assert "table_id: T9" in capsys.readouterr().out
    assert main(["sit", "T1", "--buy-in", "2000", "--player", "p-1", "--token", "tok-1", *at]) == 0
    assert "seat 3 at T1: stack 2,000, balance 8,000" in capsys.readouterr().out
    assert main(["sit", "T1", "--buy-in", "1", "--player", "p-1", "--token", "bad", *at]) == 1
    assert "PERMISSION_DENIED: wrong token" in capsys.readouterr().err
    # every unary call carried a deadline
    assert lobby.deadlines and all(d is not None and 0 < d < 6 for d in lobby.deadlines)
    assert main(["watch", "T1", "--hands", "1", *at]) == 0
    out = capsys.readouterr().out
    assert "P1 [1] is dealt up Kd" in out and out.count("== hand") == 2  # started + over


class FakePlay(table_pb2_grpc.TableServiceServicer):
    """A sync Play: one turn (check or bet), then the hand ends."""

    def __init__(self) -> None:
        self.messages: list[t.PlayerMessage] = []

    def Play(self, request_iterator: Iterator[t.PlayerMessage], context: Any) -> Any:
        self.messages.append(next(request_iterator))
        menu = fixed_menu(2, check=True, raise_kind=c.ACTION_KIND_BET, to=[100])
        yield batch(snapshot(STUD, 2, [seat(1), seat(2)]), hand_started([seat(1), seat(2)]))
        yield batch(dealt(2, ["As", "Ad"]), your_turn(menu, 4))
        self.messages.append(next(request_iterator))
        yield batch(action(2, c.ACTION_KIND_CHECK, stack=1_000), finished({1: 900, 2: 1_100}))
        context.abort(grpc.StatusCode.UNAVAILABLE, "table went away")  # hands=1: never seen


@pytest.fixture
def play_server() -> Iterator[tuple[str, FakePlay]]:
    """A fake table and lobby at one address (``play`` asks the lobby for the seat)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    fake = FakePlay()  # type: ignore[abstract]
    table_pb2_grpc.add_TableServiceServicer_to_server(fake, server)
    lobby_pb2_grpc.add_LobbyServicer_to_server(FakeLobby(), server)  # type: ignore[abstract]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", fake
    finally:
        server.stop(0)


def test_bot_command(play_server: tuple[str, FakePlay], capsys: pytest.CaptureFixture[str]) -> None:
    addr, fake = play_server
    argv = ["bot", "T1", "--kind", "station", "--hands", "1", "--table", addr, "--lobby", addr]
    assert main([*argv, "--player", "p2", "--token", "tok"]) == 0
    out = capsys.readouterr().out
    assert "CallingStation(): 1 hands, 1 actions, 0 rejected" in out
    assert "stack 1,100" in out
    join, act = fake.messages
    assert join.join.delivery == t.DELIVERY_ON_TURN and join.join.token == "tok"
    assert act.action.action_seq == 4 and act.action.action.kind == c.ACTION_KIND_CHECK


def test_play_command_reads_the_terminal(
    play_server: tuple[str, FakePlay],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    addr, fake = play_server
    typed = iter(["r 5000", "r"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    argv = ["play", "T1", "--hands", "1", "--table", addr, "--lobby", addr]
    assert main([*argv, "--player", "p2", "--token", "tok"]) == 0
    out = capsys.readouterr().out
    assert "your cards: As Ad" in out
    assert "you may: [f]old  [k] check  [r N] bet to 100" in out
    assert "amount must be one of [100], got 5000" in out  # asked again
    assert fake.messages[0].join.delivery == t.DELIVERY_EVERY_EVENT
    assert fake.messages[1].action.action == c.Action(kind=c.ACTION_KIND_BET, amount=100)
    assert "played 1 hand; stack 1,100" in out


# ------------------------------------------------------------------ issue 13: what a person reads
# Every test below reads the rendered lines (what the terminal shows), not the protos.


def to_act(seat_no: int, action_seq: int, seq: int = 6) -> t.TableEvent:
    return ev(seq, to_act=t.ToAct(seat=seat_no, action_seq=action_seq))


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


def test_a_token_that_begins_with_a_dash_reaches_the_lobby(
    servers: tuple[str, FakeLobby],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the command line and in the environment (POKER_TOKEN)."""
    addr, lobby = servers
    argv = ["sit", "T1", "--buy-in", "2000", "--lobby", addr, "--player", "p-1"]
    assert main([*argv, "--token", "-tok-1"]) == 0
    monkeypatch.setenv("POKER_TOKEN", "-tok-1")
    assert main(argv) == 0
    assert lobby.tokens == ["-tok-1", "-tok-1"]
    assert capsys.readouterr().out.count("seat 3 at T1: stack 2,000") == 2


def test_register_prints_a_shell_safe_export_line(
    servers: tuple[str, FakeLobby], capsys: pytest.CaptureFixture[str]
) -> None:
    addr, _lobby = servers
    assert main(["register", "alice", "--lobby", addr]) == 0
    out = capsys.readouterr().out
    assert "export POKER_PLAYER_ID='p-1' POKER_TOKEN='tok-1'" in out
    line = export_line("p-1", "-a'b")
    assert shlex.split(line) == ["export", "POKER_PLAYER_ID=p-1", "POKER_TOKEN=-a'b"]


def test_whose_turn_is_said_in_words_and_only_when_it_tells__S5() -> None:
    """``(to_act)`` was printed after almost every action: now ``P2 [2] to act`` when
    a round opens (in stud the cards decide who goes first), never after an action,
    where the next line says it anyway; the viewer's own turn is ``>> your turn``."""
    seats = [seat(1), seat(2), seat(3)]
    events = [
        snapshot(STUD, 1, seats, hand=""),
        hand_started(seats, posts=[(1, 25, "ante"), (2, 25, "ante"), (3, 25, "ante")]),
        dealt(2, ["2c"], up=True),
        street(0, "third"),
        to_act(2, 1),
        action(2, c.ACTION_KIND_BRING_IN, stack=925),
        to_act(3, 2),
        action(3, c.ACTION_KIND_CALL, stack=925),
        your_turn(FL, 3),
        action(1, c.ACTION_KIND_FOLD, stack=975),
        to_act(2, 4),
        street(1, "fourth"),
        dealt(3, ["As"], up=True),
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
    join = snapshot(STUD, 0, ids_only, hand="")
    view = TableView()
    view.apply(join)
    lines = EventPrinter({"p-7f3a": "alice"}).lines(join, view)
    assert lines[1:] == [
        "   waiting for the next hand",
        "   1 alice              1,000",
        "   4 -                  2,500",
    ]
    came = ev(seat_changed=t.SeatChanged(seat=t.SeatView(seat=5, player_id="p-1", stack=900)))
    assert format_event(came, view) == ["   a player sits in seat 5 with 900"]
    assert seat_name(view, 4) == "seat 4" and seat_name(view, 1) == "alice [1]"
    assert not [line for line in lines if "p-" in line]


@pytest.mark.parametrize(
    ("config", "street_no", "hand", "expected"),
    [
        (STUD, 0, HAND_ID, "third street"),
        (STUD, 4, HAND_ID, "seventh street"),
        (DRAW_NL, 0, HAND_ID, "before the draw"),
        (DRAW_NL, 1, HAND_ID, "the draw"),
        (DRAW_NL, 2, HAND_ID, "after the draw"),
        (STUD, 0, "", "waiting for the next hand"),
    ],
)
def test_the_join_view_names_the_street(
    config: c.GameConfig, street_no: int, hand: str, expected: str
) -> None:
    """The join view printed ``street: -`` on third street (a snapshot's street 0)."""
    join = snapshot(config, 1, [seat(1), seat(2)], hand=hand)
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
    join = snapshot(STUD, 1, [seat(1, bet=20), seat(2, bet=20)])
    join.snapshot.pots.add(amount=40)
    join.snapshot.street = 1
    join.snapshot.to_act_seat = 2
    view = TableView()
    view.apply(join)
    assert EventPrinter().lines(join, view)[1] == (
        "   fourth street   pot 80 (40 + 40 bet this street)   P2 [2] to act"
    )
    # before the first betting round ends a snapshot has no pot: the antes are added
    first = snapshot(STUD, 1, [seat(1, upcards=["2c"]), seat(2, bet=50, upcards=["Ks"])])
    view = TableView()
    view.apply(first)
    assert format_view(view)[0] == "   third street   pot 50"  # the snapshot: no antes
    assert EventPrinter().lines(first, view)[1] == "   third street   pot 100"
    closed = action(2, c.ACTION_KIND_CALL, stack=0)
    closed.action_taken.pots.extend([c.Pot(amount=60), c.Pot(amount=30)])
    (line,) = format_event(closed, view)
    assert line == "   P2 [2] calls and is all in; pot 90 (main 60, side 30)"


BRING = fixed_menu(fold=False, bring_in=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])


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
    play_server: tuple[str, FakePlay],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    addr, _fake = play_server
    monkeypatch.setattr("builtins.input", lambda prompt="": "q")
    argv = ["play", "T1", "--table", addr, "--lobby", addr, "--player", "p2", "--token", "tok"]
    assert main(argv) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "you sit in seat 2 at T1"
    assert out[-2:] == [
        "you are still seated at T1 (seat 2) and will be dealt in: the action clock "
        "checks or folds for you when your time runs out (S10).",
        "to leave the table: poker stand T1   to miss hands but keep the seat: poker sit-out T1",
    ]


def test_play_where_you_are_not_seated_is_refused(
    play_server: tuple[str, FakePlay], capsys: pytest.CaptureFixture[str]
) -> None:
    """It spectated silently and then said ``played 1 hands; stack 0``."""
    addr, fake = play_server
    for command in ("play", "bot"):
        argv = [command, "T1", "--table", addr, "--lobby", addr, "--player", "p9", "--token", "x"]
        assert main(argv) == 1
        out, err = capsys.readouterr()
        assert err == (
            f"poker {command}: you are not seated at T1: take a seat first "
            "(poker sit T1 --buy-in 2000)\n"
        )
        assert "played" not in out
    assert fake.messages == []  # no stream was opened


class FakeHistory(table_pb2_grpc.TableServiceServicer):
    """GetHandHistory: two finished hands (public view: no down cards)."""

    def __init__(self) -> None:
        self.requests: list[t.GetHandHistoryRequest] = []

    def GetHandHistory(self, request: Any, context: Any) -> Any:
        self.requests.append(request)
        seats = [seat(1), seat(2)]
        first = [
            hand_started(seats, posts=[(1, 25, "ante"), (2, 25, "ante")]),
            dealt(1, hidden=2, seq=2),
            dealt(1, ["2c"], up=True, seq=3),
            street(0, "third", seq=4),
            to_act(1, 1, seq=5),
            action(1, c.ACTION_KIND_BRING_IN, stack=925, seq=6),
            to_act(2, 2, seq=7),
            action(2, c.ACTION_KIND_FOLD, stack=975, seq=8),
            finished({1: 1_025, 2: 975}),
        ]
        void = ev(2, hand="h2", hand_finished=t.HandFinished(voided=True))
        hands = [
            t.HandHistory(hand_id="h1", config=STUD, events=first, phh="variant = 'FT'\n"),
            t.HandHistory(hand_id="h2", config=STUD, events=[hand_started(seats), void]),
        ]
        if request.hand_id:
            hands = [h for h in hands if h.hand_id == request.hand_id]
        return t.GetHandHistoryResponse(hands=hands)


def test_history_lists_hands_and_shows_one__S5(capsys: pytest.CaptureFixture[str]) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    fake = FakeHistory()  # type: ignore[abstract]
    table_pb2_grpc.add_TableServiceServicer_to_server(fake, server)
    lobby_pb2_grpc.add_LobbyServicer_to_server(FakeLobby(), server)  # type: ignore[abstract]
    addr = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    try:
        at = ["--table", addr, "--lobby", addr]
        assert main(["history", "T1", *at, "--player", "", "--token", ""]) == 0
        assert capsys.readouterr().out.splitlines() == [
            "h1  P1 [1], P2 [2]: P1 [1] wins 100",
            "h2  P1 [1], P2 [2]: voided: chips returned",
            "(poker history T1 HAND: one hand in full)",
        ]
        assert main(["history", "T1", "h1", *at, "--player", "p1", "--token", "-t"]) == 0
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
        assert main(["history", "T1", "h1", "--phh", *at, "--player", "", "--token", ""]) == 0
        assert capsys.readouterr().out == "variant = 'FT'\n"
    finally:
        server.stop(0)
    public, mine, _phh = fake.requests
    assert (public.player_id, public.token, public.limit) == ("", "", 10)
    assert (mine.player_id, mine.token, mine.hand_id) == ("p1", "-t", "h1")


class FakeWatchBetweenHands(table_pb2_grpc.TableServiceServicer):
    """Watch's first snapshot between hands: seats by player id only, no names."""

    def Watch(self, request: Any, context: Any) -> Iterator[t.TableEvent]:
        ids_only = [t.SeatView(seat=n, player_id=f"p{n}", stack=1_000) for n in (1, 2)]
        yield snapshot(STUD, 0, ids_only, hand="")
        yield hand_started([seat(1), seat(2)])
        yield finished({1: 1_000, 2: 1_000})


def test_watch_names_the_seats_before_the_first_hand(capsys: pytest.CaptureFixture[str]) -> None:
    """``watch`` printed the player ids until the next hand: the lobby has the names."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    table_pb2_grpc.add_TableServiceServicer_to_server(FakeWatchBetweenHands(), server)  # type: ignore[abstract]
    lobby_pb2_grpc.add_LobbyServicer_to_server(FakeLobby(), server)  # type: ignore[abstract]
    addr = f"127.0.0.1:{server.add_insecure_port('127.0.0.1:0')}"
    server.start()
    try:
        assert main(["watch", "T1", "--hands", "1", "--table", addr, "--lobby", addr]) == 0
    finally:
        server.stop(0)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:4] == [
        "   waiting for the next hand",
        "   1 P1                 1,000",
        "   2 P2                 1,000",
    ]
