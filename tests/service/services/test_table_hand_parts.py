# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S10)
"""The hand runner's small parts on their own: the betting session and the turn box.

``BettingSession`` owns the betting state and its name on the betting stream: a
name the service does not know (it restarted, the stream reconnected) is
NOT_FOUND and the call goes again with the state, the runner never seeing it.
``TurnBox`` is the seat's pending answer between the player's stream and the
runner, with the action clock.  Both against the real ``BettingServicer``
in-process (no network).
"""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from service_kit.errors import status_of
from services.betting.servicer import ERROR_CODES, BettingServicer, StateRefs
from services.table import facts as f
from services.table.betting_session import BettingSession
from services.table.calls import HandCalls, HandVoided
from services.table.clients import DownstreamError
from services.table.hand import Hand
from services.table.turns import TurnBox

K = common.ActionKind
STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
DOORS = [["Kd"], ["2c"], ["9s"]]  # seat 2 brings in (S5)


class RecordingBetting:
    """``Downstream.call`` for the betting service: the real servicer, the refs of
    one Batch stream (``restart`` forgets them), every request kept."""

    def __init__(self) -> None:
        self.servicer = BettingServicer()
        self.refs = StateRefs()
        self.requests: list[Any] = []

    def restart(self) -> None:
        self.refs = StateRefs()

    async def call(self, service: str, method: str, request: Any) -> Any:
        assert service == "betting"
        sent = type(request).FromString(request.SerializeToString())
        self.requests.append(sent)
        try:
            return await getattr(self.servicer, method)(sent, None, refs=self.refs)
        except Exception as error:
            status = status_of(error, ERROR_CODES)
            if status is None:
                raise
            raise DownstreamError(*status) from error


def session(betting: RecordingBetting) -> tuple[BettingSession, HandCalls]:
    calls = HandCalls(betting)  # type: ignore[arg-type]
    return BettingSession(calls, STUD, [1, 2, 3], [1_000, 1_000, 1_000]), calls


def test_the_session_names_its_state_and_resends_it_when_the_name_is_unknown__S5() -> None:
    async def run() -> None:
        betting = RecordingBetting()
        bets, calls = session(betting)
        step = await bets.start_round(0, DOORS)
        assert step.legal is not None and step.legal.seat == 2  # S5: the 2c brings in
        assert betting.requests[0].HasField("state")  # nothing named yet: the state goes
        betting.restart()  # the stream's refs are gone (betting restarted)
        step = await bets.apply(2, common.Action(kind=K.ACTION_KIND_BRING_IN), None)
        named, resent = betting.requests[1:]
        assert named.state_ref and not named.HasField("state")
        assert resent.HasField("state") and not resent.state_ref
        assert calls.count == 3 and bets.version == 1
        assert step.legal is not None and step.legal.seat == 3
        # The state is the service's answer: the antes (S3) and the bring-in.
        assert [p.stack for p in bets.players] == [975, 925, 975]
        await bets.apply(3, common.Action(kind=K.ACTION_KIND_CALL), None)
        assert betting.requests[-1].state_ref and calls.count == 4  # named again

    asyncio.run(run())


def test_a_refused_action_changes_nothing_and_is_the_callers_to_report__S5() -> None:
    async def run() -> None:
        betting = RecordingBetting()
        bets, _ = session(betting)
        await bets.start_round(0, DOORS)
        with pytest.raises(DownstreamError) as refused:
            await bets.apply(2, common.Action(kind=K.ACTION_KIND_CHECK), None)
        assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert bets.version == 0  # the turn goes on: same state, same version
        step = await bets.apply(2, common.Action(kind=K.ACTION_KIND_BRING_IN), None)
        assert step.applied.kind == K.ACTION_KIND_BRING_IN

    asyncio.run(run())


def test_a_refused_round_opening_voids_the_hand() -> None:
    async def run() -> None:
        bets, _ = session(RecordingBetting())
        with pytest.raises(HandVoided, match=r"betting\.StartRound: INVALID_ARGUMENT"):
            await bets.start_round(0, [["Kd"], ["Kd"]])  # two doors for three players

    asyncio.run(run())


def _turn(seat: int = 1, action_seq: int = 0) -> f.Turn:
    legal = common.LegalActions(seat=seat, kinds=[K.ACTION_KIND_CHECK, K.ACTION_KIND_FOLD])
    return f.Turn(seat, action_seq, legal, 0)


def test_the_turn_box_gives_the_answer_or_none_when_the_clock_runs_out__S10() -> None:
    async def run() -> None:
        loop = asyncio.get_running_loop()
        box = TurnBox()
        box.open(_turn())
        box.post(common.Action(kind=K.ACTION_KIND_CHECK))  # answered at once
        answer = await box.answer(loop.time() + 60)
        assert answer is not None and answer.kind == K.ACTION_KIND_CHECK and box.answered
        box.drop()  # refused: the same turn waits again, on the same clock
        assert box.turn is not None and not box.answered
        assert await box.answer(loop.time() + 0.01) is None  # the clock ran out
        loop.call_later(0.01, box.post, common.Action(kind=K.ACTION_KIND_FOLD))
        late = await box.answer(loop.time() + 60)  # woken by the post
        assert late is not None and late.kind == K.ACTION_KIND_FOLD
        box.close()
        assert box.turn is None and not box.answered

    asyncio.run(run())


def test_the_hand_takes_one_answer_per_turn_and_checks_it_against_the_turn() -> None:
    hand = Hand("t", "h", STUD, [1, 2], ["a", "b"], ["A", "B"], [1_000, 1_000])
    check = common.Action(kind=K.ACTION_KIND_CHECK)
    assert hand.offer(1, "h", 0, check) is not None  # nobody to act yet
    hand.turns.open(_turn(seat=1, action_seq=3))
    refused = hand.offer(2, "h", 3, check)
    assert refused is not None and "seat 1's turn" in refused[1]
    refused = hand.offer(1, "h", 2, check)
    assert refused is not None and "action_seq 2" in refused[1]
    refused = hand.offer(1, "h", 3, common.Action(kind=K.ACTION_KIND_RAISE, amount=100))
    assert refused is not None and "not allowed now" in refused[1]
    assert hand.offer(1, "h", 3, check) is None
    refused = hand.offer(1, "h", 3, check)
    assert refused is not None and "already being applied" in refused[1]
    assert hand.turn is not None and hand.turn.seat == 1
    assert list(hand.chips) == [] and hand.pots == []  # no betting yet: start stacks stand
