"""Game configurations: everything docs/rules.md calls *configurable*, with its default.

A configuration plus a deck seed plus an action list reproduces a hand exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from .errors import InvalidConfigError


class Game(StrEnum):
    """The three games of the room."""

    STUD = "stud"  # Seven Card Stud (high), rules S*
    STUD_HILO = "stud_hilo"  # Seven Card Stud Hi-Lo eight-or-better, rules H*
    DRAW_7A = "draw_7a"  # Five Card Draw 7-A, rules D*


class Structure(StrEnum):
    """Betting structure (D2).  The stud games are always fixed limit (S1)."""

    FIXED_LIMIT = "fixed_limit"
    POT_LIMIT = "pot_limit"
    NO_LIMIT = "no_limit"


class TimeoutPolicy(StrEnum):
    """What happens to a player whose action clock runs out (S10)."""

    ALL_IN_PROTECTION = "all_in_protection"  # the seed's policy, the default
    CHECK_OR_FOLD = "check_or_fold"


class RiverShortage(StrEnum):
    """Procedure when the stub cannot serve seventh street (S11)."""

    RESHUFFLE_BURNS = "reshuffle_burns"  # the default: gather burns + stub, shuffle
    STUB_FIRST = "stub_first"  # the alternative of seed [002]


@dataclass(frozen=True, slots=True)
class StudConfig:
    """A Seven Card Stud or Stud Hi-Lo table (S1, S3, S4, S5, S7, S8, S10, S11).

    Defaults are the $1/$2 game of S1 in cents: 25 ante, 50 bring-in, 100/200.
    """

    hi_lo: bool = False
    ante: int = 25
    bring_in: int = 50
    small_bet: int = 100
    big_bet: int = 200
    max_raises: int = 3  # S8: a bet and three raises
    burn_before_third: bool = False  # S4: house practice of [003], off by default
    timeout_policy: TimeoutPolicy = TimeoutPolicy.ALL_IN_PROTECTION
    river_shortage: RiverShortage = RiverShortage.RESHUFFLE_BURNS

    @property
    def game(self) -> Game:
        return Game.STUD_HILO if self.hi_lo else Game.STUD

    def validate(self) -> None:
        """Raise InvalidConfigError when the stakes are not a valid stud structure."""
        if min(self.ante, self.bring_in, self.small_bet, self.big_bet) < 0:
            raise InvalidConfigError("ante, bring-in and bets must not be negative")
        if not 0 < self.bring_in <= self.small_bet <= self.big_bet:
            raise InvalidConfigError(
                "stud stakes need 0 < bring_in <= small_bet <= big_bet, got "
                f"{self.bring_in}/{self.small_bet}/{self.big_bet}"
            )
        if self.max_raises < 1:
            raise InvalidConfigError("max_raises must be at least 1")


@dataclass(frozen=True, slots=True)
class DrawConfig:
    """A Five Card Draw 7-A table (D1, D2, D3, D6).

    ``small_bet`` is the big blind; the small blind is half of it rounded down (D3).
    ``big_bet`` is used after the draw in fixed limit only.
    """

    structure: Structure = Structure.FIXED_LIMIT
    small_bet: int = 100
    big_bet: int = 200
    ante: int = 0
    max_raises: int = 3  # fixed limit only (D2)
    burn_before_draw: bool = True  # D6, configurable
    timeout_policy: TimeoutPolicy = TimeoutPolicy.ALL_IN_PROTECTION

    @property
    def game(self) -> Game:
        return Game.DRAW_7A

    @property
    def big_blind(self) -> int:
        return self.small_bet

    @property
    def small_blind(self) -> int:
        return self.small_bet // 2

    def validate(self) -> None:
        """Raise InvalidConfigError when the stakes are not a valid draw structure."""
        if self.small_bet <= 0 or self.big_bet < self.small_bet or self.ante < 0:
            raise InvalidConfigError(
                "draw stakes need 0 < small_bet <= big_bet and ante >= 0, got "
                f"{self.small_bet}/{self.big_bet} ante {self.ante}"
            )
        if self.max_raises < 1:
            raise InvalidConfigError("max_raises must be at least 1")
