"""Every Lobby RPC refuses bad input with the right status and a clear message, and
a refused call changes nothing (issue 4, acceptance 4, ring games).

One lobby process and one small world (``World``): players seated at a draw
table (one of them away), a stud table, a table whose hand is in progress (for
FinishHand) and a busted player (stack 0).  Each case is one bad request: the
status it must get (NOT_FOUND for unknown ids, PERMISSION_DENIED for another
player's token, INVALID_ARGUMENT for malformed requests: negative or huge amounts,
unknown enums, missing fields, oversized strings; FAILED_PRECONDITION for the
wrong state), words the message must contain (what was wrong and what is
allowed), and "changes nothing": GetLedgerTotals, every table (GetTable: seats,
stacks, markers, hands played), every player (GetPlayer) and every table's hands
(ListHands) are the same after the refusal as before it.

GetLedgerTotals takes no input, so nothing in it can be refused; it is the
observer of every case.  ``test_every_lobby_rpc_is_covered`` keeps the list
complete when the service grows.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from poker.common.v1 import common_pb2 as common
from poker.common.v1.batch_pb2 import Call, CallBatch
from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient, ledger, refused

from .client import DRAW, STUD, Auth, Player, create_table, finish, lobby_stub, next_hand

INVALID = grpc.StatusCode.INVALID_ARGUMENT
NOT_FOUND = grpc.StatusCode.NOT_FOUND
DENIED = grpc.StatusCode.PERMISSION_DENIED
FAILED = grpc.StatusCode.FAILED_PRECONDITION
HUGE = 10**15  # beyond MAX_CHIPS (10**12), within int64
LONG = "x" * 200  # longer than any id (64), name (32/64) or token (128)
UNKNOWN_ENUM = 77
# The same out-of-range number as each field's enum type (the stubs type enum fields
# by enum; the wire carries any int32, and the lobby must refuse it).
UNKNOWN_GAME = common.Game.ValueType(UNKNOWN_ENUM)
UNKNOWN_ENTRY = pb.Entry.ValueType(UNKNOWN_ENUM)
UNKNOWN_RETURN_CHOICE = pb.ReturnChoice.ValueType(UNKNOWN_ENUM)
NO_INPUT = {"GetLedgerTotals"}  # nothing to refuse: the observer of every case


@dataclass
class World:
    lobby: LobbyClient
    draw: str  # alice 1, bob 2, carol 3 (away, owes nothing yet); min 500, max 5000
    stud: str  # dave 1, erin 2 (auto-post on)
    hand: str  # a hand in progress: frank 1, gina 2
    bust: str  # hank 1 with 0 chips (away), ivan 2
    hand_id: str
    players: dict[str, Player]

    def auth(self, name: str, table_id: str = "") -> Auth:
        p = self.players[name]
        return {"player_id": p.id, "token": p.token, "table_id": table_id}

    def state(self) -> list[Message]:
        """Everything a refused call must leave as it was."""
        lobby = self.lobby
        out: list[Message] = [ledger(lobby)]
        tables = lobby.ListTables(pb.ListTablesRequest(), timeout=5).tables
        out.extend(tables)
        for t in tables:
            out.append(lobby.ListHands(pb.ListHandsRequest(table_id=t.table_id), timeout=5))
        for p in self.players.values():
            out.append(p.get())
        return out


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with lobby_stub({"LOBBY_DEFAULT_BALANCE": "10000"}) as (_, lobby):
        names = ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "hank", "ivan", "poor"]
        players = {n: Player(lobby, n, 300 if n == "poor" else 0) for n in names}
        draw = create_table(lobby, DRAW, min_buy_in=500, max_buy_in=5000).table_id
        for seat, n in enumerate(("alice", "bob", "carol"), 1):
            players[n].sit(draw, seat, 1_000)
        players["carol"].sit_out()
        stud = create_table(lobby, STUD, seats=4).table_id
        players["dave"].sit(stud, 1, 1_000)
        players["erin"].sit(stud, 2, 1_000)
        bust = create_table(lobby, DRAW).table_id
        players["hank"].sit(bust, 1, 1_000)
        players["ivan"].sit(bust, 2, 1_000)
        busting = next_hand(lobby, bust)
        finish(lobby, bust, busting, {1: 0, 2: 2_000})
        players["hank"].sit_out()
        hand = create_table(lobby, DRAW).table_id
        players["frank"].sit(hand, 1, 1_000)
        players["gina"].sit(hand, 2, 1_000)
        hand_id = next_hand(lobby, hand).hand_id
        yield World(lobby, draw, stud, hand, bust, hand_id, players)


@dataclass(frozen=True)
class Case:
    rpc: str
    why: str
    request: Callable[[World], Message]
    code: grpc.StatusCode
    words: tuple[str, ...]  # the message names what was wrong and what is allowed


def stacks(**override: int) -> list[pb.SeatInfo]:
    """The pending hand's final stacks as dealt in, with ``s<seat>=chips`` overrides."""
    return [pb.SeatInfo(seat=s, stack=override.get(f"s{s}", 1_000)) for s in (1, 2)]


CASES = [
    # -- RegisterPlayer
    Case("RegisterPlayer", "no name", lambda w: pb.RegisterPlayerRequest(), INVALID,
         ("name is required", "1..32")),
    Case("RegisterPlayer", "name too long", lambda w: pb.RegisterPlayerRequest(name=LONG),
         INVALID, ("at most 32",)),
    Case("RegisterPlayer", "name not printable",
         lambda w: pb.RegisterPlayerRequest(name="a\nb"), INVALID, ("printable",)),
    Case("RegisterPlayer", "negative balance",
         lambda w: pb.RegisterPlayerRequest(name="neg", initial_balance=-1), INVALID,
         ("initial_balance", "0..")),
    Case("RegisterPlayer", "huge balance",
         lambda w: pb.RegisterPlayerRequest(name="rich", initial_balance=HUGE), INVALID,
         ("initial_balance", "0..")),
    # -- GrantChips (the operator's)
    Case("GrantChips", "no player_id", lambda w: pb.GrantChipsRequest(amount=1), INVALID,
         ("player_id is required",)),
    Case("GrantChips", "zero amount",
         lambda w: pb.GrantChipsRequest(player_id=w.players["alice"].id), INVALID,
         ("amount must be 1..", "got 0")),
    Case("GrantChips", "negative amount",
         lambda w: pb.GrantChipsRequest(player_id=w.players["alice"].id, amount=-5), INVALID,
         ("amount must be 1..", "got -5")),
    Case("GrantChips", "huge amount",
         lambda w: pb.GrantChipsRequest(player_id=w.players["alice"].id, amount=HUGE), INVALID,
         ("amount must be 1..",)),
    Case("GrantChips", "unknown player",
         lambda w: pb.GrantChipsRequest(player_id="p-nobody", amount=1), NOT_FOUND,
         ("no player p-nobody",)),
    Case("GrantChips", "oversized id",
         lambda w: pb.GrantChipsRequest(player_id=LONG, amount=1), INVALID, ("player_id",)),
    # -- GetPlayer
    Case("GetPlayer", "no player_id", lambda w: pb.GetPlayerRequest(token="t"), INVALID,
         ("player_id is required",)),
    Case("GetPlayer", "no token",
         lambda w: pb.GetPlayerRequest(player_id=w.players["alice"].id), INVALID,
         ("token is required",)),
    Case("GetPlayer", "unknown player",
         lambda w: pb.GetPlayerRequest(player_id="p-nobody", token="t"), NOT_FOUND,
         ("no player p-nobody",)),
    Case("GetPlayer", "another player's token",
         lambda w: pb.GetPlayerRequest(player_id=w.players["alice"].id,
                                       token=w.players["bob"].token), DENIED,
         ("wrong token",)),
    Case("GetPlayer", "oversized id", lambda w: pb.GetPlayerRequest(player_id=LONG, token="t"),
         INVALID, ("player_id", "at most 64")),
    Case("GetPlayer", "oversized token",
         lambda w: pb.GetPlayerRequest(player_id=w.players["alice"].id, token=LONG), INVALID,
         ("token is at most 128",)),
    # -- CreateTable
    Case("CreateTable", "no name",
         lambda w: pb.CreateTableRequest(config=DRAW, seats=5, min_buy_in=100), INVALID,
         ("name is required",)),
    Case("CreateTable", "name too long",
         lambda w: pb.CreateTableRequest(name=LONG, config=DRAW, seats=5, min_buy_in=100),
         INVALID, ("at most 64",)),
    Case("CreateTable", "no config",
         lambda w: pb.CreateTableRequest(name="t", seats=5, min_buy_in=100), INVALID,
         ("config is required",)),
    Case("CreateTable", "unknown game",
         lambda w: pb.CreateTableRequest(
             name="t", config=common.GameConfig(game=UNKNOWN_GAME, small_bet=100, big_bet=200),
             seats=5, min_buy_in=100), INVALID, ("game",)),
    Case("CreateTable", "too many seats for draw (D1)",
         lambda w: pb.CreateTableRequest(name="t", config=DRAW, seats=6, min_buy_in=100),
         INVALID, ("seats", "2..5")),
    Case("CreateTable", "negative minimum buy-in",
         lambda w: pb.CreateTableRequest(name="t", config=DRAW, seats=5, min_buy_in=-5),
         INVALID, ("min_buy_in", "1..")),
    Case("CreateTable", "huge minimum buy-in",
         lambda w: pb.CreateTableRequest(name="t", config=DRAW, seats=5, min_buy_in=HUGE),
         INVALID, ("min_buy_in", "1..")),
    Case("CreateTable", "maximum below minimum",
         lambda w: pb.CreateTableRequest(name="t", config=DRAW, seats=5, min_buy_in=500,
                                         max_buy_in=100), INVALID, ("max_buy_in", "at least")),
    Case("CreateTable", "negative action clock",
         lambda w: pb.CreateTableRequest(name="t", config=DRAW, seats=5, min_buy_in=100,
                                         action_clock_ms=-1), INVALID, ("action_clock_ms",)),
    Case("CreateTable", "negative orbits away (B5)",
         lambda w: pb.CreateTableRequest(name="t", config=DRAW, seats=5, min_buy_in=100,
                                         max_orbits_away=-1), INVALID,
         ("max_orbits_away", "0..1000")),
    Case("CreateTable", "huge orbits away (B5)",
         lambda w: pb.CreateTableRequest(name="t", config=DRAW, seats=5, min_buy_in=100,
                                         max_orbits_away=1_000_000), INVALID,
         ("max_orbits_away", "0..1000")),
    # -- GetTable, ListTables
    Case("GetTable", "no table_id", lambda w: pb.GetTableRequest(), INVALID,
         ("table_id is required",)),
    Case("GetTable", "unknown table", lambda w: pb.GetTableRequest(table_id="t-nowhere"),
         NOT_FOUND, ("no table t-nowhere",)),
    Case("GetTable", "oversized id", lambda w: pb.GetTableRequest(table_id=LONG), INVALID,
         ("table_id", "at most 64")),
    Case("ListTables", "unknown game", lambda w: pb.ListTablesRequest(game=UNKNOWN_GAME),
         INVALID, ("game",)),
    # -- SitDown
    Case("SitDown", "buy-in below the minimum (S2)",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), buy_in=499), INVALID,
         ("below the table's minimum buy-in 500",)),
    Case("SitDown", "no buy-in (S2)",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw)), INVALID,
         ("buy_in is required", "500..5000 chips")),
    Case("SitDown", "buy-in above the maximum",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), buy_in=5_001), INVALID,
         ("above the table's maximum buy-in 5000",)),
    Case("SitDown", "buy-in above the balance",
         lambda w: pb.SitDownRequest(**w.auth("poor", w.draw), buy_in=500), FAILED,
         ("balance 300 is short of the buy-in 500",)),
    Case("SitDown", "negative buy-in",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), buy_in=-500), INVALID,
         ("buy_in", "1..")),
    Case("SitDown", "huge buy-in",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), buy_in=HUGE), INVALID,
         ("buy_in", "1..")),
    Case("SitDown", "occupied seat",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), seat=1, buy_in=1_000), FAILED,
         ("seat 1 is taken", "free seats: [4, 5]")),
    Case("SitDown", "seat out of range",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), seat=6, buy_in=1_000), INVALID,
         ("seat", "1..5")),
    Case("SitDown", "already seated at the table",
         lambda w: pb.SitDownRequest(**w.auth("alice", w.draw), buy_in=1_000), FAILED,
         ("already sits in seat 1",)),
    Case("SitDown", "unknown table",
         lambda w: pb.SitDownRequest(**w.auth("dave", "t-nowhere"), buy_in=1_000), NOT_FOUND,
         ("no table t-nowhere",)),
    Case("SitDown", "unknown player",
         lambda w: pb.SitDownRequest(player_id="p-nobody", token="t", table_id=w.draw,
                                     buy_in=1_000), NOT_FOUND, ("no player p-nobody",)),
    Case("SitDown", "another player's token",
         lambda w: pb.SitDownRequest(player_id=w.players["dave"].id,
                                     token=w.players["alice"].token, table_id=w.draw,
                                     buy_in=1_000), DENIED, ("wrong token",)),
    Case("SitDown", "unknown entry (B2)",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), buy_in=1_000,
                                     entry=UNKNOWN_ENTRY), INVALID,
         ("entry 77 is unknown", "ENTRY_POST_NOW", "ENTRY_WAIT_FOR_BUTTON")),
    Case("SitDown", "entry contradicts wait_for_big_blind (B2)",
         lambda w: pb.SitDownRequest(**w.auth("dave", w.draw), buy_in=1_000,
                                     entry=pb.ENTRY_POST_NOW, wait_for_big_blind=True), INVALID,
         ("contradicts", "ENTRY_POST_NOW")),
    Case("SitDown", "no table_id",
         lambda w: pb.SitDownRequest(**w.auth("dave"), buy_in=1_000), INVALID,
         ("table_id is required",)),
    # -- StandUp
    Case("StandUp", "not seated", lambda w: pb.StandUpRequest(**w.auth("dave", w.draw)),
         FAILED, ("not seated",)),
    Case("StandUp", "another player's token",
         lambda w: pb.StandUpRequest(player_id=w.players["alice"].id,
                                     token=w.players["bob"].token, table_id=w.draw), DENIED,
         ("wrong token",)),
    Case("StandUp", "unknown table", lambda w: pb.StandUpRequest(**w.auth("alice", "t-x")),
         NOT_FOUND, ("no table t-x",)),
    # -- SitOut, SitIn, SetAutoPost, ImIn (B3-B6, S3)
    Case("SitOut", "not seated", lambda w: pb.SitOutRequest(**w.auth("dave", w.draw)), FAILED,
         ("not seated",)),
    Case("SitOut", "another player's token",
         lambda w: pb.SitOutRequest(player_id=w.players["alice"].id,
                                    token=w.players["bob"].token, table_id=w.draw), DENIED,
         ("wrong token",)),
    Case("SitOut", "unknown table", lambda w: pb.SitOutRequest(**w.auth("alice", "t-x")),
         NOT_FOUND, ("no table t-x",)),
    Case("SitOut", "no player_id",
         lambda w: pb.SitOutRequest(token="t", table_id=w.draw), INVALID,
         ("player_id is required",)),
    Case("SitIn", "not sitting out", lambda w: pb.SitInRequest(**w.auth("alice", w.draw)),
         FAILED, ("not sitting out",)),
    Case("SitIn", "no chips",
         lambda w: pb.SitInRequest(**w.auth("hank", w.bust)), FAILED,
         ("no chips", "sit down again")),
    Case("SitIn", "unknown return choice (B3)",
         lambda w: pb.SitInRequest(**w.auth("carol", w.draw), return_choice=UNKNOWN_RETURN_CHOICE),
         INVALID, ("return_choice 77 is unknown", "RETURN_CHOICE_WAIT_FOR_BIG_BLIND")),
    Case("SitIn", "another player's token",
         lambda w: pb.SitInRequest(player_id=w.players["carol"].id,
                                   token=w.players["alice"].token, table_id=w.draw), DENIED,
         ("wrong token",)),
    Case("SitIn", "not seated", lambda w: pb.SitInRequest(**w.auth("dave", w.draw)), FAILED,
         ("not seated",)),
    Case("SetAutoPost", "draw table (S3 is stud)",
         lambda w: pb.SetAutoPostRequest(**w.auth("alice", w.draw)), FAILED,
         ("stud tables", "SitOut and SitIn")),
    Case("SetAutoPost", "not seated",
         lambda w: pb.SetAutoPostRequest(**w.auth("alice", w.stud)), FAILED, ("not seated",)),
    Case("SetAutoPost", "unknown player",
         lambda w: pb.SetAutoPostRequest(player_id="p-nobody", token="t", table_id=w.stud),
         NOT_FOUND, ("no player p-nobody",)),
    Case("ImIn", "auto-post on (S3)", lambda w: pb.ImInRequest(**w.auth("dave", w.stud)),
         FAILED, ("has auto-post on", "SetAutoPost")),
    Case("ImIn", "draw table", lambda w: pb.ImInRequest(**w.auth("alice", w.draw)), FAILED,
         ("stud tables",)),
    Case("ImIn", "oversized token",
         lambda w: pb.ImInRequest(player_id=w.players["dave"].id, token=LONG, table_id=w.stud),
         INVALID, ("token is at most 128",)),
    # -- NextHand, FinishHand, VoidPendingHand, ListHands (the table service's)
    Case("NextHand", "no table_id", lambda w: pb.NextHandRequest(), INVALID,
         ("table_id is required",)),
    Case("NextHand", "unknown table", lambda w: pb.NextHandRequest(table_id="t-nowhere"),
         NOT_FOUND, ("no table t-nowhere",)),
    Case("FinishHand", "unknown table",
         lambda w: pb.FinishHandRequest(table_id="t-nowhere", hand_id=w.hand_id), NOT_FOUND,
         ("no table",)),
    Case("FinishHand", "no hand_id", lambda w: pb.FinishHandRequest(table_id=w.hand), INVALID,
         ("hand_id is required",)),
    Case("FinishHand", "not the hand in progress",
         lambda w: pb.FinishHandRequest(table_id=w.hand, hand_id="h-other",
                                        final_stacks=stacks()), FAILED,
         ("not the hand in progress", "h-")),
    Case("FinishHand", "chips not conserved",
         lambda w: pb.FinishHandRequest(table_id=w.hand, hand_id=w.hand_id,
                                        final_stacks=stacks(s1=1_500)), FAILED,
         ("chips not conserved",)),
    Case("FinishHand", "negative stack",
         lambda w: pb.FinishHandRequest(table_id=w.hand, hand_id=w.hand_id,
                                        final_stacks=stacks(s1=-1, s2=2_001)),
         INVALID, ("final_stacks[0].stack", "0..")),
    Case("FinishHand", "huge stack",
         lambda w: pb.FinishHandRequest(table_id=w.hand, hand_id=w.hand_id,
                                        final_stacks=stacks(s1=HUGE)), INVALID,
         ("final_stacks[0].stack",)),
    Case("FinishHand", "a seat missing",
         lambda w: pb.FinishHandRequest(table_id=w.hand, hand_id=w.hand_id,
                                        final_stacks=[pb.SeatInfo(seat=1, stack=2_000)]), FAILED,
         ("exactly the seats dealt in", "[1, 2]")),
    Case("FinishHand", "a seat twice",
         lambda w: pb.FinishHandRequest(
             table_id=w.hand, hand_id=w.hand_id,
             final_stacks=[pb.SeatInfo(seat=1, stack=1_000)] * 2), INVALID, ("twice",)),
    Case("FinishHand", "seat out of range",
         lambda w: pb.FinishHandRequest(
             table_id=w.hand, hand_id=w.hand_id,
             final_stacks=[pb.SeatInfo(seat=9, stack=1_000)]), INVALID,
         ("final_stacks[0].seat", "1..5")),
    Case("FinishHand", "another player in the seat",
         lambda w: pb.FinishHandRequest(
             table_id=w.hand, hand_id=w.hand_id,
             final_stacks=[pb.SeatInfo(seat=1, stack=1_000, player_id=w.players["gina"].id),
                           pb.SeatInfo(seat=2, stack=1_000)]), FAILED, ("was dealt in to",)),
    Case("VoidPendingHand", "no table_id", lambda w: pb.VoidPendingHandRequest(), INVALID,
         ("table_id is required",)),
    Case("VoidPendingHand", "unknown table",
         lambda w: pb.VoidPendingHandRequest(table_id="t-nowhere"), NOT_FOUND, ("no table",)),
    Case("HandRecorded", "no table_id", lambda w: pb.HandRecordedRequest(hand_id=w.hand_id),
         INVALID, ("table_id is required",)),
    Case("HandRecorded", "unknown table",
         lambda w: pb.HandRecordedRequest(table_id="t-nowhere", hand_id=w.hand_id), NOT_FOUND,
         ("no table",)),
    Case("HandRecorded", "no hand_id", lambda w: pb.HandRecordedRequest(table_id=w.hand),
         INVALID, ("hand_id is required",)),
    Case("ListHands", "negative limit",
         lambda w: pb.ListHandsRequest(table_id=w.draw, limit=-1), INVALID, ("limit", "0..500")),
    Case("ListHands", "limit too large",
         lambda w: pb.ListHandsRequest(table_id=w.draw, limit=501), INVALID,
         ("limit", "0..500")),
    Case("ListHands", "unknown table", lambda w: pb.ListHandsRequest(table_id="t-nowhere"),
         NOT_FOUND, ("no table",)),
    # -- GetHandHistories, StoreVoidedHistory (the table service's)
    Case("GetHandHistories", "unknown table",
         lambda w: pb.GetHandHistoriesRequest(table_id="t-nowhere", limit=1), NOT_FOUND,
         ("no table",)),
    Case("GetHandHistories", "zero limit",
         lambda w: pb.GetHandHistoriesRequest(table_id=w.hand, limit=0), INVALID,
         ("limit must be 1..500", "got 0")),
    Case("GetHandHistories", "limit too large",
         lambda w: pb.GetHandHistoriesRequest(table_id=w.hand, limit=501), INVALID,
         ("limit must be 1..500",)),
    Case("GetHandHistories", "a hand and a limit",
         lambda w: pb.GetHandHistoriesRequest(table_id=w.hand, hand_id=w.hand_id, limit=2),
         INVALID, ("leave limit and before_hand_id unset",)),
    Case("GetHandHistories", "no history of the hand",
         lambda w: pb.GetHandHistoriesRequest(table_id=w.hand, hand_id=w.hand_id), NOT_FOUND,
         ("no stored history", "h-")),
    Case("StoreVoidedHistory", "no history",
         lambda w: pb.StoreVoidedHistoryRequest(table_id=w.hand, hand_id=w.hand_id), INVALID,
         ("history is required",)),
    Case("StoreVoidedHistory", "a hand in progress",
         lambda w: pb.StoreVoidedHistoryRequest(table_id=w.hand, hand_id=w.hand_id,
                                                history=b"x"), FAILED,
         ("not recorded voided", "FinishHand")),
    # -- Authenticate
    Case("Authenticate", "another player's token",
         lambda w: pb.AuthenticateRequest(player_id=w.players["alice"].id,
                                          token=w.players["bob"].token), DENIED,
         ("wrong token",)),
    Case("Authenticate", "unknown player",
         lambda w: pb.AuthenticateRequest(player_id="p-nobody", token="t"), NOT_FOUND,
         ("no player",)),
    Case("Authenticate", "unknown table",
         lambda w: pb.AuthenticateRequest(**w.auth("alice", "t-nowhere")), NOT_FOUND,
         ("no table",)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[f"{c.rpc}-{c.why}" for c in CASES])
def test_refused_with_a_clear_message_and_nothing_changed(world: World, case: Case) -> None:
    before = world.state()
    method: Callable[..., Any] = getattr(world.lobby, case.rpc)
    request = case.request(world)
    code, message = refused(lambda: method(request, timeout=5))
    assert code == case.code, message
    for word in case.words:
        assert word in message, f"{message!r} should say {word!r}"
    assert world.state() == before, "a refused call changed something"


# The table service's Batch stream carries these calls: each of their cases again,
# as a call on the stream.
BATCHED = ("NextHand", "FinishHand", "VoidPendingHand", "HandRecorded")
BATCH_CASES = [c for c in CASES if c.rpc in BATCHED]


@pytest.mark.parametrize("case", BATCH_CASES, ids=[f"{c.rpc}-{c.why}" for c in BATCH_CASES])
def test_batch_refuses_each_call_as_the_unary_call_does(world: World, case: Case) -> None:
    """On the stream a refusal is the call's reply (same code, same message), the
    stream goes on, and nothing changed."""
    before = world.state()
    call = Call(id=7, method=case.rpc, request=case.request(world).SerializeToString())
    (reply,) = list(world.lobby.Batch(iter([CallBatch(calls=[call])]), timeout=5))
    (answer,) = reply.replies
    assert answer.id == 7 and answer.WhichOneof("result") == "error", answer
    assert answer.error.code == case.code.value[0], answer.error.message
    for word in case.words:
        assert word in answer.error.message, f"{answer.error.message!r} should say {word!r}"
    assert world.state() == before, "a refused call changed something"


def test_batch_refuses_a_call_without_a_method_and_an_empty_batch(world: World) -> None:
    before = world.state()
    (reply,) = list(world.lobby.Batch(iter([CallBatch(calls=[Call(id=1)])]), timeout=5))
    assert reply.replies[0].error.code == INVALID.value[0]
    assert "call is required: a method, one of NextHand, FinishHand, VoidPendingHand, " in (
        reply.replies[0].error.message
    )
    code, message = refused(lambda: list(world.lobby.Batch(iter([CallBatch()]), timeout=5)))
    assert code == INVALID and "at least one call" in message, message
    assert world.state() == before, "a refused call changed something"


def test_every_lobby_rpc_is_covered() -> None:
    services = ("Lobby", "LobbyHands", "LobbyOperator")  # the player, table and staff planes
    methods = {m for name in services for m in pb.DESCRIPTOR.services_by_name[name].methods_by_name}
    covered = {c.rpc for c in CASES} | ({"Batch"} if BATCH_CASES else set())
    assert covered | NO_INPUT == methods, sorted(methods - covered - NO_INPUT)


def test_the_world_still_works_after_every_refusal(world: World) -> None:
    """The refusals left a working lobby: the pending hand finishes, the seats play."""
    finish(world.lobby, world.hand, next_hand(world.lobby, world.hand))
    back = world.players["carol"].sit_in(pb.RETURN_CHOICE_POST)
    assert not back.away
    totals = ledger(world.lobby)
    assert totals.granted == 9 * 10_000 + 300
