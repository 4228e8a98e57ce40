"""T4: finishing places of eliminated players, and shared prizes for ties.

Players who bust in the same hand finish in order of the chips they started that
hand with: more chips, better place.  Equal starting stacks tie: they share the
places they cover (all are shown at the best of them, "tied for 5th") and the sum
of those places' prizes is split equally.

What counts as "the same hand" is the caller's grouping: one hand at one table, or
one hand-for-hand round across tables when the room plays hand-for-hand.

Odd units of a shared prize go one each to the tied players in the order the caller
lists the busts, which should be the odd-chip order of the table (D9: clockwise from
the button; for stud, from seat 1).  That order is kept in the elimination log, so
results computed later are the same.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidConfigError
from .payouts import split_evenly


@dataclass(frozen=True, slots=True)
class Bust:
    """A player eliminated in a hand, with the stack they started that hand with."""

    player: str
    starting_stack: int


@dataclass(frozen=True, slots=True)
class Finish:
    """A finishing place: ``tied`` players share places ``place .. place + tied - 1``."""

    player: str
    place: int
    tied: int = 1

    @property
    def places(self) -> range:
        """Every place the tie group covers."""
        return range(self.place, self.place + self.tied)


def rank_busts(busts: Sequence[Bust], players_left: int) -> list[Finish]:
    """Places for one hand's busts, ``players_left`` being those alive before the hand.

    The busted players take the bottom places ``players_left - len(busts) + 1 ..
    players_left``: the largest starting stack the best of them, equal stacks tied.
    The result keeps the bust order within a tie group (the odd-chip order).
    """
    if not busts:
        return []
    names = [bust.player for bust in busts]
    if len(set(names)) != len(names):
        raise InvalidConfigError(f"a player busts at most once per hand: {names}")
    for bust in busts:
        if type(bust.starting_stack) is not int or bust.starting_stack <= 0:
            raise InvalidConfigError(
                f"{bust.player}: a busted player started the hand with chips (a positive "
                f"int), got {bust.starting_stack!r}"
            )
    if len(busts) >= players_left:
        raise InvalidConfigError(
            f"{len(busts)} busts with {players_left} players left: someone must win the hand"
        )
    best = players_left - len(busts) + 1
    # sorted() is stable: within equal stacks the caller's (odd-chip) order is kept.
    ordered = sorted(busts, key=lambda bust: -bust.starting_stack)
    finishes: list[Finish] = []
    i = 0
    while i < len(ordered):
        j = i
        while j < len(ordered) and ordered[j].starting_stack == ordered[i].starting_stack:
            j += 1
        finishes.extend(Finish(bust.player, best + i, j - i) for bust in ordered[i:j])
        i = j
    return finishes


def finishes_from_log(log: Sequence[Sequence[Bust]], total_entries: int) -> list[Finish]:
    """Places of every busted entry, from the log of busts grouped by hand, oldest first.

    An entry's place is one more than the entries that outlast it, so it depends on
    the final number of entries: while late registration is open the places are
    provisional and move down as entries arrive.
    """
    busted = sum(len(hand) for hand in log)
    if busted and busted >= total_entries:
        raise InvalidConfigError(
            f"{busted} busts among {total_entries} entries: the winner never busts"
        )
    seen: set[str] = set()
    finishes: list[Finish] = []
    alive = total_entries
    for hand in log:
        for bust in hand:
            if bust.player in seen:
                raise InvalidConfigError(f"entry {bust.player} busts twice in the log")
            seen.add(bust.player)
        finishes.extend(rank_busts(hand, alive))
        alive -= len(hand)
    return finishes


def shared_prizes(group: Sequence[Finish], payouts: Sequence[int]) -> list[int]:
    """Prizes of one tie group, in the group's (odd-chip) order.

    The prizes of every place the group covers are summed (places past the paid
    ones pay 0) and split equally; odd units go one each to the first players.
    """
    if not group:
        return []
    places = group[0].places
    if any(finish.places != places for finish in group) or len(group) != len(places):
        raise InvalidConfigError("a tie group must share the same places, one player per place")
    total = sum(payouts[place - 1] for place in places if place <= len(payouts))
    return split_evenly(total, len(group))


def prizes(finishes: Sequence[Finish], payouts: Sequence[int]) -> dict[str, int]:
    """Every finisher's prize, ties shared (T4) over the payout list (index 0 = 1st)."""
    groups: dict[int, list[Finish]] = {}
    for finish in finishes:
        groups.setdefault(finish.place, []).append(finish)
    result: dict[str, int] = {}
    for group in groups.values():
        for finish, prize in zip(group, shared_prizes(group, payouts), strict=True):
            result[finish.player] = prize
    return result
