"""Actions a player can take and the legal-action menu offered to a bot.

Amounts are always *to* amounts for bets and raises (the player's total
commitment on the street after the action), and integers of the smallest chip.
"""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar, Final

from .errors import InvalidConfigError


class ActionKind(StrEnum):
    """What a player does when it is their turn."""

    FOLD = "fold"
    CHECK = "check"
    CALL = "call"
    BRING_IN = "bring_in"  # S5: the forced opening of third street for less than a bet
    COMPLETE = "complete"  # S5: bring the bring-in up to the small bet
    BET = "bet"
    RAISE = "raise"
    DISCARD = "discard"  # D6: draw; ``cards`` lists the discards, empty = stand pat


class Record:
    """A small immutable record compared by value.

    The hot records (actions, menus, log events) are plain classes with ``Final``
    attributes rather than dataclasses or named tuples: compiled by mypyc they are
    native objects, built about ten times faster, and a hand builds dozens.
    """

    _fields: ClassVar[tuple[str, ...]] = ()

    def _key(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Record) and type(other) is type(self) and self._key() == other._key()
        )

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({fields})"


class Action(Record):
    """One decision.  ``amount`` is the *to* amount for BET, RAISE and COMPLETE.

    For CALL and BRING_IN the amount is implied and ignored when given as 0.
    For DISCARD, ``cards`` names the cards thrown away (0..5 of them).
    """

    _fields = ("kind", "amount", "cards")

    def __init__(self, kind: ActionKind, amount: int = 0, cards: tuple[int, ...] = ()) -> None:
        self.kind: Final = kind
        self.amount: Final = amount
        self.cards: Final = cards

    @staticmethod
    def fold() -> Action:
        return Action(ActionKind.FOLD)

    @staticmethod
    def check() -> Action:
        return Action(ActionKind.CHECK)

    @staticmethod
    def call() -> Action:
        return Action(ActionKind.CALL)

    @staticmethod
    def bring_in() -> Action:
        return Action(ActionKind.BRING_IN)

    @staticmethod
    def complete(to: int) -> Action:
        return Action(ActionKind.COMPLETE, to)

    @staticmethod
    def bet(to: int) -> Action:
        return Action(ActionKind.BET, to)

    @staticmethod
    def raise_to(to: int) -> Action:
        return Action(ActionKind.RAISE, to)

    @staticmethod
    def discard(cards: tuple[int, ...] | list[int] = ()) -> Action:
        return Action(ActionKind.DISCARD, 0, tuple(cards))


class LegalActions(Record):
    """The complete menu for the player to act, in the form a bot needs.

    - ``can_fold``, ``can_check``.
    - ``call_amount``: chips a CALL adds (``None`` when calling is not possible).
      When short, it is the player's whole stack (an all-in call).
    - ``bring_in_amount``: chips a BRING_IN posts (third street in stud only).
    - ``raise_kind``: which of COMPLETE, BET or RAISE the aggressive option is, or
      ``None``.  ``min_to``/``max_to`` bound its *to* amount.  In fixed limit only
      the exact amounts in ``to_choices`` are legal (usually one; two with the
      fourth-street open pair of S7a); in pot and no limit every integer between
      ``min_to`` and ``max_to`` is legal and ``to_choices`` is empty.
    - ``max_discards``: 0..5 during a draw (``None`` outside a draw).
    """

    _fields = (
        "player",
        "can_fold",
        "can_check",
        "call_amount",
        "bring_in_amount",
        "raise_kind",
        "min_to",
        "max_to",
        "to_choices",
        "max_discards",
        "kinds",
    )

    def __init__(
        self,
        player: int,
        can_fold: bool = False,
        can_check: bool = False,
        call_amount: int | None = None,
        bring_in_amount: int | None = None,
        raise_kind: ActionKind | None = None,
        min_to: int | None = None,
        max_to: int | None = None,
        to_choices: tuple[int, ...] = (),
        max_discards: int | None = None,
        kinds: tuple[ActionKind, ...] = (),
    ) -> None:
        self.player: Final = player
        self.can_fold: Final = can_fold
        self.can_check: Final = can_check
        self.call_amount: Final = call_amount
        self.bring_in_amount: Final = bring_in_amount
        self.raise_kind: Final = raise_kind
        self.min_to: Final = min_to
        self.max_to: Final = max_to
        self.to_choices: Final = to_choices
        self.max_discards: Final = max_discards
        self.kinds: Final = kinds

    def with_fold(self) -> LegalActions:
        """The same menu with FOLD offered first (D7: fold even when checking is free)."""
        return LegalActions(
            self.player,
            True,
            self.can_check,
            self.call_amount,
            self.bring_in_amount,
            self.raise_kind,
            self.min_to,
            self.max_to,
            self.to_choices,
            self.max_discards,
            (ActionKind.FOLD, *self.kinds),
        )

    def allows(self, action: Action) -> bool:
        """True when ``action`` is on this menu (amounts included)."""
        return self.problem(action) is None

    def problem(self, action: Action) -> str | None:
        """Why ``action`` is not legal, or ``None`` when it is."""
        kind = action.kind
        if kind not in self.kinds:
            return f"{kind.value} is not allowed now; allowed: {self.describe()}"
        if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
            if self.min_to is None or self.max_to is None:
                raise InvalidConfigError(f"this menu offers {kind.value} without min_to and max_to")
            if type(action.amount) is not int:  # money is whole chips, never floats
                return f"{kind.value} amount must be an int of chips, got {action.amount!r}"
            if self.to_choices:
                if action.amount not in self.to_choices:
                    choices = " or ".join(str(c) for c in self.to_choices)
                    return f"{kind.value} must be to exactly {choices}, got {action.amount}"
            elif not self.min_to <= action.amount <= self.max_to:
                return (
                    f"{kind.value} must be to between {self.min_to} and {self.max_to}, "
                    f"got {action.amount}"
                )
        if kind is ActionKind.DISCARD:
            if self.max_discards is None:
                raise InvalidConfigError("this menu offers discard without max_discards")
            if len(action.cards) > self.max_discards:
                return f"at most {self.max_discards} cards may be discarded"
            if len(set(action.cards)) != len(action.cards):
                return "the same card cannot be discarded twice"
            if any(type(c) is not int for c in action.cards):
                return "cards are ints (rank_index * 4 + suit)"
        return None

    def describe(self) -> str:
        """Human- and bot-readable list of what is allowed."""
        parts: list[str] = []
        for kind in self.kinds:
            if kind is ActionKind.CALL:
                parts.append(f"call {self.call_amount}")
            elif kind is ActionKind.BRING_IN:
                parts.append(f"bring_in {self.bring_in_amount}")
            elif kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
                if self.to_choices:
                    parts.append(f"{kind.value} to " + " or ".join(map(str, self.to_choices)))
                else:
                    parts.append(f"{kind.value} to {self.min_to}..{self.max_to}")
            elif kind is ActionKind.DISCARD:
                parts.append(f"discard 0..{self.max_discards} cards")
            else:
                parts.append(kind.value)
        return ", ".join(parts) if parts else "nothing (not your turn)"
