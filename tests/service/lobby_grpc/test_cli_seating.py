# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""The ``poker`` command's seating commands against a real lobby process: ``sit
--entry`` (B2), ``sit-out`` / ``sit-in [--wait]`` (B3, B4), ``auto-post`` and
``im-in`` (S3); each prints the seat and its markers."""

from __future__ import annotations

import pytest

from devroom.launcher import ServiceProcess
from poker.lobby.v1 import lobby_pb2 as pb
from poker_cli.__main__ import main
from tests.support.lobby import LobbyClient

from .client import DRAW, STUD, Player, create_table, seat_info


def run(capsys: pytest.CaptureFixture[str], target: list[str], player: Player, *argv: str) -> str:
    code = main([*argv, *target, "--player", player.id, "--token", player.token])
    out = capsys.readouterr().out
    assert code == 0, out
    return out


@pytest.fixture
def target(lobby_process: ServiceProcess) -> list[str]:
    """The lobby's public port, as a player reaches it: TLS trusting the room's CA."""
    assert lobby_process.pki is not None
    return ["--lobby", lobby_process.public_target, "--ca", str(lobby_process.pki.ca_file)]


def test_B2_B3_sit_with_an_entry_then_sit_out_and_back(
    lobby: LobbyClient, target: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    tid = create_table(lobby, DRAW).table_id
    alice = Player(lobby, "alice")
    out = run(capsys, target, alice, "sit", tid, "--buy-in", "1000", "--entry", "wait-bb")
    assert "seat 1" in out
    assert seat_info(lobby, tid, 1).return_choice == pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND
    alice.table_id = tid
    assert "sitting out" in run(capsys, target, alice, "sit-out", tid)
    back = run(capsys, target, alice, "sit-in", tid, "--wait")
    assert "sitting out" not in back and "waits for the big blind" in back
    assert not seat_info(lobby, tid, 1).away


def test_S3_auto_post_off_and_im_in(
    lobby: LobbyClient, target: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    tid = create_table(lobby, STUD, seats=4).table_id
    bob = Player(lobby, "bob")
    bob.sit(tid, 2)
    assert "auto-post off" in run(capsys, target, bob, "auto-post", tid, "off")
    assert "in next hand" in run(capsys, target, bob, "im-in", tid)
    assert seat_info(lobby, tid, 2).im_in
