"""Issue acceptance point 5: malformed requests are INVALID_ARGUMENT and change nothing.

For every service: negative and huge amounts (-1, 2**62), enum numbers the protos
do not define (game=99, kind=42), missing required fields (no config, no state,
empty ids), oversized strings (10 KB names and ids), malformed cards ("Zz", "10h")
and wrong counts.  Each call must fail with INVALID_ARGUMENT and a message.  On a
table stream a malformed action is an ActionRejected with code 3 and the hand is
untouched.  Afterwards the lobby (GetLedgerTotals, ListTables), the dealer's deck
(its reveal and log) and the betting answers are exactly as before.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from poker.betting.v1 import betting_pb2 as bpb
from poker.betting.v1.betting_pb2_grpc import BettingStub
from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.dealer.v1.dealer_pb2_grpc import DealerStub
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.showdown.v1 import showdown_pb2 as spb
from poker.showdown.v1.showdown_pb2_grpc import ShowdownStub
from poker.table.v1 import table_pb2 as pb
from poker.table.v1.table_pb2_grpc import TableServiceStub
from services.dealer.audit import audit_reveal

from .room import AUDIT_TOKEN, DRAW_NL, STUD, Room, open_duel

INVALID = grpc.StatusCode.INVALID_ARGUMENT
HUGE = 2**62
LONG = "x" * 10_240
BAD_CARDS = (["Zz"], ["10h"], ["As", "As"], ["A"], ["Ax"])

Bad = tuple[str, Callable[[], Any]]


def invalid(calls: list[Bad]) -> None:
    """Every call fails with INVALID_ARGUMENT and says why."""
    wrong = []
    for name, call in calls:
        try:
            call()
        except grpc.RpcError as error:
            assert isinstance(error, grpc.Call)
            if error.code() != INVALID or not error.details():
                wrong.append(f"{name}: {error.code()} {error.details()}")
        else:
            wrong.append(f"{name}: accepted")
    assert not wrong, "\n".join(wrong)


@pytest.fixture(scope="module")
def stubs(room: Room) -> Iterator[dict[str, Any]]:
    # The internal services as the table calls them (the only caller they take).
    channels = {n: room.stack[n].channel("table") for n in ("dealer", "betting", "showdown")}
    yield {
        "dealer": DealerStub(channels["dealer"]),
        "betting": BettingStub(channels["betting"]),
        "showdown": ShowdownStub(channels["showdown"]),
    }
    for channel in channels.values():
        channel.close()


def lobby_state(room: Room) -> tuple[lpb.LedgerTotals, lpb.ListTablesResponse, Any]:
    totals = room.staff.GetLedgerTotals(lpb.GetLedgerTotalsRequest(), timeout=5)
    tables = room.lobby.ListTables(lpb.ListTablesRequest(), timeout=5)
    return totals, tables, room.table.ListTables(pb.ListTablesRequest(), timeout=5)


def config(**fields: Any) -> common.GameConfig:
    base = common.GameConfig()
    base.CopyFrom(STUD)
    for name, value in fields.items():
        setattr(base, name, value)
    return base


# ---------------------------------------------------------------- lobby


def test_malformed_lobby_requests_change_nothing(room: Room) -> None:
    lobby = room.lobby
    player = room.register("malformed lobby")
    table_id = room.create_table("sec malformed", STUD, 4, min_buy_in=1_000, clock_ms=60_000)
    before = lobby_state(room)
    pid, token = player.player_id, player.token

    def register(name: str = "ok", balance: int = 0) -> Callable[[], Any]:
        request = lpb.RegisterPlayerRequest(name=name, initial_balance=balance)
        # Play money is the operator's to grant; a name alone, anyone's to ask.
        registrar = room.staff if balance else lobby
        return lambda: registrar.RegisterPlayer(request, timeout=5)

    def create(cfg: common.GameConfig | None = STUD, **fields: Any) -> Callable[[], Any]:
        request = lpb.CreateTableRequest(**{"name": "t", "seats": 4, "min_buy_in": 1_000, **fields})
        if cfg is not None:
            request.config.CopyFrom(cfg)
        return lambda: room.staff.CreateTable(request, timeout=5)

    def sit(**fields: Any) -> Callable[[], Any]:
        request = lpb.SitDownRequest(player_id=pid, token=token, table_id=table_id, buy_in=1_000)
        for name, value in fields.items():
            setattr(request, name, value)
        return lambda: lobby.SitDown(request, timeout=5)

    calls: list[Bad] = [
        ("register 10 KB name", register(name=LONG)),
        ("register empty name", register(name="")),
        ("register balance -1", register(balance=-1)),
        ("register balance 2**62", register(balance=HUGE)),
        ("create without config", create(None)),
        ("create game 99", create(config(game=99))),
        ("create game unspecified", create(config(game=0))),
        ("create ante -1", create(config(ante=-1))),
        ("create small bet 2**62", create(config(small_bet=HUGE, big_bet=HUGE))),
        ("create structure 42", create(config(structure=42))),
        ("create timeout policy 42", create(config(timeout_policy=42))),
        ("create river shortage 42", create(config(river_shortage=42))),
        ("create max raises -1", create(config(max_raises=-1))),
        ("create seats -1", create(seats=-1)),
        ("create seats 99", create(seats=99)),
        ("create min buy-in -1", create(min_buy_in=-1)),
        ("create min buy-in 2**62", create(min_buy_in=HUGE)),
        ("create clock -1", create(action_clock_ms=-1)),
        ("create 10 KB name", create(name=LONG)),
        ("get table empty id", lambda: lobby.GetTable(lpb.GetTableRequest(), timeout=5)),
        (
            "get table 10 KB id",
            lambda: lobby.GetTable(lpb.GetTableRequest(table_id=LONG), timeout=5),
        ),
        (
            "list game 99",
            lambda: lobby.ListTables(
                lpb.ListTablesRequest(game=common.Game.ValueType(99)), timeout=5
            ),
        ),
        ("sit buy-in -1", sit(buy_in=-1)),
        ("sit buy-in 2**62", sit(buy_in=HUGE)),
        ("sit seat -1", sit(seat=-1)),
        ("sit seat 99", sit(seat=99)),
        ("sit 10 KB table id", sit(table_id=LONG)),
        ("sit empty player id", sit(player_id="")),
        ("sit empty token", sit(token="")),
        ("sit 10 KB token", sit(token=LONG)),
        (
            "stand empty ids",
            lambda: lobby.StandUp(lpb.StandUpRequest(player_id=pid, token=token), timeout=5),
        ),
        (
            "get player 10 KB id",
            lambda: lobby.GetPlayer(lpb.GetPlayerRequest(player_id=LONG, token=token), timeout=5),
        ),
        ("next hand empty id", lambda: room.hands.NextHand(lpb.NextHandRequest(), timeout=5)),
        (
            "finish hand empty hand id",
            lambda: room.hands.FinishHand(lpb.FinishHandRequest(table_id=table_id), timeout=5),
        ),
        (
            "authenticate empty token",
            lambda: room.hands.Authenticate(lpb.AuthenticateRequest(player_id=pid), timeout=5),
        ),
    ]
    invalid(calls)
    assert lobby_state(room) == before, "a refused lobby request changed the lobby"
    assert (
        room.lobby.GetPlayer(lpb.GetPlayerRequest(player_id=pid, token=token), timeout=5).balance
        == 1_000_000
    )


# ---------------------------------------------------------------- dealer


def test_malformed_dealer_requests_change_nothing(stubs: dict[str, Any]) -> None:
    dealer = stubs["dealer"]
    stud = dealer.OpenDeck(dpb.OpenDeckRequest(game=common.GAME_STUD, players=2), timeout=5)
    draw = dealer.OpenDeck(dpb.OpenDeckRequest(game=common.GAME_DRAW_7A, players=2), timeout=5)
    dealt = dealer.Deal(dpb.DealRequest(deck_id=draw.deck_id, count=10), timeout=5)

    def open_deck(**fields: Any) -> Callable[[], Any]:
        request = dpb.OpenDeckRequest(game=common.GAME_STUD, players=2, **fields)
        return lambda: dealer.OpenDeck(request, timeout=5)

    def deal(**fields: Any) -> Callable[[], Any]:
        request = dpb.DealRequest(**{"deck_id": stud.deck_id, "count": 1, **fields})
        return lambda: dealer.Deal(request, timeout=5)

    def river(**fields: Any) -> Callable[[], Any]:
        request = dpb.DealRiverRequest(**{"deck_id": stud.deck_id, "players": 2, **fields})
        return lambda: dealer.DealRiver(request, timeout=5)

    def draw_cards(cards: list[str]) -> Callable[[], Any]:
        request = dpb.DrawRequest(deck_id=draw.deck_id, discards=cards)
        return lambda: dealer.Draw(request, timeout=5)

    calls: list[Bad] = [
        (
            "open game 99",
            lambda: dealer.OpenDeck(dpb.OpenDeckRequest(game=common.Game.ValueType(99), players=2)),
        ),
        ("open game unspecified", lambda: dealer.OpenDeck(dpb.OpenDeckRequest(players=2))),
        (
            "open players -1",
            lambda: dealer.OpenDeck(dpb.OpenDeckRequest(game=common.GAME_STUD, players=-1)),
        ),
        (
            "open players 99",
            lambda: dealer.OpenDeck(dpb.OpenDeckRequest(game=common.GAME_STUD, players=99)),
        ),
        ("open 10 KB hand id", open_deck(hand_id=LONG)),
        ("open 10 KB table id", open_deck(table_id=LONG)),
        ("open preset of 3 cards", open_deck(preset_order=["As", "Kd", "2c"])),
        *[(f"open preset {c}", open_deck(preset_order=c * 52)) for c in BAD_CARDS],
        ("deal count -1", deal(count=-1)),
        ("deal count 99", deal(count=99)),
        ("deal count 2**30", deal(count=2**30)),
        ("deal empty deck id", deal(deck_id="")),
        ("deal 10 KB deck id", deal(deck_id=LONG)),
        ("river players -1", river(players=-1)),
        ("river players 99", river(players=99)),
        ("river procedure 42", river(procedure=42)),
        *[(f"draw {c}", draw_cards(c)) for c in BAD_CARDS],
        ("draw 6 cards", draw_cards(list(dealt.cards[:6]))),
        ("close empty deck id", lambda: dealer.CloseDeck(dpb.CloseDeckRequest(), timeout=5)),
        (
            "close 10 KB deck id",
            lambda: dealer.CloseDeck(dpb.CloseDeckRequest(deck_id=LONG), timeout=5),
        ),
    ]
    invalid(calls)
    # Nothing was dealt or logged by the refused calls: the decks deal on from the top.
    first = dealer.Deal(dpb.DealRequest(deck_id=stud.deck_id, count=3), timeout=5)
    for deck_id, cards in ((stud.deck_id, first.cards), (draw.deck_id, dealt.cards)):
        reveal = dealer.CloseDeck(dpb.CloseDeckRequest(deck_id=deck_id), timeout=5)
        assert audit_reveal(reveal) == []
        assert len(reveal.log) == 1, reveal.log
        assert list(reveal.order[: len(cards)]) == list(cards)


# ---------------------------------------------------------------- betting


def _stud_state() -> bpb.BettingState:
    return bpb.BettingState(
        config=STUD,
        phase=bpb.PHASE_BETTING,
        players=[bpb.PlayerBetting(seat=1, stack=1_000), bpb.PlayerBetting(seat=2, stack=1_000)],
    )


def test_malformed_betting_requests_change_nothing(stubs: dict[str, Any]) -> None:
    betting = stubs["betting"]
    upcards = [bpb.UpCards(cards=["2c"]), bpb.UpCards(cards=["Ah"])]
    opened = betting.StartRound(
        bpb.StartRoundRequest(state=_stud_state(), street=0, upcards=upcards), timeout=5
    )
    state = opened.state
    seat = opened.legal.seat
    good = bpb.ApplyActionRequest(
        state=state,
        action=common.Action(kind=common.ACTION_KIND_BRING_IN),
        seat=seat,
        version=state.version,
    )
    answer = betting.ApplyAction(good, timeout=5)

    def with_state(**changes: Any) -> bpb.BettingState:
        bad = bpb.BettingState()
        bad.CopyFrom(state)
        for path, value in changes.items():
            if path.startswith("p0_"):
                setattr(bad.players[0], path[3:], value)
            elif path.startswith("config_"):
                setattr(bad.config, path[7:], value)
            else:
                setattr(bad, path, value)
        return bad

    def legal(bad: bpb.BettingState | None) -> Callable[[], Any]:
        request = bpb.LegalActionsRequest()
        if bad is not None:
            request.state.CopyFrom(bad)
        return lambda: betting.LegalActions(request, timeout=5)

    def apply(action: common.Action | None, **fields: Any) -> Callable[[], Any]:
        request = bpb.ApplyActionRequest(state=state, seat=seat, version=state.version)
        if action is not None:
            request.action.CopyFrom(action)
        for name, value in fields.items():
            setattr(request, name, value)
        return lambda: betting.ApplyAction(request, timeout=5)

    def start(street: int, cards: list[list[str]]) -> Callable[[], Any]:
        request = bpb.StartRoundRequest(
            state=_stud_state(), street=street, upcards=[bpb.UpCards(cards=c) for c in cards]
        )
        return lambda: betting.StartRound(request, timeout=5)

    no_config = bpb.BettingState()
    no_config.CopyFrom(state)
    no_config.ClearField("config")
    bring_in = common.ACTION_KIND_BRING_IN
    calls: list[Bad] = [
        ("legal without state", legal(None)),
        ("legal without config", legal(no_config)),
        ("legal game 99", legal(with_state(config_game=99))),
        ("legal stack -1", legal(with_state(p0_stack=-1))),
        ("legal stack 2**62", legal(with_state(p0_stack=HUGE))),
        ("legal seat -1", legal(with_state(p0_seat=-1))),
        ("legal phase 42", legal(with_state(phase=42))),
        ("legal street -1", legal(with_state(street=-1))),
        ("legal version -1", legal(with_state(version=-1))),
        ("apply without action", apply(None)),
        ("apply kind 42", apply(common.Action(kind=common.ActionKind.ValueType(42)))),
        ("apply kind unspecified", apply(common.Action())),
        ("apply amount -1", apply(common.Action(kind=common.ACTION_KIND_COMPLETE, amount=-1))),
        ("apply amount 2**62", apply(common.Action(kind=common.ACTION_KIND_COMPLETE, amount=HUGE))),
        ("apply amount on a call", apply(common.Action(kind=bring_in, amount=50))),
        ("apply cards on a bring-in", apply(common.Action(kind=bring_in, cards=["As"]))),
        ("apply seat -1", apply(common.Action(kind=bring_in), seat=-1)),
        ("apply seat 99", apply(common.Action(kind=bring_in), seat=99)),
        *[
            (f"apply discard {c}", apply(common.Action(kind=common.ACTION_KIND_DISCARD, cards=c)))
            for c in BAD_CARDS
        ],
        ("timeout without state", lambda: betting.ApplyTimeout(bpb.ApplyTimeoutRequest())),
        ("start street -1", start(-1, [["2c"], ["Ah"]])),
        ("start street 9", start(9, [["2c"], ["Ah"]])),
        *[(f"start upcards {c}", start(0, [c, ["Ah"]])) for c in BAD_CARDS if len(c) == 1],
        ("start 5 upcards", start(0, [["2c", "3c", "4c", "5c", "6c"], ["Ah"]])),
    ]
    invalid(calls)
    assert betting.ApplyAction(good, timeout=5) == answer, "the same state, the same answer"


# ---------------------------------------------------------------- showdown


def test_malformed_showdown_requests_change_nothing(stubs: dict[str, Any]) -> None:
    showdown = stubs["showdown"]
    hands = [
        spb.SeatHand(seat=1, cards=["As", "Ah", "Ad", "Ac", "Ks", "Kh", "2c"]),
        spb.SeatHand(seat=2, cards=["3s", "4h", "5d", "7c", "9s", "Jh", "Qc"]),
    ]
    good = spb.SettleRequest(
        config=STUD,
        hands=hands,
        pots=[common.Pot(amount=300, eligible_seats=[1, 2])],
        first_to_show_seat=1,
    )
    answer = showdown.Settle(good, timeout=5)

    def evaluate(cfg: common.GameConfig | None = STUD, **changes: Any) -> Callable[[], Any]:
        request = spb.EvaluateRequest(hands=hands)
        if cfg is not None:
            request.config.CopyFrom(cfg)
        if "cards" in changes:
            request.hands[0].ClearField("cards")
            request.hands[0].cards.extend(changes.pop("cards"))
        for name, value in changes.items():
            if name == "seat":
                request.hands[0].seat = value
            else:
                setattr(request, name, value)
        return lambda: showdown.Evaluate(request, timeout=5)

    def settle(**changes: Any) -> Callable[[], Any]:
        request = spb.SettleRequest()
        request.CopyFrom(good)
        if "pot" in changes:
            request.pots[0].CopyFrom(changes.pop("pot"))
        for name, value in changes.items():
            if name == "pots":
                request.ClearField("pots")
            else:
                setattr(request, name, value)
        return lambda: showdown.Settle(request, timeout=5)

    seven = ["2s", "3s", "4s", "5s", "6s", "7s"]
    calls: list[Bad] = [
        ("evaluate without config", evaluate(None)),
        ("evaluate game 99", evaluate(config(game=99))),
        *[(f"evaluate cards {c}", evaluate(cards=[*c, *seven[len(c) :]])) for c in BAD_CARDS],
        ("evaluate 3 cards", evaluate(cards=["2s", "3s", "4s"])),
        ("evaluate 9 cards", evaluate(cards=[*seven, "8s", "9s", "Ts"])),
        ("evaluate seat -1", evaluate(seat=-1)),
        ("evaluate seat 99", evaluate(seat=99)),
        ("evaluate community Zz", evaluate(community_card="Zz")),
        ("evaluate community 10h", evaluate(community_card="10h")),
        ("settle pot -1", settle(pot=common.Pot(amount=-1, eligible_seats=[1, 2]))),
        ("settle pot 2**62", settle(pot=common.Pot(amount=HUGE, eligible_seats=[1, 2]))),
        ("settle pot seat 99", settle(pot=common.Pot(amount=300, eligible_seats=[99]))),
        ("settle no pots", settle(pots=None)),
        ("settle first seat 99", settle(first_to_show_seat=99)),
        ("settle first seat missing", settle(first_to_show_seat=0)),
    ]
    invalid(calls)
    assert showdown.Settle(good, timeout=5) == answer, "the same hands, the same answer"


# ---------------------------------------------------------------- table


def test_malformed_table_requests_change_nothing(room: Room) -> None:
    table = room.table
    player = room.register("malformed table")
    table_id = room.create_table("sec malformed t", STUD, 4, min_buy_in=1_000, clock_ms=60_000)
    before = lobby_state(room)
    pid, token = player.player_id, player.token

    def state(**fields: Any) -> Callable[[], Any]:
        request = pb.GetStateRequest(**{"table_id": table_id, "player_id": pid, **fields})
        request.token = fields.get("token", token)
        return lambda: table.GetState(request, timeout=5)

    def history(**fields: Any) -> Callable[[], Any]:
        request = pb.GetHandHistoryRequest(**{"table_id": table_id, **fields})
        return lambda: table.GetHandHistory(request, timeout=5)

    def proof(**fields: Any) -> Callable[[], Any]:
        request = pb.GetDeckProofRequest(**{"table_id": table_id, **fields})
        return lambda: table.GetDeckProof(request, timeout=5)

    def reveal(**fields: Any) -> Callable[[], Any]:
        request = pb.GetDeckRevealRequest(
            **{"table_id": table_id, "audit_token": AUDIT_TOKEN, **fields}
        )
        return lambda: room.audit.GetDeckReveal(request, timeout=5)

    def preset(order: list[str]) -> Callable[[], Any]:
        request = pb.PresetNextDeckRequest(table_id=table_id, order=order)
        return lambda: room.certification.PresetNextDeck(request, timeout=5)

    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    calls: list[Bad] = [
        ("state empty table id", state(table_id="")),
        ("state 10 KB table id", state(table_id=LONG)),
        ("state empty player id", state(player_id="")),
        ("state 10 KB player id", state(player_id=LONG)),
        ("state empty token", state(token="")),
        ("state 10 KB token", state(token=LONG)),
        (
            "list game 99",
            lambda: table.ListTables(
                pb.ListTablesRequest(game=common.Game.ValueType(99)), timeout=5
            ),
        ),
        (
            "list game -1",
            lambda: table.ListTables(
                pb.ListTablesRequest(game=common.Game.ValueType(-1)), timeout=5
            ),
        ),
        ("history limit -1", history(limit=-1)),
        ("history limit 101", history(limit=101)),
        ("history 10 KB hand id", history(hand_id=LONG)),
        ("history empty table id", history(table_id="")),
        ("history 10 KB player id", history(player_id=LONG, token=token)),
        ("proof empty hand id", proof()),
        ("proof 10 KB hand id", proof(hand_id=LONG)),
        ("proof empty table id", proof(hand_id="h-1", table_id="")),
        ("proof 10 KB player id", proof(hand_id="h-1", player_id=LONG, token=token)),
        ("reveal empty hand id", reveal()),
        ("reveal 10 KB hand id", reveal(hand_id=LONG)),
        ("reveal 10 KB table id", reveal(table_id=LONG, hand_id="h-1")),
        *[(f"preset {c}", preset(c)) for c in BAD_CARDS],
        ("preset 53 cards", preset([*deck, "As"])),
        (
            "preset 10 KB table id",
            lambda: room.certification.PresetNextDeck(
                pb.PresetNextDeckRequest(table_id=LONG, order=deck[:3]), timeout=5
            ),
        ),
    ]
    invalid(calls)
    assert lobby_state(room) == before, "a refused table request changed the room"

    async def streams() -> list[grpc.StatusCode]:
        codes = []
        async with room.stack["table"].player_channel() as channel:
            stub = TableServiceStub(channel)
            watches = [pb.WatchRequest(), pb.WatchRequest(table_id=LONG)]
            for request in watches:
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    async for _ in stub.Watch(request):
                        raise AssertionError("a malformed Watch streamed")
                codes.append(info.value.code())
            joins = [
                pb.Join(
                    table_id=table_id,
                    player_id=pid,
                    token=token,
                    delivery=pb.Delivery.ValueType(42),
                ),
                pb.Join(
                    table_id=table_id,
                    player_id=pid,
                    token=token,
                    delivery=pb.Delivery.ValueType(-1),
                ),
                pb.Join(table_id=LONG, player_id=pid, token=token),
                pb.Join(table_id=table_id, player_id="", token=token),
                pb.Join(table_id=table_id, player_id=LONG, token=token),
                pb.Join(table_id=table_id, player_id=pid, token=LONG),
                pb.Join(table_id=table_id, player_id=pid),
            ]
            for join in joins:

                async def messages(j: pb.Join = join) -> Any:
                    yield pb.PlayerMessage(join=j)

                with pytest.raises(grpc.aio.AioRpcError) as info:
                    async for _ in stub.Play(messages()):
                        raise AssertionError("a malformed Join streamed")
                codes.append(info.value.code())
        return codes

    assert asyncio.run(streams()) == [INVALID] * 9
    assert lobby_state(room) == before


# ---------------------------------------------------------------- the table stream


@pytest.mark.parametrize("game", ["stud", "draw"])
def test_malformed_actions_on_the_stream_are_rejected_with_code_3(room: Room, game: str) -> None:
    """Addressed to the current turn (right hand, right action_seq) but malformed:
    ActionRejected code 3 with a message, and nothing changes; the turn stands."""

    async def scenario() -> None:
        cfg = STUD if game == "stud" else DRAW_NL
        async with room.stack["table"].player_channel() as channel:
            duel = await open_duel(room, channel, cfg, name=f"sec malformed {game}")
            k = duel.to_act()
            actor = duel.streams[k]
            turn = await actor.wait_for("your_turn")
            hand, seq = turn.hand_id, turn.your_turn.action_seq
            before = duel.frozen()
            discard = common.ACTION_KIND_DISCARD
            bad = [
                common.Action(kind=common.ActionKind.ValueType(42)),
                common.Action(),
                common.Action(kind=common.ACTION_KIND_RAISE, amount=-1),
                common.Action(kind=common.ACTION_KIND_RAISE, amount=HUGE),
                common.Action(kind=common.ACTION_KIND_CALL, amount=5),
                common.Action(kind=common.ACTION_KIND_CALL, cards=["As"]),
                *[common.Action(kind=discard, cards=c) for c in BAD_CARDS],
                common.Action(kind=discard, cards=["2c", "3c", "4c", "5c", "6c", "7c"]),
                common.Action(kind=discard, cards=[LONG]),
            ]
            for action in bad:
                actor.act(hand, seq, action)
                rejected = (await actor.wait_for("action_rejected")).action_rejected
                assert rejected.code == INVALID.value[0], (action, rejected)
                assert rejected.message and rejected.action_seq == seq
            # Not an action after the Join: a second Join, an empty message.
            actor.send(pb.PlayerMessage(join=pb.Join(table_id=duel.table_id)))
            actor.send(pb.PlayerMessage())
            for _ in range(2):
                rejected = (await actor.wait_for("action_rejected")).action_rejected
                assert rejected.code == INVALID.value[0] and rejected.message
            assert duel.frozen() == before, "a malformed action changed the table"
            assert actor.error is None, "the stream stays open"
            await duel.close()

    asyncio.run(scenario())
