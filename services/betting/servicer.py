"""The Betting gRPC servicer: validate (poker_wire), ask poker_rules.betting, answer.

Every rule decision is the library's; this module only checks the request, maps
seats to player indexes, refuses a stale ``version`` and counts.  The library
raises ``IllegalActionError`` (FAILED_PRECONDITION, its message lists what is
allowed) for an action off the menu or out of turn; nothing is kept between calls,
so an error changes nothing.  (A SessionBatches stream remembers the states it
returned, so that the caller may name them instead of sending them back: see
``StateRefs``; nothing outlives the stream.)
"""

from __future__ import annotations

import functools
import secrets
from collections import OrderedDict
from collections.abc import AsyncIterator
from typing import Any

import grpc

from poker.betting.v1 import betting_pb2 as pb
from poker.betting.v1 import betting_pb2_grpc as pb_grpc
from poker_rules import betting
from poker_rules.betting import BettingState
from poker_rules.cards import Card
from poker_rules.draw import Post
from poker_rules.errors import IllegalActionError, InvalidConfigError, NotYourTurnError
from poker_wire import card_list, check_chips, check_count, check_id
from poker_wire.betting import action_from_pb, legal_to_pb, outcome_to_pb, state_from_pb
from service_kit.batches import Handler, answer, answer_batches
from service_kit.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError

from .metrics import (
    ACTIONS,
    HANDS_UNCONTESTED,
    ROUNDS_STARTED,
    SESSION_BATCH_CALLS,
    SESSION_CALLS,
    STATE_REFS_USED,
    TIMEOUTS,
    street_label,
)

ERROR_CODES: dict[type[BaseException], grpc.StatusCode] = {
    # Not on the menu, not your turn, nobody to act: the state cannot serve it.
    IllegalActionError: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT,
}


STATE_REFS = 4_096  # states a SessionBatches stream remembers (see the proto)


class StateRefs:
    """The states one SessionBatches stream returned, by ref, most recent first.

    The caller may name a state instead of sending it back; the service then skips
    parsing and checking a state it built itself.  Refs carry a random prefix per
    stream, so a ref from another (earlier) stream is never taken for one of this
    stream's: it is NOT_FOUND, and the caller sends the state.  The states are
    immutable, so remembering one is keeping a reference.
    """

    def __init__(self, size: int = STATE_REFS) -> None:
        self.size = size
        self._prefix = secrets.token_hex(6)
        self._count = 0
        self._states: OrderedDict[str, tuple[BettingState, list[int]]] = OrderedDict()

    def remember(self, state: BettingState, seats: list[int]) -> str:
        self._count += 1
        ref = f"{self._prefix}-{self._count}"
        self._states[ref] = (state, seats)
        if len(self._states) > self.size:
            self._states.popitem(last=False)
        return ref

    def recall(self, ref: str) -> tuple[BettingState, list[int]]:
        found = self._states.get(ref)
        if found is None:
            STATE_REFS_USED.labels("unknown").inc()
            raise NotFoundError(
                f"unknown state_ref {ref!r}: this stream remembers the last {self.size} "
                "states it returned; send the state instead"
            )
        self._states.move_to_end(ref)
        STATE_REFS_USED.labels("found").inc()
        return found


def _state(
    msg: pb.BettingState, present: bool, ref: str = "", refs: StateRefs | None = None
) -> tuple[BettingState, list[int]]:
    """The request's state: sent (parsed and checked), or named by ``ref``."""
    if ref:
        if present:
            raise InvalidArgumentError("give state or state_ref, not both")
        if refs is None:
            raise InvalidArgumentError(
                "state_ref is for SessionBatches streams only; send the state"
            )
        return refs.recall(check_id(ref, "state_ref"))
    if not present:
        raise InvalidArgumentError("state is required")
    return state_from_pb(msg)


def _named(
    reply: pb.ApplyActionResponse, state: BettingState, seats: list[int], refs: StateRefs | None
) -> pb.ApplyActionResponse:
    """On a SessionBatches stream, the reply's state gets its ref."""
    if refs is not None:
        reply.state_ref = refs.remember(state, seats)
    return reply


def _round_request(request: pb.StartRoundRequest, field: str = "") -> tuple[int, list[list[Card]]]:
    """The street and upcards of a StartRound (or an ApplyAction's then_start)."""
    street = check_count(request.street, f"{field}street", 0, 4)
    upcards: list[list[Card]] = [
        card_list(u.cards, f"{field}upcards[{k}]", most=4) for k, u in enumerate(request.upcards)
    ]
    return street, upcards


def _check_version(state: BettingState, version: int) -> None:
    if version != state.version:
        raise FailedPreconditionError(
            f"stale version {version}: the state is at version {state.version}; "
            "answer the current state (a late or repeated action is not applied)"
        )


def _forced_bets(
    request: pb.StartRoundRequest, seats: list[int]
) -> tuple[list[Post] | None, int | None]:
    """The lobby's blinds and dead money (draw street 0), as library posts."""
    if not request.posts:
        if request.big_blind_seat:
            raise InvalidArgumentError("big_blind_seat is given only with posts")
        return None, None
    if request.street != 0:
        raise InvalidArgumentError("posts are for street 0 only")

    def index(seat: int, field: str) -> int:
        check_count(seat, field, 1, 10)
        if seat not in seats:
            raise InvalidArgumentError(f"{field} {seat} is not dealt in; seats: {seats}")
        return seats.index(seat)

    posts = [
        Post(
            index(p.seat, f"posts[{k}].seat"),
            check_chips(p.amount, f"posts[{k}].amount", positive=True),
            p.live,
        )
        for k, p in enumerate(request.posts)
    ]
    return posts, index(request.big_blind_seat, "big_blind_seat")


class BettingServicer(pb_grpc.BettingServicer):
    """Stateless: every answer follows from the request alone."""

    def __init__(self) -> None:
        self._calls: dict[str, Handler] = {
            "legal_actions": self.LegalActions,
            "apply_action": self.ApplyAction,
            "apply_timeout": self.ApplyTimeout,
            "start_round": self.StartRound,
        }

    async def LegalActions(
        self, request: pb.LegalActionsRequest, context: Any
    ) -> pb.LegalActionsResponse:
        state, seats = _state(request.state, request.HasField("state"))
        return pb.LegalActionsResponse(legal=legal_to_pb(betting.legal_actions(state), seats))

    async def ApplyAction(
        self, request: pb.ApplyActionRequest, context: Any, refs: StateRefs | None = None
    ) -> pb.ApplyActionResponse:
        state, seats = _state(request.state, request.HasField("state"), request.state_ref, refs)
        if not request.HasField("action"):
            raise InvalidArgumentError("action is required")
        action = action_from_pb(request.action)
        seat = check_count(request.seat, "seat", 1, 10)
        if seat not in seats:
            raise FailedPreconditionError(f"seat {seat} is not in this hand; seats: {seats}")
        _check_version(state, request.version)
        player = seats.index(seat)
        if state.to_act is not None and player != state.to_act:
            raise NotYourTurnError(
                f"it is seat {seats[state.to_act]}'s turn, not seat {seat}'s; allowed for "
                f"seat {seats[state.to_act]}: {betting.legal_actions(state).describe()}"
            )
        started = None
        if request.HasField("then_start"):
            street, upcards = _round_request(request.then_start, "then_start.")
        outcome = betting.apply_action(state, action, player)
        if (
            request.HasField("then_start")
            and outcome.round_complete
            and not outcome.hand_complete
            and not outcome.betting_closed
        ):
            started = betting.start_round(outcome.state, street, upcards)
        game = state.game.value
        ACTIONS.labels(game, action.kind.value).inc()
        if outcome.hand_complete:
            HANDS_UNCONTESTED.labels(game).inc()
        reply = outcome_to_pb(outcome, seats)
        if started is not None:
            ROUNDS_STARTED.labels(game, street_label(state.game, street)).inc()
            opened = outcome_to_pb(started, seats)
            reply.state.CopyFrom(opened.state)
            reply.betting_closed = opened.betting_closed
            if opened.HasField("legal"):
                reply.legal.CopyFrom(opened.legal)
            else:
                reply.ClearField("legal")
            reply.next_round_started = True
            return _named(reply, started.state, seats, refs)
        return _named(reply, outcome.state, seats, refs)

    async def ApplyTimeout(
        self, request: pb.ApplyTimeoutRequest, context: Any, refs: StateRefs | None = None
    ) -> pb.ApplyActionResponse:
        state, seats = _state(request.state, request.HasField("state"), request.state_ref, refs)
        _check_version(state, request.version)
        outcome = betting.apply_timeout(state)
        game = state.game.value
        applied = outcome.applied
        TIMEOUTS.labels(game, applied.kind.value if applied else "all_in_protection").inc()
        if outcome.hand_complete:
            HANDS_UNCONTESTED.labels(game).inc()
        return _named(outcome_to_pb(outcome, seats), outcome.state, seats, refs)

    async def StartRound(
        self, request: pb.StartRoundRequest, context: Any, refs: StateRefs | None = None
    ) -> pb.ApplyActionResponse:
        state, seats = _state(request.state, request.HasField("state"), request.state_ref, refs)
        street, upcards = _round_request(request)
        posts, big_blind = _forced_bets(request, seats)
        outcome = betting.start_round(state, street, upcards, posts, big_blind)
        ROUNDS_STARTED.labels(state.game.value, street_label(state.game, street)).inc()
        return _named(outcome_to_pb(outcome, seats), outcome.state, seats, refs)

    async def Session(
        self, request_iterator: AsyncIterator[pb.SessionRequest], context: Any
    ) -> AsyncIterator[pb.SessionResponse]:
        """The four calls over one stream, answered in order (see the proto)."""
        async for request in request_iterator:
            reply = pb.SessionResponse()
            await self._session_call(request, reply, context)
            yield reply

    async def SessionBatches(
        self, request_iterator: AsyncIterator[pb.SessionBatch], context: Any
    ) -> AsyncIterator[pb.SessionBatchReply]:
        """Session's calls, a batch per message, answered in order, with state
        references (see the proto)."""
        refs = StateRefs()
        calls: dict[str, Handler] = {
            "legal_actions": self.LegalActions,
            "apply_action": functools.partial(self.ApplyAction, refs=refs),
            "apply_timeout": functools.partial(self.ApplyTimeout, refs=refs),
            "start_round": functools.partial(self.StartRound, refs=refs),
        }
        async for replies in answer_batches(
            request_iterator,
            pb.SessionBatchReply,
            calls,
            ERROR_CODES,
            context,
            SESSION_CALLS,
            SESSION_BATCH_CALLS,
            _RESULTS,
        ):
            yield replies

    async def _session_call(
        self, request: pb.SessionRequest, reply: pb.SessionResponse, context: Any
    ) -> None:
        """Answer one call into ``reply``; a refusal is the reply's error, not raised."""
        method, code = await answer(request, reply, self._calls, ERROR_CODES, context, _RESULTS)
        SESSION_CALLS.labels(method, code.name).inc()


# Where each call's answer goes in a SessionResponse (the three that change the
# state share ``response``).
_RESULTS = {"apply_action": "response", "apply_timeout": "response", "start_round": "response"}
