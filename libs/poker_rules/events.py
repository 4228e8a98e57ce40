"""The hand's log: one small record per kind of thing that happens at the table.

``BettingHand.events`` lists them in the order they happened; hand histories
(``poker_rules.phh``) and player views are written from it.  Each kind is its own
class with only its own fields, so a consumer dispatches on the type (``match`` or
``isinstance``) and the type checker knows which fields it may read.  ``street``
numbers betting rounds from 0 (third street in stud, before the draw in draw).

The records are ``Record`` classes (plain classes with ``Final`` attributes, not
dataclasses): the engine is compiled by mypyc, a hand logs dozens of them, and a
native class is built several times faster.

Burned cards are recorded for the audit trail only; views must never pass them to
players (G4).

>>> from poker_rules import StudConfig, StudHand
>>> hand = StudHand(StudConfig(ante=5, bring_in=10, small_bet=20, big_bet=40), [500, 500], seed=1)
>>> [type(e).__name__ for e in hand.events[:4]]
['Ante', 'Ante', 'Deal', 'Deal']
>>> hand.events[0]
Ante(player=0, amount=5)
>>> doors = [e for e in hand.events if isinstance(e, Deal) and e.up]
>>> [(e.player, e.street) for e in doors]  # S4: two down cards, then the door card
[(0, 0), (1, 0)]
"""

from __future__ import annotations

from typing import Final, TypeAlias

from .actions import Action, Record
from .cards import Card


class Ante(Record):
    """``player`` posts an ante of ``amount`` (S3): live for side pots, not a bet."""

    _fields = ("player", "amount")

    def __init__(self, player: int, amount: int) -> None:
        self.player: Final = player
        self.amount: Final = amount


class Blind(Record):
    """``player`` posts a live blind of ``amount``: it counts as their bet (D3)."""

    _fields = ("player", "amount")

    def __init__(self, player: int, amount: int) -> None:
        self.player: Final = player
        self.amount: Final = amount


class DeadBlind(Record):
    """``player`` posts ``amount`` of dead money: in the pot, nobody's bet (B3, B4)."""

    _fields = ("player", "amount")

    def __init__(self, player: int, amount: int) -> None:
        self.player: Final = player
        self.amount: Final = amount


class Deal(Record):
    """``cards`` dealt to ``player``, face up when ``up`` (S4, D4)."""

    _fields = ("player", "cards", "up", "street")

    def __init__(self, player: int, cards: tuple[Card, ...], up: bool, street: int) -> None:
        self.player: Final = player
        self.cards: Final = cards
        self.up: Final = up
        self.street: Final = street


class Community(Record):
    """The stud river dealt face up to the middle, every player's seventh (S11)."""

    _fields = ("cards", "street")

    def __init__(self, cards: tuple[Card, ...], street: int) -> None:
        self.cards: Final = cards
        self.street: Final = street


class Burn(Record):
    """``cards`` burned before a deal: the audit trail's only, never a player's (G4)."""

    _fields = ("cards", "street")

    def __init__(self, cards: tuple[Card, ...], street: int) -> None:
        self.cards: Final = cards
        self.street: Final = street


class Reshuffle(Record):
    """The dealer reshuffles to finish a deal (S11, D6).

    ``reason`` is ``"river"`` (stub and burns reshuffled for seventh street),
    ``"stub_first"`` (the stub served first, then the reshuffle) or ``"draw"`` (D6:
    ``player``'s draw needs more cards than the stub holds); ``player`` is None when
    the reshuffle serves everyone (the stud river).
    """

    _fields = ("reason", "street", "player")

    def __init__(self, reason: str, street: int, player: int | None = None) -> None:
        self.reason: Final = reason
        self.street: Final = street
        self.player: Final = player


class NewStreet(Record):
    """Betting round ``street`` begins (stud: fourth street is 1 ... seventh is 4)."""

    _fields = ("street",)

    def __init__(self, street: int) -> None:
        self.street: Final = street


class Act(Record):
    """``player`` takes ``action``; ``amount`` is the *to* amount of a bet, raise or
    completion and the chips posted by a bring-in (S5), as ``action`` says."""

    _fields = ("player", "action", "amount", "street")

    def __init__(self, player: int, action: Action, amount: int, street: int) -> None:
        self.player: Final = player
        self.action: Final = action
        self.amount: Final = amount
        self.street: Final = street


class Timeout(Record):
    """``player``'s action clock ran out (S10).

    With ``all_in_protection`` the player is all-in for what they have committed
    and acts no more; otherwise the forced action follows as an ``Act``.
    """

    _fields = ("player", "street", "all_in_protection")

    def __init__(self, player: int, street: int, all_in_protection: bool = False) -> None:
        self.player: Final = player
        self.street: Final = street
        self.all_in_protection: Final = all_in_protection


class Draw(Record):
    """``player`` throws away ``discarded`` and is dealt ``received`` (D6); both
    empty when the player stands pat."""

    _fields = ("player", "discarded", "received", "street")

    def __init__(
        self, player: int, discarded: tuple[Card, ...], received: tuple[Card, ...], street: int
    ) -> None:
        self.player: Final = player
        self.discarded: Final = discarded
        self.received: Final = received
        self.street: Final = street


class Uncalled(Record):
    """The part of ``player``'s last bet nobody called goes back to them (G6)."""

    _fields = ("player", "amount")

    def __init__(self, player: int, amount: int) -> None:
        self.player: Final = player
        self.amount: Final = amount


class Show(Record):
    """``player`` shows ``cards`` at the showdown (S12, D9)."""

    _fields = ("player", "cards")

    def __init__(self, player: int, cards: tuple[Card, ...]) -> None:
        self.player: Final = player
        self.cards: Final = cards


class Muck(Record):
    """``player`` mucks a beaten hand unseen (S12, D9); ``cards`` for the house only."""

    _fields = ("player", "cards")

    def __init__(self, player: int, cards: tuple[Card, ...]) -> None:
        self.player: Final = player
        self.cards: Final = cards


class Win(Record):
    """``player`` wins ``amount`` from pot ``pot`` (0 = main); ``half`` is ``"all"``,
    or ``"high"``/``"low"`` for the halves of a split pot (H1-H6)."""

    _fields = ("player", "amount", "pot", "half")

    def __init__(self, player: int, amount: int, pot: int, half: str = "all") -> None:
        self.player: Final = player
        self.amount: Final = amount
        self.pot: Final = pot
        self.half: Final = half


Event: TypeAlias = (
    Ante
    | Blind
    | DeadBlind
    | Deal
    | Community
    | Burn
    | Reshuffle
    | NewStreet
    | Act
    | Timeout
    | Draw
    | Uncalled
    | Show
    | Muck
    | Win
)
"""One entry of ``BettingHand.events``."""
