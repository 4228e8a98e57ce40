"""Pots: uncalled bets, side pots, and splitting a pot with odd chips.

Everything here is integer arithmetic on chip counts.  The invariant the property
tests check is simple: the chips returned plus the chips in all pots equal the
chips put in, to the unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Pot:
    """One pot: its chips and the players (indexes) who can win it."""

    amount: int
    eligible: tuple[int, ...]


def uncalled_bet(contributions: Sequence[int]) -> tuple[int, int] | None:
    """The bet nobody called (G6): ``(player, amount)`` to return, or ``None``.

    It is what the largest contributor put in above the second-largest
    contribution of anyone (folded players included: their chips did call).
    """
    if len(contributions) < 2:
        return None
    top = max(contributions)
    leaders = [i for i, c in enumerate(contributions) if c == top]
    if len(leaders) > 1:
        return None
    second = max(c for i, c in enumerate(contributions) if i != leaders[0])
    if top > second:
        return leaders[0], top - second
    return None


def side_pots(contributions: Sequence[int], folded: Sequence[bool], dead: int = 0) -> list[Pot]:
    """Main pot and side pots from each player's total live contribution.

    A player is eligible for every layer up to what they put in, unless folded.
    ``dead`` money (B3's dead small blind) goes to the main pot and makes nobody
    eligible for anything.  Adjacent layers with the same eligible players are
    merged, as a dealer would.  Call after returning the uncalled bet.

    >>> side_pots([100, 300, 300], [False, False, False])  # player 0 all-in for 100
    [Pot(amount=300, eligible=(0, 1, 2)), Pot(amount=400, eligible=(1, 2))]
    >>> side_pots([100, 300, 300], [False, True, False], dead=50)  # B3: dead money
    [Pot(amount=350, eligible=(0, 2)), Pot(amount=400, eligible=(2,))]
    """
    levels = sorted({c for c, f in zip(contributions, folded, strict=True) if not f and c > 0})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        amount = 0
        for c in contributions:
            if c > previous:
                amount += (c if c < level else level) - previous
        eligible = tuple(i for i, c in enumerate(contributions) if not folded[i] and c >= level)
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        else:
            pots.append(Pot(amount, eligible))
        previous = level
    if not pots:  # everyone folded or nobody put chips in: nothing to layer
        alive = tuple(i for i, f in enumerate(folded) if not f)
        total = sum(contributions) + dead
        return [Pot(total, alive)] if total else []
    # Folded players' chips above the top live level (rare) join the last pot;
    # dead money joins the main pot.
    leftover = sum(contributions) - sum(p.amount for p in pots)
    if leftover:
        pots[-1] = Pot(pots[-1].amount + leftover, pots[-1].eligible)
    if dead:
        pots[0] = Pot(pots[0].amount + dead, pots[0].eligible)
    return pots


def split_pot(amount: int, winners_in_odd_chip_order: Sequence[int]) -> list[tuple[int, int]]:
    """Split ``amount`` equally; odd chips go one each to the first winners listed.

    The caller orders the tied winners by the game's odd-chip rule (S13 highest
    card, H5 lowest card for the low half, D9 clockwise from the button), so no
    player ever gets more than one odd chip from one pot.
    """
    k = len(winners_in_odd_chip_order)
    if k == 0:
        raise ValueError("a pot needs at least one winner")
    share, odd = divmod(amount, k)
    return [(w, share + (1 if n < odd else 0)) for n, w in enumerate(winners_in_odd_chip_order)]
