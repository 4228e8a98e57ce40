"""The poker CLI's input: argument parsing (defaults, the environment, the requests
it builds) and the play input parser.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poker.common.v1 import common_pb2 as c
from poker_cli.__main__ import main
from poker_cli.options import (
    UsageError,
    build_parser,
    create_table_request,
    given_credential,
    glue_values,
    split_credential,
)
from poker_cli.play import QuitRequestedError, parse_command
from service_kit.ports import DEFAULT_GATEWAY_PORT

from .support import DRAW, FL, HAND, NL

# ------------------------------------------------------------------ parsing


def test_every_help_text_prints(capsys: pytest.CaptureFixture[str]) -> None:
    """``poker --help`` and every command's ``--help`` print (argparse %-formats help
    strings: a bare "95 %" in one once made ``poker --help`` raise TypeError)."""
    parser = build_parser()
    with pytest.raises(SystemExit) as done:
        parser.parse_args(["--help"])
    assert done.value.code == 0
    listing = capsys.readouterr().out
    subparsers = parser._subparsers
    assert subparsers is not None
    choices = subparsers._group_actions[0].choices
    assert isinstance(choices, dict)
    commands: list[str] = list(choices)
    assert "match" in commands and "register" in commands
    for name in commands:
        assert name in listing
        with pytest.raises(SystemExit) as done:
            parser.parse_args([name, "--help"])
        assert done.value.code == 0, name
        assert f"usage: poker {name}" in capsys.readouterr().out


def test_parser_defaults_and_env(monkeypatch: pytest.MonkeyPatch) -> None:
    args = build_parser().parse_args(["sit", "T1", "--buy-in", "500"])
    assert (args.command, args.table_id, args.buy_in, args.seat) == ("sit", "T1", 500, 0)
    # the room's door (the gateway); the staff's commands go to the lobby's internal port
    assert args.room == "127.0.0.1:50050" == f"127.0.0.1:{DEFAULT_GATEWAY_PORT}"
    assert args.lobby_internal == "127.0.0.1:50054"
    monkeypatch.setenv("POKER_ROOM", "room.example:443")
    monkeypatch.setenv("POKER_CA_FILE", "/pki/ca.crt")
    monkeypatch.setenv("POKER_OPERATOR_DIR", "/pki/operator")
    args = build_parser().parse_args(["sit", "T1", "--buy-in", "500"])
    assert (args.room, args.ca, args.operator_dir) == (
        "room.example:443",
        "/pki/ca.crt",
        "/pki/operator",
    )
    monkeypatch.delenv("POKER_CA_FILE")
    monkeypatch.delenv("POKER_OPERATOR_DIR")
    args = build_parser().parse_args(["sit", "T1", "--buy-in", "500"])
    local = Path.home() / ".cardroom" / "pki"  # the local room's (make run)
    assert (args.ca, args.operator_dir) == (str(local / "ca.crt"), str(local / "operator"))
    args = build_parser().parse_args(["bot", "T1", "--kind", "random", "--player", "me"])
    assert args.kind == "random" and args.player == "me" and args.hands is None
    with pytest.raises(SystemExit):
        build_parser().parse_args(["bot", "T1", "--kind", "shark"])
    with pytest.raises(SystemExit):
        build_parser().parse_args([])


def _who(*argv: str) -> str:
    parser = build_parser()
    return given_credential(parser.parse_args(glue_values(["stand", "T1", *argv], parser)))


def test_the_credential_from_the_options_then_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """--credential, else --player and --token (joined as the door's credential is),
    else POKER_CREDENTIAL, else POKER_PLAYER_ID and POKER_TOKEN: the command line
    wins over the environment."""
    assert _who() == ""
    monkeypatch.setenv("POKER_PLAYER_ID", "p-env")
    monkeypatch.setenv("POKER_TOKEN", "-tok-env")
    assert _who() == "p-env.-tok-env"
    monkeypatch.setenv("POKER_CREDENTIAL", "p-cred.tok-cred")
    assert _who() == "p-cred.tok-cred"
    assert _who("--token", "-t") == "p-env.-t"  # the other half from the environment
    assert _who("--player", "p-1", "--token", "t1") == "p-1.t1"
    assert _who("--credential", "p-2.-t2", "--player", "p-1", "--token", "t1") == "p-2.-t2"
    assert split_credential("p-2.-t2") == ("p-2", "-t2")
    monkeypatch.delenv("POKER_PLAYER_ID")
    monkeypatch.delenv("POKER_CREDENTIAL")
    with pytest.raises(UsageError, match="both a player id and a token"):
        _who()
    with pytest.raises(UsageError, match="POKER_CREDENTIAL is not a credential"):
        monkeypatch.setenv("POKER_CREDENTIAL", "no-dot")
        _who()
    with pytest.raises(UsageError, match="a token holds no dot"):
        _who("--player", "p-1", "--token", "p-1.tok")


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


def test_missing_credentials_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stand", "T1"]) == 2
    assert "give --credential (or set POKER_CREDENTIAL)" in capsys.readouterr().err


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
