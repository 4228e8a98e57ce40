"""The poker CLI: argument parsing, requests, formatting, the play input parser, and
the commands end to end against fake lobby and table servers (threaded grpc)."""

from __future__ import annotations

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
from poker_cli.__main__ import build_parser, create_table_request, main
from poker_cli.format import (
    action_text,
    config_text,
    format_event,
    format_view,
    legal_text,
)
from poker_cli.play import QuitRequestedError, parse_command

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


class FakeLobby(lobby_pb2_grpc.LobbyServicer):
    def __init__(self) -> None:
        self.deadlines: list[float | None] = []

    def _seen(self, context: Any) -> None:
        self.deadlines.append(context.time_remaining())

    def RegisterPlayer(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._seen(context)
        player = lobby_pb2.Player(player_id="p-1", name=request.name, balance=10_000)
        return lobby_pb2.RegisterPlayerResponse(player=player, token="tok-1")

    def ListTables(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._seen(context)
        table = lobby_pb2.Table(table_id="T1", name="main", config=STUD, seats=8, min_buy_in=2_000)
        return lobby_pb2.ListTablesResponse(tables=[table])

    def SitDown(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._seen(context)
        if request.token != "tok-1":
            context.abort(grpc.StatusCode.PERMISSION_DENIED, "wrong token")
        return lobby_pb2.SitDownResponse(seat=3, stack=request.buy_in, balance=8_000)

    def CreateTable(self, request: Any, context: Any) -> Any:  # noqa: N802
        self._seen(context)
        return lobby_pb2.Table(table_id="T9", name=request.name, config=request.config, seats=5)


class FakeWatch(table_pb2_grpc.TableServiceServicer):
    def Watch(self, request: Any, context: Any) -> Iterator[t.TableEvent]:  # noqa: N802
        yield snapshot(STUD, 0, [seat(1), seat(2)], hand="")
        yield hand_started([seat(1), seat(2)])
        yield dealt(1, ["Kd"], up=True)
        yield finished({1: 1_000, 2: 1_000})
        yield hand_started([seat(1), seat(2)])  # not printed: --hands 1


@pytest.fixture
def servers() -> Iterator[tuple[str, FakeLobby]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    lobby = FakeLobby()
    lobby_pb2_grpc.add_LobbyServicer_to_server(lobby, server)
    table_pb2_grpc.add_TableServiceServicer_to_server(FakeWatch(), server)
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

    def Play(self, request_iterator: Iterator[t.PlayerMessage], context: Any) -> Any:  # noqa: N802
        self.messages.append(next(request_iterator))
        menu = fixed_menu(2, check=True, raise_kind=c.ACTION_KIND_BET, to=[100])
        yield batch(snapshot(STUD, 2, [seat(1), seat(2)]), hand_started([seat(1), seat(2)]))
        yield batch(dealt(2, ["As", "Ad"]), your_turn(menu, 4))
        self.messages.append(next(request_iterator))
        yield batch(action(2, c.ACTION_KIND_CHECK, stack=1_000), finished({1: 900, 2: 1_100}))
        context.abort(grpc.StatusCode.UNAVAILABLE, "table went away")  # hands=1: never seen


@pytest.fixture
def play_server() -> Iterator[tuple[str, FakePlay]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    fake = FakePlay()
    table_pb2_grpc.add_TableServiceServicer_to_server(fake, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", fake
    finally:
        server.stop(0)


def test_bot_command(play_server: tuple[str, FakePlay], capsys: pytest.CaptureFixture[str]) -> None:
    addr, fake = play_server
    argv = ["bot", "T1", "--kind", "station", "--hands", "1", "--table", addr]
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
    argv = ["play", "T1", "--hands", "1", "--table", addr, "--player", "p2", "--token", "tok"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "your cards: As Ad" in out
    assert "you may: [f]old  [k] check  [r N] bet to 100" in out
    assert "amount must be one of [100], got 5000" in out  # asked again
    assert fake.messages[0].join.delivery == t.DELIVERY_EVERY_EVENT
    assert fake.messages[1].action.action == c.Action(kind=c.ACTION_KIND_BET, amount=100)
    assert "played 1 hands; stack 1,100" in out
