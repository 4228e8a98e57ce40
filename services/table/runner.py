"""One hand, run through the dealer, betting and showdown services.

Every rule decision is a downstream call (or the library through ``poker_wire``),
never a rule re-written here.  What happened is recorded as facts (``facts``);
the table turns them into each viewer's events.  The transport's tricks live
behind three small objects: the betting state and its name (``BettingSession``),
the stud streets dealt ahead (``StudStreets``, its invariant stated there) and
the seat's pending answer (``TurnBox``).  What is left here is the rule book:

Stud (S4): the deck opens with third street (two down, one up each; the S4 burn
when the table burns); the first round opens with the antes and the bring-in
(S5); then each later street is dealt (a burn, one card to each player still in)
and opened at the best board (S6, S7a); seventh street is dealt down, or as the
S11 community card; when all-ins close the betting the rest is dealt out without
rounds (S12).

Draw 7-A: the deck (G1: the sixes in with five players) and the five-card deal
(D4) side by side with the first round, opened with the lobby's blinds (B1-B4,
D5); the draw (D6: a burn, then each player's discards replaced); the second
round (D7); the showdown (D9).

A decision (S10): the turn is told to the seat; its answer must come with the
turn's ``action_seq`` before the clock runs out, else the table's timeout policy
applies.  An answer the betting service refuses is reported to the seat
(ActionRejected) and the clock keeps running.

The showdown (S12, D9) is settled by the showdown service in the order the
betting service gave with its last answer.

Any other failure of a downstream call raises ``HandVoided`` out of ``run``: the
table reports the hand voided and the lobby keeps every stack as before it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

import grpc

from poker.betting.v1 import betting_pb2 as bpb
from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.showdown.v1 import showdown_pb2 as spb
from service_kit.logs import get_logger

from . import facts as f
from .betting_session import BettingSession, Step
from .calls import HandCalls, HandVoided
from .clients import Downstream, DownstreamError
from .departures import Presence
from .hand import KIND_NAMES, Hand, HandResult, game_name
from .metrics import ACTIONS, DECISION_SECONDS, TIMEOUTS, timeout_policy_label
from .streets import DRAW_STREETS, SEVENTH, STUD_STREETS, Deck, StudStreets

Emit = Callable[[Hand, f.Fact], None]
Reject = Callable[[Hand, int, int, grpc.StatusCode, str], None]
REJECTABLE = (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT)


class HandRunner:
    """Runs one hand to its end; ``emit`` publishes each fact as it happens."""

    def __init__(
        self,
        hand: Hand,
        downstream: Downstream,
        *,
        plan: lpb.NextHandResponse,
        clock_ms: int,
        emit: Emit,
        reject: Reject,
        preset_order: Sequence[str] = (),
    ) -> None:
        self.hand = hand
        self.plan = plan
        self.clock_s = clock_ms / 1000
        # T6: a tournament player away is dealt in but folded at each turn: the clock
        # runs out at once and the timeout policy folds (stands pat in a draw, posts
        # a bring-in), which is what poker_rules.tournament.away_action says.
        self.fold_on_turn = frozenset(s.seat for s in plan.dealt_in if s.fold_on_turn)
        self._emit = emit
        self._reject = reject
        self.game = game_name(hand.config.game)
        self.calls = HandCalls(downstream)
        self.deck = Deck(self.calls, hand, preset_order)
        self.streets = StudStreets(self.calls, self.deck, hand) if hand.is_stud else None
        self.betting = hand.betting = BettingSession(
            self.calls, hand.config, hand.seats, hand.start_stacks
        )
        # Who answered a turn and whose clock ran out (``departures``).
        self.presence = Presence()

    @property
    def rpc_calls(self) -> int:
        """This hand's downstream calls so far."""
        return self.calls.count

    def emit(self, fact: f.Fact) -> None:
        self.hand.facts.append(fact)
        self._emit(self.hand, fact)

    async def close_deck(self) -> dpb.CloseDeckResponse | None:
        """CloseDeck once: the dealer's reveal (None when no deck was opened)."""
        return await self.deck.close()

    # ------------------------------------------------------------ the hand

    async def run(self) -> HandResult:
        """Play the hand, the deck closed; the result's facts end with its
        HandFinished, which the caller emits (``emit``) once the hand is archived
        and reported.  Raises HandVoided on a downstream failure (after the facts
        so far were emitted; the caller voids)."""
        h = self.hand
        h.cards = [f.PlayerCards() for _ in h.seats]
        last = await (self._stud() if h.is_stud else self._draw())
        betting = self.betting
        if last.hand_complete:
            final = betting.stacks()
            outcome = "uncontested"
            awards = list(last.awards)
        else:
            order = last.showdown
            if order is None:
                raise HandVoided("betting ended the betting without a show order (S12)")
            awards = await self._showdown(order)
            final = self._final_stacks(awards)
            outcome = "showdown"
        if sum(final) != sum(h.start_stacks):
            raise HandVoided(f"chips not conserved: {sum(h.start_stacks)} in, {sum(final)} out")
        # The deck is closed before anyone is told the hand is over: a dealer that
        # fails now voids a hand nobody has seen finish.  The HandFinished is the
        # result's last fact but is not emitted here: the table archives the hand
        # and reports it to the lobby first (``TableRuntime._finish``), so a player
        # told the hand is over finds it in GetHandHistory and may stand up at once.
        reveal = await self.close_deck()
        finish = f.HandFinished(
            awards=tuple(awards),
            seats=tuple(
                f.FinalSeat(s, p, c) for s, p, c in zip(h.seats, h.players, final, strict=True)
            ),
            uncalled_seat=betting.uncalled_seat,
            uncalled_amount=betting.uncalled_amount,
            voided=False,
        )
        return HandResult(
            h.hand_id,
            h.config,
            [*h.facts, finish],
            h.seats,
            h.players,
            final,
            False,
            reveal,
            self.rpc_calls,
            outcome,
        )

    def _final_stacks(self, awards: Sequence[common.Award]) -> list[int]:
        """The stacks after the showdown: behind, plus the uncalled bet (G6) and
        the awards."""
        h, betting = self.hand, self.betting
        final = betting.stacks()
        if betting.uncalled_seat is not None:
            final[h.index(betting.uncalled_seat)] += betting.uncalled_amount
        for award in awards:
            final[h.index(award.seat)] += award.amount
        return final

    def _started(self, button_seat: int, button_dead: bool, posts: tuple[f.Post, ...]) -> None:
        """HandStarted, then the first street and every player's first cards."""
        h = self.hand
        self.emit(
            f.HandStarted(
                seats=h.seat_infos(),
                button_seat=button_seat,
                button_dead=button_dead,
                posts=posts,
                commitment=h.commitment,
                card_commitment=h.card_commitment,
            )
        )
        self.emit(f.StreetStarted(0, (STUD_STREETS if h.is_stud else DRAW_STREETS)[0]))
        for i, seat in enumerate(h.seats):
            self.emit(f.Dealt(seat, tuple(h.cards[i].down), up=False))
        if h.is_stud:
            for i, seat in enumerate(h.seats):
                self.emit(f.Dealt(seat, tuple(h.cards[i].up), up=True))

    # ------------------------------------------------------------ stud

    async def _stud(self) -> Step:
        """S4's streets, each opened at its best board (S5, S6), until the showdown
        or the hand is won; the betting closed (S12), the rest is dealt out."""
        h = self.hand
        n = len(h.seats)
        c = await self.deck.open(
            dpb.DealRequest(burn_first=h.config.burn_before_third, count=3 * n)
        )
        h.commitment = self.deck.commitment
        h.card_commitment = self.deck.card_commitment
        for i in range(n):
            h.cards[i].down = [c[i], c[n + i]]
            h.cards[i].up = [c[2 * n + i]]
        step = await self._open_street()
        self._started(0, False, h.antes())
        closed = step.betting_closed
        while True:
            legal = step.legal
            if legal is not None:
                step = await self._decide(legal)
                if step.hand_complete:
                    return step
                closed = step.betting_closed
                if step.next_round_started:  # the next street, opened with the action
                    await self._next_street()
                continue
            if h.street >= SEVENTH:
                return step
            await self._next_street()
            if closed:
                continue
            step = await self._open_street()
            closed = step.betting_closed

    async def _open_street(self) -> Step:
        """The round of the street just dealt, with everyone's upcards (S5, S6)."""
        h = self.hand
        return await self.betting.start_round(h.street, [pc.up for pc in h.cards])

    async def _next_street(self) -> None:
        """The next stud street to each player still in (S4; seventh street: S11)."""
        h = self.hand
        h.street += 1
        active = self.betting.active()
        self.emit(f.StreetStarted(h.street, STUD_STREETS[h.street]))
        if self.streets is None:
            raise HandVoided("a stud street in a draw hand")
        dealt = await self.streets.deal(active)
        if dealt.community_card:
            h.community_card = dealt.community_card
            self.emit(f.Dealt(0, (), up=True, community_card=dealt.community_card))
            return
        for i, card in dealt.cards:
            (h.cards[i].up if dealt.up else h.cards[i].down).append(card)
            self.emit(f.Dealt(h.seats[i], (card,), up=dealt.up))

    # ------------------------------------------------------------ draw

    async def _draw(self) -> Step:
        """The deal and the first round (D4, D5), the draw (D6), the second round (D7)."""
        h = self.hand
        n = len(h.seats)
        plan = self.plan
        outcomes = await asyncio.gather(
            self.deck.open(dpb.DealRequest(count=5 * n)),
            self.betting.start_round(
                0,
                posts=[
                    bpb.ForcedBet(seat=p.seat, amount=p.amount, live=p.live) for p in plan.posts
                ],
                big_blind_seat=plan.big_blind_seat,
            ),
            return_exceptions=True,
        )
        c, step = outcomes
        if isinstance(c, BaseException):
            raise c
        if isinstance(step, BaseException):
            raise step
        h.commitment = self.deck.commitment
        h.card_commitment = self.deck.card_commitment
        for i in range(n):
            h.cards[i].down = [c[i + k * n] for k in range(5)]
        self._started(h.button_seat, h.button_dead, (*h.antes(), *h.blinds(plan.posts)))
        betting = self.betting
        drawn = False
        while (legal := step.legal) is not None:
            if betting.drawing and not drawn:
                drawn = True
                h.street = 1
                self.emit(f.StreetStarted(1, DRAW_STREETS[1]))
                self.deck.draw_starts()
            was_drawing = betting.drawing
            step = await self._decide(legal)
            if step.hand_complete:
                return step
            if was_drawing and not betting.drawing:
                h.street = 2
                self.emit(f.StreetStarted(2, DRAW_STREETS[2]))
        return step

    # ------------------------------------------------------------ decisions

    async def _decide(self, legal: common.LegalActions) -> Step:
        """One decision: the turn, the answer or the clock, the betting call."""
        h, betting, streets = self.hand, self.betting, self.streets
        loop = asyncio.get_running_loop()
        seat = legal.seat
        clock_s = 0.0 if seat in self.fold_on_turn else self.clock_s
        deadline = loop.time() + clock_s
        turn = f.Turn(seat, betting.version, legal, int((time.time() + clock_s) * 1000))
        if streets is not None:
            streets.at_turn(legal, betting.active())
        h.turns.open(turn)
        self.emit(turn)
        while True:
            action = await h.turns.answer(deadline)
            if action is not None:
                self.presence.answered.add(seat)
            elif seat not in self.fold_on_turn:
                self.presence.clocked.add(seat)
            if action is None:
                h.turns.close()
                get_logger().info(
                    "action clock ran out", hand_id=h.hand_id, table_id=h.table_id, seat=seat
                )
                step = await betting.timeout()
                TIMEOUTS.labels(self.game, timeout_policy_label(h.config.timeout_policy)).inc()
                return await self._applied(seat, step, timeout=True)
            started = time.perf_counter()
            then_start = (
                await streets.answer(betting.active(), h.index(seat), action, legal)
                if streets is not None
                else None
            )
            try:
                step = await betting.apply(seat, action, then_start)
            except DownstreamError as error:
                h.turns.drop()
                if streets is not None:
                    streets.refused(error)
                if error.code() in REJECTABLE:
                    self._reject(
                        h, seat, turn.action_seq, error.code(), error.details() or "refused"
                    )
                    continue
                raise HandVoided(f"betting.ApplyAction: {error.code().name}") from error
            h.turns.close()
            if streets is not None:
                streets.check_applied(step)
            result = await self._applied(seat, step, timeout=False)
            DECISION_SECONDS.observe(time.perf_counter() - started)
            return result

    async def _applied(self, seat: int, step: Step, *, timeout: bool) -> Step:
        """Record an applied action (a draw: replace the cards first, D6)."""
        h = self.hand
        i = h.index(seat)
        action = step.applied
        # Kind 0 (unspecified) is the all-in protection of S10: no action applied.
        kind = KIND_NAMES[action.kind] if action.kind else "all_in_protection"
        ACTIONS.labels(self.game, kind).inc()
        if action.kind == common.ACTION_KIND_DISCARD:
            received: list[str] = []
            if action.cards:
                received = await self.deck.replace(action.cards)
                held = h.cards[i].down
                for old, new in zip(action.cards, received, strict=True):
                    held[held.index(old)] = new
            self.emit(f.DrawTaken(seat, tuple(action.cards), tuple(received)))
            return step
        self.emit(
            f.ActionTaken(
                seat,
                action,
                timeout,
                self.betting.players[i].stack,
                tuple(step.pots) if step.round_complete else (),
            )
        )
        return step

    # ------------------------------------------------------------ showdown

    async def _showdown(self, order: bpb.ShowdownOrder) -> list[common.Award]:
        """Settle through the showdown service in the betting service's order (S12,
        D9); where the best board showing decides (S6: the stud betting closed
        before seventh street, so betting never saw the last boards), the showdown
        service finds it from the upcards sent with each hand."""
        h = self.hand
        settled: spb.SettleResponse = await self.calls.call(
            "showdown",
            "Settle",
            spb.SettleRequest(
                config=h.config,
                hands=[
                    spb.SeatHand(
                        seat=seat,
                        cards=pc.all(),
                        folded=p.folded,
                        upcards=pc.up if order.best_board else (),
                    )
                    for seat, pc, p in zip(h.seats, h.cards, self.betting.players, strict=True)
                ],
                community_card=h.community_card,
                pots=self.betting.pots,
                first_to_show_seat=order.first_to_show_seat,
                all_show=order.all_show,
                best_board_first=order.best_board,
            ),
        )
        evaluations = {e.seat: e for e in settled.evaluations}
        mucked = set(settled.mucked_seats)
        shown = []
        for seat in settled.show_order:
            e = evaluations.get(seat)
            cards = h.cards[h.index(seat)].all()
            if h.community_card:
                cards.append(h.community_card)
            shown.append(
                f.Shown(
                    seat,
                    tuple(cards),
                    e.high.description if e is not None and e.HasField("high") else "",
                    e.low.description if e is not None and e.HasField("low") else "",
                    seat in mucked,
                )
            )
        self.emit(f.Showdown(tuple(shown)))
        return list(settled.awards)
