# ruff: noqa: N802  (test names end with the RULES.md rule ID, e.g. __S5)
"""The betting service over real gRPC: full rounds of every game, timeouts, errors.

Each hand is also played on the library's own ``StudHand``/``DrawHand`` with the
same cards, and the service's state must be the hand's betting state at every step
(the wire round trip included).
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterator
from functools import partial

import grpc
import pytest
from grpc_health.v1 import health_pb2

from poker.betting.v1 import betting_pb2 as pb
from poker.betting.v1.betting_pb2_grpc import BettingStub
from poker.common.v1 import common_pb2 as common
from poker_rules import (
    Action,
    ActionKind,
    DrawConfig,
    DrawHand,
    Structure,
    StudConfig,
    StudHand,
    TimeoutPolicy,
    card_str,
)
from poker_rules.betting import new_state, snapshot
from poker_wire.betting import action_to_pb, state_from_pb
from service_kit.errors import NotFoundError
from services.betting.servicer import StateRefs
from tests.typed_grpc import health_stub

from .process import ServiceProcess
from .test_service_plumbing import reflected_services, scrape

SERVICE = "poker.betting.v1.Betting"
STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=25, bring_in=50, small_bet=100, big_bet=200
)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=100, big_bet=200
)


@pytest.fixture
def betting(betting_process: ServiceProcess) -> Iterator[BettingStub]:
    with grpc.insecure_channel(betting_process.target) as channel:
        yield BettingStub(channel)


def fresh(config: common.GameConfig, stacks: list[int]) -> pb.BettingState:
    """A hand before anything is posted: seats 1..n, version 0."""
    return pb.BettingState(
        config=config,
        phase=pb.PHASE_BETTING,
        players=[pb.PlayerBetting(seat=i + 1, stack=s) for i, s in enumerate(stacks)],
    )


def same(state: pb.BettingState, hand: StudHand | DrawHand) -> None:
    assert state_from_pb(state)[0] == snapshot(hand)


def act(
    betting: BettingStub, state: pb.BettingState, action: Action, hand: StudHand | DrawHand
) -> pb.ApplyActionResponse:
    seat = state.players[state.to_act].seat
    reply: pb.ApplyActionResponse = betting.ApplyAction(
        pb.ApplyActionRequest(
            state=state, action=action_to_pb(action), seat=seat, version=state.version
        ),
        timeout=5,
    )
    hand.act(action)
    return reply


def upcards(hand: StudHand) -> list[pb.UpCards]:
    return [pb.UpCards(cards=[card_str(c) for c in board]) for board in hand.boards]


def code_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    return error.code(), error.details() or ""


# ------------------------------------------------------------------ plumbing


def test_betting_is_healthy_and_listed_by_reflection(betting_process: ServiceProcess) -> None:
    with grpc.insecure_channel(betting_process.target) as channel:
        health = health_stub(channel)
        for checked in ("", SERVICE):
            reply = health.Check(health_pb2.HealthCheckRequest(service=checked), timeout=5)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
    listed = reflected_services(betting_process.target)
    assert SERVICE in listed and "grpc.health.v1.Health" in listed


# ------------------------------------------------------------------ full rounds


def test_stud_hand_through_the_service_matches_the_library__S5_S6(betting: BettingStub) -> None:
    """Bring-in, completion, calls; every street opened with the upcards; to the river."""
    hand = StudHand(StudConfig(), [5_000] * 4, seed=11)
    opened = betting.StartRound(
        pb.StartRoundRequest(
            state=fresh(STUD, [5_000] * 4),
            street=0,
            upcards=[pb.UpCards(cards=[card_str(c[2])]) for c in hand.cards],
        ),
        timeout=5,
    )
    state = opened.state
    same(state, hand)
    assert state.to_act == hand.bring_in_player and state.bring_in_due
    legal = betting.LegalActions(pb.LegalActionsRequest(state=state), timeout=5).legal
    assert legal.description == "bring_in 50, complete to 100"
    assert legal.seat == hand.bring_in_player + 1
    streets = 0
    while not hand.is_over:
        menu = hand.legal_actions()
        if ActionKind.BRING_IN in menu.kinds:
            action = Action.bring_in()
        elif menu.raise_kind is ActionKind.COMPLETE:
            action = Action.complete(100)
        else:
            action = Action.check() if menu.can_check else Action.call()
        reply = act(betting, state, action, hand)
        assert reply.applied == action_to_pb(action)
        state = reply.state
        if reply.state.HasField("to_act") or hand.is_over:
            if not hand.is_over:
                same(state, hand)
            continue
        assert reply.round_complete and reply.pots
        streets += 1
        opened = betting.StartRound(
            pb.StartRoundRequest(state=state, street=hand.street, upcards=upcards(hand)),
            timeout=5,
        )
        state = opened.state
        same(state, hand)
    assert streets == 4 and hand.result is not None
    assert [p.amount for p in reply.pots] == [p.amount for p in hand.result.pots]


def test_stud_hilo_round_everyone_folds_to_the_completion__G6(betting: BettingStub) -> None:
    hand = StudHand(StudConfig(hi_lo=True), [5_000] * 3, seed=5)
    state = betting.StartRound(
        pb.StartRoundRequest(
            state=fresh(HILO, [5_000] * 3),
            street=0,
            upcards=[pb.UpCards(cards=[card_str(c[2])]) for c in hand.cards],
        ),
        timeout=5,
    ).state
    state = act(betting, state, Action.bring_in(), hand).state
    state = act(betting, state, Action.complete(100), hand).state
    reply = act(betting, state, Action.fold(), hand)
    reply = act(betting, reply.state, Action.fold(), hand)
    assert reply.hand_complete and reply.round_complete and hand.result is not None
    winner = hand.result.awards[0].player
    assert reply.uncalled_seat == winner + 1 and reply.uncalled_amount == 50  # G6
    assert [(a.seat, a.amount) for a in reply.awards] == [(winner + 1, 3 * 25 + 50 + 50)]
    assert reply.state.phase == pb.PHASE_COMPLETE
    assert [p.stack for p in reply.state.players] == hand.result.final_stacks


def test_draw_no_limit_hand_with_draw_and_second_round__D5_D6_D7(betting: BettingStub) -> None:
    config = DrawConfig(structure=Structure.NO_LIMIT)
    hand = DrawHand(config, [10_000] * 3, seed=3)
    reply = betting.StartRound(
        pb.StartRoundRequest(state=fresh(DRAW_NL, [10_000] * 3), street=0), timeout=5
    )
    state = reply.state
    same(state, hand)
    state = act(betting, state, Action.raise_to(300), hand).state  # left of the big blind
    state = act(betting, state, Action.call(), hand).state
    reply = act(betting, state, Action.call(), hand)  # the big blind closes the round
    assert reply.round_complete and reply.state.phase == pb.PHASE_DRAWING
    assert [p.amount for p in reply.pots] == [900]
    state = reply.state
    for _ in range(3):  # the dealer replaces the cards; the service passes the turn
        assert hand.to_act is not None
        held = hand.hands[hand.to_act]
        state = act(betting, state, Action.discard(held[:2]), hand).state
    assert state.phase == pb.PHASE_BETTING and state.street == 1
    same(state, hand)
    legal = betting.LegalActions(pb.LegalActionsRequest(state=state), timeout=5).legal
    assert legal.can_fold and legal.can_check  # D7: fold even when checking is free
    assert legal.min_to == 100 and legal.max_to == 9_700
    state = act(betting, state, Action.check(), hand).state
    state = act(betting, state, Action.bet(500), hand).state
    state = act(betting, state, Action.fold(), hand).state
    reply = act(betting, state, Action.call(), hand)
    assert reply.round_complete and not reply.HasField("uncalled_seat")
    assert not reply.state.HasField("to_act") and hand.is_over  # the showdown is due
    assert hand.result is not None
    assert [p.amount for p in reply.pots] == [p.amount for p in hand.result.pots] == [1_900]


def test_timeouts_under_each_policy__S10(betting: BettingStub) -> None:
    hand = StudHand(StudConfig(), [5_000] * 3, seed=11)
    state = betting.StartRound(
        pb.StartRoundRequest(
            state=fresh(STUD, [5_000] * 3),
            street=0,
            upcards=[pb.UpCards(cards=[card_str(c[2])]) for c in hand.cards],
        ),
        timeout=5,
    ).state
    reply = betting.ApplyTimeout(pb.ApplyTimeoutRequest(state=state, version=0), timeout=5)
    assert reply.applied.kind == common.ACTION_KIND_BRING_IN  # forced (S5)
    hand.timeout()
    state = reply.state
    state = act(betting, state, Action.complete(100), hand).state
    reply = betting.ApplyTimeout(pb.ApplyTimeoutRequest(state=state, version=2), timeout=5)
    assert reply.applied.kind == common.ACTION_KIND_FOLD  # no voluntary chips: folded
    hand.timeout()
    same(reply.state, hand)
    # The bring-in calls, then times out on fourth street facing a bet: protected.
    state = act(betting, reply.state, Action.call(), hand).state
    state = betting.StartRound(
        pb.StartRoundRequest(state=state, street=1, upcards=upcards(hand)), timeout=5
    ).state
    same(state, hand)
    menu = hand.legal_actions()
    assert menu.raise_kind is ActionKind.BET
    state = act(betting, state, Action.bet(menu.to_choices[0]), hand).state
    waiting = state.to_act
    reply = betting.ApplyTimeout(
        pb.ApplyTimeoutRequest(state=state, version=state.version), timeout=5
    )
    assert hand.timeout() is None and not reply.HasField("applied")  # all-in protection
    assert reply.state.players[waiting].protected and reply.state.players[waiting].all_in
    assert reply.betting_closed and reply.round_complete  # deal out to the showdown (S12)
    assert hand.is_over and hand.result is not None
    assert [p.amount for p in reply.pots] == [p.amount for p in hand.result.pots]


def test_check_or_fold_timeout_checks_when_free__S10(betting: BettingStub) -> None:
    config = DrawConfig(timeout_policy=TimeoutPolicy.CHECK_OR_FOLD)
    wire = common.GameConfig(
        game=common.GAME_DRAW_7A,
        small_bet=100,
        big_bet=200,
        timeout_policy=common.TIMEOUT_POLICY_CHECK_OR_FOLD,
    )
    hand = DrawHand(config, [1_000] * 2, seed=1)
    state = betting.StartRound(
        pb.StartRoundRequest(state=fresh(wire, [1_000] * 2), street=0), timeout=5
    ).state
    state = act(betting, state, Action.call(), hand).state  # heads-up: the button calls
    reply = betting.ApplyTimeout(
        pb.ApplyTimeoutRequest(state=state, version=state.version), timeout=5
    )
    assert reply.applied.kind == common.ACTION_KIND_CHECK  # the big blind's free option
    hand.timeout()
    same(reply.state, hand)


# ------------------------------------------------------------------ errors


def _opened_stud(betting: BettingStub, seed: int = 11) -> tuple[pb.BettingState, StudHand]:
    hand = StudHand(StudConfig(), [5_000] * 3, seed=seed)
    state = betting.StartRound(
        pb.StartRoundRequest(
            state=fresh(STUD, [5_000] * 3),
            street=0,
            upcards=[pb.UpCards(cards=[card_str(c[2])]) for c in hand.cards],
        ),
        timeout=5,
    ).state
    return state, hand


def test_illegal_action_is_failed_precondition_with_the_menu__S5(betting: BettingStub) -> None:
    state, _ = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    code, details = code_of(
        lambda: betting.ApplyAction(
            pb.ApplyActionRequest(
                state=state, action=common.Action(kind=common.ACTION_KIND_CHECK), seat=seat
            ),
            timeout=5,
        )
    )
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert "allowed: bring_in 50, complete to 100" in details


def test_wrong_amount_is_failed_precondition__S7(betting: BettingStub) -> None:
    state, _ = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    code, details = code_of(
        lambda: betting.ApplyAction(
            pb.ApplyActionRequest(
                state=state,
                action=common.Action(kind=common.ACTION_KIND_COMPLETE, amount=150),
                seat=seat,
            ),
            timeout=5,
        )
    )
    assert code is grpc.StatusCode.FAILED_PRECONDITION and "exactly 100" in details


def test_out_of_turn_is_failed_precondition(betting: BettingStub) -> None:
    state, _ = _opened_stud(betting)
    other = state.players[(state.to_act + 1) % 3].seat
    code, details = code_of(
        lambda: betting.ApplyAction(
            pb.ApplyActionRequest(
                state=state, action=common.Action(kind=common.ACTION_KIND_FOLD), seat=other
            ),
            timeout=5,
        )
    )
    assert code is grpc.StatusCode.FAILED_PRECONDITION
    assert f"seat {state.to_act + 1}'s turn" in details and "bring_in 50" in details


def test_stale_version_is_failed_precondition(betting: BettingStub) -> None:
    state, _ = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    bring_in = common.Action(kind=common.ACTION_KIND_BRING_IN)
    after = betting.ApplyAction(
        pb.ApplyActionRequest(state=state, action=bring_in, seat=seat, version=0), timeout=5
    ).state
    assert after.version == 1
    for request in (
        pb.ApplyActionRequest(state=after, action=bring_in, seat=seat, version=0),
        pb.ApplyActionRequest(state=state, action=bring_in, seat=seat, version=1),
    ):
        code, details = code_of(partial(betting.ApplyAction, request, timeout=5))
        assert code is grpc.StatusCode.FAILED_PRECONDITION and "stale version" in details
    code, _ = code_of(
        lambda: betting.ApplyTimeout(pb.ApplyTimeoutRequest(state=after, version=7), timeout=5)
    )
    assert code is grpc.StatusCode.FAILED_PRECONDITION


def test_nobody_to_act_is_failed_precondition(betting: BettingStub) -> None:
    state = fresh(STUD, [5_000] * 3)
    code, details = code_of(
        lambda: betting.LegalActions(pb.LegalActionsRequest(state=state), timeout=5)
    )
    assert code is grpc.StatusCode.FAILED_PRECONDITION and "no action" in details
    code, _ = code_of(
        lambda: betting.StartRound(
            pb.StartRoundRequest(state=state, street=2, upcards=[]), timeout=5
        )
    )
    assert code is grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.ClearField("state"),
        lambda r: r.state.players[0].__setattr__("stack", -5),
        lambda r: r.state.players[0].__setattr__("stack", 10**15),
        lambda r: r.state.__setattr__("phase", 0),
        lambda r: r.state.__setattr__("phase", 42),
        lambda r: r.state.config.__setattr__("game", 0),
        lambda r: r.state.__setattr__("to_act", 9),
        lambda r: r.state.players[1].__setattr__("seat", 1),
        lambda r: r.state.players[0].__setattr__("bet", 10**6),
        lambda r: r.state.__setattr__("street", 7),
        lambda r: r.action.__setattr__("kind", 99),
        lambda r: r.action.__setattr__("amount", -1),
        lambda r: r.ClearField("action"),
        lambda r: r.action.cards.append("Xx"),
        lambda r: r.__setattr__("seat", 0),
        lambda r: r.state.players[r.state.to_act].__setattr__("folded", True),
        lambda r: r.state.__setattr__("bring_in_player", 5),
        lambda r: r.then_start.__setattr__("street", 9),
        lambda r: r.then_start.upcards.add(cards=["Xx"]),
        lambda r: r.then_start.upcards.add(cards=["As", "Ks", "Qs", "Js", "Ts"]),
    ],
)
def test_malformed_request_is_invalid_argument(betting: BettingStub, mutate: object) -> None:
    state, _ = _opened_stud(betting)
    request = pb.ApplyActionRequest(
        state=state,
        action=common.Action(kind=common.ACTION_KIND_BRING_IN),
        seat=state.players[state.to_act].seat,
    )
    mutate(request)  # type: ignore[operator]
    code, _ = code_of(lambda: betting.ApplyAction(request, timeout=5))
    assert code is grpc.StatusCode.INVALID_ARGUMENT


def test_metrics_count_actions_by_kind_and_timeouts(
    betting: BettingStub, betting_process: ServiceProcess
) -> None:
    state, _ = _opened_stud(betting)
    betting.ApplyTimeout(pb.ApplyTimeoutRequest(state=state, version=0), timeout=5)
    betting.ApplyAction(
        pb.ApplyActionRequest(
            state=state,
            action=common.Action(kind=common.ACTION_KIND_BRING_IN),
            seat=state.players[state.to_act].seat,
        ),
        timeout=5,
    )
    samples = scrape(betting_process)
    assert samples[("betting_actions_total", (("game", "stud"), ("kind", "bring_in")))] >= 1
    assert samples[("betting_timeouts_total", (("game", "stud"), ("outcome", "bring_in")))] >= 1
    assert samples[("betting_rounds_started_total", (("game", "stud"), ("street", "third")))] >= 1
    handled = (
        ("grpc_code", "OK"),
        ("grpc_method", "ApplyAction"),
        ("grpc_service", SERVICE),
        ("grpc_type", "UNARY"),
    )
    assert samples[("grpc_server_handled_total", handled)] >= 1


def test_session_answers_each_call_in_order_and_survives_refusals__S5(
    betting: BettingStub,
) -> None:
    """The Session stream: the same answers as the unary calls, matched by id; a
    refused call is an error message, not the end of the stream."""
    state, hand = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    bring_in = common.Action(kind=common.ACTION_KIND_BRING_IN)
    check = common.Action(kind=common.ACTION_KIND_CHECK)
    requests = [
        pb.SessionRequest(
            id=7,
            apply_action=pb.ApplyActionRequest(state=state, action=check, seat=seat),
        ),
        pb.SessionRequest(
            id=8,
            apply_action=pb.ApplyActionRequest(state=state, action=bring_in, seat=seat),
        ),
        pb.SessionRequest(id=9, legal_actions=pb.LegalActionsRequest(state=state)),
        pb.SessionRequest(id=10),  # no call at all
        pb.SessionRequest(id=11, apply_timeout=pb.ApplyTimeoutRequest(state=state)),
    ]
    replies = list(betting.Session(iter(requests), timeout=5))
    assert [r.id for r in replies] == [7, 8, 9, 10, 11]
    refused, applied, legal, empty, timed_out = replies
    assert refused.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert "allowed: bring_in 50, complete to 100" in refused.error.message
    unary = betting.ApplyAction(
        pb.ApplyActionRequest(state=state, action=bring_in, seat=seat), timeout=5
    )
    assert applied.response == unary
    hand.act(Action(ActionKind.BRING_IN))
    same(applied.response.state, hand)
    assert legal.legal_actions.legal.seat == seat
    assert empty.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert timed_out.response.applied.kind == common.ACTION_KIND_BRING_IN  # S10: posts it


def test_session_batches_answer_every_call_in_order_like_session__S5(
    betting: BettingStub,
) -> None:
    """SessionBatches: the same calls as Session, several per message, answered by
    one message each with the replies in order; refusals stay per call, and an
    empty batch is INVALID_ARGUMENT (it ends the stream)."""
    state, _ = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    bring_in = common.Action(kind=common.ACTION_KIND_BRING_IN)
    check = common.Action(kind=common.ACTION_KIND_CHECK)
    calls = [
        pb.SessionRequest(
            id=1, apply_action=pb.ApplyActionRequest(state=state, action=check, seat=seat)
        ),
        pb.SessionRequest(
            id=2, apply_action=pb.ApplyActionRequest(state=state, action=bring_in, seat=seat)
        ),
        pb.SessionRequest(id=3),
        pb.SessionRequest(id=4, legal_actions=pb.LegalActionsRequest(state=state)),
    ]
    batches = [pb.SessionBatch(calls=calls[:3]), pb.SessionBatch(calls=calls[3:])]
    replies = list(betting.SessionBatches(iter(batches), timeout=5))
    assert [[r.id for r in reply.replies] for reply in replies] == [[1, 2, 3], [4]]
    one_by_one = list(betting.Session(iter(calls), timeout=5))
    batched = [r for reply in replies for r in reply.replies]
    # SessionBatches names each state it returns (state_ref); otherwise the same.
    assert batched[1].response.state_ref and not one_by_one[1].response.state_ref
    for r in batched:
        if r.WhichOneof("result") == "response":
            r.response.ClearField("state_ref")
    assert batched == one_by_one
    refused, applied, empty = replies[0].replies
    assert refused.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert applied.response.applied.kind == common.ACTION_KIND_BRING_IN
    assert empty.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]

    with pytest.raises(grpc.RpcError) as error:
        list(betting.SessionBatches(iter([pb.SessionBatch()]), timeout=5))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at least one call" in (error.value.details() or "")


def test_then_start_opens_seventh_street_with_the_action__S6_S11(betting: BettingStub) -> None:
    """A stud hand checked and called to sixth street: the menu's closes_round names
    the closing call or check; ApplyAction with then_start (seventh street, sixth
    street's upcards) answers what ApplyAction then StartRound answer, in one call."""
    state, hand = _opened_stud(betting, seed=5)
    legal = betting.LegalActions(pb.LegalActionsRequest(state=state), timeout=5).legal
    closing_seen = 0
    while True:
        menu = hand.legal_actions()
        action = (
            Action.bring_in()
            if ActionKind.BRING_IN in menu.kinds
            else Action.check()
            if menu.can_check
            else Action.call()
        )
        kind = action_to_pb(action).kind
        if hand.street == 3 and kind in legal.closes_round:  # sixth street closes
            seat = state.players[state.to_act].seat
            request = pb.ApplyActionRequest(
                state=state, action=action_to_pb(action), seat=seat, version=state.version
            )
            separate = betting.ApplyAction(request, timeout=5)
            hand.act(action)
            opened = betting.StartRound(
                pb.StartRoundRequest(state=separate.state, street=4, upcards=upcards(hand)),
                timeout=5,
            )
            request.then_start.CopyFrom(pb.StartRoundRequest(street=4, upcards=upcards(hand)))
            both = betting.ApplyAction(request, timeout=5)
            assert both.next_round_started and not separate.next_round_started
            assert both.state == opened.state and both.legal == opened.legal
            assert both.applied == separate.applied and both.pots == separate.pots
            assert both.round_complete
            assert not both.legal.closes_round  # seventh street: nothing is dealt next
            return
        reply = act(betting, state, action, hand)
        assert (kind in legal.closes_round) == (reply.round_complete and not reply.hand_complete)
        closing_seen += kind in legal.closes_round
        state, legal = reply.state, reply.legal
        if not reply.round_complete:
            continue
        opened_street = betting.StartRound(
            pb.StartRoundRequest(state=state, street=hand.street, upcards=upcards(hand)),
            timeout=5,
        )
        state, legal = opened_street.state, opened_street.legal
        assert closing_seen == hand.street  # each street so far closed by a named kind


# ------------------------------------------------------------------ state refs


class _Stream:
    """One SessionBatches stream, a batch at a time (send, then read its reply)."""

    def __init__(self, betting: BettingStub) -> None:
        self._out: queue.Queue[pb.SessionBatch | None] = queue.Queue()
        self._replies = betting.SessionBatches(iter(self._out.get, None), timeout=30)

    def ask(self, *calls: pb.SessionRequest) -> list[pb.SessionResponse]:
        self._out.put(pb.SessionBatch(calls=calls))
        return list(next(self._replies).replies)

    def close(self) -> None:
        self._out.put(None)
        for _ in self._replies:
            pass


def _by_ref(request: pb.ApplyActionRequest, ref: str) -> pb.ApplyActionRequest:
    named = pb.ApplyActionRequest()
    named.CopyFrom(request)
    named.ClearField("state")
    named.state_ref = ref
    return named


def test_a_state_ref_answers_exactly_as_the_state_it_names__S5_S6(betting: BettingStub) -> None:
    """A whole stud hand over one SessionBatches stream, every call naming the
    last reply's state by its ref: each answer equals the unary answer to the same
    call with the state sent (the ref aside), and the hand plays out."""
    stream = _Stream(betting)
    hand = StudHand(StudConfig(), [5_000] * 3, seed=3)
    start = pb.StartRoundRequest(
        state=fresh(STUD, [5_000] * 3),
        street=0,
        upcards=[pb.UpCards(cards=[card_str(c[2])]) for c in hand.cards],
    )
    (first,) = stream.ask(pb.SessionRequest(id=1, start_round=start))
    reply = first.response
    calls = 1
    while not reply.hand_complete:
        ref, state = reply.state_ref, reply.state
        assert ref, "every state from the stream has a ref"
        if reply.HasField("legal"):
            menu = hand.legal_actions()
            action = Action.bring_in() if ActionKind.BRING_IN in menu.kinds else Action.call()
            if menu.can_check:
                action = Action.check()
            request = pb.ApplyActionRequest(
                state=state,
                action=action_to_pb(action),
                seat=state.players[state.to_act].seat,
                version=state.version,
            )
            unary = betting.ApplyAction(request, timeout=5)
            (named,) = stream.ask(pb.SessionRequest(id=2, apply_action=_by_ref(request, ref)))
            hand.act(action)
        else:
            if state.street >= 4:
                break  # seventh street's betting is over: the showdown is next
            start = pb.StartRoundRequest(state=state, street=hand.street, upcards=upcards(hand))
            unary = betting.StartRound(start, timeout=5)
            start.ClearField("state")
            start.state_ref = ref
            (named,) = stream.ask(pb.SessionRequest(id=2, start_round=start))
        calls += 1
        assert named.WhichOneof("result") == "response", named.error.message
        reply = named.response
        answered = pb.ApplyActionResponse()
        answered.CopyFrom(reply)
        answered.ClearField("state_ref")
        assert answered == unary
        assert reply.state_ref != ref
        if reply.HasField("legal"):  # mid-round (the library hand deals on by itself)
            same(reply.state, hand)
    stream.close()
    assert calls > 10


def test_state_refs_are_per_stream_and_a_refusal_keeps_them(
    betting: BettingStub, betting_process: ServiceProcess
) -> None:
    """An unknown ref is NOT_FOUND and the stream goes on; a ref from another
    stream is unknown; a refused action (FAILED_PRECONDITION) forgets nothing, so
    the same ref then serves the right action.  Both outcomes are counted."""
    before = scrape(betting_process)
    state, _ = _opened_stud(betting)  # the bring-in's clock runs out: it is posted
    one, other = _Stream(betting), _Stream(betting)
    (opened,) = one.ask(
        pb.SessionRequest(id=1, apply_timeout=pb.ApplyTimeoutRequest(state=state, version=0))
    )
    ref = opened.response.state_ref
    after = opened.response.state
    mover = after.players[after.to_act].seat
    check = pb.ApplyActionRequest(
        action=common.Action(kind=common.ACTION_KIND_CHECK), seat=mover, version=after.version
    )
    complete = pb.ApplyActionRequest(
        action=common.Action(kind=common.ACTION_KIND_COMPLETE, amount=100),
        seat=mover,
        version=after.version,
    )
    unknown, refused, applied = one.ask(
        pb.SessionRequest(id=2, apply_action=_by_ref(check, ref + "x")),
        pb.SessionRequest(id=3, apply_action=_by_ref(check, ref)),
        pb.SessionRequest(id=4, apply_action=_by_ref(complete, ref)),
    )
    assert unknown.error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert "send the state instead" in unknown.error.message
    assert refused.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert applied.response.applied.kind == common.ACTION_KIND_COMPLETE
    (elsewhere,) = other.ask(pb.SessionRequest(id=1, apply_action=_by_ref(complete, ref)))
    assert elsewhere.error.code == grpc.StatusCode.NOT_FOUND.value[0]
    one.close()
    other.close()
    counted = scrape(betting_process)
    for result, more in (("found", 2), ("unknown", 2)):
        key = ("betting_state_refs_total", (("result", result),))
        assert counted[key] - before.get(key, 0) == more


def test_state_ref_misuse_is_invalid_argument(betting: BettingStub) -> None:
    """A ref with the state, a ref on a unary call, an oversized ref."""
    state, _ = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    bring_in = common.Action(kind=common.ACTION_KIND_BRING_IN)
    both = pb.ApplyActionRequest(state=state, action=bring_in, seat=seat, state_ref="a-1")
    stream = _Stream(betting)
    (twice,) = stream.ask(pb.SessionRequest(id=1, apply_action=both))
    assert twice.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "not both" in twice.error.message
    (huge,) = stream.ask(
        pb.SessionRequest(
            id=2,
            apply_action=pb.ApplyActionRequest(action=bring_in, seat=seat, state_ref="r" * 65),
        )
    )
    assert huge.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    stream.close()
    code, details = code_of(
        lambda: betting.ApplyAction(
            pb.ApplyActionRequest(action=bring_in, seat=seat, state_ref="a-1"), timeout=5
        )
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "SessionBatches streams only" in details


def test_a_stream_remembers_its_last_states_only() -> None:
    """StateRefs: the most recently used STATE_REFS states; older ones are NOT_FOUND."""
    refs = StateRefs(size=2)
    state = new_state(StudConfig(), [100, 100])
    a = refs.remember(state, [1, 2])
    b = refs.remember(state, [1, 2])
    assert refs.recall(a) == (state, [1, 2])  # a is now the most recent
    c = refs.remember(state, [3, 4])
    assert refs.recall(c) == (state, [3, 4]) and refs.recall(a)
    with pytest.raises(NotFoundError, match="remembers the last 2 states"):
        refs.recall(b)
    assert len({a, b, c}) == 3
    assert a.split("-")[0] != StateRefs().remember(state, [1, 2]).split("-")[0]  # per stream
