"""T1: the tournament structure — levels, breaks, stacks, money and entry rules.

A level lasts either a number of seconds on the tournament clock (real events) or
a number of hands played (simulations, which would otherwise wait for wall-clock
time).  The caller says how much has elapsed in that unit; the structure answers
which level is being played.  The clock is the tournament's own: when the director
pauses it, the caller stops counting.  What "hands played" counts (for example
rounds in which every table dealt one hand) is the caller's choice, applied
consistently.

Levels are numbered from 1; breaks are not levels.  The last level lasts until the
tournament ends, as in card rooms that keep the final level running.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from ..errors import IllegalActionError, InvalidConfigError
from .payouts import DEFAULT_PAYOUT_TABLE, PayoutTable, prize_pool, total_chips


class LevelClock(StrEnum):
    """The unit of level and break durations."""

    SECONDS = "seconds"  # tournament clock time
    HANDS = "hands"  # hands played: fast, deterministic simulations


class EntryRefusedError(IllegalActionError):
    """A registration or re-entry the structure does not allow now."""


def _require_int(name: str, value: object) -> None:
    # Chips, durations and money are whole numbers: reject floats (and bools) early.
    if type(value) is not int:
        raise InvalidConfigError(f"{name} must be an int, got {value!r}")


@dataclass(frozen=True, slots=True)
class BlindStakes:
    """Forced bets of a level in a button game (the 7-A draw): blinds and an optional ante."""

    small_blind: int
    big_blind: int
    ante: int = 0

    def problem(self) -> str | None:
        """Why these stakes are not valid, or ``None``."""
        for name in ("small_blind", "big_blind", "ante"):
            value = getattr(self, name)
            if type(value) is not int:
                return f"{name} must be an int of chips, got {value!r}"
        if not 0 < self.small_blind <= self.big_blind:
            return (
                f"blinds need 0 < small blind <= big blind, got {self.small_blind}/{self.big_blind}"
            )
        if self.ante < 0:
            return f"ante must not be negative, got {self.ante}"
        return None

    @property
    def size(self) -> int:
        """The stake that must not go down from one level to the next."""
        return self.big_blind


@dataclass(frozen=True, slots=True)
class StudStakes:
    """Forced bets and limits of a level in a stud event: ante, bring-in, small/big bet (S1)."""

    ante: int
    bring_in: int
    small_bet: int
    big_bet: int

    def problem(self) -> str | None:
        """Why these stakes are not valid, or ``None`` (the same bounds as StudConfig)."""
        for name in ("ante", "bring_in", "small_bet", "big_bet"):
            value = getattr(self, name)
            if type(value) is not int:
                return f"{name} must be an int of chips, got {value!r}"
        if self.ante < 0:
            return f"ante must not be negative, got {self.ante}"
        if not 0 < self.bring_in <= self.small_bet <= self.big_bet:
            return (
                "stud stakes need 0 < bring_in <= small_bet <= big_bet, got "
                f"{self.bring_in}/{self.small_bet}/{self.big_bet}"
            )
        return None

    @property
    def size(self) -> int:
        """The stake that must not go down from one level to the next."""
        return self.small_bet


Stakes = BlindStakes | StudStakes


@dataclass(frozen=True, slots=True)
class Level:
    """One level: its stakes and how long it lasts, in the structure's clock unit."""

    stakes: Stakes
    duration: int


@dataclass(frozen=True, slots=True)
class Break:
    """A pause in play between two levels; its duration is in seconds."""

    duration: int


@dataclass(frozen=True, slots=True)
class ClockPosition:
    """Where the tournament clock stands.

    ``level`` is the level being played or, during a break, the level that follows
    it; ``stakes`` are that level's, i.e. what the next hand dealt uses.
    ``remaining`` is what is left of the current level or break, ``None`` in the
    last level (it never ends).
    """

    level: int
    stakes: Stakes
    on_break: bool
    remaining: int | None


@dataclass(frozen=True, slots=True)
class TournamentStructure:
    """Everything T1 configures.  Validated on construction, so it is always usable.

    - ``schedule``: levels with optional breaks between them.
    - ``starting_stack``: chips per entry; ``buy_in`` goes to the prize pool,
      ``fee`` to the house (never to the pool).
    - ``late_registration_level``: entries are taken until level N + 1 starts (so
      also during a break right after level N); 0 = only before play starts.
    - ``max_entries``: entries per player; 1 is a freezeout, more allows re-entry
      after busting, only while registration is open.
    """

    schedule: tuple[Level | Break, ...]
    starting_stack: int
    buy_in: int
    fee: int = 0
    clock: LevelClock = LevelClock.SECONDS
    late_registration_level: int = 0
    max_entries: int = 1
    payout_table: PayoutTable = field(default=DEFAULT_PAYOUT_TABLE)

    def __post_init__(self) -> None:
        self.validate()

    # ------------------------------------------------------------ validation

    def validate(self) -> None:
        """Raise InvalidConfigError saying what is wrong and what is allowed."""
        _require_int("starting_stack", self.starting_stack)
        _require_int("buy_in", self.buy_in)
        _require_int("fee", self.fee)
        _require_int("late_registration_level", self.late_registration_level)
        _require_int("max_entries", self.max_entries)
        if self.starting_stack <= 0:
            raise InvalidConfigError(f"starting stack must be positive, got {self.starting_stack}")
        if self.buy_in < 0 or self.fee < 0:
            raise InvalidConfigError(
                f"buy-in and fee must not be negative, got {self.buy_in} + {self.fee}"
            )
        self._validate_schedule()
        levels = self.levels
        if not 0 <= self.late_registration_level < len(levels):
            raise InvalidConfigError(
                f"late registration must close before the last level (which never ends): "
                f"late_registration_level must be 0..{len(levels) - 1}, "
                f"got {self.late_registration_level}"
            )
        if self.max_entries < 1:
            raise InvalidConfigError(f"max_entries must be at least 1, got {self.max_entries}")
        if self.max_entries > 1 and self.late_registration_level == 0:
            raise InvalidConfigError(
                "re-entry needs late registration: entries are only taken while "
                "registration is open, so set late_registration_level >= 1"
            )

    def _validate_schedule(self) -> None:
        if not self.schedule:
            raise InvalidConfigError("the schedule needs at least one level")
        if isinstance(self.schedule[0], Break):
            raise InvalidConfigError("the schedule must start with a level, not a break")
        if isinstance(self.schedule[-1], Break):
            raise InvalidConfigError(
                "the schedule must end with a level: the last level never ends"
            )
        kind: type | None = None
        previous: Level | None = None
        number = 0
        for i, item in enumerate(self.schedule):
            _require_int("duration", item.duration)
            if item.duration <= 0:
                raise InvalidConfigError(f"schedule item {i + 1}: duration must be positive")
            if isinstance(item, Break):
                if self.clock is LevelClock.HANDS:
                    raise InvalidConfigError(
                        "breaks need a clock in seconds: no hands are dealt during a break, "
                        "so a count of hands could never end one (use timed_by_hands to "
                        "drop them for a simulation)"
                    )
                if isinstance(self.schedule[i - 1], Break):
                    raise InvalidConfigError(f"schedule item {i + 1}: two breaks in a row")
                continue
            number += 1
            problem = item.stakes.problem()
            if problem is not None:
                raise InvalidConfigError(f"level {number}: {problem}")
            if kind is None:
                kind = type(item.stakes)
            elif type(item.stakes) is not kind:
                raise InvalidConfigError(
                    f"level {number}: every level must be blinds (button games) or every "
                    "level stud stakes; the schedule mixes them"
                )
            if previous is not None and item.stakes.size < previous.stakes.size:
                raise InvalidConfigError(
                    f"level {number}: stakes go down ({previous.stakes.size} -> "
                    f"{item.stakes.size}); levels may only stay or rise"
                )
            previous = item

    # ------------------------------------------------------------ the clock

    @property
    def levels(self) -> tuple[Level, ...]:
        """The levels alone, in order (level N is ``levels[N - 1]``)."""
        return tuple(item for item in self.schedule if isinstance(item, Level))

    @property
    def is_stud(self) -> bool:
        """True for a stud event (ante/bring-in levels, players move by position in T3)."""
        return isinstance(self.levels[0].stakes, StudStakes)

    def level_start(self, level: int) -> int:
        """Elapsed units (seconds or hands) at which ``level`` begins."""
        if not 1 <= level <= len(self.levels):
            raise InvalidConfigError(f"level must be 1..{len(self.levels)}, got {level}")
        elapsed = 0
        number = 0
        for item in self.schedule:
            if isinstance(item, Level):
                number += 1
                if number == level:
                    return elapsed
            elapsed += item.duration
        raise AssertionError("unreachable: level within range")  # pragma: no cover

    def position(self, elapsed: int) -> ClockPosition:
        """The level (or break) in progress after ``elapsed`` seconds or hands.

        With a hands clock, ``position(h)`` is the level of the next hand after ``h``
        hands have been played: a level of 10 hands covers hands 0..9.
        """
        _require_int("elapsed", elapsed)
        if elapsed < 0:
            raise InvalidConfigError(f"elapsed must not be negative, got {elapsed}")
        start = 0
        number = 0
        for i, item in enumerate(self.schedule):
            end = start + item.duration
            if isinstance(item, Level):
                number += 1
                if i == len(self.schedule) - 1:
                    return ClockPosition(number, item.stakes, False, None)
                if elapsed < end:
                    return ClockPosition(number, item.stakes, False, end - elapsed)
            elif elapsed < end:
                following = self.schedule[i + 1]
                assert isinstance(following, Level)  # validated: no break ends the schedule
                return ClockPosition(number + 1, following.stakes, True, end - elapsed)
            start = end
        raise AssertionError("unreachable: the last level never ends")  # pragma: no cover

    def timed_by_hands(self, hands_per_level: int) -> TournamentStructure:
        """The same levels, each lasting ``hands_per_level`` hands, breaks dropped.

        For simulations: they run a real structure without waiting for the clock.
        """
        schedule = tuple(
            Level(item.stakes, hands_per_level) for item in self.schedule if isinstance(item, Level)
        )
        return TournamentStructure(
            schedule,
            self.starting_stack,
            self.buy_in,
            self.fee,
            LevelClock.HANDS,
            self.late_registration_level,
            self.max_entries,
            self.payout_table,
        )

    # ------------------------------------------------------------ entries and money

    def registration_open(self, elapsed: int) -> bool:
        """True while entries are taken: before play, and until level N + 1 starts."""
        if elapsed <= 0:
            return True
        if self.late_registration_level == 0:
            return False
        return elapsed < self.level_start(self.late_registration_level + 1)

    def check_entry(self, elapsed: int, previous_entries: int, has_live_entry: bool) -> None:
        """Raise EntryRefusedError unless the player may (re-)enter now.

        A player never holds two live entries (re-entry is after busting), never
        exceeds ``max_entries``, and enters only while registration is open.
        """
        if not self.registration_open(elapsed):
            raise EntryRefusedError(
                f"registration closed at the start of level {self.late_registration_level + 1}"
                if self.late_registration_level
                else "registration closed when play started (no late registration)"
            )
        if has_live_entry:
            raise EntryRefusedError(
                "the player already has chips in play; re-entry is after busting"
            )
        if previous_entries >= self.max_entries:
            raise EntryRefusedError(
                f"the player has used {previous_entries} of {self.max_entries} entries"
                + (" (freezeout: no re-entry)" if self.max_entries == 1 else "")
            )

    def prize_pool(self, entries: int) -> int:
        """Entries times the buy-in (fees excluded)."""
        return prize_pool(entries, self.buy_in)

    def payouts(self, entries: int) -> tuple[int, ...]:
        """Prize per place for ``entries`` entries; sums exactly to the prize pool."""
        return self.payout_table.payouts(entries, self.buy_in)

    def total_chips(self, entries: int) -> int:
        """Chips in play: entries times the starting stack (T5)."""
        return total_chips(entries, self.starting_stack)
