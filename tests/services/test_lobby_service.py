# ruff: noqa: N802  (test names end with the RULES.md rule ID, e.g. __B1)
"""The lobby service over real gRPC: players, tokens, tables, seats, hand plans.

After every step that moves money the ledger's invariant is checked through
GetLedgerTotals: ``granted == balances + at_tables``, and the ledger's own sums
agree with the balances and the stacks.  Seating rules (B1-B6) are the library's;
these tests check that the lobby asks it and reports its answers faithfully.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1.lobby_pb2_grpc import LobbyStub
from tests.postgres import PostgresServer

from .process import ServiceProcess
from .test_service_plumbing import reflected_services, scrape

STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)  # blinds 50/100
INVALID = grpc.StatusCode.INVALID_ARGUMENT
FAILED = grpc.StatusCode.FAILED_PRECONDITION


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def lobby_db(request: pytest.FixtureRequest) -> str:
    """Every test here runs on both stores: SQLite in memory (the default) and a
    fresh PostgreSQL database (``LOBBY_DB=postgresql://...``)."""
    if request.param == "sqlite":
        return ":memory:"
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.database()


@pytest.fixture(scope="module")
def lobby_process(lobby_db: str) -> Iterator[ServiceProcess]:
    env = {"LOBBY_DEFAULT_BALANCE": "100000", "LOBBY_DB": lobby_db}
    with ServiceProcess("lobby", env) as process:
        yield process


@pytest.fixture
def lobby(lobby_process: ServiceProcess) -> Iterator[LobbyStub]:
    with grpc.insecure_channel(lobby_process.target) as channel:
        stub = LobbyStub(channel)
        yield stub
        assert_invariant(stub)


def code_of(call: Callable[[], Any]) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert isinstance(error, grpc.Call)
    assert error.details(), "every refusal says why"
    return error.code()


def assert_invariant(lobby: LobbyStub) -> pb.LedgerTotals:
    t = lobby.GetLedgerTotals(pb.GetLedgerTotalsRequest(), timeout=5)
    assert t.granted == t.balances + t.at_tables, t
    assert (t.ledger_balances, t.ledger_tables) == (t.balances, t.at_tables), t
    return t


class Player:
    """A registered player: id and token, and calls made on their behalf."""

    def __init__(self, lobby: LobbyStub, name: str, balance: int = 0) -> None:
        reply = lobby.RegisterPlayer(
            pb.RegisterPlayerRequest(name=name, initial_balance=balance), timeout=5
        )
        self.lobby, self.id, self.token = lobby, reply.player.player_id, reply.token
        self.name = name

    def get(self) -> pb.Player:
        return self.lobby.GetPlayer(pb.GetPlayerRequest(player_id=self.id, token=self.token))

    def sit(
        self, table_id: str, buy_in: int, seat: int = 0, wait: bool = False
    ) -> pb.SitDownResponse:
        reply: pb.SitDownResponse = self.lobby.SitDown(
            pb.SitDownRequest(
                player_id=self.id,
                token=self.token,
                table_id=table_id,
                seat=seat,
                buy_in=buy_in,
                wait_for_big_blind=wait,
            ),
            timeout=5,
        )
        assert_invariant(self.lobby)
        return reply

    def stand(self, table_id: str) -> pb.StandUpResponse:
        reply: pb.StandUpResponse = self.lobby.StandUp(
            pb.StandUpRequest(player_id=self.id, token=self.token, table_id=table_id), timeout=5
        )
        assert_invariant(self.lobby)
        return reply


def create(lobby: LobbyStub, config: common.GameConfig = STUD, **fields: Any) -> pb.Table:
    request = pb.CreateTableRequest(
        name=fields.pop("name", "table"),
        config=config,
        seats=fields.pop("seats", 8 if config.game != common.GAME_DRAW_7A else 5),
        min_buy_in=fields.pop("min_buy_in", 1000),
        **fields,
    )
    table: pb.Table = lobby.CreateTable(request, timeout=5)
    return table


def table_of(lobby: LobbyStub, table_id: str) -> pb.Table:
    table: pb.Table = lobby.GetTable(pb.GetTableRequest(table_id=table_id), timeout=5)
    return table


def stacks(lobby: LobbyStub, table_id: str) -> dict[int, int]:
    return {s.seat: s.stack for s in table_of(lobby, table_id).occupied}


def next_hand(lobby: LobbyStub, table_id: str) -> pb.NextHandResponse:
    reply: pb.NextHandResponse = lobby.NextHand(pb.NextHandRequest(table_id=table_id), timeout=5)
    return reply


def finish(
    lobby: LobbyStub, table_id: str, hand: pb.NextHandResponse, final: dict[int, int] | None = None
) -> pb.FinishHandResponse:
    """Finish with ``final`` stacks by seat (default: unchanged)."""
    final = final or {s.seat: s.stack for s in hand.dealt_in}
    reply: pb.FinishHandResponse = lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=hand.hand_id,
            final_stacks=[pb.SeatInfo(seat=s, stack=c) for s, c in final.items()],
        ),
        timeout=5,
    )
    assert_invariant(lobby)
    return reply


def moved(hand: pb.NextHandResponse, winner: int, loser: int, chips: int) -> dict[int, int]:
    """The hand's starting stacks with ``chips`` moved from seat loser to seat winner."""
    final = {s.seat: s.stack for s in hand.dealt_in}
    final[winner] += chips
    final[loser] -= chips
    return final


def posts(hand: pb.NextHandResponse) -> list[tuple[int, int, bool]]:
    return [(p.seat, p.amount, p.live) for p in hand.posts]


# ---------------------------------------------------------------- players and tokens


def test_register_grants_the_default_balance_and_a_secret_token(lobby: LobbyStub) -> None:
    before = assert_invariant(lobby)
    alice = Player(lobby, "alice")
    bob = Player(lobby, "bob", 5_000)
    assert alice.token != bob.token and len(alice.token) >= 40
    got = alice.get()
    assert (got.player_id, got.name, got.balance, got.at_tables) == (alice.id, "alice", 100_000, 0)
    assert bob.get().balance == 5_000
    after = assert_invariant(lobby)
    assert after.granted - before.granted == 105_000


def test_wrong_token_is_permission_denied_and_unknown_player_not_found(lobby: LobbyStub) -> None:
    alice = Player(lobby, "alice")
    table = create(lobby)
    wrong = pb.GetPlayerRequest(player_id=alice.id, token=alice.token + "x")
    assert code_of(lambda: lobby.GetPlayer(wrong)) == grpc.StatusCode.PERMISSION_DENIED
    unknown = pb.GetPlayerRequest(player_id="p-nobody", token=alice.token)
    assert code_of(lambda: lobby.GetPlayer(unknown)) == grpc.StatusCode.NOT_FOUND
    empty = pb.GetPlayerRequest(player_id=alice.id)
    assert code_of(lambda: lobby.GetPlayer(empty)) == INVALID
    sit = pb.SitDownRequest(player_id=alice.id, token="guess", table_id=table.table_id, buy_in=1000)
    assert code_of(lambda: lobby.SitDown(sit)) == grpc.StatusCode.PERMISSION_DENIED
    assert not table_of(lobby, table.table_id).occupied
    assert alice.get().balance == 100_000
    auth = pb.AuthenticateRequest(player_id=alice.id, token="guess")
    assert code_of(lambda: lobby.Authenticate(auth)) == grpc.StatusCode.PERMISSION_DENIED


def test_authenticate_returns_the_seat_at_a_table(lobby: LobbyStub) -> None:
    alice = Player(lobby, "alice")
    table = create(lobby)
    request = pb.AuthenticateRequest(player_id=alice.id, token=alice.token)
    assert lobby.Authenticate(request).seat == 0  # no table asked
    request.table_id = table.table_id
    assert lobby.Authenticate(request).seat == 0  # not seated
    alice.sit(table.table_id, 2000, seat=4)
    reply = lobby.Authenticate(request)
    assert (reply.seat, reply.player.balance, reply.player.at_tables) == (4, 98_000, 2000)
    request.table_id = "t-nowhere"
    assert code_of(lambda: lobby.Authenticate(request)) == grpc.StatusCode.NOT_FOUND


@pytest.mark.parametrize(
    ("name", "balance"),
    [("", 0), ("   ", 0), ("x" * 33, 0), ("bad\nname", 0), ("ok", -1), ("ok", 10**15)],
)
def test_register_refuses_bad_names_and_amounts(lobby: LobbyStub, name: str, balance: int) -> None:
    before = assert_invariant(lobby)
    request = pb.RegisterPlayerRequest(name=name, initial_balance=balance)
    assert code_of(lambda: lobby.RegisterPlayer(request)) == INVALID
    assert assert_invariant(lobby) == before  # nothing granted, no ledger entry


# ---------------------------------------------------------------- tables


def test_create_table_defaults_and_list_by_game(lobby: LobbyStub) -> None:
    stud = create(lobby, STUD, name="stud 1/2", seats=7, min_buy_in=2000, max_buy_in=10_000)
    assert (stud.seats, stud.min_buy_in, stud.max_buy_in) == (7, 2000, 10_000)
    assert stud.action_clock_ms == 10_000 and stud.config == STUD  # S10 default
    assert stud.table_id.startswith("t-") and not stud.occupied and stud.hands_played == 0
    draw = create(lobby, DRAW, name="draw", action_clock_ms=50)
    assert draw.action_clock_ms == 50
    everything = lobby.ListTables(pb.ListTablesRequest()).tables
    assert {stud.table_id, draw.table_id} <= {t.table_id for t in everything}
    draws = lobby.ListTables(pb.ListTablesRequest(game=common.GAME_DRAW_7A)).tables
    assert draw.table_id in {t.table_id for t in draws}
    assert all(t.config.game == common.GAME_DRAW_7A for t in draws)
    bad = pb.ListTablesRequest(game=99)  # type: ignore[arg-type]
    assert code_of(lambda: lobby.ListTables(bad)) == INVALID
    gone = pb.GetTableRequest(table_id="t-missing")
    assert code_of(lambda: lobby.GetTable(gone)) == grpc.StatusCode.NOT_FOUND


def _stud(**fields: Any) -> common.GameConfig:
    config = common.GameConfig()
    config.CopyFrom(STUD)
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
        ("six draw seats (D1)", {"config": DRAW, "seats": 6}),
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
    lobby: LobbyStub, why: str, fields: dict[str, Any]
) -> None:
    before = len(lobby.ListTables(pb.ListTablesRequest()).tables)
    fields = {"name": "t", "config": STUD, "seats": 8, "min_buy_in": 1000, **fields}
    if fields["config"] is None:
        del fields["config"]
    request = pb.CreateTableRequest(**fields)
    assert code_of(lambda: lobby.CreateTable(request)) == INVALID, why
    assert len(lobby.ListTables(pb.ListTablesRequest()).tables) == before


# ---------------------------------------------------------------- seats and money (S2)


def test_sit_down_and_stand_up_move_money__S2(lobby: LobbyStub) -> None:
    table = create(lobby, STUD, seats=3, min_buy_in=1000, max_buy_in=5000)
    tid = table.table_id
    alice, bob, carol, dave = (Player(lobby, n) for n in ("alice", "bob", "carol", "dave"))
    poor = Player(lobby, "poor", 1500)

    def refused(player: Player, buy_in: int, seat: int = 0) -> grpc.StatusCode:
        request = pb.SitDownRequest(
            player_id=player.id, token=player.token, table_id=tid, seat=seat, buy_in=buy_in
        )
        code = code_of(lambda: lobby.SitDown(request))
        assert_invariant(lobby)
        return code

    assert refused(alice, 999) == INVALID  # S2: less than the minimum is refused
    assert refused(alice, 5001) == INVALID  # above the maximum
    assert refused(alice, -5) == INVALID
    assert refused(alice, 1000, seat=4) == INVALID  # no such seat
    assert refused(poor, 2000) == FAILED  # balance short
    assert alice.get().balance == 100_000 and not table_of(lobby, tid).occupied

    reply = alice.sit(tid, 1000, seat=2)
    assert (reply.seat, reply.stack, reply.balance) == (2, 1000, 99_000)
    assert refused(alice, 1000) == FAILED  # already seated at this table
    assert refused(bob, 1000, seat=2) == FAILED  # taken
    assert bob.sit(tid, 5000).seat == 1  # seat 0: the lowest free seat
    assert carol.sit(tid, 1500).seat == 3
    assert refused(dave, 1000) == FAILED  # full
    seated = table_of(lobby, tid).occupied
    assert [(s.seat, s.name, s.stack, s.sitting_out) for s in seated] == [
        (1, "bob", 5000, False),
        (2, "alice", 1000, False),
        (3, "carol", 1500, False),
    ]
    assert (alice.get().balance, alice.get().at_tables) == (99_000, 1000)

    up = bob.stand(tid)
    assert (up.returned, up.balance, up.pending) == (5000, 100_000, False)
    assert bob.get().at_tables == 0 and 1 not in stacks(lobby, tid)
    not_seated = pb.StandUpRequest(player_id=bob.id, token=bob.token, table_id=tid)
    assert code_of(lambda: lobby.StandUp(not_seated)) == FAILED
    assert dave.sit(tid, 1000).seat == 1  # the freed seat


# ---------------------------------------------------------------- hands: stud (S3, B6)


def test_stud_hand_plan_and_result__S3_B6(lobby: LobbyStub, lobby_process: ServiceProcess) -> None:
    table = create(lobby, STUD)
    tid = table.table_id
    alice, bob, carol = Player(lobby, "alice"), Player(lobby, "bob"), Player(lobby, "carol")
    alice.sit(tid, 2000, seat=5)
    assert not next_hand(lobby, tid).play  # one player: no hand
    bob.sit(tid, 3000, seat=2)
    carol.sit(tid, 4000, seat=7)

    hand = next_hand(lobby, tid)
    assert hand.play and hand.hand_id.startswith("h-")
    # S3/B6: everyone in, from seat 1; no button, no blinds: the engine posts antes.
    assert [(s.seat, s.name, s.stack) for s in hand.dealt_in] == [
        (2, "bob", 3000),
        (5, "alice", 2000),
        (7, "carol", 4000),
    ]
    assert (hand.button_seat, hand.big_blind_seat, hand.small_blind_seat) == (0, 0, 0)
    assert not hand.posts

    reply = finish(lobby, tid, hand, moved(hand, winner=5, loser=7, chips=400))
    assert reply.hands_played == 1
    assert stacks(lobby, tid) == {2: 3000, 5: 2400, 7: 3600}
    assert (alice.get().at_tables, carol.get().at_tables) == (2400, 3600)
    following = next_hand(lobby, tid)
    assert following.hand_id != hand.hand_id
    assert [s.stack for s in following.dealt_in] == [3000, 2400, 3600]
    finish(lobby, tid, following)
    assert table_of(lobby, tid).hands_played == 2

    deadline = time.monotonic() + 5  # logs carry the table and hand ids
    while not any(
        r.get("event") == "hand finished" and r.get("hand_id") == following.hand_id
        for r in lobby_process.records()
    ):
        assert time.monotonic() < deadline, lobby_process.log
        time.sleep(0.02)
    record = next(
        r
        for r in lobby_process.records()
        if r.get("event") == "hand planned" and r.get("hand_id") == hand.hand_id
    )
    assert record["table_id"] == tid


def test_next_hand_is_idempotent_while_the_hand_is_in_progress(lobby: LobbyStub) -> None:
    """The table service may retry NextHand after a timeout: same plan, same hand_id."""
    table = create(lobby, STUD)
    tid = table.table_id
    for name in ("a", "b"):
        Player(lobby, name).sit(tid, 1000)
    hand = next_hand(lobby, tid)
    again = next_hand(lobby, tid)
    assert again == hand
    Player(lobby, "late").sit(tid, 1000)  # sits down during the hand: not in this plan
    assert next_hand(lobby, tid) == hand
    finish(lobby, tid, hand)
    assert len(next_hand(lobby, tid).dealt_in) == 3


def test_finish_hand_can_plan_the_next_hand_in_the_same_call(lobby: LobbyStub) -> None:
    """plan_next: the table service reports a hand and gets the next one in one call;
    a retry of that report gets the same next hand (NextHand is idempotent)."""
    table = create(lobby, STUD)
    tid = table.table_id
    for name in ("a", "b"):
        Player(lobby, name).sit(tid, 1000)
    hand = next_hand(lobby, tid)
    request = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[pb.SeatInfo(seat=s.seat, stack=s.stack) for s in hand.dealt_in],
        plan_next=True,
    )
    reply = lobby.FinishHand(request, timeout=5)
    assert reply.next_hand.play and reply.next_hand.hand_id != hand.hand_id
    assert lobby.FinishHand(request, timeout=5).next_hand == reply.next_hand
    assert next_hand(lobby, tid) == reply.next_hand
    assert_invariant(lobby)


def test_session_batches_answer_like_the_unary_calls__B6(lobby: LobbyStub) -> None:
    """The table service's Session stream: NextHand, FinishHand and VoidPendingHand
    several to a message, answered in order by one message with what the unary
    calls answer; a refused call is its reply's error (the unary call's code and
    message) and changes nothing, and the stream goes on; an empty batch is
    INVALID_ARGUMENT."""
    tid = create(lobby, STUD).table_id
    for name in ("a", "b"):
        Player(lobby, name).sit(tid, 1000)
    before = stacks(lobby, tid)
    plan = pb.NextHandRequest(table_id=tid)
    first = [
        pb.SessionCall(id=1, next_hand=plan),
        pb.SessionCall(id=2, next_hand=plan),  # idempotent: the same plan
        pb.SessionCall(id=3, next_hand=pb.NextHandRequest(table_id="t-missing")),
        pb.SessionCall(id=4),
    ]
    stream = lobby.Session(iter([pb.SessionBatch(calls=first)]), timeout=5)
    (reply,) = list(stream)
    planned, again, unknown, empty = reply.replies
    assert [r.id for r in reply.replies] == [1, 2, 3, 4]
    assert planned.next_hand.play and again.next_hand == planned.next_hand
    assert planned.next_hand == next_hand(lobby, tid)  # what the unary call answers
    assert unknown.error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert "t-missing" in unknown.error.message
    assert empty.error.code == INVALID.value[0] and "call is required" in empty.error.message

    hand = planned.next_hand
    won = moved(hand, winner=hand.dealt_in[0].seat, loser=hand.dealt_in[1].seat, chips=75)
    report = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[pb.SeatInfo(seat=seat, stack=chips) for seat, chips in won.items()],
        plan_next=True,
    )
    created = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[pb.SeatInfo(seat=seat, stack=chips + 1) for seat, chips in won.items()],
    )
    batches = [
        pb.SessionBatch(calls=[pb.SessionCall(id=5, finish_hand=created)]),
        pb.SessionBatch(
            calls=[
                pb.SessionCall(id=6, finish_hand=report),
                pb.SessionCall(id=7, finish_hand=report),  # a repeat: answered OK again
                pb.SessionCall(id=8, void_pending_hand=pb.VoidPendingHandRequest(table_id=tid)),
            ]
        ),
    ]
    refused, finished = list(lobby.Session(iter(batches), timeout=5))
    (chips_created,) = refused.replies
    assert chips_created.error.code == FAILED.value[0], chips_created
    assert "not conserved" in chips_created.error.message
    done, repeated, voided = finished.replies
    assert done.finish_hand.hands_played == 1 and done.finish_hand.next_hand.play
    assert repeated.finish_hand == done.finish_hand
    # The next hand (planned by the report) is the one voided: nothing moved.
    assert voided.void_pending_hand.hand_id == done.finish_hand.next_hand.hand_id
    assert voided.void_pending_hand.hands_played == 1
    assert stacks(lobby, tid) == {seat: won[seat] for seat in before}
    assert_invariant(lobby)
    # The unary call refuses the same report with the same code and message.
    hand_now = next_hand(lobby, tid)
    bad = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand_now.hand_id,
        final_stacks=[pb.SeatInfo(seat=x.seat, stack=x.stack + 1) for x in hand_now.dealt_in],
    )
    (streamed,) = list(
        lobby.Session(iter([pb.SessionBatch(calls=[pb.SessionCall(finish_hand=bad)])]), timeout=5)
    )
    with pytest.raises(grpc.RpcError) as unary:
        lobby.FinishHand(bad, timeout=5)
    assert (unary.value.code().value[0], unary.value.details()) == (
        streamed.replies[0].error.code,
        streamed.replies[0].error.message,
    )

    with pytest.raises(grpc.RpcError) as error:
        list(lobby.Session(iter([pb.SessionBatch()]), timeout=5))
    assert error.value.code() == INVALID


# ---------------------------------------------------------------- hands: draw (B1, B2)


def test_draw_button_and_blinds_move_each_hand__B1(lobby: LobbyStub) -> None:
    table = create(lobby, DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        Player(lobby, name).sit(tid, 1000, seat=seat)

    first = next_hand(lobby, tid)
    # The first hand: button on the first seat, blinds left of it; dealt from seat 2.
    assert [s.seat for s in first.dealt_in] == [2, 3, 1]
    assert (first.button_seat, first.small_blind_seat, first.big_blind_seat) == (1, 2, 3)
    assert posts(first) == [(2, 50, True), (3, 100, True)]
    finish(lobby, tid, first, moved(first, winner=3, loser=2, chips=50))
    assert stacks(lobby, tid) == {1: 1000, 2: 950, 3: 1050}

    second = next_hand(lobby, tid)
    # B1: the big blind moves one player on, the small blind is the last big blind,
    # the button the last small blind.
    assert (second.button_seat, second.small_blind_seat, second.big_blind_seat) == (2, 3, 1)
    assert [s.seat for s in second.dealt_in] == [3, 1, 2]
    assert [s.stack for s in second.dealt_in] == [1050, 1000, 950]
    assert posts(second) == [(3, 50, True), (1, 100, True)]
    finish(lobby, tid, second)

    third = next_hand(lobby, tid)
    assert (third.button_seat, third.small_blind_seat, third.big_blind_seat) == (3, 1, 2)
    finish(lobby, tid, third)


def test_new_player_between_button_and_blinds_waits__B2(lobby: LobbyStub) -> None:
    table = create(lobby, DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        Player(lobby, name).sit(tid, 1000, seat=seat)
    finish(lobby, tid, next_hand(lobby, tid))  # button 1, blinds 2 and 3
    finish(lobby, tid, next_hand(lobby, tid))  # button 2, blinds 3 and 1
    Player(lobby, "eve").sit(tid, 1000, seat=5)
    third = next_hand(lobby, tid)  # button 3, blinds 1 and 2: seat 5 lies between
    assert (third.button_seat, third.big_blind_seat) == (3, 2)
    assert 5 not in [s.seat for s in third.dealt_in]  # B2b: the button must pass
    finish(lobby, tid, third)
    fourth = next_hand(lobby, tid)  # button 1, blinds 2 and 3
    assert [s.seat for s in fourth.dealt_in] == [2, 3, 5, 1]
    # B2c (posting now, the default): a live big blind from seat 5.
    assert posts(fourth) == [(2, 50, True), (3, 100, True), (5, 100, True)]
    finish(lobby, tid, fourth)


def test_new_player_may_wait_for_the_big_blind__B2c(lobby: LobbyStub) -> None:
    table = create(lobby, DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        Player(lobby, name).sit(tid, 1000, seat=seat)
    finish(lobby, tid, next_hand(lobby, tid))  # button 1, blinds 2 and 3
    Player(lobby, "eve").sit(tid, 1000, seat=5, wait=True)
    for _ in range(5):
        hand = next_hand(lobby, tid)
        if 5 in [s.seat for s in hand.dealt_in]:
            break
        finish(lobby, tid, hand)
    # Dealt in only when the big blind reaches seat 5, posting only it.
    assert hand.big_blind_seat == 5
    assert [p for p in posts(hand) if p[0] == 5] == [(5, 100, True)]
    finish(lobby, tid, hand)


# ---------------------------------------------------------------- FinishHand checks


def test_finish_hand_refusals_change_nothing(lobby: LobbyStub) -> None:
    table = create(lobby, DRAW)
    tid = table.table_id
    alice = Player(lobby, "alice")
    alice.sit(tid, 1000, seat=1)
    Player(lobby, "bob").sit(tid, 2000, seat=2)
    Player(lobby, "carol").sit(tid, 3000, seat=4)
    hand = next_hand(lobby, tid)
    before = (assert_invariant(lobby), stacks(lobby, tid), table_of(lobby, tid).hands_played)

    def refused(final: list[pb.SeatInfo], hand_id: str = hand.hand_id) -> grpc.StatusCode:
        request = pb.FinishHandRequest(table_id=tid, hand_id=hand_id, final_stacks=final)
        code = code_of(lambda: lobby.FinishHand(request))
        after = (assert_invariant(lobby), stacks(lobby, tid), table_of(lobby, tid).hands_played)
        assert after == before
        assert next_hand(lobby, tid) == hand  # still the hand in progress
        return code

    s = pb.SeatInfo
    assert refused([s(seat=1, stack=1100), s(seat=2, stack=2000), s(seat=4, stack=3000)]) == FAILED
    assert refused([s(seat=1, stack=900), s(seat=2, stack=2100)]) == FAILED  # seat 4 missing
    assert (
        refused(
            [
                s(seat=1, stack=1000),
                s(seat=2, stack=2000),
                s(seat=4, stack=2000),
                s(seat=3, stack=1000),
            ]
        )
        == FAILED
    )  # seat 3 was not dealt in
    assert refused([s(seat=1, stack=1000), s(seat=1, stack=2000), s(seat=4, stack=3000)]) == INVALID
    assert refused([s(seat=1, stack=-1), s(seat=2, stack=3001), s(seat=4, stack=3000)]) == INVALID
    assert refused([s(seat=9, stack=1000)]) == INVALID
    assert (
        refused(
            [
                s(seat=1, stack=1000, player_id="p-other"),
                s(seat=2, stack=2000),
                s(seat=4, stack=3000),
            ]
        )
        == FAILED
    )
    assert refused([s(seat=1, stack=1000)], hand_id="h-not-this-one") == FAILED
    assert refused([], hand_id="") == INVALID
    unknown = pb.FinishHandRequest(table_id="t-missing", hand_id=hand.hand_id)
    assert code_of(lambda: lobby.FinishHand(unknown)) == grpc.StatusCode.NOT_FOUND

    final = {1: 0, 2: 3000, 4: 3000}
    request = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[s(seat=k, stack=v) for k, v in final.items()],
    )
    assert lobby.FinishHand(request).hands_played == 1
    assert stacks(lobby, tid) == final
    assert lobby.FinishHand(request).hands_played == 1  # a retry: answered, nothing moves
    assert stacks(lobby, tid) == final
    request.final_stacks[0].stack = 1
    request.final_stacks[1].stack = 2999
    assert code_of(lambda: lobby.FinishHand(request)) == FAILED  # not the same request
    assert stacks(lobby, tid) == final and alice.get().at_tables == 0


def test_voided_hand_leaves_everything_as_before(lobby: LobbyStub) -> None:
    table = create(lobby, DRAW)
    tid = table.table_id
    for seat, name in ((1, "a"), (2, "b"), (3, "c")):
        Player(lobby, name).sit(tid, 1000, seat=seat)
    finish(lobby, tid, next_hand(lobby, tid))
    before = assert_invariant(lobby)
    hand = next_hand(lobby, tid)
    request = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        voided=True,
        final_stacks=[pb.SeatInfo(seat=1, stack=3000)],  # ignored when voided
    )
    assert lobby.FinishHand(request).hands_played == 1
    assert stacks(lobby, tid) == {1: 1000, 2: 1000, 3: 1000}
    assert assert_invariant(lobby).entries == before.entries  # no money moved
    again = next_hand(lobby, tid)
    assert again.hand_id != hand.hand_id
    # The voided hand moved nothing: the same positions again (B1 history unchanged).
    assert (again.button_seat, again.big_blind_seat) == (hand.button_seat, hand.big_blind_seat)
    assert posts(again) == posts(hand)
    finish(lobby, tid, again)


# ---------------------------------------------------------------- stand-ups during a hand


def test_stand_up_during_the_hand_is_pending_until_it_finishes(lobby: LobbyStub) -> None:
    table = create(lobby, STUD)
    tid = table.table_id
    alice, bob, carol = Player(lobby, "alice"), Player(lobby, "bob"), Player(lobby, "carol")
    alice.sit(tid, 1000, seat=1)
    bob.sit(tid, 1000, seat=2)
    hand = next_hand(lobby, tid)
    carol.sit(tid, 1000, seat=3)  # not dealt in: leaves at once
    assert carol.stand(tid).returned == 1000

    up = alice.stand(tid)
    assert (up.returned, up.pending, up.balance) == (0, True, 99_000)
    assert alice.stand(tid).pending  # asking again: still pending
    assert stacks(lobby, tid) == {1: 1000, 2: 1000}  # still seated during the hand
    assert next_hand(lobby, tid) == hand

    finish(lobby, tid, hand, moved(hand, winner=1, loser=2, chips=300))
    assert stacks(lobby, tid) == {2: 700}
    got = alice.get()
    assert (got.balance, got.at_tables) == (100_300, 0)
    assert not next_hand(lobby, tid).play


def test_pending_stand_up_happens_when_the_hand_is_voided(lobby: LobbyStub) -> None:
    table = create(lobby, STUD)
    tid = table.table_id
    alice, bob = Player(lobby, "alice"), Player(lobby, "bob")
    alice.sit(tid, 1000)
    bob.sit(tid, 1000)
    hand = next_hand(lobby, tid)
    assert bob.stand(tid).pending
    void = pb.FinishHandRequest(table_id=tid, hand_id=hand.hand_id, voided=True)
    lobby.FinishHand(void)
    assert_invariant(lobby)
    assert stacks(lobby, tid) == {1: 1000} and bob.get().balance == 100_000


def test_busted_seat_stays_until_its_player_stands_up(lobby: LobbyStub) -> None:
    """A stack of 0 is not dealt in (NO_CHIPS) but keeps the seat; StandUp frees it."""
    table = create(lobby, STUD)
    tid = table.table_id
    alice, bob = Player(lobby, "alice"), Player(lobby, "bob")
    alice.sit(tid, 1000)
    bob.sit(tid, 1000)
    hand = next_hand(lobby, tid)
    finish(lobby, tid, hand, moved(hand, winner=2, loser=1, chips=1000))
    seated = table_of(lobby, tid).occupied
    assert [(s.seat, s.stack, s.sitting_out) for s in seated] == [(1, 0, True), (2, 2000, False)]
    assert not next_hand(lobby, tid).play  # one player with chips
    up = alice.stand(tid)
    assert (up.returned, up.pending, up.balance) == (0, False, 99_000)
    assert alice.sit(tid, 1000).seat == 1  # back with a new buy-in
    assert next_hand(lobby, tid).play


# ---------------------------------------------------------------- service plumbing


def test_lobby_is_listed_by_reflection_and_counts_in_metrics(
    lobby: LobbyStub, lobby_process: ServiceProcess
) -> None:
    assert "poker.lobby.v1.Lobby" in reflected_services(lobby_process.target)
    table = create(lobby, DRAW)
    for name in ("a", "b"):
        Player(lobby, name).sit(table.table_id, 1000)
    finish(lobby, table.table_id, next_hand(lobby, table.table_id))
    samples = scrape(lobby_process)
    assert samples[("lobby_players_registered_total", ())] >= 2
    assert samples[("lobby_hands_finished_total", (("game", "draw_7a"),))] >= 1
    assert samples[("lobby_seated_players", (("game", "draw_7a"),))] >= 2
    assert samples[("lobby_buy_in_chips_total", (("game", "draw_7a"),))] >= 2000


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_restart_keeps_players_tables_and_seats(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    """LOBBY_DB on disk (a SQLite file, or a PostgreSQL database): players, tokens,
    tables and stacks survive; a hand in progress is forgotten and pending
    stand-ups are completed."""
    if store == "sqlite":
        env = {"LOBBY_DB": str(tmp_path / "lobby.db")}
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        env = {"LOBBY_DB": server.database()}
    with ServiceProcess("lobby", env) as first, grpc.insecure_channel(first.target) as channel:
        lobby = LobbyStub(channel)
        table = create(lobby, STUD, name="durable")
        tid = table.table_id
        alice, bob, carol = Player(lobby, "alice"), Player(lobby, "bob"), Player(lobby, "carol")
        for p in (alice, bob, carol):
            p.sit(tid, 1000)
        first_hand = next_hand(lobby, tid)
        finish(lobby, tid, first_hand, moved(first_hand, winner=1, loser=2, chips=200))
        hand = next_hand(lobby, tid)
        assert carol.stand(tid).pending
        totals = assert_invariant(lobby)
    with ServiceProcess("lobby", env) as second, grpc.insecure_channel(second.target) as channel:
        lobby = LobbyStub(channel)
        alice.lobby = bob.lobby = carol.lobby = lobby
        assert assert_invariant(lobby).granted == totals.granted
        assert (alice.get().balance, alice.get().at_tables) == (99_000, 1200)
        assert carol.get().balance == 100_000  # the pending stand-up completed
        restored = table_of(lobby, tid)
        assert (restored.name, restored.config, restored.hands_played) == ("durable", STUD, 1)
        assert stacks(lobby, tid) == {1: 1200, 2: 800}
        stale = pb.FinishHandRequest(table_id=tid, hand_id=hand.hand_id, voided=True)
        assert code_of(lambda: lobby.FinishHand(stale)) == FAILED
        fresh = next_hand(lobby, tid)
        assert fresh.play and fresh.hand_id != hand.hand_id
        finish(lobby, tid, fresh)


def test_list_hands_pages_on_both_stores(lobby: LobbyStub) -> None:
    """ListHands' keyset pages (planned_at, hand_id) run the same SQL on SQLite and
    PostgreSQL: together they are the table's hands once each, newest first."""
    tid = create(lobby, STUD, name="pages").table_id
    for name in ("pa", "pb", "pc"):
        Player(lobby, name).sit(tid, 1000)
    for _ in range(10):
        finish(lobby, tid, next_hand(lobby, tid))
    everything = [
        h.hand_id
        for h in lobby.ListHands(pb.ListHandsRequest(table_id=tid, limit=500), timeout=5).hands
    ]
    assert len(set(everything)) == 10
    listed: list[str] = []
    token = ""
    while True:
        reply = lobby.ListHands(
            pb.ListHandsRequest(table_id=tid, limit=3, page_token=token), timeout=5
        )
        listed.extend(h.hand_id for h in reply.hands)
        token = reply.next_page_token
        if not token:
            break
    assert listed == everything
    bad = pb.ListHandsRequest(table_id=tid, page_token="not a token")
    assert code_of(lambda: lobby.ListHands(bad, timeout=5)) == INVALID
