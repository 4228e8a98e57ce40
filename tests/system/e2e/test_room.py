# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S10)
"""The room as a whole: health, reflection and /metrics of all five services, the
action clock (S10) on real streams, reconnects, and how Play streams end.

Heads-up stud at ante 10, bring-in 25, 50/100.  The clock tests use a short action
clock and ``connect_first`` (both streams open before the players sit), so every
event is seen live; nothing here asserts how long anything took.
"""

from __future__ import annotations

import time

import grpc
import pytest
from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from tests.support.decks import draw_order, stud_order
from tests.support.health import SERVING
from tests.support.player import Player
from tests.support.policies import passive, script
from tests.support.room import Room, sample, total
from tests.support.typed_grpc import health_stub, reflection_stub

SERVICES = {
    "dealer": "poker.dealer.v1.Dealer",
    "betting": "poker.betting.v1.Betting",
    "showdown": "poker.showdown.v1.Showdown",
    "lobby": "poker.lobby.v1.Lobby",
    "table": "poker.table.v1.TableService",
}
CLOCK_MS = 500  # short action clock for the timeout tests (S10 is configurable)


def stud(
    policy: common.TimeoutPolicy.ValueType = common.TIMEOUT_POLICY_UNSPECIFIED,
) -> common.GameConfig:
    return common.GameConfig(
        game=common.GAME_STUD,
        ante=10,
        bring_in=25,
        small_bet=50,
        big_bet=100,
        timeout_policy=policy,
    )


# ---------------------------------------------------------------------- health, reflection


def _health_status(channel: grpc.Channel, service: str) -> int:
    request = health_pb2.HealthCheckRequest(service=service)
    return int(health_stub(channel).Check(request, timeout=10).status)


def _reflected_services(channel: grpc.Channel) -> list[str]:
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    replies = reflection_stub(channel).ServerReflectionInfo(iter([request]), timeout=10)
    return [s.name for reply in replies for s in reply.list_services_response.service]


def test_every_service_is_healthy_and_listed_by_reflection(room: Room) -> None:
    """Over each service's internal port (mutual TLS, as its own identity)."""
    for name, service in SERVICES.items():
        with room.stack[name].channel(name) as channel:
            for checked in ("", service):
                assert _health_status(channel, checked) == SERVING, (name, checked)
            listed = _reflected_services(channel)
        assert service in listed, (name, listed)
        assert "grpc.health.v1.Health" in listed, (name, listed)


# ---------------------------------------------------------------------- metrics


def _unary(service: str, method: str) -> dict[str, str]:
    return {"grpc_type": "UNARY", "grpc_service": service, "grpc_method": method}


def test_metrics_of_every_service_move_with_a_hand__S10_S11(room: Room) -> None:
    """Each service's /metrics has the standard gRPC families (labels grpc_type,
    grpc_service, grpc_method, grpc_code), and the table its domain metrics; a hand
    with one timeout (CHECK_OR_FOLD: a check) that reaches a normal seventh street
    moves the counters it should."""
    before = {name: room.metrics(name) for name in SERVICES}
    # Seat 1 (2c) brings in, seat 2 calls: pot 70.  Seat 1's ace acts first on fourth
    # street and lets the clock run out: a free check (S10).  Checked down from there.
    order = stud_order([("Qh", "Jd", "2c"), ("Ts", "6c", "Kd")], streets=[["As", "3h"]])
    hand = room.start_hand(
        stud(common.TIMEOUT_POLICY_CHECK_OR_FOLD),
        order=order,
        buy_ins=[1000, 1000],
        action_clock_ms=CLOCK_MS,
        connect_first=True,
    )
    hand.play(script({1: ["bring_in", None]}))
    hand.settle()
    hand.close()
    assert sum(a.amount for a in hand.finished().awards) == 70

    # Unary methods every hand (or this test) calls, whatever else changes.  Betting,
    # dealer, showdown and the lobby's hand calls may be reached by unary calls or by
    # their batched streams (the table's default): their received messages move.
    # (gRPC service, method): the staff's calls are on their own services.
    stable_calls: dict[str, list[tuple[str, str]]] = {
        "dealer": [],
        "betting": [],
        "showdown": [],
        "lobby": [
            (SERVICES["lobby"], "RegisterPlayer"),
            (SERVICES["lobby"], "SitDown"),
            ("poker.lobby.v1.LobbyOperator", "GetLedgerTotals"),
        ],
        "table": [
            ("poker.table.v1.TableCertification", "PresetNextDeck"),
            ("poker.table.v1.TableAudit", "GetDeckReveal"),
        ],
    }
    play = {"grpc_type": "BIDI_STREAM", "grpc_service": SERVICES["table"], "grpc_method": "Play"}
    deadline = time.monotonic() + 10
    while True:  # the Play streams are counted once the server has ended them
        after = {name: room.metrics(name) for name in SERVICES}
        ended = total(after["table"], "grpc_server_handled_total", **play, grpc_code="OK")
        if ended >= total(before["table"], "grpc_server_handled_total", **play) + 2:
            break
        assert time.monotonic() < deadline, "the closed Play streams were not counted"
        time.sleep(0.05)
    assert total(after["table"], "grpc_server_handling_seconds_count", **play) >= 2

    for name, service in SERVICES.items():
        samples = after[name]
        keys: dict[str, set[tuple[str, ...]]] = {}
        for n, labels in samples:
            keys.setdefault(n, set()).add(tuple(k for k, _ in labels))
        assert keys["grpc_server_handled_total"] == {
            ("grpc_code", "grpc_method", "grpc_service", "grpc_type")
        }, name
        for suffix in ("count", "sum"):
            assert keys[f"grpc_server_handling_seconds_{suffix}"] == {
                ("grpc_method", "grpc_service", "grpc_type")
            }, name
        assert keys["grpc_server_handling_seconds_bucket"] == {
            ("grpc_method", "grpc_service", "grpc_type", "le")
        }, name
        received = "grpc_server_msg_received_total"
        assert total(samples, received, grpc_service=service) > total(
            before[name], received, grpc_service=service
        ), name
        for grpc_service, method in stable_calls[name]:
            call = _unary(grpc_service, method)
            ok = "grpc_server_handled_total"
            assert sample(samples, ok, **call, grpc_code="OK") > sample(
                before[name], ok, **call, grpc_code="OK"
            ), (name, method)
            count = "grpc_server_handling_seconds_count"
            assert sample(samples, count, **call) > sample(before[name], count, **call)
            bucket = "grpc_server_handling_seconds_bucket"
            assert sample(samples, bucket, **call, le="+Inf") == sample(samples, count, **call)

    t0, t1 = before["table"], after["table"]

    def delta(name: str, **labels: str) -> float:
        return total(t1, name, **labels) - total(t0, name, **labels)

    assert delta("table_hands_started_total", game="stud") == 1
    assert delta("table_hands_finished_total", game="stud", outcome="showdown") == 1
    assert delta("table_actions_total", game="stud", kind="bring_in") == 1
    assert delta("table_actions_total", game="stud", kind="call") == 1
    assert delta("table_actions_total", game="stud", kind="check") == 8  # 4 streets x 2
    assert delta("table_timeouts_total", game="stud", policy="check_or_fold") == 1
    assert delta("table_river_outcomes_total", outcome="normal") == 1
    assert delta("table_pot_size_chips_count", game="stud") == 1
    assert delta("table_pot_size_chips_sum", game="stud") == 70
    # The showdown and the hand's report went over the showdown's and the lobby's
    # Batch streams, answered OK there.
    for name, method in (("showdown", "Settle"), ("lobby", "FinishHand")):
        calls = f"{name}_batched_calls_total"
        on_stream: dict[str, str] = {"method": method, "code": "OK"}
        assert total(after[name], calls, **on_stream) > total(before[name], calls, **on_stream)


# ---------------------------------------------------------------------- the clock (S10)


def test_timeout_all_in_protection__S10(room: Room) -> None:
    # The default policy.  Seat 1 brings in (2c), seat 2 completes, seat 1 calls: 60
    # each committed, voluntarily.  Fourth street: seat 2's king acts first and bets
    # 50; seat 1's clock runs out: all-in protection keeps seat 1 in for what it has
    # committed; seat 2's bet is uncalled and comes back.  No more betting; seat 1's
    # aces beat king high at the showdown: the 120 main pot.
    order = stud_order(
        third=[("Ah", "Ad", "2c"), ("7s", "8s", "Kd")],
        streets=[["3h", "9c"], ["5c", "Jd"], ["6d", "4s"]],
        river=["Qs", "2d"],
    )
    hand = room.start_hand(
        stud(), order=order, buy_ins=[1000, 1000], action_clock_ms=CLOCK_MS, connect_first=True
    )
    hand.play(script({1: ["bring_in", "call", None], 2: ["complete", "bet"]}))
    hand.settle()
    moves = hand.seen("action_taken")
    assert [(a.seat, a.timeout) for a in moves] == [
        (1, False), (2, False), (1, False), (2, False), (1, True),
    ]  # fmt: skip
    timed_out = moves[-1]  # no action kind names all-in protection: the clock's own result
    assert timed_out.action.kind == common.ACTION_KIND_UNSPECIFIED
    assert timed_out.stack == 940  # nothing more was put in
    assert [(p.amount, list(p.eligible_seats)) for p in timed_out.pots] == [(120, [1, 2])]
    finished = hand.finished()
    assert (finished.uncalled_seat, finished.uncalled_amount) == (2, 50)
    assert hand.awards() == [(0, 1, 120, common.POT_SHARE_WHOLE)]
    assert hand.final_stacks() == {1: 1060, 2: 940}
    event = hand.showdown()
    assert event is not None and sorted(h.seat for h in event.hands if not h.mucked) == [1, 2]


def test_timeout_check_or_fold__S10(room: Room) -> None:
    # Seat 1 brings in, seat 2 calls (pot 70).  Fourth: seat 1's ace acts first, the
    # clock runs out: a free check.  Fifth: seat 2's open kings bet 100, seat 1's
    # clock runs out again: fold.  Seat 2 wins 70, its bet uncalled.
    order = stud_order(
        third=[("Qh", "Jd", "2c"), ("Ts", "6c", "Kd")],
        streets=[["As", "3h"], ["4d", "Kh"]],
    )
    hand = room.start_hand(
        stud(common.TIMEOUT_POLICY_CHECK_OR_FOLD),
        order=order,
        buy_ins=[1000, 1000],
        action_clock_ms=CLOCK_MS,
        connect_first=True,
    )
    hand.play(script({1: ["bring_in", None, None], 2: ["call", "check", "bet"]}))
    hand.settle()
    assert [(a.seat, a.action.kind, a.timeout) for a in hand.seen("action_taken")] == [
        (1, common.ACTION_KIND_BRING_IN, False),
        (2, common.ACTION_KIND_CALL, False),
        (1, common.ACTION_KIND_CHECK, True),
        (2, common.ACTION_KIND_CHECK, False),
        (2, common.ACTION_KIND_BET, False),
        (1, common.ACTION_KIND_FOLD, True),
    ]
    # The live stream said the same, with the timeout flag.
    live = [(a.seat, a.timeout) for a in hand.actions(seat=2)]
    assert live == [(1, False), (2, False), (1, True), (2, False), (2, False), (1, True)]
    assert hand.awards() == [(0, 2, 70, common.POT_SHARE_WHOLE)]
    assert hand.final_stacks() == {1: 965, 2: 1035}


@pytest.mark.parametrize(
    "policy", [common.TIMEOUT_POLICY_ALL_IN_PROTECTION, common.TIMEOUT_POLICY_CHECK_OR_FOLD]
)
def test_timeout_on_the_bring_in_posts_it__S5_S10(
    room: Room, policy: common.TimeoutPolicy.ValueType
) -> None:
    """The bring-in can be neither checked nor folded (S5): under either policy a
    clock that runs out on it posts the bring-in, and the hand goes on."""
    order = stud_order([("Ah", "Ad", "2c"), ("7s", "8s", "Kd")])
    hand = room.start_hand(
        stud(policy),
        order=order,
        buy_ins=[1000, 1000],
        action_clock_ms=CLOCK_MS,
        connect_first=True,
    )
    hand.play(script({1: [None]}))  # then: call, checks
    hand.settle()
    first = hand.seen("action_taken")[0]
    assert (first.seat, first.action.kind, first.timeout) == (1, common.ACTION_KIND_BRING_IN, True)
    assert first.stack == 1000 - 10 - 25
    assert hand.moves()[1] == (2, "call")
    assert hand.final_stacks() == {1: 1035, 2: 965}  # aces win antes 20 + 50


# ---------------------------------------------------------------------- streams


def test_reconnect_mid_hand_gets_the_turn_back__S10(room: Room) -> None:
    """Seat 1 drops its stream while it must bring in; GetState and a new Play stream
    both show the same turn (same action_seq) and the seat's cards; the answer on the
    new stream is taken and the hand goes on.  A second connection of seat 2 replaces
    the first (ABORTED) and plays on."""
    order = stud_order([("Ah", "Ad", "2c"), ("7s", "8s", "Kd")])
    hand = room.start_hand(stud(), order=order, buy_ins=[1000, 1000], connect_first=True)
    one = hand.by_seat(1)
    hand_id, turn = one.next_turn()
    assert turn.legal.seat == 1 and common.ACTION_KIND_BRING_IN in turn.legal.kinds

    one.close(abrupt=True)
    state = one.state()
    assert state.hand_id == hand_id and state.to_act_seat == 1
    assert state.your_turn.action_seq == turn.action_seq
    snap = one.connect(hand.table_id)
    assert snap.hand_id == hand_id and snap.your_seat == 1
    assert snap.HasField("your_turn") and snap.your_turn.action_seq == turn.action_seq
    mine = next(s for s in snap.seats if s.seat == 1)
    assert list(mine.own_cards) == ["Ah", "Ad"] and list(mine.upcards) == ["2c"]
    theirs = next(s for s in snap.seats if s.seat == 2)
    assert list(theirs.own_cards) == [] and theirs.down_cards == 2
    one.act("bring_in")  # answers the Snapshot's turn

    two = hand.by_seat(2)
    replacement = two.twin()
    replacement.connect(hand.table_id)
    two.stream_done.wait(10)
    assert two.ended is not None and two.ended.code() == grpc.StatusCode.ABORTED
    hand.players[1] = replacement

    hand.play()  # seat 2 calls the bring-in, then everyone checks
    hand.settle()
    assert all(not a.timeout for a in hand.seen("action_taken"))
    assert hand.moves()[:2] == [(1, "bring_in"), (2, "call")]
    assert sum(hand.final_stacks().values()) == 2000


def test_state_after_the_draw_shows_draw_counts__D7(room: Room) -> None:
    """A reconnecting player's Snapshot (GetState) shows every seat's draw count until
    the first action after the draw, as the live DrawTaken events did (D7); it used
    to leave SeatView.draw_count unset."""
    order = draw_order(
        hands=[["Kc", "Kd", "Ks", "9c", "9d"], ["Jh", "Th", "9h", "8h", "7d"]]  # seats 2, 1
    )
    config = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)
    hand = room.start_hand(config, order=order, buy_ins=[2000, 2000], connect_first=True)
    states: list[dict[int, int | None]] = []

    def counts(snap: tpb.Snapshot) -> dict[int, int | None]:
        return {v.seat: v.draw_count if v.HasField("draw_count") else None for v in snap.seats}

    def policy(player: Player, hand_id: str, turn: tpb.YourTurn) -> common.Action | str:
        if len(player.of("draw_taken", hand_id)) == 2:  # after the draw
            states.append(counts(player.state()))
        return passive(player, hand_id, turn)

    hand.play(script({2: ["check", "discard 9c 9d"], 1: ["call", "discard 7d"]}, then=policy))
    hand.settle()
    # Seat 2 acts first after the draw (D3): both counts shown; after its check, none.
    assert states == [{1: 1, 2: 2}, {1: None, 2: None}]


def test_half_closed_play_stream_ends_ok(room: Room) -> None:
    """A player who half-closes the Play stream (done sending) gets a clean end with
    status OK (it used to end in an INTERNAL error the client never received, from
    ``context.abort`` with OK, and the stream hung)."""
    table_id = room.create_table(stud(), 2)
    player = room.register()
    player.connect(table_id)
    player.close()
    assert player.stream_done.is_set()
    assert player.ended is None  # the call finished with OK
    player.connect(table_id)  # and the player can come back
    player.close()
    assert player.ended is None


@pytest.mark.parametrize("delivery", [tpb.DELIVERY_EVERY_EVENT, tpb.DELIVERY_ON_TURN])
def test_both_deliveries_see_the_same_events(room: Room, delivery: tpb.Delivery.ValueType) -> None:
    """DELIVERY_ON_TURN batches the seat's events (unpacked by the client): the
    events and their order are those of the hand history."""
    order = stud_order([("Ah", "Ad", "2c"), ("7s", "8s", "Kd")])
    hand = room.start_hand(
        stud(), order=order, buy_ins=[1000, 1000], delivery=delivery, connect_first=True
    )
    hand.play()
    hand.settle()
    for player in hand.players:
        live = [e for e in player.events if e.hand_id == hand.hand_id and e.event_seq]
        history = hand.history(player.seat).events
        seqs = [e.event_seq for e in live]
        assert seqs == sorted(set(seqs)), seqs  # increasing: a client can spot a gap
        assert [e.WhichOneof("event") for e in live] == [e.WhichOneof("event") for e in history]
