# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""The betting service over real gRPC: its Batch stream answers every call in order,
like the unary calls, several calls to a message.

Every hand is also played on the library: ``betting_support.py``.
"""

from __future__ import annotations

import grpc
import pytest

from poker.betting.v1 import betting_pb2 as pb
from poker.betting.v1.betting_pb2_grpc import BettingStub
from poker.common.v1 import common_pb2 as common
from poker.common.v1.batch_pb2 import CallBatch
from poker_rules import Action, ActionKind
from poker_wire.betting import action_to_pb
from tests.support.batching import call, response

from .betting_support import _opened_stud, act, code_of, same, upcards


def test_batch_answers_each_call_in_order_and_survives_refusals__S5(
    betting: BettingStub,
) -> None:
    """The Batch stream, a call per message: the same answers as the unary calls,
    matched by id; a refused call is an error reply, not the end of the stream."""
    state, hand = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    bring_in = common.Action(kind=common.ACTION_KIND_BRING_IN)
    check = common.Action(kind=common.ACTION_KIND_CHECK)
    requests = [
        call(7, "ApplyAction", pb.ApplyActionRequest(state=state, action=check, seat=seat)),
        call(8, "ApplyAction", pb.ApplyActionRequest(state=state, action=bring_in, seat=seat)),
        call(9, "LegalActions", pb.LegalActionsRequest(state=state)),
        call(10),  # no call at all
        call(11, "ApplyTimeout", pb.ApplyTimeoutRequest(state=state)),
    ]
    batches = betting.Batch(iter(CallBatch(calls=[c]) for c in requests), timeout=5)
    replies = [r for batch in batches for r in batch.replies]
    assert [r.id for r in replies] == [7, 8, 9, 10, 11]
    refused, applied, legal, empty, timed_out = replies
    assert refused.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert "allowed: bring_in 50, complete to 100" in refused.error.message
    unary = betting.ApplyAction(
        pb.ApplyActionRequest(state=state, action=bring_in, seat=seat), timeout=5
    )
    answered = response(applied, pb.ApplyActionResponse)
    assert answered.state_ref  # the stream names each state it returns
    answered.ClearField("state_ref")
    assert answered == unary
    hand.act(Action(ActionKind.BRING_IN))
    same(answered.state, hand)
    assert response(legal, pb.LegalActionsResponse).legal.seat == seat
    assert empty.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    timeout = response(timed_out, pb.ApplyActionResponse)
    assert timeout.applied.kind == common.ACTION_KIND_BRING_IN  # S10: posts it


def test_batches_answer_every_call_in_order_like_the_unary_calls__S5(
    betting: BettingStub,
) -> None:
    """Batch: several calls per message, answered by one message each with the
    replies in order, each as the unary call answers it; refusals stay per call,
    and an empty batch is INVALID_ARGUMENT (it ends the stream)."""
    state, _ = _opened_stud(betting)
    seat = state.players[state.to_act].seat
    bring_in = common.Action(kind=common.ACTION_KIND_BRING_IN)
    check = common.Action(kind=common.ACTION_KIND_CHECK)
    refused_call = pb.ApplyActionRequest(state=state, action=check, seat=seat)
    applied_call = pb.ApplyActionRequest(state=state, action=bring_in, seat=seat)
    legal_call = pb.LegalActionsRequest(state=state)
    calls = [
        call(1, "ApplyAction", refused_call),
        call(2, "ApplyAction", applied_call),
        call(3),
        call(4, "LegalActions", legal_call),
    ]
    batches = [CallBatch(calls=calls[:3]), CallBatch(calls=calls[3:])]
    replies = list(betting.Batch(iter(batches), timeout=5))
    assert [[r.id for r in reply.replies] for reply in replies] == [[1, 2, 3], [4]]
    refused, applied, empty = replies[0].replies
    code, details = code_of(lambda: betting.ApplyAction(refused_call, timeout=5))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert (refused.error.code, refused.error.message) == (code.value[0], details)
    # Batch names each state it returns (state_ref); otherwise the unary answer.
    answered = response(applied, pb.ApplyActionResponse)
    assert answered.state_ref
    answered.ClearField("state_ref")
    assert answered == betting.ApplyAction(applied_call, timeout=5)
    assert answered.applied.kind == common.ACTION_KIND_BRING_IN
    assert empty.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    (legal,) = replies[1].replies
    assert response(legal, pb.LegalActionsResponse) == betting.LegalActions(legal_call, timeout=5)

    with pytest.raises(grpc.RpcError) as error:
        list(betting.Batch(iter([CallBatch()]), timeout=5))
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
