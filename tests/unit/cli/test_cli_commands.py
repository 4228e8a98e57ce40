"""The poker CLI's commands end to end against a fake of the room's door (the
gateway's Room API, threaded grpc): every player command goes there with the
credential as the bearer; the staff's commands go to the lobby's internal port
with the operator's certificate.  A refusal is one line and exit status 1.
"""

from __future__ import annotations

import pytest

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2
from poker.room.v1 import room_pb2
from poker.table.v1 import table_pb2 as t
from poker_cli.__main__ import main

from .conftest import Door
from .support import MISSING, NO_TABLE, REFUSED

OPERATOR = b"spiffe://cardroom.local/operator"


def run(
    capsys: pytest.CaptureFixture[str], door: Door, *argv: str, code: int = 0
) -> tuple[list[str], list[str]]:
    """``poker ARGV`` at the fakes: (stdout lines, stderr lines)."""
    result = main([*argv, *door.at])
    out, err = capsys.readouterr()
    assert result == code, out + err
    return out.splitlines(), err.splitlines()


def test_register_tables_sit_and_balance_go_through_the_door(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = run(capsys, door, "register", "alice")
    assert out == [
        "player_id:  p-1",
        "token:      tok-1",
        "credential: p-1.tok-1   (shown once: keep it secret)",
        "balance:    10,000",
        "export POKER_CREDENTIAL='p-1.tok-1'",
    ]
    out, _ = run(capsys, door, "tables")
    assert out[0].startswith("T1  main  Seven Card Stud") and "2/8 seated" in out[0]
    out, _ = run(capsys, door, "tables", "--from", "table", "--game", "stud")
    assert out[0].startswith("T1  main  Seven Card Stud") and out[0].endswith("hand h8")
    me = ["--credential", "p-1.tok-1"]
    out, _ = run(capsys, door, "sit", "T1", "--buy-in", "2000", *me)
    assert out == ["seat 3 at T1: stack 2,000, balance 8,000"]
    out, _ = run(capsys, door, "sit-out", "T1", *me)
    assert out == ["seat 2: stack 1,000 (sitting out)"]
    out, _ = run(capsys, door, "stand", "T1", "--player", "p-1", "--token", "tok-1")
    assert out == ["left T1: 1,000 returned", "balance: 10,000"]
    out, _ = run(capsys, door, "balance", "--credential", "p2.tok")
    assert out == ["P2: balance 8,000, at tables 1,000", "   T1  main  seat 2: stack 1,000"]
    room = door.room
    assert [m for m, _ in room.bearers] == [
        "Register", "ListTables", "ListLiveTables", "SitDown", "SitOut", "StandUp", "GetMe",
        "ListTables",
    ]  # fmt: skip
    # the listings are public: no credential sent; the rest carry the player's
    assert [b for m, b in room.bearers if m in ("Register", "ListLiveTables")] == ["", ""]
    assert room.bearers[1] == ("ListTables", "")
    assert [b for m, b in room.bearers[3:6]] == ["p-1.tok-1"] * 3
    sat = room.requests[3]
    assert isinstance(sat, room_pb2.SitDownRequest)
    assert (sat.table_id, sat.buy_in, sat.seat) == ("T1", 2_000, 0)
    assert sat.entry == lobby_pb2.ENTRY_POST_NOW
    assert room.requests[2].game == c.GAME_STUD
    # every unary call carried a deadline
    assert room.deadlines and all(d is not None and 0 < d < 6 for d in room.deadlines)


def test_the_staff_commands_go_to_the_lobby_as_the_operator(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = run(capsys, door, "create-table", "--game", "draw", "--small-bet", "100")
    assert out[0] == "table_id: T9"
    out, _ = run(capsys, door, "register", "bob", "--balance", "50000")
    assert out[2] == "credential: p-5.-tok-5   (shown once: keep it secret)"
    assert out[-1] == "export POKER_CREDENTIAL='p-5.-tok-5'"
    assert door.staff.callers == [[OPERATOR], [OPERATOR]]
    assert door.room.bearers == []  # nothing went to the door


def test_a_wrong_or_missing_credential_is_one_clear_line(
    door: Door, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The door's UNAUTHENTICATED, with its message and where the CLI takes the
    credential from; exit status 1.  No credential at all is a usage error (2),
    said before anything is sent."""
    _, err = run(capsys, door, "sit", "T1", "--buy-in", "1", "--credential", "p-1.bad", code=1)
    assert err == [
        f"poker sit: UNAUTHENTICATED: {REFUSED} (your credential: --credential or "
        "POKER_CREDENTIAL, as poker register NAME printed it)"
    ]
    _, err = run(capsys, door, "watch", "T1", "--player", "p9", "--token", "wrong", code=1)
    assert err[0].startswith(f"poker watch: UNAUTHENTICATED: {REFUSED}") and len(err) == 1
    sent = len(door.room.bearers)
    for command in (["stand", "T1"], ["watch", "T1"], ["state", "T1"], ["balance"]):
        _, err = run(capsys, door, *command, code=2)
        assert err == [
            f"poker {command[0]}: who are you? give --credential (or set POKER_CREDENTIAL) "
            "with the credential `poker register NAME` printed; --player and --token also do"
        ]
    assert len(door.room.bearers) == sent
    _, err = run(capsys, door, "sit", "T1", "--buy-in", "1", "--credential", "p-1", code=2)
    assert err == [
        "poker sit: --credential is not a credential: it is <player_id>.<token>, as "
        "`poker register NAME` printed it"
    ]
    _, err = run(capsys, door, "stand", "T1", "--player", "p-1", code=2)
    assert "give both a player id and a token" in err[0]
    # the door's own message when the bearer is missing (a client without one)
    monkeypatch.setattr("poker_cli.lobby_commands.bearer", lambda credential: ())
    _, err = run(capsys, door, "stand", "T1", "--credential", "p-1.tok-1", code=1)
    assert err[0].startswith(f"poker stand: UNAUTHENTICATED: {MISSING}")


def test_the_door_s_other_refusals_are_one_line_too(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    me = ["--credential", "p2.tok"]
    _, err = run(capsys, door, "sit", "T404", "--buy-in", "1", *me, code=1)
    assert err == [f"poker sit: NOT_FOUND: {NO_TABLE}"]
    _, err = run(capsys, door, "state", "T404", *me, code=1)
    assert err == [f"poker state: NOT_FOUND: {NO_TABLE}"]
    # nobody at that address: UNAVAILABLE, and where the CLI looked
    _, err = main_at(capsys, ["tables", "--room", "127.0.0.1:1", "--timeout", "2"])
    assert len(err) == 1 and err[0].startswith("poker tables: UNAVAILABLE: ")
    assert err[0].endswith("(is the room running at 127.0.0.1:1? --room HOST:PORT or POKER_ROOM)")
    # the services' own ports are not the CLI's any more
    _, err = main_at(capsys, ["tables", "--lobby", "127.0.0.1:50064"], code=2)
    assert err == [
        "poker tables: --lobby: the CLI goes through the room's door now, the gateway: "
        "--room HOST:PORT (or POKER_ROOM; default 127.0.0.1:50050)"
    ]
    _, err = main_at(capsys, ["tables", "--ca", "/nowhere/ca.crt", *door.at], code=1)
    assert len(err) == 1 and err[0].startswith("poker tables: CA certificate /nowhere/ca.crt")


def main_at(
    capsys: pytest.CaptureFixture[str], argv: list[str], *, code: int = 1
) -> tuple[list[str], list[str]]:
    result = main(argv)
    out, err = capsys.readouterr()
    assert result == code, out + err
    return out.splitlines(), err.splitlines()


def test_state_shows_the_table_as_your_seat_sees_it(
    door: Door, capsys: pytest.CaptureFixture[str]
) -> None:
    out, _ = run(capsys, door, "state", "T1", "--credential", "p2.tok")
    assert out[0] == (
        "== table t1: Seven Card Stud, fixed limit 100/200, ante 25, bring-in 50, hand h1"
    )
    assert out[1].startswith("   third street   pot ") and out[1].endswith("your turn")
    assert " * 2 P2" in "\n".join(out) and "[As Ad] 7c" in out[3]
    assert "?? ?? Kd" in out[2]  # the other seat's down cards are not shown
    assert out[-1] == "you may: [f]old  [k] check  [r N] bet to 100   (poker play T1 to act)"
    assert door.room.bearers[-1] == ("GetState", "p2.tok")
    out, _ = run(capsys, door, "state", "T1", "--credential", "p-1.tok-1")
    assert out[-1] == "   you have no seat at T1: this is what a spectator sees"


def test_watch_through_the_door(door: Door, capsys: pytest.CaptureFixture[str]) -> None:
    out, _ = run(capsys, door, "watch", "T1", "--hands", "1", "--credential", "p-1.-tok-1")
    text = "\n".join(out)
    assert "P1 [1] is dealt up Kd" in text and text.count("== hand") == 2  # started + over
    assert ("Watch", "p-1.-tok-1") in door.room.bearers


def test_bot_command(door: Door, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bot", "T1", "--kind", "station", "--hands", "1"]
    out, _ = run(capsys, door, *argv, "--player", "p2", "--token", "tok")
    assert "CallingStation(): 1 hands, 1 actions, 0 rejected" in out[-1]
    assert "stack 1,100" in out[-1]
    join, act = door.room.messages
    assert join.join.delivery == t.DELIVERY_ON_TURN and join.join.table_id == "T1"
    assert act.action.action_seq == 4 and act.action.action.kind == c.ACTION_KIND_CHECK
    assert ("Play", "p2.tok") in door.room.bearers


def test_play_command_reads_the_terminal(
    door: Door, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    typed = iter(["r 5000", "r"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(typed))
    monkeypatch.setenv("POKER_CREDENTIAL", "p2.tok")
    out, _ = run(capsys, door, "play", "T1", "--hands", "1")
    text = "\n".join(out)
    assert "your cards: As Ad" in text
    assert "you may: [f]old  [k] check  [r N] bet to 100" in text
    assert "amount must be one of [100], got 5000" in text  # asked again
    room = door.room
    assert room.messages[0].join.delivery == t.DELIVERY_EVERY_EVENT
    assert room.messages[1].action.action == c.Action(kind=c.ACTION_KIND_BET, amount=100)
    assert out[-1] == "played 1 hand; stack 1,100"
    assert [m for m, _ in room.bearers] == ["GetTable", "Play"]
    assert {b for _, b in room.bearers} == {"p2.tok"}
