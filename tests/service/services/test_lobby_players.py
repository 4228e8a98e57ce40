# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __B1)
"""The lobby service over real gRPC: players and tokens, tables, and the money of
sitting down and standing up (S2).

The ledger's invariant after every step and the two stores: ``lobby_support.py``.
"""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient

from . import lobby_support as support

# ---------------------------------------------------------------- players and tokens


def test_register_grants_the_default_balance_and_a_secret_token(lobby: LobbyClient) -> None:
    before = support.assert_invariant(lobby)
    alice = support.Player(lobby, "alice")
    bob = support.Player(lobby, "bob", 5_000)
    assert alice.token != bob.token and len(alice.token) >= 40
    got = alice.get()
    assert (got.player_id, got.name, got.balance, got.at_tables) == (alice.id, "alice", 100_000, 0)
    assert bob.get().balance == 5_000
    after = support.assert_invariant(lobby)
    assert after.granted - before.granted == 105_000


def test_a_name_is_kept_without_the_spaces_around_it(lobby: LobbyClient) -> None:
    """ " bob " sits as "bob": a name padded with spaces would pass for another
    player's at the table."""
    padded = support.Player(lobby, "  bob \t")
    assert padded.get().name == "bob"
    assert support.create(lobby, support.STUD, name="  stud  ").name == "stud"


def test_wrong_token_is_permission_denied_and_unknown_player_not_found(lobby: LobbyClient) -> None:
    alice = support.Player(lobby, "alice")
    table = support.create(lobby)
    wrong = pb.GetPlayerRequest(player_id=alice.id, token=alice.token + "x")
    assert support.code_of(lambda: lobby.GetPlayer(wrong)) == grpc.StatusCode.PERMISSION_DENIED
    unknown = pb.GetPlayerRequest(player_id="p-nobody", token=alice.token)
    assert support.code_of(lambda: lobby.GetPlayer(unknown)) == grpc.StatusCode.NOT_FOUND
    empty = pb.GetPlayerRequest(player_id=alice.id)
    assert support.code_of(lambda: lobby.GetPlayer(empty)) == support.INVALID
    sit = pb.SitDownRequest(player_id=alice.id, token="guess", table_id=table.table_id, buy_in=1000)
    assert support.code_of(lambda: lobby.SitDown(sit)) == grpc.StatusCode.PERMISSION_DENIED
    assert not support.table_of(lobby, table.table_id).occupied
    assert alice.get().balance == 100_000
    auth = pb.AuthenticateRequest(player_id=alice.id, token="guess")
    assert support.code_of(lambda: lobby.Authenticate(auth)) == grpc.StatusCode.PERMISSION_DENIED


def test_authenticate_returns_the_seat_at_a_table(lobby: LobbyClient) -> None:
    alice = support.Player(lobby, "alice")
    table = support.create(lobby)
    request = pb.AuthenticateRequest(player_id=alice.id, token=alice.token)
    assert lobby.Authenticate(request).seat == 0  # no table asked
    request.table_id = table.table_id
    assert lobby.Authenticate(request).seat == 0  # not seated
    alice.sit(table.table_id, 2000, seat=4)
    reply = lobby.Authenticate(request)
    assert (reply.seat, reply.player.balance, reply.player.at_tables) == (4, 98_000, 2000)
    request.table_id = "t-nowhere"
    assert support.code_of(lambda: lobby.Authenticate(request)) == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize(
    ("name", "balance"),
    [("", 0), ("   ", 0), ("x" * 33, 0), ("bad\nname", 0), ("ok", -1), ("ok", 10**15)],
)
def test_register_refuses_bad_names_and_amounts(
    lobby: LobbyClient, name: str, balance: int
) -> None:
    before = support.assert_invariant(lobby)
    request = pb.RegisterPlayerRequest(name=name, initial_balance=balance)
    assert support.code_of(lambda: lobby.RegisterPlayer(request)) == support.INVALID
    assert support.assert_invariant(lobby) == before  # nothing granted, no ledger entry


# ---------------------------------------------------------------- tables


def test_create_table_defaults_and_list_by_game(lobby: LobbyClient) -> None:
    stud = support.create(
        lobby, support.STUD, name="stud 1/2", seats=7, min_buy_in=2000, max_buy_in=10_000
    )
    assert (stud.seats, stud.min_buy_in, stud.max_buy_in) == (7, 2000, 10_000)
    assert stud.action_clock_ms == 10_000 and stud.config == support.STUD  # S10 default
    assert stud.table_id.startswith("t-") and not stud.occupied and stud.hands_played == 0
    draw = support.create(lobby, support.DRAW, name="draw", action_clock_ms=50)
    assert draw.action_clock_ms == 50
    everything = lobby.ListTables(pb.ListTablesRequest()).tables
    assert {stud.table_id, draw.table_id} <= {t.table_id for t in everything}
    draws = lobby.ListTables(pb.ListTablesRequest(game=common.GAME_DRAW_7A)).tables
    assert draw.table_id in {t.table_id for t in draws}
    assert all(t.config.game == common.GAME_DRAW_7A for t in draws)
    bad = pb.ListTablesRequest(game=99)  # type: ignore[arg-type]
    assert support.code_of(lambda: lobby.ListTables(bad)) == support.INVALID
    gone = pb.GetTableRequest(table_id="t-missing")
    assert support.code_of(lambda: lobby.GetTable(gone)) == grpc.StatusCode.NOT_FOUND


def _stud(**fields: Any) -> common.GameConfig:
    config = common.GameConfig()
    config.CopyFrom(support.STUD)
    for name, value in fields.items():
        setattr(config, name, value)
    return config


@pytest.mark.parametrize(
    ("why", "fields"),
    [
        ("missing config", {"config": None}),
        ("unspecified game", {"config": common.GameConfig(small_bet=100, big_bet=200)}),
        ("unknown game enum", {"config": _stud(game=99)}),
        ("unknown structure enum", {"config": _stud(structure=42)}),
        ("negative ante", {"config": _stud(ante=-25)}),
        ("huge big bet", {"config": _stud(big_bet=10**15)}),
        ("bring-in above the small bet (S5)", {"config": _stud(bring_in=500)}),
        ("pot limit stud (S1)", {"config": _stud(structure=common.STRUCTURE_POT_LIMIT)}),
        (
            "bring-in in draw",
            {
                "config": common.GameConfig(
                    game=common.GAME_DRAW_7A, small_bet=100, big_bet=200, bring_in=50
                )
            },
        ),
        (
            "draw small blind of 0 (D3)",
            {"config": common.GameConfig(game=common.GAME_DRAW_7A, small_bet=1, big_bet=2)},
        ),
        ("nine stud seats (S1)", {"seats": 9}),
        ("one seat", {"seats": 1}),
        ("no seats", {"seats": 0}),
        ("six draw seats (D1)", {"config": support.DRAW, "seats": 6}),
        ("min buy-in 0", {"min_buy_in": 0}),
        ("negative min buy-in", {"min_buy_in": -1000}),
        ("huge min buy-in", {"min_buy_in": 10**15}),
        ("max below min", {"min_buy_in": 1000, "max_buy_in": 999}),
        ("negative max", {"max_buy_in": -1}),
        ("clock too short", {"action_clock_ms": 10}),
        ("clock too long", {"action_clock_ms": 10**7}),
        ("negative clock", {"action_clock_ms": -1}),
        ("oversized name", {"name": "t" * 65}),
        ("empty name", {"name": ""}),
    ],
)
def test_create_table_refuses_bad_definitions(
    lobby: LobbyClient, why: str, fields: dict[str, Any]
) -> None:
    before = len(lobby.ListTables(pb.ListTablesRequest()).tables)
    fields = {"name": "t", "config": support.STUD, "seats": 8, "min_buy_in": 1000, **fields}
    if fields["config"] is None:
        del fields["config"]
    request = pb.CreateTableRequest(**fields)
    assert support.code_of(lambda: lobby.CreateTable(request)) == support.INVALID, why
    assert len(lobby.ListTables(pb.ListTablesRequest()).tables) == before


# ---------------------------------------------------------------- seats and money (S2)


def test_sit_down_and_stand_up_move_money__S2(lobby: LobbyClient) -> None:
    table = support.create(lobby, support.STUD, seats=3, min_buy_in=1000, max_buy_in=5000)
    tid = table.table_id
    alice, bob, carol, dave = (support.Player(lobby, n) for n in ("alice", "bob", "carol", "dave"))
    poor = support.Player(lobby, "poor", 1500)

    def refused(player: support.Player, buy_in: int, seat: int = 0) -> grpc.StatusCode:
        request = pb.SitDownRequest(
            player_id=player.id, token=player.token, table_id=tid, seat=seat, buy_in=buy_in
        )
        code = support.code_of(lambda: lobby.SitDown(request))
        support.assert_invariant(lobby)
        return code

    assert refused(alice, 999) == support.INVALID  # S2: less than the minimum is refused
    assert refused(alice, 5001) == support.INVALID  # above the maximum
    assert refused(alice, -5) == support.INVALID
    assert refused(alice, 1000, seat=4) == support.INVALID  # no such seat
    assert refused(poor, 2000) == support.FAILED  # balance short
    assert alice.get().balance == 100_000 and not support.table_of(lobby, tid).occupied

    reply = alice.sit(tid, 1000, seat=2)
    assert (reply.seat, reply.stack, reply.balance) == (2, 1000, 99_000)
    assert refused(alice, 1000) == support.FAILED  # already seated at this table
    assert refused(bob, 1000, seat=2) == support.FAILED  # taken
    assert bob.sit(tid, 5000).seat == 1  # seat 0: the lowest free seat
    assert carol.sit(tid, 1500).seat == 3
    assert refused(dave, 1000) == support.FAILED  # full
    seated = support.table_of(lobby, tid).occupied
    assert [(s.seat, s.name, s.stack, s.sitting_out) for s in seated] == [
        (1, "bob", 5000, False),
        (2, "alice", 1000, False),
        (3, "carol", 1500, False),
    ]
    assert (alice.get().balance, alice.get().at_tables) == (99_000, 1000)

    up = bob.stand(tid)
    assert (up.returned, up.balance, up.pending) == (5000, 100_000, False)
    assert bob.get().at_tables == 0 and 1 not in support.stacks(lobby, tid)
    not_seated = pb.StandUpRequest(player_id=bob.id, token=bob.token, table_id=tid)
    assert support.code_of(lambda: lobby.StandUp(not_seated)) == support.FAILED
    assert dave.sit(tid, 1000).seat == 1  # the freed seat
