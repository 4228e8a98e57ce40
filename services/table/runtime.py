"""One table's hand loop: ask the lobby, run the hand, report it.

The loop asks the lobby for the next hand (``NextHand``: who is dealt in, the
button and the blinds), runs it (``runner.HandRunner``), keeps its history
(``history``), reports the final stacks (``FinishHand``) and only then tells the
viewers the hand is over (``HandFinished``, see ``_finish``): a player told so
may stand up at once (the lobby no longer has them in a hand) and finds the hand
in GetHandHistory.  A report the lobby did not take is retried before anything
else, so a hand is never forgotten nor reported twice (the lobby's NextHand
returns the same pending hand until it is reported).

A lobby with group commit answers the report once it has applied it, before
its fsync (``recorded`` false): the viewers are told at once, and the table asks
``HandRecorded`` before it deals the next hand (``_recorded``), so it never
deals a plan a lobby crash could lose, and learns of a result the crash lost.

The report also names the players the table saw leave (``departures``): the
clock took their every decision for ``sit_out_after_clock_hands`` hands in a row,
and the lobby sits them out with the hand's result.

Crash durability: before its first hand at a table, a process asks the lobby to
void the hand a dead predecessor left pending (``VoidPendingHand``; the lobby
records the void), so no hand is resumed or re-dealt by a process that did not
start it.  A report the lobby refuses (FAILED_PRECONDITION: it took nothing, e.g.
it voided the hand on its own restart) makes a played hand voided here too: the
history records it voided and the viewers get a second HandFinished, voided, with
the stacks as at the hand's start.

``TableRuntime`` is also the one object the servicer holds per table, so it
forwards the readers' calls: the viewers' streams are ``viewers``, what a viewer
sees on joining is ``snapshot``, the finished hands are ``history``.

A player's action comes from a Play (or PlayMany) stream (``submit``: a refusal
goes back on the stream as ActionRejected) or from the unary Act (``act``: the
refusal is the call's status).  Both go through ``offer``, the same checks
against the hand's turn.  An Act waits for the betting service's verdict too (an
illegal amount is refused there, after the turn's checks): its call ends when the
action is applied (the seat's ActionTaken or DrawTaken), refused, or the hand is
voided.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import grpc

from poker.dealer.v1 import dealer_pb2 as dpb
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as pb
from service_kit.logs import get_logger

from . import facts as f
from . import snapshot as snapshots
from .calls import HandVoided
from .clients import Downstream, DownstreamError
from .departures import ClockHands
from .hand import Hand, HandResult, Rejection, game_name
from .history import History
from .metrics import (
    ACTIONS_REJECTED,
    HANDS_FINISHED,
    HANDS_STARTED,
    PLAYERS_SAT_OUT,
    POT_SIZE,
    TABLE_LOOP_ERRORS,
    hand_ended,
    hand_started,
)
from .runner import HandRunner
from .viewers import Audience, Sink, Subscriber, Watcher, WatchLimits, serialize

# An Act's action taken for the runner, waiting for its verdict: the hand and seat
# (one answer per turn is in flight) -> the turn's action_seq and the verdict.
_Pending = dict[tuple[str, int], tuple[int, "asyncio.Future[Rejection | None]"]]

# How a FinishHand went: the lobby took it, refused it (it took nothing, and the
# report is never sent again), or could not be reached (the loop sends it again).
Outcome = Literal["taken", "refused", "unreachable"]


# How a table's streams end when its process stops: come back in a moment.
SHUTTING_DOWN = (grpc.StatusCode.UNAVAILABLE, "the table service is shutting down")


@dataclass(frozen=True, slots=True)
class _Played:
    """A hand played and archived, not yet reported nor told to the viewers."""

    hand: Hand
    runner: HandRunner
    finish: f.HandFinished
    report: lpb.FinishHandRequest


class TableRuntime:
    """A lobby table, run by this table-service replica."""

    def __init__(
        self,
        info: lpb.Table,
        downstream: Downstream,
        *,
        idle_poll_s: float,
        hand_pause_s: float,
        history_hands: int,
        watch: WatchLimits | None = None,
        sit_out_after_clock_hands: int = 0,
    ) -> None:
        """``sit_out_after_clock_hands``: sit out a player whose every decision the
        clock took in that many hands in a row (``departures``); 0, the default for
        a table built in code (tests), never does (the service's setting,
        TABLE_SIT_OUT_AFTER_CLOCK_HANDS, is 2 by default)."""
        self.info = info
        self.table_id = info.table_id
        self.ds = downstream
        self.idle_poll_s = idle_poll_s
        self.hand_pause_s = hand_pause_s
        self.hand: Hand | None = None
        self.viewers = Audience(self.table_id, watch)
        self.pending: _Pending = {}
        self.history = History(self.table_id, history_hands, downstream)  # older: the lobby's
        self.hands_played = 0
        self.preset_order: list[str] = []
        self.unreported: lpb.FinishHandRequest | None = None
        # A report the lobby applied but had not yet recorded when it answered
        # (``recorded`` false): HandRecorded is asked before the next hand.
        self.unrecorded: lpb.FinishHandRequest | None = None
        self.played: collections.deque[str] = collections.deque(maxlen=64)  # recent hand ids
        self.last_finished: f.HandFinished | None = None
        self.last_hand: Hand | None = None  # the hand last played (its report may be pending)
        self.clock_hands = ClockHands(sit_out_after_clock_hands)
        self.log = get_logger().bind(table_id=self.table_id)
        self._task: asyncio.Task[None] | None = None

    @property
    def clock_ms(self) -> int:
        return self.info.action_clock_ms or 10_000

    # ------------------------------------------------------------ the hand loop

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name=f"table {self.table_id}")

    async def stop(self, ending: tuple[grpc.StatusCode, str] = SHUTTING_DOWN) -> None:
        """Stop dealing: a hand in progress is voided and reported (see ``_play``),
        and a finished hand the lobby has not taken yet is reported once more.
        Every seat's and spectator's stream ends with ``ending``: by default the
        process is going away and another takes the table over (UNAVAILABLE, so
        clients come back); a tournament table that is broken says so instead."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.unreported is not None:
            request = self.unreported
            request.plan_next = False
            outcome, _ = await self._report(request)
            if outcome == "refused":
                self._refused(request)
        if self.unrecorded is not None:
            await self._recorded(None)
        self.viewers.end_all(*ending)

    async def _take_over(self) -> None:
        """Before this process's first hand here: void the hand a previous table
        process left pending at the lobby (it died mid-hand), so the void is
        recorded and that plan is never dealt again from scratch under its hand id.
        A fresh process never resumes a hand it did not start.  Retried until the
        lobby answers."""
        request = lpb.VoidPendingHandRequest(table_id=self.table_id)
        while True:
            try:
                reply = await self.ds.call("lobby", "VoidPendingHand", request)
            except DownstreamError as error:
                self.log.warning("pending hand not voided yet", code=error.code().name)
                await asyncio.sleep(self.idle_poll_s)
                continue
            if reply.hand_id:
                self.log.warning("hand voided at takeover", hand_id=reply.hand_id)
            return

    async def _loop(self) -> None:
        plan: lpb.NextHandResponse | None = None
        await self._take_over()
        while True:
            try:
                plan = await self._next(plan)
            except Exception:
                # A bug outside a hand (a report, a plan) must not silently stop the
                # table either: log it and go on from the lobby's state (a report
                # not taken is still ``unreported``, and is sent again first).
                self.log.exception("table loop failed; going on")
                TABLE_LOOP_ERRORS.inc()
                plan = None
                await asyncio.sleep(self.idle_poll_s)

    async def _next(self, plan: lpb.NextHandResponse | None) -> lpb.NextHandResponse | None:
        """One turn of the loop: report what is pending, get a plan, play it; the
        plan to use next (a FinishHand reply carries it), or None to ask for one."""
        if self.unrecorded is not None:
            plan = await self._recorded(plan)
            if self.unrecorded is not None:  # the lobby did not answer: ask again
                await asyncio.sleep(self.idle_poll_s)
                return plan
        if self.unreported is not None:
            request = self.unreported
            outcome, plan = await self._report(request)
            if outcome == "refused":
                self._refused(request)
            elif outcome == "unreachable":
                await asyncio.sleep(self.idle_poll_s)
                return plan
        if plan is None or not plan.play:
            if plan is not None:  # the lobby said: not enough players yet
                await asyncio.sleep(self.idle_poll_s)
            try:
                plan = await self.ds.call(
                    "lobby", "NextHand", lpb.NextHandRequest(table_id=self.table_id)
                )
            except DownstreamError as error:
                self.log.warning("next hand failed", code=error.code().name)
                await asyncio.sleep(self.idle_poll_s)
                return None
            if not plan.play:
                return plan
        if plan.hand_id in self.played:
            # The lobby still has a hand pending that this table already played
            # (it refused the report): never deal it twice; void it instead.
            self.log.error("lobby offered a hand already played", hand_id=plan.hand_id)
            self.unreported = lpb.FinishHandRequest(
                table_id=self.table_id,
                hand_id=plan.hand_id,
                voided=True,
                plan_next=True,
                history=self.history.stored(plan.hand_id),  # as voided here, if kept
            )
            return None
        self.played.append(plan.hand_id)
        try:
            played = await self._play(plan)
        except Exception:
            # A bug must not silently stop the table: log it, void the hand
            # (the lobby keeps the stacks as before it) and go on.
            self.log.exception("hand failed", hand_id=plan.hand_id)
            self.hand = None
            self.unreported = lpb.FinishHandRequest(
                table_id=self.table_id, hand_id=plan.hand_id, voided=True, plan_next=True
            )
            await asyncio.sleep(self.idle_poll_s)
            return None
        plan = await self._finish(played)
        if played.report.voided:  # a service is down: do not spin through hands
            await asyncio.sleep(self.idle_poll_s)
        if self.hand_pause_s:
            await asyncio.sleep(self.hand_pause_s)
        return plan

    async def _play(self, plan: lpb.NextHandResponse) -> _Played:
        """Run one hand and archive it (``history``); it stays the hand in
        progress until ``_finish`` has reported it and told the viewers."""
        hand = Hand(
            table_id=self.table_id,
            hand_id=plan.hand_id,
            # A tournament hand plays its level's stakes (the lobby sends them).
            config=plan.config if plan.HasField("config") else self.info.config,
            seats=[s.seat for s in plan.dealt_in],
            players=[s.player_id for s in plan.dealt_in],
            names=[s.name for s in plan.dealt_in],
            start_stacks=[s.stack for s in plan.dealt_in],
            button_seat=plan.button_seat,
            button_dead=plan.button_dead,
        )
        preset, self.preset_order = self.preset_order, []
        runner = HandRunner(
            hand,
            self.ds,
            plan=plan,
            clock_ms=self.clock_ms,
            emit=self._emit,
            reject=self._reject,
            preset_order=preset,
        )
        game = game_name(hand.config.game)
        log = self.log.bind(hand_id=hand.hand_id)
        HANDS_STARTED.labels(game).inc()
        hand_started(self.table_id)
        self.hand = self.last_hand = hand
        why = ""
        try:
            try:
                result = await runner.run()
            except HandVoided as error:
                why = str(error)
                log.warning("hand voided", reason=why)
                result = await self._void(runner, hand)
            except asyncio.CancelledError:
                await asyncio.shield(self._stopped_mid_hand(runner, hand))
                raise
            finish = result.facts[-1]
            if not isinstance(finish, f.HandFinished):
                raise RuntimeError(f"hand {hand.hand_id}'s result does not end with its finish")
            archived = self.history.add(result)
        except BaseException:
            self._hand_over(hand)
            raise
        self.hands_played += 1
        HANDS_FINISHED.labels(game, result.outcome).inc()
        if not result.voided:
            POT_SIZE.labels(game).observe(_won(result))
        log.info("hand finished", outcome=result.outcome, rpc_calls=result.rpc_calls)
        departed = self.clock_hands.hand(
            hand.seats, hand.players, runner.presence, voided=result.voided
        )
        if departed:
            PLAYERS_SAT_OUT.labels(game).inc(len(departed))
            log.info("players left: sat out with the report", player_ids=departed)
        report = lpb.FinishHandRequest(
            table_id=self.table_id,
            hand_id=hand.hand_id,
            voided=result.voided,
            void_reason=why,
            final_stacks=[]
            if result.voided
            else [
                lpb.SeatInfo(seat=s, player_id=p, stack=c)
                for s, p, c in zip(result.seats, result.players, result.final_stacks, strict=True)
            ],
            # The next plan with this report only when the next hand follows at
            # once: after a pause (or a void), NextHand is asked after it, so a
            # player who stands up during it is not dealt into a hand planned early.
            plan_next=not (result.voided or self.hand_pause_s),
            sit_out_player_ids=departed,
            history=archived.stored(),  # recorded with the result (history.py)
        )
        self.unreported = report
        return _Played(hand, runner, finish, report)

    async def _finish(self, played: _Played) -> lpb.NextHandResponse | None:
        """The hand to the lobby (FinishHand), then its HandFinished to every
        viewer; the next hand's plan when the lobby sent it with its answer.

        The report goes first so that a player told the hand is over may stand up
        (and sit down again) at once: the lobby has no hand of theirs pending any
        more.  That costs the HandFinished one lobby round trip.  The viewers are
        told after the first attempt whatever its outcome: a lobby that cannot be
        reached must not keep the players from their result, so the report is then
        sent again before anything else (``_next``), and a StandUp meanwhile waits
        for it (pending), as it would have.  A report the lobby refuses voids the
        played hand after its HandFinished (``_voided_by_lobby``: a second one,
        voided), so the viewers' events stay the history's facts, in order."""
        try:
            outcome, plan = await self._report(played.report)
            played.runner.emit(played.finish)
        finally:
            self._hand_over(played.hand)
        if outcome == "refused":
            self._refused(played.report)
        return plan

    def _hand_over(self, hand: Hand) -> None:
        """No hand is in progress any more: an Act still waiting on it is aborted."""
        self.hand = None
        hand_ended(self.table_id)
        self._settle(hand.hand_id, None, _unapplied(hand.hand_id))

    async def _void(self, runner: HandRunner, hand: Hand) -> HandResult:
        """The hand cannot finish: everyone keeps the stack they had before it.
        The result's facts end with the voided HandFinished, emitted by the caller
        (after the report, as a played hand's)."""
        reveal: dpb.CloseDeckResponse | None = None
        with contextlib.suppress(HandVoided):
            reveal = await runner.close_deck()
        hand.turns.close()
        return HandResult(
            hand.hand_id,
            hand.config,
            [*hand.facts, _voided_finish(hand)],
            hand.seats,
            hand.players,
            list(hand.start_stacks),
            True,
            reveal,
            0,
            "voided",
        )

    async def _stopped_mid_hand(self, runner: HandRunner, hand: Hand) -> None:
        """The table is stopping (``stop``) while the hand runs: void it, report the
        void (``stop`` sends it again if the lobby cannot take it now) and tell the
        viewers."""
        result = await self._void(runner, hand)
        archived = self.history.add(result)
        await self._report(
            lpb.FinishHandRequest(
                table_id=self.table_id,
                hand_id=hand.hand_id,
                voided=True,
                void_reason="the table service stopped mid-hand",
                history=archived.stored(),
            )
        )
        runner.emit(result.facts[-1])

    async def _report(
        self, request: lpb.FinishHandRequest
    ) -> tuple[Outcome, lpb.NextHandResponse | None]:
        """FinishHand: how it went, and the next hand's plan when the lobby sent
        it.  Unreachable, the report stays in ``unreported``, so the loop sends it
        again before anything else."""
        # A voided history still on its way goes first: the lobby keeps the order.
        await self.history.stored_voids()
        try:
            reply: lpb.FinishHandResponse = await self.ds.call("lobby", "FinishHand", request)
        except DownstreamError as error:
            if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                # The lobby took nothing (a refusal changes nothing): every stack is
                # as at the hand's start there, e.g. the lobby voided the hand on its
                # restart.  It is never sent again, whatever follows (``_refused``).
                self.log.error("finish hand refused", hand_id=request.hand_id, why=error.details())
                self.unreported = None
                return "refused", None
            self.log.warning("finish hand not reported yet", code=error.code().name)
            self.unreported = request
            return "unreachable", None
        self.unreported = None
        if not reply.recorded:
            self.unrecorded = request  # applied: HandRecorded before the next hand
        return "taken", reply.next_hand if reply.HasField("next_hand") else None

    async def _recorded(self, plan: lpb.NextHandResponse | None) -> lpb.NextHandResponse | None:
        """The lobby answered the last report when it applied it, before it was
        durable (lobby/commits.py): ask whether it is recorded now, before any
        hand is dealt.  The answer comes once everything before it is durable, the
        plan that came with the report included.  Not recorded (a lobby restart
        lost it and voided the hand): the hand is voided here too, as a refused
        report is, and a plan the lobby no longer has pending is dropped, never
        dealt.  Unreachable: ``unrecorded`` stays, the loop asks again."""
        request = self.unrecorded
        if request is None:
            return plan
        try:
            reply: lpb.HandRecordedResponse = await self.ds.call(
                "lobby",
                "HandRecorded",
                lpb.HandRecordedRequest(table_id=self.table_id, hand_id=request.hand_id),
            )
        except DownstreamError as error:
            self.log.warning(
                "hand not known recorded yet", hand_id=request.hand_id, code=error.code().name
            )
            return plan
        self.unrecorded = None
        if not reply.recorded:
            self.log.error("hand lost by the lobby", hand_id=request.hand_id, why=reply.reason)
            self._refused(request)
        if plan is not None and plan.play and plan.hand_id != reply.pending_hand_id:
            self.log.warning("plan lost by the lobby: not dealt", hand_id=plan.hand_id)
            return None
        return plan

    def _refused(self, request: lpb.FinishHandRequest) -> None:
        """The lobby refused a report: a played hand is then voided here too."""
        if not request.voided:
            self._voided_by_lobby(request.hand_id)

    def _voided_by_lobby(self, hand_id: str) -> None:
        """The lobby refused a played hand's result: record the hand voided in the
        history and tell the viewers with a second HandFinished, voided, carrying
        the stacks as at the hand's start (the first one's results did not stand)."""
        hand = self.last_hand
        if hand is None or hand.hand_id != hand_id:
            return
        fact = _voided_finish(hand)
        hand.facts.append(fact)
        self._emit(hand, fact)
        self.history.void(hand_id, hand.facts, hand.start_stacks)
        self.log.warning("hand voided by the lobby", hand_id=hand_id)

    # ------------------------------------------------------------ viewers

    def _emit(self, hand: Hand, fact: f.Fact) -> None:
        """One fact of ``hand`` to every viewer (``Audience.emit``); the hand's end
        is kept for the snapshots between hands.  A seat's action applied, or the
        hand's end, is the verdict an Act waits for."""
        if isinstance(fact, f.HandFinished):
            self.last_finished = fact
        self.viewers.emit(hand, fact)
        if self.pending:
            if isinstance(fact, f.DrawTaken) or (
                isinstance(fact, f.ActionTaken) and not fact.timeout
            ):
                self._settle(hand.hand_id, fact.seat, None)
            elif isinstance(fact, f.HandFinished):
                self._settle(hand.hand_id, None, _unapplied(hand.hand_id))

    def _reject(
        self, hand: Hand, seat: int, action_seq: int, code: grpc.StatusCode, message: str
    ) -> None:
        """The betting service refused a seat's answer (the turn goes on): the
        verdict of an Act that sent it, else an ActionRejected on the seat's stream."""
        waiting = self.pending.get((hand.hand_id, seat))
        if waiting is not None and waiting[0] == action_seq:
            self._settle(hand.hand_id, seat, (code, message))
            return
        player = hand.players[hand.index(seat)]
        sub = self.viewers.players.get(player)
        if sub is not None:
            self.send_rejection(sub, action_seq, code, message)

    def _settle(self, hand_id: str, seat: int | None, verdict: Rejection | None) -> None:
        """Answer the Act waiting on ``seat`` of ``hand_id`` (None: every seat)."""
        for key in [k for k in self.pending if k[0] == hand_id and seat in (None, k[1])]:
            _, verdict_of = self.pending.pop(key)
            if not verdict_of.done():
                verdict_of.set_result(verdict)

    def send_rejection(
        self, sub: Subscriber, action_seq: int, code: grpc.StatusCode, message: str
    ) -> None:
        self.viewers.reject(sub, self.hand.hand_id if self.hand else "", action_seq, code, message)

    def join(
        self,
        player_id: str,
        delivery: int,
        sink: Sink | None = None,
        seating: Sequence[lpb.SeatInfo] = (),
        *,
        wire: bool = False,
    ) -> Subscriber:
        """A player's new stream; it replaces their older one (reconnect).  Its
        Snapshot shows ``seating`` (``seating()``) for the seats not in a hand.  A
        player who connects is here: their clock hands start over (``departures``).
        ``wire``: the sink takes serialized events (``viewers.Subscriber``)."""
        self.clock_hands.present(player_id)
        sub = self.viewers.join(player_id, delivery, sink, self.hand, wire=wire)
        sub.direct(
            pb.TableEvent(table_id=self.table_id, snapshot=self.snapshot(player_id, seating))
        )
        return sub

    def leave(self, sub: Subscriber) -> None:
        self.viewers.leave(sub)

    def watch(self, seating: Sequence[lpb.SeatInfo] = ()) -> Watcher:
        """A new spectator (RESOURCE_EXHAUSTED past the table's limit); its first
        message is the table as a spectator sees it now."""
        watcher = self.viewers.watch()
        snapshot = pb.TableEvent(table_id=self.table_id, snapshot=self.snapshot(None, seating))
        watcher.send(serialize(snapshot))
        return watcher

    def unwatch(self, watcher: Watcher) -> None:
        self.viewers.unwatch(watcher)

    def offer(self, player_id: str, msg: pb.PlayerAction) -> Rejection | None:
        """A player's action to the hand in progress (``Hand.offer``): None when it
        is taken for the runner, else why not (then nothing changes).  What Play's
        ``submit`` and Act's ``act`` share."""
        hand = self.hand
        if hand is None:
            return grpc.StatusCode.FAILED_PRECONDITION, "no hand is in progress"
        seat = hand.seat_of(player_id)
        if not seat:
            return (
                grpc.StatusCode.FAILED_PRECONDITION,
                f"you are not dealt into hand {hand.hand_id}",
            )
        return hand.offer(seat, msg.hand_id, msg.action_seq, msg.action)

    def submit(self, sub: Subscriber, msg: pb.PlayerAction) -> None:
        """A player's action from their stream: to the hand, or refused to them."""
        refusal = self.offer(sub.player_id, msg)
        if refusal is not None:
            self.send_rejection(sub, msg.action_seq, *refusal)

    async def act(self, player_id: str, msg: pb.PlayerAction) -> Rejection | None:
        """A player's action answered by status (Act): None once the hand applied
        it, else the refusal (counted as a stream's is): the turn's checks
        (``offer``), the betting service's (an illegal amount: the turn goes on),
        or ABORTED when the hand was voided before it was applied."""
        refusal = self.offer(player_id, msg)
        hand = self.hand
        if refusal is None and hand is not None:
            # Taken for the runner, which has not run since: its verdict comes
            # through ``_emit`` (applied, the hand over) or ``_reject`` (refused).
            key = (hand.hand_id, hand.seat_of(player_id))
            verdict: asyncio.Future[Rejection | None] = asyncio.get_running_loop().create_future()
            self.pending[key] = (msg.action_seq, verdict)
            try:
                refusal = await verdict
            finally:
                waiting = self.pending.get(key)
                if waiting is not None and waiting[1] is verdict:
                    del self.pending[key]
        if refusal is not None:
            ACTIONS_REJECTED.labels(refusal[0].name).inc()
        return refusal

    # ------------------------------------------------------------ state and history

    async def seating(self) -> tuple[lpb.SeatInfo, ...]:
        """Who sits where now (``snapshot.lobby_seating``), or, when the lobby does
        not answer, this table's copy of the lobby's table (``info``)."""
        seats = await snapshots.lobby_seating(self.ds, self.table_id, self.log)
        return tuple(self.info.occupied) if seats is None else seats

    def snapshot(self, player_id: str | None, seating: Sequence[lpb.SeatInfo] = ()) -> pb.Snapshot:
        """Everything ``player_id`` (None: a spectator) may know about the table now
        (``snapshot.snapshot``)."""
        return snapshots.snapshot(
            self.table_id,
            self.info.config,
            self.hand,
            player_id,
            seating,
            last=self.last_finished,
            report_pending=self.unreported is not None,
        )

    async def histories(
        self, player_id: str | None, hand_id: str, limit: int
    ) -> list[pb.HandHistory]:
        """Finished hands as ``player_id`` may see them (``History.views``)."""
        return await self.history.views(player_id, hand_id, limit)

    async def reveal(self, hand_id: str) -> pb.DeckReveal:
        return await self.history.reveal(hand_id)

    async def proof(self, player_id: str | None, hand_id: str) -> pb.DeckProof:
        """Hand ``hand_id``'s deck proof as ``player_id`` may check it (``History.proof``)."""
        return await self.history.proof(player_id, hand_id)

    def summary(self) -> pb.TableSummary:
        return pb.TableSummary(
            table_id=self.table_id,
            name=self.info.name,
            config=self.info.config,
            seats=self.info.seats,
            players=len(self.hand.seats) if self.hand else len(self.info.occupied),
            action_clock_ms=self.clock_ms,
            hands_played=self.hands_played,
            current_hand_id=self.hand.hand_id if self.hand else "",
        )

    def set_preset(self, order: Sequence[str]) -> None:
        self.preset_order = list(order)


def _won(result: HandResult) -> int:
    """Chips awarded in a finished hand (the pot, uncalled bets excluded)."""
    for fact in reversed(result.facts):
        if isinstance(fact, f.HandFinished):
            return sum(a.amount for a in fact.awards)
    return 0


def _unapplied(hand_id: str) -> Rejection:
    """An Act's verdict when its hand ended without applying the action (voided)."""
    return (
        grpc.StatusCode.ABORTED,
        f"hand {hand_id} was voided before your action was applied; "
        "every stack is as at the hand's start",
    )


def _voided_finish(hand: Hand) -> f.HandFinished:
    """The HandFinished of a voided hand: no awards, every stack as at its start."""
    return f.HandFinished(
        awards=(),
        seats=tuple(
            f.FinalSeat(s, p, c)
            for s, p, c in zip(hand.seats, hand.players, hand.start_stacks, strict=True)
        ),
        uncalled_seat=None,
        uncalled_amount=0,
        voided=True,
    )


__all__ = ["Subscriber", "TableRuntime", "Watcher"]
