"""Hands through the table service's hand runner, with the real servicers in-process.

Why: a cross-check of the services against the rules library needs thousands of
hands per game, and the five processes of ``devroom.stack`` (``tests/system/e2e``'s
room) play a few dozen a second at best.  Here the table's own ``HandRunner``
plays each hand, and every downstream call it makes is answered by the real
``DealerServicer``, ``BettingServicer`` and ``ShowdownServicer`` of this
process, so every rule decision is the services' own; only the network is left
out.  Each request and reply still goes through its wire bytes (as over gRPC),
and a refusal comes back as the ``DownstreamError`` the network client raises.

The deck is a preset order (``preset_order``, as certification runs use it);
after the hand the dealer's reveal (order and reshuffle seed, ``CloseDeck``)
rebuilds the very deck in the library (``committed_deck``), mid-hand reshuffles
(S11, D6) included, so ``replay`` plays the same hand in ``StudHand`` /
``DrawHand`` with the actions the runner applied.

    harness = Harness()
    played = asyncio.run(harness.play(config, stacks, preset, rng))
    library = library_replay(played)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import grpc

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker_rules import Action, DrawHand, StudHand
from poker_rules.cards import parse_card
from poker_rules.commitment import committed_deck
from poker_rules.config import DrawConfig
from poker_wire.betting import action_from_pb
from poker_wire.config import game_config
from service_kit.errors import ErrorCodes, status_of
from services.betting.servicer import ERROR_CODES as BETTING_CODES
from services.betting.servicer import BettingServicer, StateRefs
from services.dealer.decks import DeckStore
from services.dealer.servicer import ERROR_CODES as DEALER_CODES
from services.dealer.servicer import DealerServicer
from services.showdown.servicer import ERROR_CODES as SHOWDOWN_CODES
from services.showdown.servicer import ShowdownServicer
from services.table import facts as f
from services.table.clients import DownstreamError
from services.table.hand import Hand, HandResult
from services.table.runner import HandRunner
from tests.support.wire import parse_action

K = common.ActionKind
AGGRESSIVE = (K.ACTION_KIND_BET, K.ACTION_KIND_RAISE, K.ACTION_KIND_COMPLETE)
CLOCK_MS = 600_000
_WITH_REFS = frozenset(
    {"ApplyAction", "ApplyTimeout", "StartRound"}
)  # nobody but a ``timeout_seat`` ever waits for the clock


class InProcessDownstream:
    """``Downstream.call`` answered by the real servicers (see the module docstring)."""

    def __init__(self) -> None:
        self._servicers: dict[str, tuple[Any, ErrorCodes]] = {
            "dealer": (
                DealerServicer(DeckStore(max_decks=64, ttl=3600.0), allow_presets=True),
                DEALER_CODES,
            ),
            "betting": (BettingServicer(), BETTING_CODES),
            "showdown": (ShowdownServicer(), SHOWDOWN_CODES),
        }
        # As on the betting Batch stream the table uses: the replies'
        # states get refs, which the runner sends back instead of the state.
        self._refs = StateRefs()
        self.calls = 0

    async def call(self, service: str, method: str, request: Any) -> Any:
        servicer, codes = self._servicers[service]
        self.calls += 1
        wire = type(request).FromString(request.SerializeToString())
        extra = {"refs": self._refs} if method in _WITH_REFS else {}
        try:
            reply = await getattr(servicer, method)(wire, None, **extra)
        except Exception as error:
            status = status_of(error, codes)
            if status is None:
                raise  # a bug in a servicer: the test shows it as it is
            raise DownstreamError(*status) from error
        return type(reply).FromString(reply.SerializeToString())


def random_action(
    legal: common.LegalActions, held: Sequence[str], rng: random.Random
) -> common.Action:
    """A random legal answer to a turn, leaning to calls and raises (showdowns with
    all-ins are the point) and to all-in amounts in pot and no limit."""
    kinds = list(legal.kinds)
    weights = [1 if k == K.ACTION_KIND_FOLD else 4 if k in AGGRESSIVE else 5 for k in kinds]
    kind = rng.choices(kinds, weights)[0]
    if kind in AGGRESSIVE:
        if legal.to_choices:
            return common.Action(kind=kind, amount=rng.choice(list(legal.to_choices)))
        roll = rng.random()
        if roll < 0.3:
            amount = legal.max_to
        elif roll < 0.55:
            amount = legal.min_to
        else:
            amount = rng.randint(legal.min_to, legal.max_to)
        return common.Action(kind=kind, amount=amount)
    if kind == K.ACTION_KIND_DISCARD:
        k = rng.randint(0, min(legal.max_discards, len(held)))
        return common.Action(kind=kind, cards=rng.sample(list(held), k))
    return common.Action(kind=kind)


@dataclass
class Played:
    """One hand as the table service played it."""

    config: common.GameConfig
    stacks: list[int]
    hand: Hand
    result: HandResult
    timeout_seat: int | None

    @property
    def showdown(self) -> f.Showdown | None:
        shown = [x for x in self.result.facts if isinstance(x, f.Showdown)]
        return shown[0] if shown else None

    @property
    def awards(self) -> list[common.Award]:
        """What the hand paid (HandFinished)."""
        finished = [x for x in self.result.facts if isinstance(x, f.HandFinished)]
        assert len(finished) == 1, "the hand did not finish once"
        return list(finished[0].awards)


class Harness:
    """Plays hands through ``HandRunner`` over ``InProcessDownstream``."""

    def __init__(self) -> None:
        self.ds = InProcessDownstream()
        self.hands = 0

    async def play(
        self,
        config: common.GameConfig,
        stacks: Sequence[int],
        preset: Sequence[str],
        rng: random.Random,
        *,
        timeout_seat: int | None = None,
        script: dict[int, list[str]] | None = None,
        seats: Sequence[int] = (),
    ) -> Played:
        """One hand, every turn answered at once by ``rng`` (or by ``script``, each
        seat's answers in order, read by ``client.parse_action``), except
        ``timeout_seat``'s: its clock runs out at every turn (S10).  ``seats`` and
        ``stacks`` in dealing order, seats 1..n by default (draw: the button is
        the last seat, so the first is left of it)."""
        self.hands += 1
        n = len(stacks)
        seats = list(seats) or list(range(1, n + 1))
        hand_id = f"eq-{self.hands}"
        hand = Hand(
            table_id="t-eq",
            hand_id=hand_id,
            config=config,
            seats=seats,
            players=[f"p{s}" for s in seats],
            names=[f"P{s}" for s in seats],
            start_stacks=list(stacks),
            button_seat=0 if config.game != common.GAME_DRAW_7A else seats[-1],
        )
        plan = lpb.NextHandResponse(
            hand_id=hand_id,
            play=True,
            dealt_in=[
                lpb.SeatInfo(seat=s, player_id=f"p{s}", stack=c, fold_on_turn=s == timeout_seat)
                for s, c in zip(seats, stacks, strict=True)
            ],
        )
        answers = {seat: list(actions) for seat, actions in (script or {}).items()}

        def emit(h: Hand, fact: f.Fact) -> None:
            if not isinstance(fact, f.Turn) or fact.seat == timeout_seat:
                return
            if script is not None:
                if not answers.get(fact.seat):
                    raise AssertionError(f"the script has no answer for seat {fact.seat}")
                action = parse_action(answers[fact.seat].pop(0), fact.legal)
            else:
                held = h.cards[h.index(fact.seat)].all()
                action = random_action(fact.legal, held, rng)
            refused = h.offer(fact.seat, h.hand_id, fact.action_seq, action)
            if refused is not None:  # the hand would wait for the clock: stop here
                raise AssertionError(f"seat {fact.seat} {action}: {refused[1]}")

        def reject(h: Hand, seat: int, version: int, code: grpc.StatusCode, why: str) -> None:
            raise AssertionError(f"betting refused seat {seat}'s action: {code.name} {why}")

        runner = HandRunner(
            hand,
            self.ds,  # type: ignore[arg-type]
            plan=plan,
            clock_ms=CLOCK_MS,
            emit=emit,
            reject=reject,
            preset_order=preset,
        )
        result = await runner.run()
        left = {seat: texts for seat, texts in answers.items() if texts}
        if left:
            raise AssertionError(f"the hand ended before the script did: {left}")
        return Played(config, list(stacks), hand, result, timeout_seat)


def library_replay(played: Played) -> StudHand | DrawHand:
    """The same hand in the rules library: the dealer's revealed deck and
    reshuffle seed, then every action the runner applied, in order (a timeout as
    ``timeout()``, so the library applies the policy itself)."""
    reveal = played.result.reveal
    assert reveal is not None, "the dealer gave no reveal"
    deck = committed_deck([parse_card(c) for c in reveal.order], reveal.reshuffle_seed)
    config = game_config(played.config)
    hand: StudHand | DrawHand
    if isinstance(config, DrawConfig):
        hand = DrawHand(config, played.stacks, deck=deck)
    else:
        hand = StudHand(config, played.stacks, deck=deck)
    index = played.hand.index
    for fact in played.result.facts:
        if isinstance(fact, f.ActionTaken):
            if fact.timeout:
                hand.timeout()
            else:
                hand.act(action_from_pb(fact.action), index(fact.seat))
        elif isinstance(fact, f.DrawTaken):
            if fact.seat == played.timeout_seat:
                hand.timeout()  # a draw's clock stands pat (S10 rule decision)
            else:
                cards = tuple(parse_card(c) for c in fact.discarded)
                hand.act(Action.discard(cards), index(fact.seat))
    return hand
