"""One table: its hand loop, its viewers' streams, its finished hands.

The loop asks the lobby for the next hand (``NextHand``: who is dealt in, the
button and the blinds), runs it (``hand.HandRunner``), keeps its history and
reports the final stacks (``FinishHand``).  A report the lobby did not take is
retried before anything else, so a hand is never forgotten nor reported twice
(the lobby's NextHand returns the same pending hand until it is reported).

Crash durability: before its first hand at a table, a process asks the lobby to
void the hand a dead predecessor left pending (``VoidPendingHand``; the lobby
records the void), so no hand is resumed or re-dealt by a process that did not
start it.  A report the lobby refuses (FAILED_PRECONDITION: it took nothing, e.g.
it voided the hand on its own restart) makes a played hand voided here too: the
history records it voided and the viewers get a second HandFinished, voided, with
the stacks as at the hand's start.

Viewers are subscribers: one per player (a newer connection replaces the older,
which is how a reconnect works) and any number of spectators.  Each fact of the
hand goes through ``facts.view`` for each viewer, the only way an event is made.
``DELIVERY_ON_TURN`` subscribers get their events gathered into one EventBatch
when they must act or the hand ends.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses
from collections.abc import Callable, Sequence

import grpc

from poker.dealer.v1 import dealer_pb2 as dpb
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as pb
from poker_wire.phh_view import history_phh
from service_kit.errors import FailedPreconditionError, NotFoundError
from service_kit.logs import get_logger

from . import facts as f
from .archive import ArchivedHand, pack
from .clients import Downstream, DownstreamError
from .hand import Hand, HandResult, HandRunner, HandVoided, game_name
from .metrics import (
    ACTIONS_REJECTED,
    HANDS_FINISHED,
    HANDS_STARTED,
    POT_SIZE,
    STREAM_MESSAGES,
    TABLE_LOOP_ERRORS,
    hand_ended,
    hand_started,
)

QUEUE_LIMIT = 2_000  # events waiting for a slow reader before it is disconnected


# What a shared stream's sink gets: an event, a DELIVERY_ON_TURN batch of them
# (the sink wraps them itself: one copy instead of two), or None at the end.
Sink = Callable[["Subscriber", "pb.TableEvent | list[pb.TableEvent] | None"], None]


class Subscriber:
    """One open stream: a player's (``player_id``) or a spectator's (None).

    Its events go to ``queue`` (one Play or Watch stream each), or to ``sink`` when
    many subscribers share one stream (PlayMany): the sink gets each event, and
    None when the subscriber ends."""

    def __init__(self, player_id: str | None, delivery: int, sink: Sink | None = None) -> None:
        self.player_id = player_id
        self.on_turn = delivery == pb.DELIVERY_ON_TURN
        self.sink = sink
        self.queue: asyncio.Queue[pb.TableEvent | None] = asyncio.Queue()
        self.buffer: list[pb.TableEvent] = []
        self.viewer = f.Viewer()
        self.hand_id = ""
        self.ended: tuple[grpc.StatusCode, str] | None = None

    def _push(self, event: pb.TableEvent) -> None:
        if self.ended is not None:
            return
        if self.sink is not None:  # the shared stream counts its own messages
            self.sink(self, event)
            return
        if self.queue.qsize() >= QUEUE_LIMIT:
            self.end(grpc.StatusCode.RESOURCE_EXHAUSTED, "the stream is not being read")
            return
        STREAM_MESSAGES.labels("batch" if event.HasField("batch") else "event").inc()
        self.queue.put_nowait(event)

    def _flush(self) -> None:
        if not self.buffer:
            return
        if self.sink is not None and self.ended is None:
            self.sink(self, self.buffer)
            self.buffer = []
            return
        if len(self.buffer) == 1:
            self._push(self.buffer[0])
        else:
            self._push(pb.TableEvent(batch=pb.EventBatch(events=self.buffer)))
        self.buffer = []

    def deliver(self, event: pb.TableEvent, *, urgent: bool) -> None:
        """A hand event; ``urgent`` ones (the seat's turn, the hand's end) flush a
        DELIVERY_ON_TURN buffer."""
        if not self.on_turn:
            self._push(event)
            return
        self.buffer.append(event)
        if urgent:
            self._flush()

    def direct(self, event: pb.TableEvent) -> None:
        """Snapshot, Pong, ActionRejected: sent now, after anything buffered."""
        if self.on_turn:
            self.buffer.append(event)
            self._flush()
        else:
            self._push(event)

    def end(self, code: grpc.StatusCode, message: str) -> None:
        """Close the stream with a status (replaced by a newer connection, too slow)."""
        if self.ended is None:
            self.ended = (code, message)
            self.buffer = []
            if self.sink is not None:
                self.sink(self, None)
            else:
                self.queue.put_nowait(None)


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
    ) -> None:
        self.info = info
        self.table_id = info.table_id
        self.ds = downstream
        self.idle_poll_s = idle_poll_s
        self.hand_pause_s = hand_pause_s
        self.hand: Hand | None = None
        self.players: dict[str, Subscriber] = {}
        self.spectators: set[Subscriber] = set()
        # Finished hands, archived (``archive``: a few objects each, for the GC).
        self.history: collections.deque[ArchivedHand] = collections.deque(maxlen=history_hands)
        self.hands_played = 0
        self.preset_order: list[str] = []
        self.unreported: lpb.FinishHandRequest | None = None
        self.played: collections.deque[str] = collections.deque(maxlen=64)  # recent hand ids
        self.last_finished: f.HandFinished | None = None
        self.last_hand: Hand | None = None  # the hand last played (its report may be pending)
        self.log = get_logger().bind(table_id=self.table_id)
        self._task: asyncio.Task[None] | None = None

    @property
    def clock_ms(self) -> int:
        return self.info.action_clock_ms or 10_000

    # ------------------------------------------------------------ the hand loop

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name=f"table {self.table_id}")

    async def stop(self) -> None:
        """Stop dealing: a hand in progress is voided and reported (see ``_play``),
        and a finished hand the lobby has not taken yet is reported once more."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self.unreported is not None:
            self.unreported.plan_next = False
            await self._report(self.unreported)
        for sub in [*self.players.values(), *self.spectators]:
            sub.end(grpc.StatusCode.UNAVAILABLE, "the table service is shutting down")

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
        if self.unreported is not None:
            reported, plan = await self._report(self.unreported)
            if not reported:
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
                table_id=self.table_id, hand_id=plan.hand_id, voided=True, plan_next=True
            )
            return None
        self.played.append(plan.hand_id)
        try:
            self.unreported = await self._play(plan)
            if self.unreported.voided:  # a service is down: do not spin through hands
                await asyncio.sleep(self.idle_poll_s)
        except Exception:
            # A bug must not silently stop the table: log it, void the hand
            # (the lobby keeps the stacks as before it) and go on.
            self.log.exception("hand failed", hand_id=plan.hand_id)
            self.hand = None
            self.unreported = lpb.FinishHandRequest(
                table_id=self.table_id, hand_id=plan.hand_id, voided=True, plan_next=True
            )
            await asyncio.sleep(self.idle_poll_s)
        if self.hand_pause_s:
            await asyncio.sleep(self.hand_pause_s)
        return None

    async def _play(self, plan: lpb.NextHandResponse) -> lpb.FinishHandRequest:
        """Run one hand; returns the report for the lobby (sent by the loop)."""
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
            result = await runner.run()
        except HandVoided as error:
            why = str(error)
            log.warning("hand voided", reason=why)
            result = await self._void(runner, hand)
        except asyncio.CancelledError:
            await asyncio.shield(self._void(runner, hand, report=True))
            raise
        finally:
            self.hand = None
            hand_ended(self.table_id)
        self.history.append(ArchivedHand.of(result))
        self.hands_played += 1
        HANDS_FINISHED.labels(game, result.outcome).inc()
        if not result.voided:
            POT_SIZE.labels(game).observe(_won(result))
        log.info("hand finished", outcome=result.outcome, rpc_calls=result.rpc_calls)
        return lpb.FinishHandRequest(
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
            plan_next=True,
        )

    async def _void(self, runner: HandRunner, hand: Hand, *, report: bool = False) -> HandResult:
        """The hand cannot finish: everyone keeps the stack they had before it."""
        reveal: dpb.CloseDeckResponse | None = None
        with contextlib.suppress(HandVoided):
            reveal = await runner.close_deck()
        hand.turn = None
        runner.emit(
            f.HandFinished(
                awards=(),
                seats=tuple(
                    f.FinalSeat(s, p, c)
                    for s, p, c in zip(hand.seats, hand.players, hand.start_stacks, strict=True)
                ),
                uncalled_seat=None,
                uncalled_amount=0,
                voided=True,
            )
        )
        result = HandResult(
            hand.hand_id,
            hand.config,
            hand.facts,
            hand.seats,
            hand.players,
            list(hand.start_stacks),
            True,
            reveal,
            0,
            "voided",
        )
        if report:
            await self._report(
                lpb.FinishHandRequest(
                    table_id=self.table_id,
                    hand_id=hand.hand_id,
                    voided=True,
                    void_reason="the table service stopped mid-hand",
                )
            )
        return result

    async def _report(
        self, request: lpb.FinishHandRequest
    ) -> tuple[bool, lpb.NextHandResponse | None]:
        """FinishHand (with the next hand's plan); False while the lobby cannot be
        reached, so the loop retries before anything else."""
        try:
            reply: lpb.FinishHandResponse = await self.ds.call("lobby", "FinishHand", request)
        except DownstreamError as error:
            if error.code() == grpc.StatusCode.FAILED_PRECONDITION:
                # The lobby took nothing (a refusal changes nothing): every stack is
                # as at the hand's start there, e.g. the lobby voided the hand on its
                # restart.  A played hand is then voided here too.
                self.log.error("finish hand refused", hand_id=request.hand_id, why=error.details())
                self.unreported = None  # first: it is never sent again, whatever follows
                if not request.voided:
                    self._voided_by_lobby(request.hand_id)
                return True, None
            self.log.warning("finish hand not reported yet", code=error.code().name)
            self.unreported = request
            return False, None
        self.unreported = None
        return True, reply.next_hand if reply.HasField("next_hand") else None

    def _voided_by_lobby(self, hand_id: str) -> None:
        """The lobby refused a played hand's result: record the hand voided in the
        history and tell the viewers with a second HandFinished, voided, carrying
        the stacks as at the hand's start (the first one's results did not stand)."""
        hand = self.last_hand
        if hand is None or hand.hand_id != hand_id:
            return
        fact = f.HandFinished(
            awards=(),
            seats=tuple(
                f.FinalSeat(s, p, c)
                for s, p, c in zip(hand.seats, hand.players, hand.start_stacks, strict=True)
            ),
            uncalled_seat=None,
            uncalled_amount=0,
            voided=True,
        )
        hand.facts.append(fact)
        self._emit(hand, fact)
        for i, archived in enumerate(self.history):
            if archived.hand_id == hand_id:
                self.history[i] = dataclasses.replace(
                    archived,
                    packed_facts=pack(hand.facts),
                    final_stacks=tuple(hand.start_stacks),
                    voided=True,
                    outcome="voided",
                )
        self.log.warning("hand voided by the lobby", hand_id=hand_id)

    # ------------------------------------------------------------ viewers

    def _emit(self, hand: Hand, fact: f.Fact) -> None:
        """Send one fact to every viewer, as ``facts.view`` builds it for each: once
        for everyone, once more for the seat it is private to (and per viewer for
        the rare showdown that differs by more than one seat)."""
        if isinstance(fact, f.HandFinished):
            self.last_finished = fact
        urgent = isinstance(fact, f.Turn | f.HandFinished)
        seq = len(hand.facts)
        private = f.private_to(fact)
        shared = f.shared(fact)
        built: dict[int, pb.TableEvent] = {}
        for sub in [*self.players.values(), *self.spectators]:
            if sub.hand_id != hand.hand_id:
                sub.hand_id = hand.hand_id
                sub.viewer = f.Viewer(hand.seat_of(sub.player_id) if sub.player_id else f.SPECTATOR)
            seat = sub.viewer.seat
            key = seat if (seat == private or not shared) else -1
            event = built.get(key)
            if event is None:
                event = built[key] = f.view(
                    fact, sub.viewer, seq=seq, table_id=self.table_id, hand_id=hand.hand_id
                )
            sub.deliver(event, urgent=urgent and (not isinstance(fact, f.Turn) or seat == private))

    def _reject(
        self, hand: Hand, seat: int, action_seq: int, code: grpc.StatusCode, message: str
    ) -> None:
        player = hand.players[hand.index(seat)]
        sub = self.players.get(player)
        if sub is not None:
            self.send_rejection(sub, action_seq, code, message)

    def send_rejection(
        self, sub: Subscriber, action_seq: int, code: grpc.StatusCode, message: str
    ) -> None:
        ACTIONS_REJECTED.labels(code.name).inc()
        sub.direct(
            pb.TableEvent(
                table_id=self.table_id,
                hand_id=self.hand.hand_id if self.hand else "",
                action_rejected=pb.ActionRejected(
                    action_seq=action_seq, code=code.value[0], message=message
                ),
            )
        )

    def join(
        self,
        player_id: str | None,
        delivery: int,
        sink: Sink | None = None,
        seating: Sequence[lpb.SeatInfo] = (),
    ) -> Subscriber:
        """A new stream; a player's replaces their older one (reconnect).  Its
        Snapshot shows ``seating`` (``seating()``) for the seats not in a hand."""
        sub = Subscriber(player_id, delivery, sink)
        if player_id is None:
            self.spectators.add(sub)
        else:
            old = self.players.get(player_id)
            if old is not None:
                old.end(grpc.StatusCode.ABORTED, "replaced by a newer connection of this player")
            self.players[player_id] = sub
        hand = self.hand
        if hand is not None:
            sub.hand_id = hand.hand_id
            sub.viewer = f.Viewer(hand.seat_of(player_id) if player_id else f.SPECTATOR)
        sub.direct(
            pb.TableEvent(table_id=self.table_id, snapshot=self.snapshot(player_id, seating))
        )
        return sub

    def leave(self, sub: Subscriber) -> None:
        if sub.player_id is None:
            self.spectators.discard(sub)
        elif self.players.get(sub.player_id) is sub:
            del self.players[sub.player_id]

    def submit(self, sub: Subscriber, msg: pb.PlayerAction) -> None:
        """A player's action from their stream: to the hand, or refused to them."""
        assert sub.player_id is not None
        hand = self.hand
        if hand is None:
            refusal = (grpc.StatusCode.FAILED_PRECONDITION, "no hand is in progress")
        else:
            seat = hand.seat_of(sub.player_id)
            if not seat:
                refusal = (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    f"you are not dealt into hand {hand.hand_id}",
                )
            else:
                refused = hand.offer(seat, msg.hand_id, msg.action_seq, msg.action)
                if refused is None:
                    return
                refusal = refused
        self.send_rejection(sub, msg.action_seq, *refusal)

    # ------------------------------------------------------------ state and history

    async def seating(self) -> tuple[lpb.SeatInfo, ...]:
        """Who sits where now, from the lobby (``GetTable``), for a snapshot.

        Why ask: the seats of a hand are only those dealt in, so a player who sat
        down and waits for their first hand (B2), or anyone between hands, would
        otherwise see no seat at all, not even their own.  The table's copy of the
        lobby's table (``info``, refreshed by discovery) may predate a SitDown of a
        moment ago; it is only the fallback when the lobby does not answer, so a
        Join or GetState never fails for want of it.  Every field shown (seat,
        player, name, stack) is public: the lobby's GetTable shows it to anyone."""
        try:
            table: lpb.Table = await self.ds.call(
                "lobby", "GetTable", lpb.GetTableRequest(table_id=self.table_id)
            )
        except DownstreamError as error:
            self.log.warning("seating not read from the lobby", code=error.code().name)
            return tuple(self.info.occupied)
        return tuple(table.occupied)

    def snapshot(self, player_id: str | None, seating: Sequence[lpb.SeatInfo] = ()) -> pb.Snapshot:
        """Everything ``player_id`` (None: a spectator) may know about the table now.

        ``seating`` (``seating()``: the lobby's seats) adds the seats not dealt
        into the hand in progress, or every seat between hands, with their stacks
        and no cards; a seated player's ``your_seat`` is their seat even when they
        are not in the hand (their view of the hand stays a spectator's)."""
        snap = pb.Snapshot(table_id=self.table_id, config=self.info.config)
        own = next((s.seat for s in seating if player_id and s.player_id == player_id), 0)
        hand = self.hand
        if hand is None:
            self._seats_between_hands(snap, seating)
            snap.your_seat = own
            return snap
        seat = hand.seat_of(player_id) if player_id else 0
        snap.hand_id = hand.hand_id
        snap.your_seat = seat or own
        snap.street = hand.street
        snap.button_seat = hand.button_seat
        snap.button_dead = hand.button_dead
        snap.community_card = hand.community_card
        snap.deck_commitment = hand.commitment
        snap.event_seq = len(hand.facts)
        snap.pots.extend(hand.pots)
        players = hand.state.players
        draws = _draw_counts(hand.facts)
        for i, s in enumerate(hand.seats):
            cards = hand.cards[i] if i < len(hand.cards) else f.PlayerCards()
            p = players[i] if i < len(players) else None
            view = pb.SeatView(
                seat=s,
                player_id=hand.players[i],
                name=hand.names[i],
                stack=p.stack if p is not None else hand.start_stacks[i],
                bet=p.bet if p is not None else 0,
                in_hand=not p.folded if p is not None else True,
                all_in=p.all_in if p is not None else False,
                upcards=cards.up,
            )
            if s == seat:
                view.own_cards.extend(cards.down)
            else:
                view.down_cards = len(cards.down)
            if s in draws:
                view.draw_count = draws[s]
            snap.seats.append(view)
        waiting = [s for s in seating if s.seat not in hand.seats]
        if waiting:  # seated, not dealt in: no cards, the lobby's stack
            views = [*snap.seats, *(_waiting_view(s) for s in waiting)]
            del snap.seats[:]
            snap.seats.extend(sorted(views, key=lambda v: v.seat))
        turn = hand.turn
        if turn is not None:
            snap.to_act_seat = turn.seat
            if turn.seat == seat:
                snap.your_turn.CopyFrom(
                    pb.YourTurn(
                        action_seq=turn.action_seq,
                        legal=turn.legal,
                        deadline_unix_ms=turn.deadline_unix_ms,
                    )
                )
        return snap

    def _seats_between_hands(self, snap: pb.Snapshot, seating: Sequence[lpb.SeatInfo]) -> None:
        """No hand in progress: the lobby's seats, or, without them, the last hand's
        final seats.  While the last hand's report is not taken yet the lobby still
        has the stacks from before it, so its players show their final stacks."""
        last = self.last_finished
        if not seating:
            if last is not None:
                snap.seats.extend(
                    pb.SeatView(seat=s.seat, player_id=s.player_id, stack=s.stack)
                    for s in last.seats
                )
            return
        final = (
            {s.player_id: s.stack for s in last.seats}
            if last is not None and self.unreported is not None
            else {}
        )
        for s in sorted(seating, key=lambda s: s.seat):
            view = _waiting_view(s)
            view.stack = final.get(s.player_id, s.stack)
            snap.seats.append(view)

    def histories(self, player_id: str | None, hand_id: str, limit: int) -> list[pb.HandHistory]:
        """Finished hands as ``player_id`` may see them (S12: a participant sees the
        called hands that were mucked)."""
        if hand_id:
            chosen = [r for r in self.history if r.hand_id == hand_id]
            if not chosen:
                raise NotFoundError(f"hand {hand_id!r} is not in table {self.table_id}'s history")
        else:
            chosen = list(self.history)[-limit:]
        out = []
        for result in chosen:
            seat = 0
            if player_id is not None and player_id in result.players:
                seat = result.seats[result.players.index(player_id)]
            viewer = f.Viewer(seat, participant_after_hand=bool(seat))
            events = f.views(result.facts(), viewer, table_id=self.table_id, hand_id=result.hand_id)
            out.append(
                pb.HandHistory(
                    hand_id=result.hand_id,
                    config=result.config,
                    events=events,
                    # Written from the viewer's own events: nothing they were not shown.
                    phh=history_phh(
                        result.config, events, hand_id=result.hand_id, table_id=self.table_id
                    ),
                )
            )
        return out

    def reveal(self, hand_id: str) -> pb.DeckReveal:
        for result in self.history:
            if result.hand_id == hand_id:
                r = result.reveal
                if r is None:
                    raise FailedPreconditionError(f"hand {hand_id!r} has no reveal (voided early)")
                return pb.DeckReveal(
                    scheme=r.scheme,
                    commitment=r.commitment,
                    order=r.order,
                    salt=r.salt,
                    reshuffle_seed=r.reshuffle_seed,
                    hand_id=r.hand_id,
                    preset=r.preset,
                    log=r.log,
                )
        raise NotFoundError(f"hand {hand_id!r} is not in table {self.table_id}'s history")

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


def _waiting_view(s: lpb.SeatInfo) -> pb.SeatView:
    """A seat not in the hand (or between hands): who, and the lobby's stack."""
    return pb.SeatView(seat=s.seat, player_id=s.player_id, name=s.name, stack=s.stack)


def _draw_counts(facts: Sequence[f.Fact]) -> dict[int, int]:
    """D7: the cards each seat drew, public from the draw until the first action
    after it (then none)."""
    counts: dict[int, int] = {}
    for fact in facts:
        if isinstance(fact, f.DrawTaken):
            counts[fact.seat] = len(fact.discarded)
        elif isinstance(fact, f.ActionTaken) and counts:
            return {}
    return counts


def _won(result: HandResult) -> int:
    """Chips awarded in a finished hand (the pot, uncalled bets excluded)."""
    for fact in reversed(result.facts):
        if isinstance(fact, f.HandFinished):
            return sum(a.amount for a in fact.awards)
    return 0


__all__ = ["Subscriber", "TableRuntime"]
