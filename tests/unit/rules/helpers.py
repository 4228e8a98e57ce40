"""Scripted stud decks and small drivers for the rule-book scenario tests (G*, S*).

Cards are written as people write them (``"As Kd 7c"``).  Players are indexes in
clockwise order; for stud, index 0 is the first seat left of the dealer (G5).

The main entry point is ``stud_deck``: give each player's cards *in the order that
player receives them* (down, down, door, fourth, fifth, sixth, seventh) and it lays
out the 52-card deck the way the dealer deals it (G5, S4):

- (optionally) one burn before third street;
- third street round by round: a down card to each player 0..n-1, a second down
  card to each, then the door card to each;
- fourth..seventh street: one burn, then one card to each player still in.  A
  player listed with k cards is still in for the first k cards only (a player who
  folded on fifth street is listed with five cards).

Burns are the ``burns`` given (in order) or else the lowest cards nobody holds.
The rest of the deck follows (``tail`` first when given, then every unused card
from 2c upwards), so the stub is always the real 52-card remainder: S11 (river
shortage) scenarios depend on it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from poker_rules import Action, Card, Deck, StudConfig, StudHand, parse_cards, standard_deck
from poker_rules.engine import BettingHand
from poker_rules.events import Burn, Community, Deal, Draw, Event, Muck, Show

E = TypeVar("E")

CardsText = str | Sequence[str]


def cards(text: CardsText) -> list[Card]:
    """``"As Kd"`` (or ``["As", "Kd"]``) as card ints."""
    return parse_cards(text)


def card(text: str) -> Card:
    """One card, ``"As"``."""
    (c,) = parse_cards(text)
    return c


def stud_order(
    hands: Sequence[CardsText],
    *,
    burns: CardsText = (),
    burn_before_third: bool = False,
    tail: CardsText = (),
) -> list[Card]:
    """The full 52-card deal order (first element dealt first); see the module doc."""
    dealt = [cards(h) for h in hands]
    for i, h in enumerate(dealt):
        if not 3 <= len(h) <= 7:
            raise ValueError(f"player {i}: a stud hand is 3..7 cards, got {len(h)}")
    given_burns = cards(burns)
    given_tail = cards(tail)
    used = {c for h in dealt for c in h} | set(given_burns) | set(given_tail)
    spare = [c for c in standard_deck() if c not in used]  # lowest first
    burn_queue = list(given_burns)

    def next_burn() -> Card:
        return burn_queue.pop(0) if burn_queue else spare.pop(0)

    order: list[Card] = []
    if burn_before_third:
        order.append(next_burn())
    for r in range(3):
        order += [h[r] for h in dealt]
    for r in range(3, 7):
        street = [h[r] for h in dealt if len(h) > r]
        if street:
            order.append(next_burn())
            order += street
    if burn_queue:
        raise ValueError(f"{len(burn_queue)} burn card(s) given but not needed")
    order += given_tail
    order += [c for c in spare if c not in order]
    if len(order) != 52 or len(set(order)) != 52:
        raise ValueError("scripted cards must be distinct")
    return order


def stud_deck(
    hands: Sequence[CardsText],
    *,
    burns: CardsText = (),
    burn_before_third: bool = False,
    tail: CardsText = (),
    seed: int = 0,
) -> Deck:
    """A preset deck for ``StudHand(config, stacks, deck=...)``.  ``seed`` only
    drives the mid-hand reshuffles of S11, so scenarios are reproducible."""
    order = stud_order(hands, burns=burns, burn_before_third=burn_before_third, tail=tail)
    return Deck(order, seed, preset=True)


def play(hand: BettingHand, *moves: tuple[int, Action]) -> None:
    """Apply ``(player, action)`` moves, each checked to be from the player to act."""
    for player, action in moves:
        hand.act(action, player)


def check_or_call_down(hand: BettingHand) -> None:
    """Play the rest of the hand passively: bring in when due, check when free,
    else call."""
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.bring_in_amount is not None:
            hand.act(Action.bring_in())
        elif legal.can_check:
            hand.act(Action.check())
        else:
            hand.act(Action.call())


def check_or_call_until(hand: StudHand, street: int) -> None:
    """Like ``check_or_call_down`` but stop when ``street`` (0 = third .. 4 =
    seventh) is reached or the hand is over."""
    while not hand.is_over and hand.street < street:
        legal = hand.legal_actions()
        if legal.bring_in_amount is not None:
            hand.act(Action.bring_in())
        elif legal.can_check:
            hand.act(Action.check())
        else:
            hand.act(Action.call())


def menu(hand: BettingHand) -> dict[str, object]:
    """The legal-action menu of the player to act, in a compact comparable form:
    ``player``, ``kinds`` (names in menu order), ``call`` (call amount),
    ``bring_in`` (bring-in amount) and ``to`` (the exact fixed-limit *to* choices)."""
    legal = hand.legal_actions()
    return {
        "player": legal.player,
        "kinds": tuple(k.value for k in legal.kinds),
        "call": legal.call_amount,
        "bring_in": legal.bring_in_amount,
        "to": legal.to_choices,
    }


def awards_by_player(hand: BettingHand) -> dict[int, int]:
    """``{player: chips won}`` summed over every pot of the finished hand."""
    assert hand.result is not None
    out: dict[int, int] = {}
    for a in hand.result.awards:
        out[a.player] = out.get(a.player, 0) + a.amount
    return out


def pot_awards(hand: BettingHand) -> list[tuple[int, int, int]]:
    """Every award as ``(pot index, player, amount)``, sorted."""
    assert hand.result is not None
    return sorted((a.pot, a.player, a.amount) for a in hand.result.awards)


def events_of(hand: BettingHand, kind: type[E]) -> list[E]:
    """The hand's log entries of one kind (``Burn``, ``Deal``, ...)."""
    return [e for e in hand.events if isinstance(e, kind)]


def street_of(e: Event) -> int | None:
    """The betting round an entry belongs to; None for the entries that carry no
    street (forced bets, the showdown, the awards)."""
    street: int | None = getattr(e, "street", None)
    return street


def on_street(hand: BettingHand, street: int) -> list[Event]:
    """The hand's log entries of betting round ``street``, in order."""
    return [e for e in hand.events if street_of(e) == street]


def cards_of(e: Event) -> tuple[Card, ...]:
    """Every card an entry names (a draw's discards and new cards both)."""
    if isinstance(e, Draw):
        return e.discarded + e.received
    if isinstance(e, Deal | Community | Burn | Show | Muck):
        return e.cards
    return ()


def new_stud(
    hands: Sequence[CardsText],
    stacks: Sequence[int] | int = 10_000,
    config: StudConfig | None = None,
    *,
    burns: CardsText = (),
    tail: CardsText = (),
    seed: int = 0,
) -> StudHand:
    """A ``StudHand`` dealing ``hands`` (default $1/$2 config, 10_000 chips each)."""
    cfg = config if config is not None else StudConfig()
    if isinstance(stacks, int):
        stacks = [stacks] * len(hands)
    deck = stud_deck(
        hands, burns=burns, burn_before_third=cfg.burn_before_third, tail=tail, seed=seed
    )
    return StudHand(cfg, stacks, deck=deck)


__all__ = [
    "awards_by_player",
    "card",
    "cards",
    "check_or_call_down",
    "check_or_call_until",
    "events_of",
    "menu",
    "new_stud",
    "play",
    "pot_awards",
    "stud_deck",
    "stud_order",
]
