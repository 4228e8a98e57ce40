"""The hand's betting, as the betting service keeps it: the state and its name.

The betting service is stateless: every call carries the hand's betting state and
the reply carries the next one.  On its Batch stream a reply also names its state
(``state_ref``), and a later call may send the name instead of the state, so the
service neither parses nor checks a state it built itself.  A name the service
does not know (it restarted, the stream reconnected, the state was forgotten) is
NOT_FOUND and changes nothing: the call goes again with the state.

``BettingSession`` owns both, so the hand runner asks in poker terms (open a
round, apply an action, the clock ran out) and reads ``Step``s; it never sees a
ref.  The session also keeps what the last round's end said: the pots and the
uncalled bet (G6).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import grpc

from poker.betting.v1 import betting_pb2 as bpb
from poker.common.v1 import common_pb2 as common

from .calls import HandCalls, HandVoided
from .clients import DownstreamError


class Step:
    """One betting answer, as the runner reads it (a view of the reply, no copy)."""

    __slots__ = ("_reply",)

    def __init__(self, reply: bpb.ApplyActionResponse) -> None:
        self._reply = reply

    @property
    def legal(self) -> common.LegalActions | None:
        """The menu of the player to act next; None when nobody is to act."""
        return self._reply.legal if self._reply.HasField("legal") else None

    @property
    def applied(self) -> common.Action:
        """The action applied (the one sent, or the clock's, S10); its kind is
        unspecified when timeout protection made the player all-in."""
        return self._reply.applied

    @property
    def round_complete(self) -> bool:
        return self._reply.round_complete

    @property
    def betting_closed(self) -> bool:
        """No further betting this hand (all-ins, S12): deal the rest out."""
        return self._reply.betting_closed

    @property
    def hand_complete(self) -> bool:
        """Won uncontested (everyone else folded): ``awards`` pay it, no showdown."""
        return self._reply.hand_complete

    @property
    def next_round_started(self) -> bool:
        """The action's call opened the next stud round too (``then_start``)."""
        return self._reply.next_round_started

    @property
    def pots(self) -> Sequence[common.Pot]:
        return self._reply.pots

    @property
    def awards(self) -> Sequence[common.Award]:
        return self._reply.awards

    @property
    def showdown(self) -> bpb.ShowdownOrder | None:
        """Who shows first (S12, D9), on the answer after which no betting is left."""
        return self._reply.showdown if self._reply.HasField("showdown") else None


class BettingSession:
    """One hand's betting at the betting service (see the module docstring)."""

    def __init__(
        self,
        calls: HandCalls,
        config: common.GameConfig,
        seats: Sequence[int],
        stacks: Sequence[int],
    ) -> None:
        self._calls = calls
        # The state the betting service gave back last (a fresh hand: stacks only).
        self._state = bpb.BettingState(
            config=config,
            phase=bpb.PHASE_BETTING,
            players=[
                bpb.PlayerBetting(seat=s, stack=c) for s, c in zip(seats, stacks, strict=True)
            ],
        )
        # The betting stream's name for ``_state`` ("" = none: send the state).
        self._ref = ""
        # What the last round's end said (G6): the pots after the uncalled bet.
        self.pots: list[common.Pot] = []
        self.uncalled_seat: int | None = None
        self.uncalled_amount = 0

    # ------------------------------------------------------------ reading

    @property
    def players(self) -> Sequence[bpb.PlayerBetting]:
        """Each player's chips and flags now, in dealing order."""
        return self._state.players

    @property
    def version(self) -> int:
        """The state's version: what the next action answers (its ``action_seq``)."""
        return self._state.version

    @property
    def drawing(self) -> bool:
        """Draw 7-A: the draw between the rounds is in progress (D6)."""
        return self._state.phase == bpb.PHASE_DRAWING

    def active(self) -> list[int]:
        """The players still in (not folded), by index in dealing order."""
        return [i for i, p in enumerate(self._state.players) if not p.folded]

    def folded(self) -> list[bool]:
        return [p.folded for p in self._state.players]

    def stacks(self) -> list[int]:
        return [p.stack for p in self._state.players]

    # ------------------------------------------------------------ the calls

    async def start_round(
        self,
        street: int,
        upcards: Sequence[Sequence[str]] = (),
        posts: Sequence[bpb.ForcedBet] = (),
        big_blind_seat: int = 0,
    ) -> Step:
        """Open a betting round once its cards are dealt: street 0 posts the forced
        bets (S3, B1-B4), the rules pick the opener (S5, S6, D5).  Voids the hand
        when refused."""
        request = bpb.StartRoundRequest(
            street=street, upcards=[bpb.UpCards(cards=u) for u in upcards]
        )
        if posts:
            request.posts.extend(posts)
            request.big_blind_seat = big_blind_seat
        return await self._or_void("StartRound", request)

    async def apply(
        self, seat: int, action: common.Action, then_start: bpb.StartRoundRequest | None
    ) -> Step:
        """The player's action, at the current version; ``then_start`` (stud) opens
        the next round in the same call when the action closes this one.  Raises
        ``DownstreamError`` when refused (nothing changed: the turn goes on)."""
        request = bpb.ApplyActionRequest(
            action=action, seat=seat, version=self._state.version, then_start=then_start
        )
        return self._take(await self._send("ApplyAction", request))

    async def timeout(self) -> Step:
        """The action clock ran out (S10: the table's timeout policy).  Voids the
        hand when refused."""
        return await self._or_void(
            "ApplyTimeout", bpb.ApplyTimeoutRequest(version=self._state.version)
        )

    # ------------------------------------------------------------ plumbing

    async def _or_void(self, method: str, request: Any) -> Step:
        try:
            return self._take(await self._send(method, request))
        except DownstreamError as error:
            raise HandVoided(f"betting.{method}: {error.code().name} {error.details()}") from error

    async def _send(self, method: str, request: Any) -> bpb.ApplyActionResponse:
        """The call on the current state: named by its ref when the stream gave one,
        else sent; a ref the stream does not know (NOT_FOUND, nothing changed) is
        forgotten and the call goes again with the state."""
        if self._ref:
            request.state_ref = self._ref
            try:
                named: bpb.ApplyActionResponse = await self._calls.attempt(
                    "betting", method, request
                )
                return named
            except DownstreamError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
            self._ref = ""
            request.ClearField("state_ref")
        request.state.CopyFrom(self._state)
        sent: bpb.ApplyActionResponse = await self._calls.attempt("betting", method, request)
        return sent

    def _take(self, reply: bpb.ApplyActionResponse) -> Step:
        """Keep the state and its ref, and the pots and uncalled bet whenever a
        round ended."""
        self._state = reply.state
        self._ref = reply.state_ref
        if reply.round_complete or reply.hand_complete:
            self.pots = list(reply.pots)
            if reply.HasField("uncalled_seat"):
                self.uncalled_seat = reply.uncalled_seat
                self.uncalled_amount = reply.uncalled_amount
            else:
                self.uncalled_seat, self.uncalled_amount = None, 0
        return Step(reply)
