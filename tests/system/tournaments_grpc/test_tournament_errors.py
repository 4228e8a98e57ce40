"""Every Tournaments RPC refuses bad input with the right status and a message that
says what was wrong and what is allowed, and a refusal changes nothing: the
tournament, the balances and the ledger are as before (checked after each one)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import tournament_pb2 as tpb
from tests.support.lobby import ledger, refused
from tests.support.tournaments import Driver, Lobby, Player, players, request, started


def _state(lobby: Lobby, tid: str, field: list[Player]) -> tuple[Any, ...]:
    t = lobby.tournaments.GetTournament(tpb.GetTournamentRequest(tournament_id=tid))
    t.ClearField("stakes")
    balances = tuple(
        lobby.lobby.GetPlayer(pb.GetPlayerRequest(player_id=p.player_id, token=p.token)).balance
        for p in field
    )
    totals = ledger(lobby.lobby)
    return t.SerializeToString(deterministic=True), balances, totals.SerializeToString()


def _refuses(
    lobby: Lobby,
    tid: str,
    field: list[Player],
    call: Callable[[], Any],
    code: grpc.StatusCode,
    *words: str,
) -> None:
    before = _state(lobby, tid, field)
    got, message = refused(call)
    assert got == code, (got, message)
    for word in words:
        assert word in message, message
    assert _state(lobby, tid, field) == before, "a refused call changed something"


def test_register_twice_is_failed_precondition(lobby: Lobby) -> None:
    field = players(lobby, 2)
    tid = lobby.tournaments.CreateTournament(request()).tournament_id
    lobby.tournaments.Register(field[0].entry(tid))
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.tournaments.Register(field[0].entry(tid)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "already registered",
    )


def test_register_after_late_registration_closed(lobby: Lobby) -> None:
    field = players(lobby, 3)
    tid = started(lobby, request(), field[:2])  # no late registration
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.tournaments.Register(field[2].entry(tid)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "registration closed",
    )


def test_buy_in_above_the_balance(lobby: Lobby) -> None:
    field = players(lobby, 1, balance=109)
    tid = lobby.tournaments.CreateTournament(request()).tournament_id
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.tournaments.Register(field[0].entry(tid)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "balance 109 is short",
        "110",
    )


def test_unknown_ids_are_not_found(lobby: Lobby) -> None:
    field = players(lobby, 1)
    tid = lobby.tournaments.CreateTournament(request()).tournament_id
    ghost = tpb.RegisterEntryRequest(tournament_id="tn-nope", player_id=field[0].player_id)
    ghost.token = field[0].token
    for call in (
        lambda: lobby.tournaments.Register(ghost),
        lambda: lobby.tournaments.GetTournament(tpb.GetTournamentRequest(tournament_id="tn-x")),
        lambda: lobby.tournaments.Start(tpb.StartTournamentRequest(tournament_id="tn-x")),
        lambda: lobby.tournaments.GetStandings(tpb.GetStandingsRequest(tournament_id="tn-x")),
        lambda: list(
            lobby.tournaments.WatchTournament(tpb.WatchTournamentRequest(tournament_id="tn-x"))
        ),
        lambda: lobby.tournaments.Register(
            tpb.RegisterEntryRequest(tournament_id=tid, player_id="p-nobody", token="x")
        ),
    ):
        _refuses(lobby, tid, field, call, grpc.StatusCode.NOT_FOUND, "no ")


def test_another_players_token_is_permission_denied(lobby: Lobby) -> None:
    field = players(lobby, 2)
    tid = lobby.tournaments.CreateTournament(request()).tournament_id
    lobby.tournaments.Register(field[1].entry(tid))
    stolen = tpb.RegisterEntryRequest(
        tournament_id=tid, player_id=field[0].player_id, token=field[1].token
    )
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.tournaments.Register(stolen),
        grpc.StatusCode.PERMISSION_DENIED,
        "wrong token",
    )
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.tournaments.Unregister(
            tpb.UnregisterEntryRequest(
                tournament_id=tid, player_id=field[1].player_id, token=field[0].token
            )
        ),
        grpc.StatusCode.PERMISSION_DENIED,
        "wrong token",
    )
    mine, theirs = field[1].player_id, field[0].token
    for call in (
        lambda: lobby.tournaments.SetAway(
            tpb.SetAwayRequest(tournament_id=tid, player_id=mine, token=theirs, away=True)
        ),
        lambda: lobby.tournaments.GetMySeat(
            tpb.GetMySeatRequest(tournament_id=tid, player_id=mine, token=theirs)
        ),
        lambda: lobby.tournaments.ReEnter(
            tpb.RegisterEntryRequest(tournament_id=tid, player_id=mine, token=theirs)
        ),
    ):
        _refuses(lobby, tid, field, call, grpc.StatusCode.PERMISSION_DENIED, "wrong token")


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"name": ""}, ("name is required",)),
        ({"seats_per_table": 9}, ("seats_per_table", "2..8")),
        ({"schedule": []}, ("schedule is required",)),
        ({"starting_stack": 0}, ("starting_stack", "1..")),
        ({"buy_in": -5}, ("buy_in",)),
        ({"late_registration_level": 9}, ("late registration", "0..5")),
        ({"max_entries": 2}, ("re-entry needs late registration",)),
        (
            {
                "config": common.GameConfig(
                    game=common.GAME_STUD, structure=common.Structure.ValueType(3)
                )
            },
            ("fixed limit",),
        ),
        ({"action_clock_ms": 5}, ("action_clock_ms", "50..")),
        (
            {
                "config": common.GameConfig(
                    game=common.GAME_STUD_HILO,
                    timeout_policy=common.TIMEOUT_POLICY_CHECK_OR_FOLD,
                )
            },
            ("T6", "ALL_IN_PROTECTION"),
        ),
        (
            {"schedule": [tpb.TournamentLevel(small_blind=5, big_blind=10, duration=3)]},
            ("stud levels have ante, bring_in",),
        ),
        (
            {"schedule": [tpb.TournamentLevel(ante=1, bring_in=30, small_bet=20, duration=3)]},
            ("bring_in <= small_bet",),
        ),
        (
            {"payouts": [tpb.PayoutTier(min_entries=1, shares=[6_000])]},
            ("basis points sum to 6000, must be 10000",),
        ),
    ],
)
def test_malformed_create_is_invalid_argument(
    lobby: Lobby, fields: dict[str, Any], words: tuple[str, ...]
) -> None:
    before = lobby.tournaments.ListTournaments(tpb.ListTournamentsRequest())
    code, message = refused(lambda: lobby.tournaments.CreateTournament(request(**fields)))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, message
    for word in words:
        assert word in message, message
    assert lobby.tournaments.ListTournaments(tpb.ListTournamentsRequest()) == before


def test_malformed_requests_are_invalid_argument(lobby: Lobby) -> None:
    field = players(lobby, 1)
    tid = lobby.tournaments.CreateTournament(request()).tournament_id
    no_token = tpb.RegisterEntryRequest(tournament_id=tid, player_id=field[0].player_id)
    for call, word in (
        (lambda: lobby.tournaments.Register(no_token), "token is required"),
        (
            lambda: lobby.tournaments.GetTournament(tpb.GetTournamentRequest()),
            "tournament_id is required",
        ),
        (
            lambda: list(
                lobby.tournaments.WatchTournament(
                    tpb.WatchTournamentRequest(tournament_id=tid, from_seq=-1)
                )
            ),
            "from_seq must be 0 or more",
        ),
    ):
        _refuses(lobby, tid, field, call, grpc.StatusCode.INVALID_ARGUMENT, word)


def test_wrong_state_is_failed_precondition(lobby: Lobby) -> None:
    field = players(lobby, 3)
    tid = lobby.tournaments.CreateTournament(request()).tournament_id
    lobby.tournaments.Register(field[0].entry(tid))
    start = tpb.StartTournamentRequest(tournament_id=tid)
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.tournaments.Start(start),
        grpc.StatusCode.FAILED_PRECONDITION,
        "at least 2 entries",
    )
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.tournaments.ReEnter(field[0].entry(tid)),
        grpc.StatusCode.FAILED_PRECONDITION,
        "re-entry is after busting",
    )
    lobby.tournaments.Register(field[1].entry(tid))
    lobby.tournaments.Start(start)
    for call, word in (
        (lambda: lobby.tournaments.Start(start), "already started"),
        (
            lambda: lobby.tournaments.Unregister(
                tpb.UnregisterEntryRequest(
                    tournament_id=tid, player_id=field[0].player_id, token=field[0].token
                )
            ),
            "only possible before the start",
        ),
        (
            lambda: lobby.tournaments.GetMySeat(
                tpb.GetMySeatRequest(
                    tournament_id=tid, player_id=field[2].player_id, token=field[2].token
                )
            ),
            "not registered",
        ),
    ):
        _refuses(lobby, tid, field, call, grpc.StatusCode.FAILED_PRECONDITION, word)
    # A FinishHand for a hand that is not in progress at a tournament table.
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    _refuses(
        lobby,
        tid,
        field,
        lambda: lobby.lobby.FinishHand(
            pb.FinishHandRequest(table_id=table.table_id, hand_id="h-x")
        ),
        grpc.StatusCode.FAILED_PRECONDITION,
        "not the hand in progress",
    )


def test_set_away_says_why_it_is_refused(lobby: Lobby) -> None:
    """Out, or the tournament over: each refusal says which (an outside probe saw the
    winner of a finished tournament told they "have no chips" while GetMySeat
    showed their 8,000)."""
    field = players(lobby, 3)
    tid = started(lobby, request(), field[:2])
    in_play, outsider = field[:2], field[2]

    def away(player: Player) -> Callable[[], Any]:
        return lambda: lobby.tournaments.SetAway(
            tpb.SetAwayRequest(
                tournament_id=tid, player_id=player.player_id, token=player.token, away=True
            )
        )

    _refuses(
        lobby,
        tid,
        field,
        away(outsider),
        grpc.StatusCode.FAILED_PRECONDITION,
        "has no chips in this tournament",
        "only a player still in",
    )
    d = Driver(lobby, tid)
    (table,) = d.open_tables()
    winner, loser = (p.player_id for p in in_play)
    d.bust(table.table_id, [loser], winner)
    assert d.tournament().status == tpb.TOURNAMENT_STATUS_FINISHED
    _refuses(
        lobby,
        tid,
        field,
        away(in_play[0]),
        grpc.StatusCode.FAILED_PRECONDITION,
        f"tournament {tid} is over",
    )
