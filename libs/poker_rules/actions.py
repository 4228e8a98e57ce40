"""Actions a player can take and the legal-action menu offered to a bot.

Amounts are always *to* amounts for bets and raises (the player's total
commitment on the street after the action), and integers of the smallest chip.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


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


@dataclass(frozen=True, slots=True)
class Action:
    """One decision.  ``amount`` is the *to* amount for BET, RAISE and COMPLETE.

    For CALL and BRING_IN the amount is implied and ignored when given as 0.
    For DISCARD, ``cards`` names the cards thrown away (0..5 of them).
    """

    kind: ActionKind
    amount: int = 0
    cards: tuple[int, ...] = ()

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


@dataclass(frozen=True, slots=True)
class LegalActions:
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

    player: int
    can_fold: bool = False
    can_check: bool = False
    call_amount: int | None = None
    bring_in_amount: int | None = None
    raise_kind: ActionKind | None = None
    min_to: int | None = None
    max_to: int | None = None
    to_choices: tuple[int, ...] = ()
    max_discards: int | None = None
    kinds: tuple[ActionKind, ...] = field(default=())

    def allows(self, action: Action) -> bool:
        """True when ``action`` is on this menu (amounts included)."""
        return self.problem(action) is None

    def problem(self, action: Action) -> str | None:
        """Why ``action`` is not legal, or ``None`` when it is."""
        kind = action.kind
        if kind not in self.kinds:
            return f"{kind.value} is not allowed now; allowed: {self.describe()}"
        if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
            assert self.min_to is not None and self.max_to is not None
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
            assert self.max_discards is not None
            if len(action.cards) > self.max_discards:
                return f"at most {self.max_discards} cards may be discarded"
            if len(set(action.cards)) != len(action.cards):
                return "the same card cannot be discarded twice"
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
