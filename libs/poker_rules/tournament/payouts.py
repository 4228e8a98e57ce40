"""T5: payout tables, prize money and chip conservation.

Prize money and chips are integers of the smallest unit; a payout table is a list
of integer weights per place (basis points are weights that sum to 10,000), so no
float ever touches money.  Dividing a pool by weights leaves a remainder of fewer
units than there are paid places; it goes one unit each to the best places first,
which keeps every payout at least the one below it and sums exactly to the pool.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import InvalidConfigError, RulesError

BASIS_POINTS = 10_000  # 100.00 %


class ChipConservationError(RulesError):
    """Chips were created or destroyed: the stacks no longer add up (T5)."""


def _require_int(name: str, value: object) -> None:
    # bool is an int subclass and float is a classic slip: money is whole units only.
    if type(value) is not int:
        raise InvalidConfigError(f"{name} must be an int of chips, got {value!r}")


@dataclass(frozen=True, slots=True)
class PayoutTier:
    """The prize split used from ``min_entries`` entries up to the next tier.

    ``shares[0]`` is first place.  Shares are weights: in basis points they sum to
    10,000; as plain weights any positive integers work (``(5, 3, 2)`` is 50/30/20).
    """

    min_entries: int
    shares: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PayoutTable:
    """A configurable payout table: one tier per range of entry counts (T5).

    With ``basis_points`` every tier's shares must sum to exactly 10,000 so a typo
    in a percentage is caught instead of silently rescaled; with plain weights the
    shares are proportions.  Validated on construction.
    """

    tiers: tuple[PayoutTier, ...]
    basis_points: bool = True

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise InvalidConfigError unless every entry count maps to a sane split."""
        if not self.tiers:
            raise InvalidConfigError("a payout table needs at least one tier")
        if self.tiers[0].min_entries != 1:
            raise InvalidConfigError(
                "the first payout tier must start at 1 entry so every entry count has a "
                f"split, got min_entries={self.tiers[0].min_entries}"
            )
        previous = 0
        for tier in self.tiers:
            _require_int("min_entries", tier.min_entries)
            if tier.min_entries <= previous:
                raise InvalidConfigError(
                    f"payout tiers must have strictly increasing min_entries, got "
                    f"{tier.min_entries} after {previous}"
                )
            previous = tier.min_entries
            if not tier.shares:
                raise InvalidConfigError(f"tier from {tier.min_entries} entries pays nobody")
            for share in tier.shares:
                _require_int("share", share)
            if min(tier.shares) <= 0:
                raise InvalidConfigError(
                    f"tier from {tier.min_entries} entries: every paid place needs a "
                    f"positive share, got {tier.shares}"
                )
            if any(a < b for a, b in zip(tier.shares, tier.shares[1:], strict=False)):
                raise InvalidConfigError(
                    f"tier from {tier.min_entries} entries: a place may not pay more than "
                    f"the place above it, got {tier.shares}"
                )
            if len(tier.shares) > tier.min_entries:
                raise InvalidConfigError(
                    f"tier from {tier.min_entries} entries pays {len(tier.shares)} places: "
                    "more paid places than entries"
                )
            if self.basis_points and sum(tier.shares) != BASIS_POINTS:
                raise InvalidConfigError(
                    f"tier from {tier.min_entries} entries: basis points sum to "
                    f"{sum(tier.shares)}, must be {BASIS_POINTS}"
                )

    def shares_for(self, entries: int) -> tuple[int, ...]:
        """The shares of the tier that applies to ``entries`` entries."""
        if entries < 1:
            raise InvalidConfigError(f"a tournament needs at least 1 entry, got {entries}")
        chosen = self.tiers[0]
        for tier in self.tiers:
            if tier.min_entries <= entries:
                chosen = tier
        return chosen.shares

    def payouts(self, entries: int, buy_in: int) -> tuple[int, ...]:
        """Prize per place (index 0 = first) for ``entries`` entries; sums to the pool."""
        return allocate(prize_pool(entries, buy_in), self.shares_for(entries))


# A conventional default: winner-take-all for tiny fields, then the usual ladders.
DEFAULT_PAYOUT_TABLE = PayoutTable(
    (
        PayoutTier(1, (10_000,)),
        PayoutTier(6, (6_500, 3_500)),
        PayoutTier(11, (5_000, 3_000, 2_000)),
        PayoutTier(28, (4_000, 2_500, 1_500, 1_100, 900)),
        PayoutTier(61, (3_000, 2_000, 1_300, 1_000, 800, 650, 500, 400, 350)),
        PayoutTier(101, (2_600, 1_700, 1_150, 900, 750, 600, 480, 400, 330, 290, 270, 270, 260)),
    )
)


def prize_pool(entries: int, buy_in: int) -> int:
    """Entries times the buy-in; the fee is the house's and never enters the pool (T1, T5)."""
    _require_int("entries", entries)
    _require_int("buy_in", buy_in)
    if entries < 0 or buy_in < 0:
        raise InvalidConfigError(f"entries and buy-in must not be negative: {entries}, {buy_in}")
    return entries * buy_in


def allocate(pool: int, shares: Sequence[int]) -> tuple[int, ...]:
    """Split ``pool`` by integer ``shares``; the result sums exactly to ``pool``.

    Each place gets ``pool * share // total`` (exact integer arithmetic); the
    remainder, fewer units than places, goes one unit each to the best places first
    (place 1, then 2, ...) so the top of the ladder absorbs the rounding.
    """
    _require_int("pool", pool)
    if pool < 0:
        raise InvalidConfigError(f"prize pool must not be negative, got {pool}")
    if not shares or min(shares) <= 0:
        raise InvalidConfigError(f"shares must be positive integers, got {tuple(shares)}")
    total = sum(shares)
    amounts = [pool * share // total for share in shares]
    for place in range(pool - sum(amounts)):
        amounts[place] += 1
    return tuple(amounts)


def split_evenly(amount: int, ways: int) -> list[int]:
    """Split ``amount`` into ``ways`` integer parts differing by at most one unit.

    The odd units go one each to the first parts; callers order the parts so that
    the first ones are the players who get odd chips (see ``eliminations``).
    """
    if ways < 1:
        raise InvalidConfigError(f"cannot split among {ways} players")
    base, odd = divmod(amount, ways)
    return [base + 1 if i < odd else base for i in range(ways)]


def total_chips(entries: int, starting_stack: int) -> int:
    """The chips in play for the whole tournament: entries times the starting stack (T5)."""
    return entries * starting_stack


def check_chips(stacks: Iterable[int], entries: int, starting_stack: int, in_pots: int = 0) -> None:
    """Raise ChipConservationError unless stacks (plus chips in pots) equal entries x stack.

    Between hands ``in_pots`` is 0; during a hand pass the chips committed to pots
    so the check holds "at every moment" (T5).
    """
    counted = sum(stacks) + in_pots
    expected = total_chips(entries, starting_stack)
    if counted != expected:
        raise ChipConservationError(
            f"chips in play are {counted} but {entries} entries x {starting_stack} = "
            f"{expected}: {counted - expected:+d} chips created or destroyed"
        )
