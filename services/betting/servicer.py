"""The Betting gRPC servicer: validate (poker_wire), ask poker_rules.betting, answer.

Every rule decision is the library's; this module only checks the request, maps
seats to player indexes, refuses a stale ``version`` and counts.  The library
raises ``IllegalActionError`` (FAILED_PRECONDITION, its message lists what is
allowed) for an action off the menu or out of turn; nothing is kept between calls,
so an error changes nothing.  (A Batch stream remembers the states it returned,
so that the caller may name them instead of sending them back: see
``StateRefs``; nothing outlives the stream.)

The reply after which no betting is left carries the show order (S12, D9:
``ShowdownOrder``), so the caller never reads the betting state to settle.
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
from poker.common.v1.batch_pb2 import CallBatch, ReplyBatch
from poker_rules import betting
from poker_rules.betting import BettingOutcome, BettingState
from poker_rules.cards import Card
from poker_rules.config import Game
from poker_rules.draw import POST_DRAW, Post
from poker_rules.engine import Phase
from poker_rules.errors import IllegalActionError, InvalidConfigError, NotYourTurnError
from poker_rules.stud import SEVENTH
from poker_wire import card_list, check_chips, check_count, check_id
from poker_wire.betting import action_from_pb, legal_to_pb, outcome_to_pb, state_from_pb
from service_kit.batches import BatchServer, Handler
from service_kit.errors import FailedPreconditionError, InvalidArgumentError, NotFoundError

from .metrics import (
    ACTIONS,
    BATCH_SIZE,
    BATCHED_CALLS,
    HANDS_UNCONTESTED,
    ROUNDS_STARTED,
    STATE_REFS_USED,
    TIMEOUTS,
    street_label,
)

ERROR_CODES: dict[type[BaseException], grpc.StatusCode] = {
    # Not on the menu, not your turn, nobody to act: the state cannot serve it.
    IllegalActionError: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT,
}


STATE_REFS = 4_096  # states a Batch stream remembers (see the proto)
# The last betting round of each game: stud seventh street, the draw's second round.
FINAL_STREET = {Game.STUD: SEVENTH, Game.STUD_HILO: SEVENTH, Game.DRAW_7A: POST_DRAW}

Context = grpc.aio.ServicerContext[Any, Any]


class StateRefs:
    """The states one Batch stream returned, by ref, most recent first.

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
            raise InvalidArgumentError("state_ref is for Batch streams only; send the state")
        return refs.recall(check_id(ref, "state_ref"))
    if not present:
        raise InvalidArgumentError("state is required")
    return state_from_pb(msg)


def _named(
    reply: pb.ApplyActionResponse, state: BettingState, seats: list[int], refs: StateRefs | None
) -> pb.ApplyActionResponse:
    """On a Batch stream, the reply's state gets its ref."""
    if refs is not None:
        reply.state_ref = refs.remember(state, seats)
    return reply


def _showdown_order(
    reply: pb.ApplyActionResponse,
    outcome: BettingOutcome,
    seats: list[int],
    *,
    final_round_opened: bool,
) -> pb.ApplyActionResponse:
    """Set ``reply.showdown`` when no betting is left and a showdown follows: nobody
    is to act, the hand is not complete, and no street is left to open (the final
    round ended, or the betting closed: S12, the rest is dealt out).
    ``final_round_opened``: the call was an action in the final round (the round
    was opened with a player to act)."""
    state = outcome.state
    if (
        outcome.hand_complete
        or outcome.legal is not None
        or not (outcome.betting_closed or state.street == FINAL_STREET[state.game])
    ):
        return reply
    first, all_show = betting.showdown_first(state, final_round_opened)
    order = reply.showdown
    order.all_show = all_show
    if first is None:
        order.best_board = True
    else:
        order.first_to_show_seat = seats[first]
    return reply


def _in_final_round(state: BettingState) -> bool:
    """The state is the final betting round's, someone to act (an action on it
    means the round was opened)."""
    return state.phase is Phase.BETTING and state.street == FINAL_STREET[state.game]


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
        self._batch = BatchServer(
            pb.DESCRIPTOR.services_by_name["Betting"], self, ERROR_CODES, BATCHED_CALLS, BATCH_SIZE
        )

    async def LegalActions(
        self, request: pb.LegalActionsRequest, context: Context
    ) -> pb.LegalActionsResponse:
        state, seats = _state(request.state, request.HasField("state"))
        return pb.LegalActionsResponse(legal=legal_to_pb(betting.legal_actions(state), seats))

    async def ApplyAction(
        self, request: pb.ApplyActionRequest, context: Context, refs: StateRefs | None = None
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
            _showdown_order(reply, started, seats, final_round_opened=False)
            return _named(reply, started.state, seats, refs)
        _showdown_order(reply, outcome, seats, final_round_opened=_in_final_round(state))
        return _named(reply, outcome.state, seats, refs)

    async def ApplyTimeout(
        self, request: pb.ApplyTimeoutRequest, context: Context, refs: StateRefs | None = None
    ) -> pb.ApplyActionResponse:
        state, seats = _state(request.state, request.HasField("state"), request.state_ref, refs)
        _check_version(state, request.version)
        outcome = betting.apply_timeout(state)
        game = state.game.value
        applied = outcome.applied
        TIMEOUTS.labels(game, applied.kind.value if applied else "all_in_protection").inc()
        if outcome.hand_complete:
            HANDS_UNCONTESTED.labels(game).inc()
        reply = _showdown_order(
            outcome_to_pb(outcome, seats), outcome, seats, final_round_opened=_in_final_round(state)
        )
        return _named(reply, outcome.state, seats, refs)

    async def StartRound(
        self, request: pb.StartRoundRequest, context: Context, refs: StateRefs | None = None
    ) -> pb.ApplyActionResponse:
        state, seats = _state(request.state, request.HasField("state"), request.state_ref, refs)
        street, upcards = _round_request(request)
        posts, big_blind = _forced_bets(request, seats)
        outcome = betting.start_round(state, street, upcards, posts, big_blind)
        ROUNDS_STARTED.labels(state.game.value, street_label(state.game, street)).inc()
        reply = _showdown_order(
            outcome_to_pb(outcome, seats), outcome, seats, final_round_opened=False
        )
        return _named(reply, outcome.state, seats, refs)

    async def Batch(
        self, request_iterator: AsyncIterator[CallBatch], context: Context
    ) -> AsyncIterator[ReplyBatch]:
        """The four calls in batches, with state references (see the proto): the
        stream's ``StateRefs`` go to the calls that take or name a state."""
        refs = StateRefs()
        with_refs: dict[str, Handler] = {
            "ApplyAction": functools.partial(self.ApplyAction, refs=refs),
            "ApplyTimeout": functools.partial(self.ApplyTimeout, refs=refs),
            "StartRound": functools.partial(self.StartRound, refs=refs),
        }
        async for replies in self._batch.answer(request_iterator, context, with_refs):
            yield replies
