"""Showdown: who shows first, who may muck, and how every pot is split.

Shared by all games.  The games supply each player's hand values (larger is better)
and the odd-chip order of their rules:
- S13: highest card by rank then suit among all the player's cards;
- H5: the odd chip of a hi/lo pot goes to the high half; within the low half, the
  lowest card by suit (clubs lowest);
- D9: the first tied player clockwise from the button.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .engine import Award
from .errors import InvalidConfigError
from .pots import Pot, split_pot

OddChipOrder = Callable[[list[int]], list[int]]
"""Orders tied winners: the first gets the first odd chip."""


def best_players(players: Sequence[int], values: Sequence[int | None]) -> list[int]:
    """Players holding the best value (ties kept); ``None`` values never win."""
    best: int | None = None
    winners: list[int] = []
    for p in players:
        v = values[p]
        if v is None:
            continue
        if best is None or v > best:
            best = v
            winners = [p]
        elif v == best:
            winners.append(p)
    return winners


def award_pots(
    pots: Sequence[Pot],
    high: Sequence[int | None],
    high_order: OddChipOrder,
    low: Sequence[int | None] | None = None,
    low_order: OddChipOrder | None = None,
) -> list[Award]:
    """Split every pot on its own (S13, H6): high only, or half high / half low.

    Without a qualifying low among a pot's eligible players the high hand takes
    the whole pot (H1).  An odd chip of a halved pot goes to the high half (H5).
    """
    awards: list[Award] = []
    for k, pot in enumerate(pots):
        eligible = pot.eligible
        if len(eligible) == 1:
            awards.append(Award(k, eligible[0], pot.amount))
            continue
        high_winners = best_players(eligible, high)
        low_winners = best_players(eligible, low) if low is not None else []
        if not low_winners:
            for p, amount in split_pot(pot.amount, high_order(high_winners)):
                awards.append(Award(k, p, amount))
            continue
        if low_order is None:
            raise InvalidConfigError("a pot with a low half needs low_order (H5: the odd chip)")
        low_half = pot.amount // 2
        high_half = pot.amount - low_half  # H5: the odd chip plays high
        for p, amount in split_pot(high_half, high_order(high_winners)):
            awards.append(Award(k, p, amount, "high"))
        for p, amount in split_pot(low_half, low_order(low_winners)):
            awards.append(Award(k, p, amount, "low"))
    return [a for a in awards if a.amount]


def show_order(first: int, contenders: Sequence[int], n: int) -> list[int]:
    """S12: ``first`` shows first, then the others clockwise."""
    alive = set(contenders)
    return [(first + k) % n for k in range(n) if (first + k) % n in alive]


def shows_or_mucks(
    order: Sequence[int],
    pots: Sequence[Pot],
    high: Sequence[int | None],
    low: Sequence[int | None] | None,
    *,
    all_show: bool,
) -> tuple[list[int], list[int]]:
    """Who turns their hand up and who mucks a beaten hand (S12).

    When players are all-in and no more betting can happen, everybody shows.
    Otherwise a player shows when, in some pot they are eligible for, no hand
    already shown beats theirs (high or low); a beaten hand is mucked.  Mucked
    hands stay in the participants' history (S12).
    """
    if all_show:
        return list(order), []
    shown: list[int] = []
    mucked: list[int] = []
    for p in order:
        keeps = False
        for pot in pots:
            if p not in pot.eligible:
                continue
            rivals = [q for q in shown if q in pot.eligible]
            hv = high[p]
            if not rivals or all((high[q] or 0) <= (hv or 0) for q in rivals):
                keeps = True
                break
            if (
                low is not None
                and low[p] is not None
                and all(low[q] is None or (low[q] or 0) <= (low[p] or 0) for q in rivals)
            ):
                keeps = True
                break
        (shown if keeps else mucked).append(p)
    return shown, mucked
