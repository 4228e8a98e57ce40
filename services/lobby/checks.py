"""What both kinds of table share: the seat counts (S1, D1), the action clock (S10)
and the guard for a state the book's own bookkeeping rules out.

Ring tables and tournament tables check their requests against the same limits,
so they are stated once here; each kind words its own refusals.
"""

from __future__ import annotations

from typing import TypeVar

from poker_rules.config import Game

T = TypeVar("T")

MOST_SEATS = {Game.STUD: 8, Game.STUD_HILO: 8, Game.DRAW_7A: 5}  # S1, D1
DEFAULT_ACTION_CLOCK_MS = 10_000  # S10
ACTION_CLOCK_MS = (50, 600_000)


def present(value: T | None, what: str) -> T:
    """``value``, which the book's invariants say is there.

    A real check, not an ``assert`` (which ``python -O`` drops): if the books ever
    disagree with themselves the call fails (INTERNAL, nothing committed) instead
    of going on with a wrong seat or entry.
    """
    if value is None:
        raise RuntimeError(f"lobby state out of step: no {what}")
    return value
