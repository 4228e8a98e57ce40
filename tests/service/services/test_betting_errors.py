# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S5)
"""The betting service over real gRPC: every refusal and its status code (an illegal
action, a wrong amount, out of turn, a stale version, a malformed request), and
the metrics that count actions and timeouts.

Every hand is also played on the library: ``betting_support.py``.
"""

from __future__ import annotations

from functools import partial

import grpc
import pytest

from poker.betting.v1 import betting_pb2 as pb
from poker.betting.v1.betting_pb2_grpc import BettingStub
from poker.common.v1 import common_pb2 as common
from tests.support.metrics import scrape

from .betting_support import SERVICE, STUD, _opened_stud, code_of, fresh
from .process import ServiceProcess


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
