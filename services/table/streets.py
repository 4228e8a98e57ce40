"""The hand's cards from the dealer service: the deck, the stud streets, the draw.

``Deck``: OpenDeck with the first deal in the same call (stud third street, S4:
the burn when the table burns, two down and one up each; draw, D4: five each),
the draw's replacements (D6: the burn goes with the first draw that replaces
cards), CloseDeck (the reveal, G4).

``StudStreets``: fourth to seventh street (S4: a burn, then one card to each
player still in; seventh street is DealRiver with the S11 procedure), dealt ahead
where the betting allows it, so that a street change waits for no dealer call:

- at a turn whose answer may close the round (``legal.closes_round``), fourth to
  sixth street is asked for at once, for every player still in, while the player
  thinks (``at_turn``);
- when an answer arrives that closes the round, the next street is asked for if
  it was not already: seventh street only then, for exactly the players still in
  (S11 counts them); and the answer's betting call opens the next round too
  (``then_start``, with the upcards the deal gives), so a street change costs
  one betting call (``answer``).

The invariant, for all of it: every card, burn and S11 count is what a deal made
when the street is due would give.  The players still in take the first cards of
a street dealt ahead, in dealing order (S4); the cards of players who folded
meanwhile go back on top of the stub with the next dealer call
(``return_unused``), so the deck goes on exactly as without the deal-ahead.
Nobody sees a card before the action is applied and the street is announced; a
raise keeps the deal for the next turn that may close the round; a hand that ends
first never shows it.  A street dealt ahead for players who are not the ones it
is due to cannot happen (players only leave a hand) and voids the hand.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from poker.betting.v1 import betting_pb2 as bpb
from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb

from .betting_session import Step
from .calls import HandCalls, HandVoided
from .clients import DownstreamError
from .hand import Hand
from .metrics import RIVER_OUTCOMES

STUD_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")
DRAW_STREETS = ("pre_draw", "draw", "post_draw")
SEVENTH = 4

_RIVER_NAMES = {v: k.removeprefix("RIVER_OUTCOME_").lower() for k, v in dpb.RiverOutcome.items()}

# A street dealt ahead: (street, the players it was dealt for, the dealer call).
Ahead = tuple[int, tuple[int, ...], "asyncio.Future[Any]"]


def _retrieve(task: asyncio.Future[Any]) -> None:
    """Done callback: take a finished call's exception so that a call nobody awaits
    (a street dealt ahead for a hand then voided) is not reported as lost."""
    if not task.cancelled():
        task.exception()


def _closing(
    active: Sequence[int], actor: int, action: common.Action, legal: common.LegalActions
) -> tuple[int, ...] | None:
    """The players still in after ``action`` when it closes the betting round
    (``legal.closes_round``: the hand goes on to the next street), else None."""
    if action.kind not in legal.closes_round:
        return None
    folds = action.kind == common.ACTION_KIND_FOLD
    return tuple(i for i in active if not (folds and i == actor))


class Deck:
    """The hand's deck at the dealer (``deck_id``), from OpenDeck to CloseDeck."""

    def __init__(self, calls: HandCalls, hand: Hand, preset_order: Sequence[str]) -> None:
        self._calls = calls
        self._hand = hand
        self._preset_order = list(preset_order)
        self.deck_id = ""
        self.commitment = b""
        self.card_commitment = b""  # "cardroom-cards-v1" (G4a)
        self._burn_owed = False  # D6: owed by the first draw that replaces cards

    async def open(self, first_deal: dpb.DealRequest) -> list[str]:
        """A fresh deck and its first deal in one call; the cards in dealt order."""
        h = self._hand
        opened: dpb.OpenDeckResponse = await self._calls.call(
            "dealer",
            "OpenDeck",
            dpb.OpenDeckRequest(
                game=h.config.game,
                players=len(h.seats),
                hand_id=h.hand_id,
                table_id=h.table_id,
                preset_order=self._preset_order,
                first_deal=first_deal,
            ),
        )
        self.deck_id = opened.deck_id  # known from here on: closed when voided
        self.commitment = opened.commitment
        self.card_commitment = opened.card_commitment
        return list(opened.first_deal.cards)

    def draw_starts(self) -> None:
        """D6: the draw begins; the burn goes with its first replacement (unless the
        table does not burn before the draw)."""
        config = self._hand.config
        self._burn_owed = not config.HasField("burn_before_draw") or config.burn_before_draw

    async def replace(self, discards: Sequence[str]) -> list[str]:
        """A player's discards replaced (D6), in the order discarded."""
        drawn: dpb.DrawResponse = await self._calls.call(
            "dealer",
            "Draw",
            dpb.DrawRequest(deck_id=self.deck_id, discards=discards, burn_first=self._burn_owed),
        )
        self._burn_owed = False
        return list(drawn.cards)

    async def close(self) -> dpb.CloseDeckResponse | None:
        """CloseDeck once (the reveal), None when no deck was opened."""
        if not self.deck_id:
            return None
        deck_id, self.deck_id = self.deck_id, ""
        reveal: dpb.CloseDeckResponse = await self._calls.call(
            "dealer", "CloseDeck", dpb.CloseDeckRequest(deck_id=deck_id)
        )
        return reveal


@dataclass(frozen=True, slots=True)
class StreetDeal:
    """One stud street as dealt: (player index, card) to each player still in, face
    up (fourth to sixth street) or down (seventh), or the S11 community card."""

    cards: tuple[tuple[int, str], ...]
    up: bool
    community_card: str = ""


class StudStreets:
    """Fourth to seventh street, with the deal-ahead (see the module docstring)."""

    def __init__(self, calls: HandCalls, deck: Deck, hand: Hand) -> None:
        self._calls = calls
        self._deck = deck
        self._hand = hand
        # The next street asked for ahead: (street, the players it was dealt for,
        # the call).
        self._ahead: Ahead | None = None
        # The cards of the last street dealt ahead that nobody got (their players
        # folded before it was dealt): the next dealer call puts them back first.
        self._unused = 0
        # The players still in after the answer being applied, when it closes the
        # betting round, else None.
        self._closing: tuple[int, ...] | None = None

    # ------------------------------------------------------------ the decision

    def at_turn(self, legal: common.LegalActions, active: Sequence[int]) -> None:
        """A turn begins: when its answer may close the round, fourth to sixth
        street is asked for now, for everyone still in (kept from an earlier turn
        of the round if already asked for)."""
        street = self._hand.street + 1
        if not legal.closes_round or street >= SEVENTH:
            return
        if self._ahead is not None and self._ahead[0] == street:
            return
        self._ahead = (street, tuple(active), self._ask(street, len(active)))

    async def answer(
        self,
        active: Sequence[int],
        actor: int,
        action: common.Action,
        legal: common.LegalActions,
    ) -> bpb.StartRoundRequest | None:
        """The player's answer arrived: when it closes the round, the next street
        is dealt whatever else happens (asked for now if it was not at the turn),
        and its round opens in the same betting call: the StartRound to send as
        ``then_start``, else None.  Seventh street's upcards are sixth street's
        (the river is dealt down), so nothing waits for its deal; on fourth to
        sixth street the new upcards come from the deal asked for at the turn."""
        h = self._hand
        closing = self._closing = _closing(active, actor, action, legal)
        if closing is None:
            return None
        street = h.street + 1
        if self._ahead is None or self._ahead[0] != street:
            self._ahead = (street, closing, self._ask(street, len(closing)))
        ahead = self._ahead
        upcards = [list(pc.up) for pc in h.cards]
        if street < SEVENTH:
            dealt: dpb.DealResponse = await ahead[2]
            for i, card in _dealt_to(ahead, closing, dealt.cards):
                upcards[i].append(card)
        return bpb.StartRoundRequest(street=street, upcards=[bpb.UpCards(cards=u) for u in upcards])

    def refused(self, error: DownstreamError) -> None:
        """Betting refused the answer (the turn goes on).  Voids the hand when it
        was one that betting said closes the round and seventh street is already
        dealt for the players it left; fourth to sixth street, dealt at the turn
        for everyone still in, stay good for the next answer."""
        closing, self._closing = self._closing, None
        if closing is not None and self._ahead is not None and self._ahead[0] == SEVENTH:
            raise HandVoided(
                f"betting.ApplyAction refused a round-closing action: {error.code().name}"
            ) from error

    def check_applied(self, step: Step) -> None:
        """An answer said to close the round must have closed it, the hand going on."""
        if self._closing is not None and not (step.round_complete and not step.hand_complete):
            raise HandVoided("betting said the action closes the round; it did not")

    # ------------------------------------------------------------ the street

    async def deal(self, active: Sequence[int]) -> StreetDeal:
        """The street now due (``hand.street``), to the players ``active``: the
        deal made ahead, or one made now."""
        street = self._hand.street
        ahead, self._ahead = self._ahead, None
        self._closing = None
        if ahead is not None and ahead[0] != street:
            raise HandVoided(f"street {ahead[0]} was dealt ahead, but street {street} is due")
        if street < SEVENTH:
            if ahead is None:
                dealt: dpb.DealResponse = await self._deal_call(street, len(active))
                return StreetDeal(tuple(zip(active, dealt.cards, strict=True)), up=True)
            dealt = await ahead[2]
            given = _dealt_to(ahead, active, dealt.cards)
            self._unused = len(ahead[1]) - len(active)
            return StreetDeal(tuple(given), up=True)
        if ahead is not None and ahead[1] != tuple(active):
            raise HandVoided(
                f"seventh street was dealt for players {list(ahead[1])}, "
                f"but it is due to {list(active)}"
            )
        river: dpb.DealRiverResponse = (
            await ahead[2] if ahead is not None else await self._deal_call(street, len(active))
        )
        RIVER_OUTCOMES.labels(_RIVER_NAMES.get(river.outcome, "unknown")).inc()
        if river.community_card:
            return StreetDeal((), up=False, community_card=river.community_card)
        return StreetDeal(tuple(zip(active, river.cards, strict=True)), up=False)

    # ------------------------------------------------------------ the dealer

    def _ask(self, street: int, players: int) -> asyncio.Future[Any]:
        """The street's dealer call, started now and awaited when needed."""
        task = asyncio.ensure_future(self._deal_call(street, players))
        task.add_done_callback(_retrieve)  # a hand that ends first never awaits it
        return task

    async def _deal_call(self, street: int, players: int) -> Any:
        """The dealer call for stud ``street`` (S4: burn, one card each; seventh
        street: DealRiver with the S11 procedure), returning the cards nobody got
        first."""
        deck_id = self._deck.deck_id
        unused, self._unused = self._unused, 0
        if street < SEVENTH:
            return await self._calls.call(
                "dealer",
                "Deal",
                dpb.DealRequest(
                    deck_id=deck_id, burn_first=True, count=players, return_unused=unused
                ),
            )
        return await self._calls.call(
            "dealer",
            "DealRiver",
            dpb.DealRiverRequest(
                deck_id=deck_id,
                players=players,
                procedure=self._hand.config.river_shortage,
                return_unused=unused,
            ),
        )


def _dealt_to(ahead: Ahead, active: Sequence[int], cards: Sequence[str]) -> list[tuple[int, str]]:
    """The cards of a street dealt ahead, given to the players ``active`` now: the
    first of them in dealing order (the rest are unused).  Voids the hand when a
    player now in was not dealt for."""
    dealt_for = ahead[1]
    if [i for i in dealt_for if i in active] != list(active):
        raise HandVoided(
            f"street {ahead[0]} was dealt ahead for players {list(dealt_for)}, "
            f"but it is due to {list(active)}"
        )
    return list(zip(active, cards[: len(active)], strict=True))
