# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""The betting service over real gRPC: its health and reflection, and full rounds
of every game, timeouts included.

Every hand is also played on the library: ``betting_support.py``.
"""

from __future__ import annotations

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
)
from poker_wire.betting import action_to_pb
from tests.support.health import SERVING, health_status, reflected_services

from .betting_support import SERVICE, STUD, act, fresh, same, third_street, upcards
from .process import ServiceProcess

HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=25, bring_in=50, small_bet=100, big_bet=200
)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=100, big_bet=200
)


# ------------------------------------------------------------------ plumbing


def test_betting_is_healthy_and_listed_by_reflection(betting_process: ServiceProcess) -> None:
    for checked in ("", SERVICE):
        assert health_status(betting_process, checked) == SERVING
    listed = reflected_services(betting_process)
    assert SERVICE in listed and "grpc.health.v1.Health" in listed


# ------------------------------------------------------------------ full rounds


def test_stud_hand_through_the_service_matches_the_library__S5_S6(betting: BettingStub) -> None:
    """Bring-in, completion, calls; every street opened with the upcards; to the river."""
    hand = StudHand(StudConfig(), [5_000] * 4, seed=11)
    opened = betting.StartRound(
        third_street(STUD, [5_000] * 4, hand),
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
        third_street(HILO, [5_000] * 3, hand),
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
        third_street(STUD, [5_000] * 3, hand),
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
