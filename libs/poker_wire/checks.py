"""Scalar request fields: ids, counts and chip amounts, with their limits.

Limits exist so that a malformed or hostile request is refused at the door with a
clear message instead of exhausting memory or overflowing a later computation.
"""

from __future__ import annotations

from typing import Final

from .errors import WireError

MAX_ID_LENGTH: Final = 64
"""Longest id (deck, hand, table, player) accepted, in characters."""

MAX_CHIPS: Final = 10**12
"""Largest chip amount accepted anywhere: far above any real stake, far below int64."""


def check_id(value: str, field: str, *, required: bool = True) -> str:
    """An id: non-empty when required, at most MAX_ID_LENGTH printable characters."""
    if not value:
        if required:
            raise WireError(f"{field} is required")
        return value
    if len(value) > MAX_ID_LENGTH:
        raise WireError(
            f"{field} is {len(value)} characters long; at most {MAX_ID_LENGTH} are allowed"
        )
    if not value.isprintable():
        raise WireError(f"{field} must be printable characters")
    return value


def check_count(value: int, field: str, lowest: int, highest: int) -> int:
    """A count or index within ``[lowest, highest]``."""
    if not lowest <= value <= highest:
        raise WireError(f"{field} must be {lowest}..{highest}, got {value}")
    return value


def check_chips(value: int, field: str, *, positive: bool = False) -> int:
    """A chip amount: whole chips, ``0..MAX_CHIPS`` (``1..`` when ``positive``)."""
    lowest = 1 if positive else 0
    if not lowest <= value <= MAX_CHIPS:
        raise WireError(f"{field} must be {lowest}..{MAX_CHIPS} chips, got {value}")
    return value
