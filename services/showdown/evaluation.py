"""Evaluate and Settle: requests in, the rules library's answer out.

Nothing here decides a chip's fate on its own: values come from the library's
evaluators, the split from ``poker_rules.showdown.award_pots`` with the odd-chip
orders of the games (S13 highest card, H5 lowest card for the low half, D9
clockwise from the button), and show order from ``show_order``/``shows_or_mucks``
(S12), exactly as ``StudHand`` and ``DrawHand`` call them.  This module validates
the request first (INVALID_ARGUMENT on anything malformed) and translates.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from poker.common.v1 import common_pb2 as common
from poker.showdown.v1 import showdown_pb2 as pb
from poker_rules.cards import ACE, Card, card_str, short_deck
from poker_rules.config import Game
from poker_rules.evaluate import HandValue, evaluate_high, evaluate_low, evaluate_short_deck
from poker_rules.pots import Pot
from poker_rules.showdown import award_pots, show_order, shows_or_mucks
from poker_rules.stud import first_to_act
from poker_wire import MAX_CHIPS, card_list, check_count, game_config, one_card
from service_kit.errors import InvalidArgumentError

from .metrics import HANDS_EVALUATED, POT_SIZE, POTS_SETTLED

MAX_SEAT = 10
PLAYERS = {Game.STUD: 8, Game.STUD_HILO: 8, Game.DRAW_7A: 5}  # S1, D1
SHARES = {"all": common.POT_SHARE_WHOLE, "high": common.POT_SHARE_HIGH, "low": common.POT_SHARE_LOW}


@dataclass(frozen=True, slots=True)
class Table:
    """A validated request: the game, each player's cards (None when folded)."""

    game: Game
    seats: list[int]
    cards: list[list[Card] | None]  # own cards, in dealing order
    community: Card | None
    with_sixes: bool

    def hand(self, i: int) -> list[Card]:
        """Player i's showdown cards, the community card included (S11)."""
        own = self.cards[i]
        assert own is not None
        return own if self.community is None else [*own, self.community]

    @property
    def contenders(self) -> list[int]:
        return [i for i, c in enumerate(self.cards) if c is not None]


def _table(
    config: common.GameConfig,
    hands: Sequence[pb.SeatHand],
    community_card: str,
    fewest: int,
) -> Table:
    game = game_config(config).game
    n = check_count(len(hands), "hands", fewest, PLAYERS[game])
    with_sixes = game is Game.DRAW_7A and n == 5  # G1
    community: Card | None = None
    if community_card:
        if game is Game.DRAW_7A:
            raise InvalidArgumentError("community_card is a stud rule (S11), not 7-A draw")
        community = one_card(community_card, "community_card")
    seats: list[int] = []
    cards: list[list[Card] | None] = []
    seen: set[Card] = set() if community is None else {community}
    allowed = set(short_deck(with_sixes)) if game is Game.DRAW_7A else None
    for k, hand in enumerate(hands):
        field = f"hands[{k}]"
        seat = check_count(hand.seat, f"{field}.seat", 1, MAX_SEAT)
        if seat in seats:
            raise InvalidArgumentError(f"{field}.seat: seat {seat} is listed twice")
        seats.append(seat)
        if hand.folded:
            cards.append(None)
            continue
        if game is Game.DRAW_7A:
            own = card_list(hand.cards, f"{field}.cards", fewest=5, most=5)
        else:
            size = 6 if community is not None else 7
            own = card_list(hand.cards, f"{field}.cards", fewest=size - 2, most=size)
        if allowed is not None and not allowed.issuperset(own):
            lowest = "6" if with_sixes else "7"
            raise InvalidArgumentError(f"{field}.cards: the 7-A deck holds {lowest}..A only (G1)")
        for i, c in enumerate(own):
            if c in seen:  # the position, never the card: refusals reach log lines
                raise InvalidArgumentError(
                    f"{field}.cards[{i}] is a card already dealt to another hand or the board"
                )
            seen.add(c)
        cards.append(own)
    return Table(game, seats, cards, community, with_sixes)


def _ranking(value: HandValue) -> pb.Ranking:
    return pb.Ranking(
        value=value.value,
        category=value.category.name,
        description=value.describe(),
        cards=[card_str(c) for c in value.cards],
    )


def _evaluations(
    table: Table,
) -> tuple[list[int | None], list[int | None] | None, list[pb.HandEvaluation]]:
    """High values, low values (Stud Hi-Lo only) and the messages, per player."""
    n = len(table.seats)
    high: list[int | None] = [None] * n
    low: list[int | None] | None = [None] * n if table.game is Game.STUD_HILO else None
    out: list[pb.HandEvaluation] = []
    for i in table.contenders:
        cards = table.hand(i)
        if table.game is Game.DRAW_7A:
            best = evaluate_short_deck(cards, table.with_sixes)
        else:
            best = evaluate_high(cards)
        high[i] = best.value
        message = pb.HandEvaluation(seat=table.seats[i], high=_ranking(best))
        if low is not None:
            best_low = evaluate_low(cards)
            if best_low is not None:
                low[i] = best_low.value
                message.low.CopyFrom(_ranking(best_low))
        out.append(message)
    HANDS_EVALUATED.labels(table.game.value).inc(len(out))
    return high, low, out


def evaluate(request: pb.EvaluateRequest) -> pb.EvaluateResponse:
    """Score each hand that is not folded."""
    table = _table(request.config, request.hands, request.community_card, fewest=1)
    return pb.EvaluateResponse(evaluations=_evaluations(table)[2])


def _pots(table: Table, pots: Sequence[common.Pot]) -> list[Pot]:
    index = {seat: i for i, seat in enumerate(table.seats)}
    check_count(len(pots), "pots", 1, len(table.seats))
    out: list[Pot] = []
    total = 0
    for k, pot in enumerate(pots):
        field = f"pots[{k}]"
        check_count(pot.amount, f"{field}.amount", 1, MAX_CHIPS)
        total += pot.amount
        eligible: list[int] = []
        for seat in pot.eligible_seats:
            i = index.get(seat)
            if i is None or table.cards[i] is None:
                raise InvalidArgumentError(
                    f"{field}.eligible_seats: seat {seat} is not a player still in the hand"
                )
            if i in eligible:
                raise InvalidArgumentError(f"{field}.eligible_seats: seat {seat} is listed twice")
            eligible.append(i)
        if not eligible:
            raise InvalidArgumentError(f"{field}.eligible_seats must name at least one seat")
        out.append(Pot(pot.amount, tuple(sorted(eligible))))
    if total > MAX_CHIPS:
        raise InvalidArgumentError(f"the pots hold {total} chips; at most {MAX_CHIPS} are allowed")
    return out


def settle(request: pb.SettleRequest) -> pb.SettleResponse:
    """Split every pot and decide who shows (see the module docstring)."""
    table = _table(request.config, request.hands, request.community_card, fewest=2)
    pots = _pots(table, request.pots)
    high, low, evaluations = _evaluations(table)
    contenders = table.contenders
    if request.best_board_first:
        first = _best_board(table, request)
    else:
        first = _first_to_show(table, request.first_to_show_seat, all_show=request.all_show)

    def own(p: int) -> list[Card]:
        cards = table.cards[p]
        assert cards is not None
        return cards

    def high_order(players: list[int]) -> list[int]:
        if table.game is Game.DRAW_7A:
            return sorted(players)  # D9: clockwise from the button
        return sorted(players, key=lambda p: max(own(p)), reverse=True)  # S13

    def low_order(players: list[int]) -> list[int]:
        def lowest(p: int) -> tuple[int, int]:  # H5: ace low, clubs lowest
            return min((0 if c >> 2 == ACE else (c >> 2) + 1, c & 3) for c in own(p))

        return sorted(players, key=lowest)

    awards = award_pots(pots, high, high_order, low, low_order if low is not None else None)
    order = show_order(first, contenders, len(table.seats))
    shown, mucked = shows_or_mucks(order, pots, high, low, all_show=request.all_show)
    game = table.game.value
    for pot in pots:
        POTS_SETTLED.labels(game).inc()
        POT_SIZE.labels(game).observe(pot.amount)
    seats = table.seats
    return pb.SettleResponse(
        awards=[
            common.Award(
                pot_index=a.pot, seat=seats[a.player], amount=a.amount, share=SHARES[a.half]
            )
            for a in awards
        ],
        show_order=[seats[i] for i in order],
        shown_seats=[seats[i] for i in shown],
        mucked_seats=[seats[i] for i in mucked],
        evaluations=evaluations,
    )


def _best_board(table: Table, request: pb.SettleRequest) -> int:
    """The index of the best board showing (S6, all-in players included): who shows
    first when the stud betting closed before seventh street (see the request)."""
    if table.game is Game.DRAW_7A:
        raise InvalidArgumentError("best_board_first is a stud rule (S6), not 7-A draw")
    if request.first_to_show_seat:
        raise InvalidArgumentError(
            "best_board_first names the first to show: leave first_to_show_seat 0"
        )
    if not request.all_show:
        raise InvalidArgumentError(
            "best_board_first needs all_show: the betting closed early (S12)"
        )
    boards: list[list[Card]] = []
    for k, hand in enumerate(request.hands):
        own = table.cards[k]
        if own is None:
            boards.append([])
            continue
        field = f"hands[{k}].upcards"
        up = card_list(hand.upcards, field, fewest=4, most=4)
        if not set(up) <= set(own):
            raise InvalidArgumentError(f"{field}: every upcard is one of the player's cards")
        boards.append(up)
    return first_to_act(boards, [own is None for own in table.cards])


def _first_to_show(table: Table, seat: int, *, all_show: bool) -> int:
    """S12: the index of the first player to show."""
    contenders = table.contenders
    if seat == 0:
        if not all_show:
            raise InvalidArgumentError(
                "first_to_show_seat is required unless all_show (S12: the last bettor or "
                "raiser of the final round, else its first player to act)"
            )
        return contenders[0]
    for i in contenders:
        if table.seats[i] == seat:
            return i
    raise InvalidArgumentError(f"first_to_show_seat {seat} is not a player still in the hand")
