"""The poker CLI's commands end to end against fake lobby and table servers
(threaded grpc): register, tables, create-table, sit, watch, bot and play.
"""

from __future__ import annotations

import pytest

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker_cli.__main__ import main

from .cli_support import FakeLobby, FakePlay


def test_commands(servers: tuple[str, FakeLobby], capsys: pytest.CaptureFixture[str]) -> None:
    addr, lobby = servers
    at = ["--lobby", addr, "--table", addr, "--lobby-internal", lobby.internal, "--timeout", "5"]
    assert main(["register", "alice", *at]) == 0
    out = capsys.readouterr().out
    assert "player_id: p-1" in out and "tok-1" in out
    assert main(["tables", *at]) == 0
    assert "T1  main  Seven Card Stud" in capsys.readouterr().out
    assert main(["create-table", "--game", "draw", "--small-bet", "100", *at]) == 0
    assert "table_id: T9" in capsys.readouterr().out
    assert lobby.creators == [[b"spiffe://cardroom.local/operator"]]  # the operator's cert
    assert main(["sit", "T1", "--buy-in", "2000", "--player", "p-1", "--token", "tok-1", *at]) == 0
    assert "seat 3 at T1: stack 2,000, balance 8,000" in capsys.readouterr().out
    assert main(["sit", "T1", "--buy-in", "1", "--player", "p-1", "--token", "bad", *at]) == 1
    assert "PERMISSION_DENIED: wrong token" in capsys.readouterr().err
    # every unary call carried a deadline
    assert lobby.deadlines and all(d is not None and 0 < d < 6 for d in lobby.deadlines)
    assert main(["watch", "T1", "--hands", "1", *at]) == 0
    out = capsys.readouterr().out
    assert "P1 [1] is dealt up Kd" in out and out.count("== hand") == 2  # started + over


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
