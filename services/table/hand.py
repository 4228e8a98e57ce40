"""One hand, run through the dealer, betting and showdown services.

The runner holds the hand's cards and the betting state the betting service gave
back last; every rule decision is a downstream call (or the library through
``poker_wire``), never a rule re-written here.  What happened is recorded as
facts (``facts``); the table turns them into each viewer's events.

Stud: OpenDeck, deal third street (two down, one up each; S4 burn when the table
burns), StartRound(0) with the door cards (antes, S5 bring-in), the decisions;
each later street is dealt (burn, one card to each player still in) and opened
with StartRound (S6 best board, S7a); seventh street is DealRiver (S11); when the
betting is closed by all-ins the rest is dealt out without rounds (S12).

Draw 7-A: OpenDeck (G1: the sixes in with five players), StartRound(0) with the
lobby's blinds (B1-B4) and a five-card deal (D4) side by side, the first round,
the draw (D6: a burn, then each player's discards replaced by the dealer), the
second round (D7), the showdown (D9).

The action clock (S10) runs from the ``Turn`` fact: the player's answer must come
with the turn's ``action_seq`` before the deadline, else ApplyTimeout applies the
table's timeout policy.  An action the betting service refuses is reported to the
seat (ActionRejected) and the clock keeps running.

Any other failure of a downstream call raises ``HandVoided`` out of ``run``: the
table reports the hand voided and the lobby keeps every stack as before it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from poker.betting.v1 import betting_pb2 as bpb
from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.showdown.v1 import showdown_pb2 as spb
from poker_rules import betting as rules_betting
from poker_rules.cards import parse_card
from poker_wire.betting import action_from_pb, state_from_pb
from service_kit.errors import ServiceError
from service_kit.logs import get_logger

from . import facts as f
from .clients import Downstream, DownstreamError
from .metrics import ACTIONS, DECISION_SECONDS, RIVER_OUTCOMES, TIMEOUTS, timeout_policy_label

STUD_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")
DRAW_STREETS = ("pre_draw", "draw", "post_draw")
SEVENTH = 4

_KIND_NAMES = {v: k.removeprefix("ACTION_KIND_").lower() for k, v in common.ActionKind.items()}
_GAME_NAMES = {v: k.removeprefix("GAME_").lower() for k, v in common.Game.items()}
_RIVER_NAMES = {v: k.removeprefix("RIVER_OUTCOME_").lower() for k, v in dpb.RiverOutcome.items()}

Rejection = tuple[grpc.StatusCode, str]


class HandVoided(Exception):  # noqa: N818 - an outcome of the hand, named as such
    """A downstream failure the hand cannot survive: void it (chips as before)."""


def _resolve(future: asyncio.Future[None]) -> None:
    """Timer: the action clock ran out (the waiter then finds no offer)."""
    if not future.done():
        future.set_result(None)


def _closing(
    active: Sequence[int], actor: int, action: common.Action, legal: common.LegalActions
) -> tuple[int, ...] | None:
    """The players still in after ``action`` when it closes the betting round
    (``legal.closes_round``: the hand goes on to the next street), else None."""
    if action.kind not in legal.closes_round:
        return None
    folds = action.kind == common.ACTION_KIND_FOLD
    return tuple(i for i in active if not (folds and i == actor))


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Done callback: take a finished call's exception so that a call nobody awaits
    (a street dealt ahead for a hand then voided) is not reported as lost."""
    if not task.cancelled():
        task.exception()


def game_name(game: int) -> str:
    name: str = _GAME_NAMES.get(game, "unknown")  # type: ignore[call-overload]
    return name


@dataclass
class HandResult:
    """What the table keeps of a finished hand."""

    hand_id: str
    config: common.GameConfig
    facts: list[f.Fact]
    seats: list[int]
    players: list[str]
    final_stacks: list[int]
    voided: bool
    reveal: dpb.CloseDeckResponse | None
    rpc_calls: int
    outcome: str  # "showdown", "uncontested", "voided"


@dataclass
class Hand:
    """The hand in progress: the runner's state and what reconnects read."""

    table_id: str
    hand_id: str
    config: common.GameConfig
    seats: list[int]  # dealing order (stud from seat 1; draw left of the button)
    players: list[str]
    names: list[str]
    start_stacks: list[int]
    button_seat: int = 0
    button_dead: bool = False  # B1: nobody holds the button (NextHandResponse)
    state: bpb.BettingState = field(default_factory=bpb.BettingState)
    cards: list[f.PlayerCards] = field(default_factory=list)
    community_card: str = ""
    street: int = 0
    commitment: bytes = b""
    facts: list[f.Fact] = field(default_factory=list)
    turn: f.Turn | None = None
    pots: list[common.Pot] = field(default_factory=list)
    _offer: common.Action | None = None
    # Resolved when an offer arrives (or the clock runs out): what _decide awaits.
    _arrived: asyncio.Future[None] | None = None

    @property
    def is_stud(self) -> bool:
        return self.config.game != common.GAME_DRAW_7A

    def seat_of(self, player_id: str) -> int:
        """The player's seat in this hand, 0 when not dealt in."""
        try:
            return self.seats[self.players.index(player_id)]
        except ValueError:
            return 0

    def index(self, seat: int) -> int:
        return self.seats.index(seat)

    def offer(
        self, seat: int, hand_id: str, action_seq: int, action: common.Action
    ) -> Rejection | None:
        """A player's answer to their turn: None when taken for the runner, or why
        it is refused (nothing changes then)."""
        pre = grpc.StatusCode.FAILED_PRECONDITION
        if hand_id != self.hand_id:
            return pre, f"hand {hand_id!r} is not the hand in progress ({self.hand_id})"
        turn = self.turn
        if turn is None:
            return pre, "nobody is to act now; wait for your YourTurn"
        if seat != turn.seat:
            return pre, f"it is seat {turn.seat}'s turn, not seat {seat}'s"
        if action_seq != turn.action_seq:
            return pre, (
                f"action_seq {action_seq} is not the current turn's ({turn.action_seq}): "
                "a late or repeated action is not applied"
            )
        if self._offer is not None:
            return pre, "an action for this turn is already being applied"
        try:
            parsed = action_from_pb(action)
        except ServiceError as error:
            return grpc.StatusCode.INVALID_ARGUMENT, str(error)
        if action.kind not in turn.legal.kinds:
            return pre, (
                f"{_KIND_NAMES.get(action.kind, 'that action')} is not allowed now; "
                f"allowed: {turn.legal.description}"
            )
        if action.kind == common.ACTION_KIND_DISCARD:
            held = set(self.cards[self.index(seat)].all())
            strangers = [c for c in action.cards if c not in held]
            if strangers or len(set(action.cards)) != len(action.cards):
                return pre, (
                    f"discard only cards you hold, each once: you hold {' '.join(sorted(held))}"
                )
        del parsed
        self._offer = action
        if self._arrived is not None and not self._arrived.done():
            self._arrived.set_result(None)
        return None


Emit = Callable[[Hand, f.Fact], None]
# A street dealt ahead: (street, the players it was dealt for, the dealer call).
Ahead = tuple[int, tuple[int, ...], "asyncio.Future[Any]"]
Reject = Callable[[Hand, int, int, grpc.StatusCode, str], None]


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
        self.ds = downstream
        self.plan = plan
        self.clock_s = clock_ms / 1000
        # T6: a tournament player away is dealt in but folded at each turn: the clock
        # runs out at once and the timeout policy folds (stands pat in a draw, posts
        # a bring-in), which is what poker_rules.tournament.away_action says.
        self.fold_on_turn = frozenset(s.seat for s in plan.dealt_in if s.fold_on_turn)
        self._emit = emit
        self._reject = reject
        self.preset_order = list(preset_order)
        self.deck_id = ""
        self.final_round_opened = False
        self.burn_before_draw = False  # D6: owed by the first draw that replaces cards
        self.uncalled_seat: int | None = None
        self.uncalled_amount = 0
        self.game = game_name(hand.config.game)
        # This hand's downstream calls (the Downstream is shared by every table of
        # the process, so its own count is no hand's).
        self.rpc_calls = 0
        # The next street asked for ahead (``_deal_ahead``): (street, the players it
        # was dealt for, the call).  Dealt at the turn that may close the round
        # (``_speculate``, fourth to sixth street) or when the closing action
        # arrives (seventh street: S11 needs the exact count).
        self._ahead: Ahead | None = None
        # The cards of the last street dealt ahead that nobody got (their players
        # folded before it was dealt): the next dealer call puts them back first.
        self._unused = 0
        # The players still in after the action being applied, when it closes the
        # betting round (stud; ``legal.closes_round``), else None.
        self._closing: tuple[int, ...] | None = None
        # The betting stream's name for hand.state ("" = none: send the state).
        self.state_ref = ""

    # ------------------------------------------------------------ plumbing

    def emit(self, fact: f.Fact) -> None:
        self.hand.facts.append(fact)
        self._emit(self.hand, fact)

    async def call(self, service: str, method: str, request: Any) -> Any:
        self.rpc_calls += 1
        try:
            return await self.ds.call(service, method, request)
        except DownstreamError as error:
            raise HandVoided(
                f"{service}.{method}: {error.code().name} {error.details()}"
            ) from error

    async def _betting(self, method: str, request: Any) -> bpb.ApplyActionResponse:
        """A betting call on the hand's state: named by its ``state_ref`` when the
        betting stream gave one (the state is not sent back, nor parsed again),
        else sent.  A ref the stream does not know (betting restarted, the stream
        reconnected) is NOT_FOUND and changes nothing: the call goes again with
        the state.  Raises DownstreamError like ``ds.call``."""
        if self.state_ref:
            request.state_ref = self.state_ref
            self.rpc_calls += 1
            try:
                reply: bpb.ApplyActionResponse = await self.ds.call("betting", method, request)
                return reply
            except DownstreamError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
            self.state_ref = ""
            request.ClearField("state_ref")
        request.state.CopyFrom(self.hand.state)
        self.rpc_calls += 1
        reply = await self.ds.call("betting", method, request)
        return reply

    async def _betting_or_void(self, method: str, request: Any) -> bpb.ApplyActionResponse:
        """``_betting`` where a refusal voids the hand (as ``call``)."""
        try:
            return await self._betting(method, request)
        except DownstreamError as error:
            raise HandVoided(f"betting.{method}: {error.code().name} {error.details()}") from error

    def _take(self, resp: bpb.ApplyActionResponse) -> bpb.ApplyActionResponse:
        """Keep the state (and its ref), and the pots and uncalled bet whenever a
        round ended."""
        self.hand.state = resp.state
        self.state_ref = resp.state_ref
        if resp.round_complete or resp.hand_complete:
            self.hand.pots = list(resp.pots)
            if resp.HasField("uncalled_seat"):
                self.uncalled_seat = resp.uncalled_seat
                self.uncalled_amount = resp.uncalled_amount
            else:
                self.uncalled_seat, self.uncalled_amount = None, 0
        return resp

    # ------------------------------------------------------------ the hand

    async def run(self) -> HandResult:
        """Play the hand; raises HandVoided on a downstream failure (after the
        facts so far were emitted; the caller voids)."""
        h = self.hand
        h.cards = [f.PlayerCards() for _ in h.seats]
        h.state = bpb.BettingState(
            config=h.config,
            phase=bpb.PHASE_BETTING,
            players=[
                bpb.PlayerBetting(seat=s, stack=c)
                for s, c in zip(h.seats, h.start_stacks, strict=True)
            ],
        )
        if h.is_stud:
            last = await self._stud()
        else:
            last = await self._draw()
        if last.hand_complete:
            final = [p.stack for p in h.state.players]
            outcome = "uncontested"
            awards = list(last.awards)
        else:
            awards = await self._showdown()
            final = self._final_stacks(awards)
            outcome = "showdown"
        if sum(final) != sum(h.start_stacks):
            raise HandVoided(f"chips not conserved: {sum(h.start_stacks)} in, {sum(final)} out")
        self.emit(
            f.HandFinished(
                awards=tuple(awards),
                seats=tuple(
                    f.FinalSeat(s, p, c) for s, p, c in zip(h.seats, h.players, final, strict=True)
                ),
                uncalled_seat=self.uncalled_seat,
                uncalled_amount=self.uncalled_amount,
                voided=False,
            )
        )
        reveal = await self.close_deck()
        return HandResult(
            h.hand_id,
            h.config,
            h.facts,
            h.seats,
            h.players,
            final,
            False,
            reveal,
            self.rpc_calls,
            outcome,
        )

    async def close_deck(self) -> dpb.CloseDeckResponse | None:
        if not self.deck_id:
            return None
        deck_id, self.deck_id = self.deck_id, ""
        reveal: dpb.CloseDeckResponse = await self.call(
            "dealer", "CloseDeck", dpb.CloseDeckRequest(deck_id=deck_id)
        )
        return reveal

    def _final_stacks(self, awards: Sequence[common.Award]) -> list[int]:
        h = self.hand
        final = [p.stack for p in h.state.players]
        if self.uncalled_seat is not None:
            final[h.index(self.uncalled_seat)] += self.uncalled_amount
        for award in awards:
            final[h.index(award.seat)] += award.amount
        return final

    # ------------------------------------------------------------ stud

    def _open_deck(self, first_deal: dpb.DealRequest) -> dpb.OpenDeckRequest:
        """A fresh deck and its first street (third street, or the draw's five cards)
        in one call."""
        h = self.hand
        return dpb.OpenDeckRequest(
            game=h.config.game,
            players=len(h.seats),
            hand_id=h.hand_id,
            table_id=h.table_id,
            preset_order=self.preset_order,
            first_deal=first_deal,
        )

    def _opened(self, opened: dpb.OpenDeckResponse) -> list[str]:
        self.deck_id = opened.deck_id
        self.hand.commitment = opened.commitment
        return list(opened.first_deal.cards)

    async def _stud(self) -> bpb.ApplyActionResponse:
        h = self.hand
        n = len(h.seats)
        first = dpb.DealRequest(burn_first=h.config.burn_before_third, count=3 * n)
        c = self._opened(await self.call("dealer", "OpenDeck", self._open_deck(first)))
        for i in range(n):
            h.cards[i].down = [c[i], c[n + i]]
            h.cards[i].up = [c[2 * n + i]]
        resp = await self._start_street()
        self.emit(
            f.HandStarted(
                seats=self._seat_infos(),
                button_seat=0,
                button_dead=False,
                posts=self._antes(),
                commitment=h.commitment,
            )
        )
        self.emit(f.StreetStarted(0, STUD_STREETS[0]))
        for i, seat in enumerate(h.seats):
            self.emit(f.Dealt(seat, tuple(h.cards[i].down), up=False))
        for i, seat in enumerate(h.seats):
            self.emit(f.Dealt(seat, tuple(h.cards[i].up), up=True))
        closed = resp.betting_closed
        while True:
            if resp.HasField("legal"):
                resp = await self._decide(resp.legal)
                if resp.hand_complete:
                    return resp
                closed = resp.betting_closed
                if resp.next_round_started:  # the next street, opened with the action
                    h.street += 1
                    await self._deal_stud_street()
                    if h.street == SEVENTH:
                        self.final_round_opened = resp.HasField("legal")
                continue
            if h.street >= SEVENTH:
                return resp
            h.street += 1
            await self._deal_stud_street()
            if closed:
                continue
            resp = await self._start_street()
            closed = resp.betting_closed
            if h.street == SEVENTH and resp.HasField("legal"):
                self.final_round_opened = True

    async def _start_street(self) -> bpb.ApplyActionResponse:
        """StartRound for the street just dealt, with everyone's upcards (S5, S6)."""
        h = self.hand
        request = bpb.StartRoundRequest(
            street=h.street, upcards=[bpb.UpCards(cards=pc.up) for pc in h.cards]
        )
        return self._take(await self._betting_or_void("StartRound", request))

    def _active(self) -> list[int]:
        return [i for i, p in enumerate(self.hand.state.players) if not p.folded]

    async def _deal_call(self, street: int, players: int) -> Any:
        """The dealer call for stud ``street`` (S4: burn, one card each; seventh
        street: DealRiver with the S11 procedure)."""
        h = self.hand
        unused, self._unused = self._unused, 0
        if street < SEVENTH:
            return await self.call(
                "dealer",
                "Deal",
                dpb.DealRequest(
                    deck_id=self.deck_id, burn_first=True, count=players, return_unused=unused
                ),
            )
        return await self.call(
            "dealer",
            "DealRiver",
            dpb.DealRiverRequest(
                deck_id=self.deck_id,
                players=players,
                procedure=h.config.river_shortage,
                return_unused=unused,
            ),
        )

    def _speculate(self, legal: common.LegalActions) -> None:
        """Stud, fourth to sixth street: at a turn whose answer may close the round,
        deal the next street now, for every player still in, while the player
        thinks; the street change then waits for no dealer call.  When it comes,
        the players still in take the first of those cards in dealing order, as a
        deal made then would give them (S4), and the cards of those who folded
        meanwhile go back on top of the stub with the next dealer call
        (``return_unused``), so the deck goes on exactly as without this.  A
        raise keeps the deal for the next turn that may close the round; a hand
        that ends first never shows it."""
        h = self.hand
        street = h.street + 1
        if not h.is_stud or not legal.closes_round or street >= SEVENTH:
            return
        if self._ahead is not None and self._ahead[0] == street:
            return
        players = tuple(self._active())
        task = asyncio.ensure_future(self._deal_call(street, len(players)))
        task.add_done_callback(_retrieve)  # a hand that ends first never awaits it
        self._ahead = (street, players, task)

    def _deal_ahead(self) -> None:
        """Stud: when betting said the action closes the round (``closes_round``),
        the next street is dealt whatever else happens, and the ApplyAction call
        opens its round too (``_then_start``), so a street change costs one betting
        call.  Fourth to sixth street were dealt at the turn (``_speculate``);
        seventh street is asked for as soon as the action arrives, for exactly the
        players still in (S11 counts them).  Nobody sees the cards before the
        action is applied and the street is announced."""
        h = self.hand
        closing = self._closing
        if closing is None or (self._ahead is not None and self._ahead[0] == h.street + 1):
            return
        task = asyncio.ensure_future(self._deal_call(h.street + 1, len(closing)))
        task.add_done_callback(_retrieve)  # a voided hand may never await it
        self._ahead = (h.street + 1, closing, task)

    @staticmethod
    def _dealt_to(
        ahead: Ahead, active: Sequence[int], cards: Sequence[str]
    ) -> list[tuple[int, str]]:
        """The cards of a street dealt ahead, given to the players ``active`` now:
        the first of them in dealing order (the rest are unused).  Raises
        HandVoided when a player now in was not dealt for (cannot happen: players
        only leave a hand)."""
        dealt_for = ahead[1]
        if [i for i in dealt_for if i in active] != list(active):
            raise HandVoided(
                f"street {ahead[0]} was dealt ahead for players {list(dealt_for)}, "
                f"but it is due to {list(active)}"
            )
        return list(zip(active, cards[: len(active)], strict=True))

    async def _then_start(self) -> bpb.StartRoundRequest | None:
        """With the next street dealt ahead, its round opens in the ApplyAction call
        itself (``then_start``): one betting call instead of ApplyAction and then
        StartRound.  Seventh street's upcards are sixth street's (the river is
        dealt down), so nothing waits; on fourth to sixth street the new upcards
        come from the deal, which was asked for when the action arrived."""
        h = self.hand
        if self._ahead is None or self._ahead[0] != h.street + 1 or self._closing is None:
            return None
        street, _, task = self._ahead
        upcards = [list(pc.up) for pc in h.cards]
        if street < SEVENTH:
            dealt: dpb.DealResponse = await task
            for i, card in self._dealt_to(self._ahead, self._closing, dealt.cards):
                upcards[i].append(card)
        return bpb.StartRoundRequest(street=street, upcards=[bpb.UpCards(cards=u) for u in upcards])

    async def _deal_stud_street(self) -> None:
        h = self.hand
        active = self._active()
        self.emit(f.StreetStarted(h.street, STUD_STREETS[h.street]))
        ahead, self._ahead = self._ahead, None
        self._closing = None
        if ahead is not None and ahead[0] != h.street:
            raise HandVoided(f"street {ahead[0]} was dealt ahead, but street {h.street} is due")
        if h.street < SEVENTH:
            if ahead is None:
                dealt: dpb.DealResponse = await self._deal_call(h.street, len(active))
                given = list(zip(active, dealt.cards, strict=True))
            else:
                dealt = await ahead[2]
                given = self._dealt_to(ahead, active, dealt.cards)
                self._unused = len(ahead[1]) - len(active)
            for i, card in given:
                h.cards[i].up.append(card)
                self.emit(f.Dealt(h.seats[i], (card,), up=True))
            return
        if ahead is not None and ahead[1] != tuple(active):
            raise HandVoided(
                f"seventh street was dealt for players {list(ahead[1])}, but it is due to {active}"
            )
        river: dpb.DealRiverResponse = (
            await ahead[2] if ahead is not None else await self._deal_call(h.street, len(active))
        )
        RIVER_OUTCOMES.labels(_RIVER_NAMES.get(river.outcome, "unknown")).inc()
        if river.community_card:
            h.community_card = river.community_card
            self.emit(f.Dealt(0, (), up=True, community_card=river.community_card))
            return
        for i, card in zip(active, river.cards, strict=True):
            h.cards[i].down.append(card)
            self.emit(f.Dealt(h.seats[i], (card,), up=False))

    # ------------------------------------------------------------ draw

    async def _draw(self) -> bpb.ApplyActionResponse:
        h = self.hand
        n = len(h.seats)
        start = bpb.StartRoundRequest(street=0)
        if self.plan.posts:
            start.posts.extend(
                bpb.ForcedBet(seat=p.seat, amount=p.amount, live=p.live) for p in self.plan.posts
            )
            start.big_blind_seat = self.plan.big_blind_seat
        outcomes: tuple[Any, Any] = await asyncio.gather(
            self.call("dealer", "OpenDeck", self._open_deck(dpb.DealRequest(count=5 * n))),
            self._betting_or_void("StartRound", start),
            return_exceptions=True,
        )
        opened, started = outcomes
        if isinstance(opened, dpb.OpenDeckResponse):
            c = self._opened(opened)  # known even if StartRound failed: closed on void
        for outcome in outcomes:
            if isinstance(outcome, BaseException):
                raise outcome
        resp = self._take(started)
        for i in range(n):
            h.cards[i].down = [c[i + k * n] for k in range(5)]
        self.emit(
            f.HandStarted(
                seats=self._seat_infos(),
                button_seat=h.button_seat,
                button_dead=h.button_dead,
                posts=(*self._antes(), *self._blinds()),
                commitment=h.commitment,
            )
        )
        self.emit(f.StreetStarted(0, DRAW_STREETS[0]))
        for i, seat in enumerate(h.seats):
            self.emit(f.Dealt(seat, tuple(h.cards[i].down), up=False))
        burned = False
        while resp.HasField("legal"):
            if h.state.phase == bpb.PHASE_DRAWING and not burned:
                burned = True
                h.street = 1
                self.emit(f.StreetStarted(1, DRAW_STREETS[1]))
                # D6: the burn goes with the first draw that replaces cards.
                self.burn_before_draw = (
                    not h.config.HasField("burn_before_draw") or h.config.burn_before_draw
                )
            was_drawing = h.state.phase == bpb.PHASE_DRAWING
            resp = await self._decide(resp.legal)
            if resp.hand_complete:
                return resp
            if was_drawing and h.state.phase != bpb.PHASE_DRAWING:
                h.street = 2
                self.emit(f.StreetStarted(2, DRAW_STREETS[2]))
                self.final_round_opened = resp.HasField("legal")
        return resp

    # ------------------------------------------------------------ decisions

    async def _decide(self, legal: common.LegalActions) -> bpb.ApplyActionResponse:
        """One decision: the turn, the answer or the clock, the betting call."""
        h = self.hand
        loop = asyncio.get_running_loop()
        seat = legal.seat
        version = h.state.version
        clock_s = 0.0 if seat in self.fold_on_turn else self.clock_s
        deadline = loop.time() + clock_s
        turn = f.Turn(seat, version, legal, int((time.time() + clock_s) * 1000))
        self._speculate(legal)
        h._offer = None
        h.turn = turn
        self.emit(turn)
        while True:
            remaining = deadline - loop.time()
            if h._offer is None and remaining > 0:
                # One future and one timer per wait (asyncio.wait_for would add a
                # task per decision on the table's hottest path).
                arrived = h._arrived = loop.create_future()
                timer = loop.call_later(remaining, _resolve, arrived)
                try:
                    await arrived
                finally:
                    timer.cancel()
                    h._arrived = None
            action = h._offer
            if action is None:
                h.turn = None
                get_logger().info(
                    "action clock ran out", hand_id=h.hand_id, table_id=h.table_id, seat=seat
                )
                resp = await self._betting_or_void(
                    "ApplyTimeout", bpb.ApplyTimeoutRequest(version=version)
                )
                TIMEOUTS.labels(self.game, timeout_policy_label(h.config.timeout_policy)).inc()
                return await self._applied(seat, resp, timeout=True)
            started = time.perf_counter()
            self._closing = (
                _closing(self._active(), h.index(seat), action, legal) if h.is_stud else None
            )
            self._deal_ahead()
            try:
                resp = await self._betting(
                    "ApplyAction",
                    bpb.ApplyActionRequest(
                        action=action,
                        seat=seat,
                        version=version,
                        then_start=await self._then_start(),
                    ),
                )
            except DownstreamError as error:
                h._offer = None
                closing, self._closing = self._closing, None
                if closing is not None and self._ahead is not None and self._ahead[0] == SEVENTH:
                    # Betting refused what it said closes the round: seventh street
                    # is already dealt for the players it left, so the hand cannot
                    # go on.  (Fourth to sixth street, dealt at the turn for
                    # everyone still in, stay good for the next answer.)
                    raise HandVoided(
                        f"betting.ApplyAction refused a round-closing action: {error.code().name}"
                    ) from error
                if error.code() in (
                    grpc.StatusCode.FAILED_PRECONDITION,
                    grpc.StatusCode.INVALID_ARGUMENT,
                ):
                    self._reject(h, seat, version, error.code(), error.details() or "refused")
                    continue
                raise HandVoided(f"betting.ApplyAction: {error.code().name}") from error
            h.turn = None
            h._offer = None
            if self._closing is not None and not (resp.round_complete and not resp.hand_complete):
                raise HandVoided("betting said the action closes the round; it did not")
            result = await self._applied(seat, resp, timeout=False)
            DECISION_SECONDS.observe(time.perf_counter() - started)
            return result

    async def _applied(
        self, seat: int, resp: bpb.ApplyActionResponse, *, timeout: bool
    ) -> bpb.ApplyActionResponse:
        """Record an applied action (a draw: replace the cards first)."""
        h = self.hand
        i = h.index(seat)
        self._take(resp)
        action = resp.applied
        ACTIONS.labels(self.game, _KIND_NAMES.get(action.kind, "all_in_protection")).inc()
        if action.kind == common.ACTION_KIND_DISCARD:
            received: list[str] = []
            if action.cards:
                drawn: dpb.DrawResponse = await self.call(
                    "dealer",
                    "Draw",
                    dpb.DrawRequest(
                        deck_id=self.deck_id,
                        discards=action.cards,
                        burn_first=self.burn_before_draw,
                    ),
                )
                self.burn_before_draw = False
                received = list(drawn.cards)
                hand_cards = h.cards[i].down
                for old, new in zip(action.cards, received, strict=True):
                    hand_cards[hand_cards.index(old)] = new
            self.emit(f.DrawTaken(seat, tuple(action.cards), tuple(received)))
            return resp
        self.emit(
            f.ActionTaken(
                seat,
                action,
                timeout,
                h.state.players[i].stack,
                tuple(resp.pots) if resp.round_complete else (),
            )
        )
        return resp

    # ------------------------------------------------------------ showdown

    async def _showdown(self) -> list[common.Award]:
        """Settle through the showdown service, in the order the library decides
        (S12, D9: ``showdown_start``, the same decision ``StudHand`` and
        ``DrawHand`` make; stud needs the upcards for the S6 best board when the
        betting closed before seventh street)."""
        h = self.hand
        state, _ = state_from_pb(h.state)
        upcards = [[parse_card(c) for c in pc.up] for pc in h.cards] if h.is_stud else []
        first, all_show = rules_betting.showdown_start(state, self.final_round_opened, upcards)
        settled: spb.SettleResponse = await self.call(
            "showdown",
            "Settle",
            spb.SettleRequest(
                config=h.config,
                hands=[
                    spb.SeatHand(seat=seat, cards=pc.all(), folded=p.folded)
                    for seat, pc, p in zip(h.seats, h.cards, h.state.players, strict=True)
                ],
                community_card=h.community_card,
                pots=h.pots,
                first_to_show_seat=h.seats[first],
                all_show=all_show,
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

    # ------------------------------------------------------------ helpers

    def _seat_infos(self) -> tuple[f.SeatInfo, ...]:
        h = self.hand
        return tuple(
            f.SeatInfo(s, p, n, c)
            for s, p, n, c in zip(h.seats, h.players, h.names, h.start_stacks, strict=True)
        )

    def _antes(self) -> tuple[f.Post, ...]:
        h = self.hand
        if not h.config.ante:
            return ()
        return tuple(
            f.Post(seat, min(h.config.ante, stack), "ante")
            for seat, stack in zip(h.seats, h.start_stacks, strict=True)
        )

    def _blinds(self) -> tuple[f.Post, ...]:
        """The lobby's blinds and dead money as posted: in the plan's order (live
        before dead for each seat), after the antes, each at most what the seat has
        left, as the engine takes them (all-in for less), so the history's live and
        dead amounts are the chips that went in (B3, B4)."""
        h = self.hand
        left = dict(zip(h.seats, h.start_stacks, strict=True))
        for ante in self._antes():
            left[ante.seat] -= ante.amount
        posted = []
        for p in self.plan.posts:
            amount = min(p.amount, left[p.seat])
            left[p.seat] -= amount
            posted.append(f.Post(p.seat, amount, "blind" if p.live else "dead"))
        return tuple(posted)
