# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""The betting service over real gRPC: state refs on a Batch stream, which let a
call name a state the stream already holds instead of sending it again.

Every hand is also played on the library: ``betting_support.py``.
"""

from __future__ import annotations

import queue

import grpc
import pytest

from poker.betting.v1 import betting_pb2 as pb
from poker.betting.v1.betting_pb2_grpc import BettingStub
from poker.common.v1 import common_pb2 as common
from poker.common.v1.batch_pb2 import Call, CallBatch, Reply
from poker_rules import Action, ActionKind, StudConfig, StudHand
from poker_rules.betting import new_state
from poker_wire.betting import action_to_pb
from service_kit.errors import NotFoundError
from services.betting.servicer import StateRefs
from tests.support.batching import call, response
from tests.support.metrics import scrape

from .betting_support import STUD, _opened_stud, code_of, same, third_street, upcards
from .process import ServiceProcess

# ------------------------------------------------------------------ state refs


class _Stream:
    """One Batch stream, a batch at a time (send, then read its reply)."""

    def __init__(self, betting: BettingStub) -> None:
        self._out: queue.Queue[CallBatch | None] = queue.Queue()
        self._replies = betting.Batch(iter(self._out.get, None), timeout=30)

    def ask(self, *calls: Call) -> list[Reply]:
        self._out.put(CallBatch(calls=calls))
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
    """A whole stud hand over one Batch stream, every call naming the
    last reply's state by its ref: each answer equals the unary answer to the same
    call with the state sent (the ref aside), and the hand plays out."""
    stream = _Stream(betting)
    hand = StudHand(StudConfig(), [5_000] * 3, seed=3)
    start = third_street(STUD, [5_000] * 3, hand)
    (first,) = stream.ask(call(1, "StartRound", start))
    reply = response(first, pb.ApplyActionResponse)
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
            (named,) = stream.ask(call(2, "ApplyAction", _by_ref(request, ref)))
            hand.act(action)
        else:
            if state.street >= 4:
                break  # seventh street's betting is over: the showdown is next
            start = pb.StartRoundRequest(state=state, street=hand.street, upcards=upcards(hand))
            unary = betting.StartRound(start, timeout=5)
            start.ClearField("state")
            start.state_ref = ref
            (named,) = stream.ask(call(2, "StartRound", start))
        calls += 1
        assert named.WhichOneof("result") == "response", named.error.message
        reply = response(named, pb.ApplyActionResponse)
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
    (opened,) = one.ask(call(1, "ApplyTimeout", pb.ApplyTimeoutRequest(state=state, version=0)))
    ref = response(opened, pb.ApplyActionResponse).state_ref
    after = response(opened, pb.ApplyActionResponse).state
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
        call(2, "ApplyAction", _by_ref(check, ref + "x")),
        call(3, "ApplyAction", _by_ref(check, ref)),
        call(4, "ApplyAction", _by_ref(complete, ref)),
    )
    assert unknown.error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert "send the state instead" in unknown.error.message
    assert refused.error.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert response(applied, pb.ApplyActionResponse).applied.kind == common.ACTION_KIND_COMPLETE
    (elsewhere,) = other.ask(call(1, "ApplyAction", _by_ref(complete, ref)))
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
    (twice,) = stream.ask(call(1, "ApplyAction", both))
    assert twice.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "not both" in twice.error.message
    (huge,) = stream.ask(
        call(
            2, "ApplyAction", pb.ApplyActionRequest(action=bring_in, seat=seat, state_ref="r" * 65)
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
    assert "Batch streams only" in details


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
