"""The Dealer gRPC servicer: validates requests, deals through poker_rules.Deck.

Every card movement goes through the library's ``Deck`` (burn, deal, the S11 river
and the D6 draw), built by ``poker_rules.commitment`` so that the shuffle and every
reshuffle are fixed by the committed secrets.  The servicer checks each request
before it touches the deck, so a refused request changes nothing, and logs every
operation for the reveal.

Only the table service deals (``DECK_CALLERS``): every call on a deck checks its
caller's identity first.  Logs name the hand and table, never a deck id (it opens
the live order to whoever holds it), a salt or a card.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from poker.common.v1.batch_pb2 import CallBatch, ReplyBatch
from poker.dealer.v1 import dealer_pb2 as pb
from poker.dealer.v1 import dealer_pb2_grpc as pb_grpc
from poker_rules.card_commitment import SCHEME as CARD_SCHEME
from poker_rules.cards import Card, card_str, parse_card, short_deck, standard_deck
from poker_rules.commitment import SCHEME, open_deck
from poker_rules.config import Game
from poker_rules.errors import DeckExhaustedError, InvalidConfigError
from poker_wire import card_list, card_strs, check_count, check_id, game_of, river_shortage_of
from service_kit.batches import BatchServer
from service_kit.errors import (
    ErrorCodes,
    FailedPreconditionError,
    InvalidArgumentError,
    PermissionDeniedError,
)
from service_kit.identity import caller_identity
from service_kit.logs import bound_contextvars, get_logger

from .audit import unused_cards
from .decks import ANONYMOUS, DeckEntry, DeckStore
from .metrics import (
    BATCH_SIZE,
    BATCHED_CALLS,
    CARDS_DEALT,
    CARDS_RETURNED,
    DECKS_CLOSED,
    DECKS_OPENED,
    RESHUFFLES,
    RIVER_DEALS,
)

# Every method is called by grpc.aio with its servicer context.
Context = grpc.aio.ServicerContext[Any, Any]

PLAYERS = {Game.STUD: (2, 8), Game.STUD_HILO: (2, 8), Game.DRAW_7A: (2, 5)}  # S1, D1
RIVER_OUTCOMES = {
    "normal": pb.RIVER_OUTCOME_NORMAL,
    "reshuffled": pb.RIVER_OUTCOME_RESHUFFLED,
    "stub_first": pb.RIVER_OUTCOME_STUB_FIRST,
    "community": pb.RIVER_OUTCOME_COMMUNITY,
}
# The library's errors as statuses (the unary calls get them from the server's
# ErrorInterceptor, the Batch stream's replies from service_kit.batches).
ERROR_CODES: ErrorCodes = {
    DeckExhaustedError: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT,
}
MAX_DEAL = 52
MAX_DISCARDS = 5  # D6
DECK_CALLERS = frozenset({"table"})  # the identities that may open and deal decks

log = get_logger()


def deck_owner(context: Context | None) -> str:
    """The caller of a deck call, as the owner of the decks it opens: its identity,
    or ``ANONYMOUS`` without one.  PERMISSION_DENIED for an identity not in
    ``DECK_CALLERS``.

    A caller without an identity is let through on purpose: refusing connections
    without a service certificate is the mutual-TLS layer's job (the server's TLS
    and its per-method authorization, ``service_kit.authz``), not the dealer's;
    plaintext runs have no identities at all.  In-process callers (tests, the
    in-process room) pass no context and count as such a caller.  The check here
    is defence in depth: a deck call from another service is refused even where
    the layer above let it through."""
    identity = None if context is None else caller_identity(context)
    if identity is not None and identity not in DECK_CALLERS:
        raise PermissionDeniedError(
            f"only the table service may open, deal and close decks; "
            f"the caller {identity!r} may not"
        )
    # The limit is per caller connection: every table-service process (every
    # shard) holds the same identity, so the identity alone would let one
    # runaway process use up the decks of all the others.
    peer = getattr(context, "peer", None) if context is not None else None
    connection = peer() if callable(peer) else ""
    who = identity or ANONYMOUS
    return f"{who}@{connection}" if connection else who


def deck_cards(game: Game, players: int) -> list[Card]:
    """G1: 52 cards for the stud games; 7..A for draw, with the sixes for five players."""
    if game is Game.DRAW_7A:
        return short_deck(with_sixes=players == 5)
    return standard_deck()


class DealerServicer(pb_grpc.DealerServicer):
    """Decks for hands; see the proto for the contract."""

    def __init__(self, store: DeckStore, *, allow_presets: bool) -> None:
        self._store = store
        self._allow_presets = allow_presets
        self._batch = BatchServer(
            pb.DESCRIPTOR.services_by_name["Dealer"], self, ERROR_CODES, BATCHED_CALLS, BATCH_SIZE
        )

    async def Batch(
        self, request_iterator: AsyncIterator[CallBatch], context: Context
    ) -> AsyncIterator[ReplyBatch]:
        """The five calls in batches, each answered in order (see the proto)."""
        async for replies in self._batch.answer(request_iterator, context):
            yield replies

    async def OpenDeck(self, request: pb.OpenDeckRequest, context: Context) -> pb.OpenDeckResponse:
        owner = deck_owner(context)
        # A caller at its limit is refused before anything is shuffled: its
        # refusals cost the dealer next to nothing, which stays the other tables'.
        self._store.check_room(owner)
        game = game_of(request.game)
        fewest, most = PLAYERS[game]
        players = check_count(request.players, "players", fewest, most)
        hand_id = check_id(request.hand_id, "hand_id", required=False)
        table_id = check_id(request.table_id, "table_id", required=False)
        cards = deck_cards(game, players)
        preset = None
        if request.preset_order:
            if not self._allow_presets:
                raise FailedPreconditionError(
                    "preset decks are disabled on this dealer; they are for tests and "
                    "certification only (start it with DEALER_ALLOW_PRESET_DECKS=1)"
                )
            preset = card_list(
                request.preset_order, "preset_order", fewest=len(cards), most=len(cards)
            )
            if set(preset) != set(cards):
                raise InvalidArgumentError(
                    f"preset_order must be a permutation of the {len(cards)}-card deck of "
                    f"{game.value} with {players} players (G1)"
                )
        if request.HasField("first_deal"):
            self._check_deal(request.first_deal, len(cards), "first_deal.")
        deck, secrets = open_deck(cards, preset)
        entry = self._store.add(
            deck,
            secrets,
            game=game,
            hand_id=hand_id,
            table_id=table_id,
            preset=preset is not None,
            owner=owner,
        )
        DECKS_OPENED.labels(game.value, str(entry.preset).lower()).inc()
        with bound_contextvars(hand_id=hand_id, table_id=table_id):
            log.info("deck opened", deck_size=len(cards), preset=entry.preset, caller=owner)
        response = pb.OpenDeckResponse(
            deck_id=entry.deck_id,
            commitment=secrets.commitment,
            scheme=SCHEME,
            cards=len(cards),
            preset=entry.preset,
            card_commitment=secrets.card_commitment,
            card_scheme=CARD_SCHEME,
        )
        if request.HasField("first_deal"):
            response.first_deal.CopyFrom(self._deal(entry, request.first_deal, "first_deal."))
        return response

    def _entry(self, deck_id: str, context: Context) -> DeckEntry:
        deck_owner(context)
        return self._store.get(check_id(deck_id, "deck_id"))

    async def Deal(self, request: pb.DealRequest, context: Context) -> pb.DealResponse:
        return self._deal(self._entry(request.deck_id, context), request)

    @staticmethod
    def _check_deal(request: pb.DealRequest, remaining: int, field: str) -> int:
        count = check_count(request.count, f"{field}count", 0, MAX_DEAL)
        needed = count + (1 if request.burn_first else 0)
        if needed > remaining:
            raise FailedPreconditionError(
                f"the stub holds {remaining} cards; this deal needs {needed}"
            )
        return count

    @staticmethod
    def _unused(entry: DeckEntry, count: int, field: str) -> list[Card]:
        """The cards ``return_unused`` gives back: the last ``count`` of the previous
        operation, which must be a Deal that served them (checked before anything
        changes)."""
        count = check_count(count, f"{field}return_unused", 0, MAX_DEAL)
        try:
            unused = unused_cards(entry.log[-1] if entry.log else None, count)
        except ValueError as error:
            raise FailedPreconditionError(f"{field}return_unused {count}: {error}") from None
        return [parse_card(c) for c in unused]

    @staticmethod
    def _put_back(entry: DeckEntry, unused: list[Card]) -> None:
        if unused:
            entry.deck.undeal(unused)
            entry.held.difference_update(unused)
            CARDS_RETURNED.inc(len(unused))

    def _deal(self, entry: DeckEntry, request: pb.DealRequest, field: str = "") -> pb.DealResponse:
        deck = entry.deck
        unused = self._unused(entry, request.return_unused, field)
        count = self._check_deal(request, deck.remaining + len(unused), field)
        self._put_back(entry, unused)
        burned = [deck.burn()] if request.burn_first else []
        cards = deck.deal_many(count)
        entry.held.update(cards)
        CARDS_DEALT.inc(len(cards))
        entry.log.append(
            pb.DeckOperation(
                deal=pb.DealRequest(
                    burn_first=request.burn_first, count=count, return_unused=len(unused)
                ),
                cards=card_strs(cards),
                burned=card_strs(burned),
            )
        )
        return pb.DealResponse(cards=card_strs(cards), remaining=deck.remaining)

    async def DealRiver(
        self, request: pb.DealRiverRequest, context: Context
    ) -> pb.DealRiverResponse:
        entry = self._entry(request.deck_id, context)
        if entry.game is Game.DRAW_7A:
            raise FailedPreconditionError("DealRiver is seventh street of the stud games (S11)")
        players = check_count(request.players, "players", 1, 8)
        procedure = river_shortage_of(request.procedure, "procedure")
        unused = self._unused(entry, request.return_unused, "")
        self._put_back(entry, unused)
        deal = entry.deck.deal_river(players, procedure)
        outcome = RIVER_OUTCOMES[deal.outcome]
        entry.held.update(deal.cards)
        CARDS_DEALT.inc(len(deal.cards) + (deal.community is not None))
        RIVER_DEALS.labels(deal.outcome).inc()
        if deal.outcome != "normal":
            RESHUFFLES.labels("river").inc()
        community = card_str(deal.community) if deal.community is not None else ""
        entry.log.append(
            pb.DeckOperation(
                river=pb.DealRiverRequest(
                    players=players, procedure=request.procedure, return_unused=len(unused)
                ),
                cards=card_strs(deal.cards),
                burned=card_strs(deal.burned),
                community_card=community,
                river_outcome=outcome,
                reshuffled=deal.outcome != "normal",
            )
        )
        with bound_contextvars(hand_id=entry.hand_id, table_id=entry.table_id):
            log.info("river dealt", outcome=deal.outcome, players=players)
        return pb.DealRiverResponse(
            cards=card_strs(deal.cards),
            community_card=community,
            outcome=outcome,
            served_from_stub=deal.served_from_stub,
            remaining=entry.deck.remaining,
        )

    async def Draw(self, request: pb.DrawRequest, context: Context) -> pb.DrawResponse:
        entry = self._entry(request.deck_id, context)
        discards = card_list(request.discards, "discards", most=MAX_DISCARDS)
        strangers = [c for c in discards if c not in entry.held]
        if strangers:
            # Counted, not named: the table logs the errors of its calls.
            raise FailedPreconditionError(
                f"{len(strangers)} of the {len(discards)} discards are not in a player's "
                "hand from this deck"
            )
        if request.burn_first and entry.deck.remaining < 1:
            raise FailedPreconditionError("the stub is empty: nothing to burn before the draw")
        # D6: the stub's last card is never dealt; the library reshuffles if needed.
        # (A burn first moves a card from the stub to the burns: the sum is the same.)
        if len(discards) > entry.deck.remaining - 1 + len(entry.deck.burned) + len(
            entry.deck.discards
        ):
            raise FailedPreconditionError("the draw cannot be served even after a reshuffle")
        burned = [entry.deck.burn()] if request.burn_first else []
        cards, reshuffled = entry.deck.draw(discards)
        entry.held.difference_update(discards)
        entry.held.update(cards)
        CARDS_DEALT.inc(len(cards))
        if reshuffled:
            RESHUFFLES.labels("draw").inc()
        entry.log.append(
            pb.DeckOperation(
                draw=pb.DrawRequest(discards=card_strs(discards), burn_first=request.burn_first),
                cards=card_strs(cards),
                burned=card_strs(burned),
                reshuffled=reshuffled,
            )
        )
        return pb.DrawResponse(
            cards=card_strs(cards), reshuffled=reshuffled, remaining=entry.deck.remaining
        )

    async def CloseDeck(
        self, request: pb.CloseDeckRequest, context: Context
    ) -> pb.CloseDeckResponse:
        deck_owner(context)
        entry = self._store.pop(check_id(request.deck_id, "deck_id"))
        DECKS_CLOSED.inc()
        secrets = entry.secrets
        with bound_contextvars(hand_id=entry.hand_id, table_id=entry.table_id):
            log.info("deck closed", operations=len(entry.log))
        return pb.CloseDeckResponse(
            deck_id=entry.deck_id,
            hand_id=entry.hand_id,
            scheme=SCHEME,
            commitment=secrets.commitment,
            order=card_strs(secrets.order),
            salt=secrets.salt,
            reshuffle_seed=secrets.reshuffle_seed,
            preset=entry.preset,
            log=entry.log,
            card_commitment=secrets.card_commitment,
        )
