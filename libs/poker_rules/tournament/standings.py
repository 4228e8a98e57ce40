"""Standings and results, computable at any moment from the elimination log and stacks.

Nothing here is stored state: the lobby keeps the entries, the current stacks and
the log of busts (grouped by hand, in odd-chip order), and asks for standings
whenever a client does.  Players still in are ranked by chips (equal stacks share a
rank); busted entries keep the place T4 gave them.  Once one entry is left it is
first and every prize is final.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidConfigError
from .eliminations import Bust, finishes_from_log, prizes


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings.

    ``prize`` is ``None`` while the player is still in (not decided yet); for a
    finished entry it is what they won (0 outside the money).  ``chips`` is 0 for
    a busted entry.
    """

    place: int
    player: str
    chips: int
    prize: int | None
    busted: bool


@dataclass(frozen=True, slots=True)
class Result:
    """A final result: place, player, prize."""

    place: int
    player: str
    prize: int


def standings(
    stacks: Mapping[str, int],
    log: Sequence[Sequence[Bust]],
    payouts: Sequence[int],
) -> list[Standing]:
    """Current standings, best first.

    ``stacks`` holds every entry still in (chips > 0); ``log`` every bust so far;
    the number of entries is their sum.  ``payouts`` is the prize per place for that
    number of entries (``TournamentStructure.payouts``).
    """
    busted_ids = {bust.player for hand in log for bust in hand}
    for player, chips in stacks.items():
        if player in busted_ids:
            raise InvalidConfigError(f"{player} is in the bust log but still has a stack")
        if type(chips) is not int or chips <= 0:
            raise InvalidConfigError(
                f"{player}: a live entry has a positive int stack, got {chips!r}"
            )
    total_entries = len(stacks) + len(busted_ids)
    finishes = finishes_from_log(log, total_entries)
    won = prizes(finishes, payouts)
    lines: list[Standing] = []
    if len(stacks) == 1:
        (winner,) = stacks
        lines.append(Standing(1, winner, stacks[winner], payouts[0] if payouts else 0, False))
    else:
        ranked = sorted(stacks.items(), key=lambda item: -item[1])
        for i, (player, chips) in enumerate(ranked):
            rank = i + 1
            if i and chips == ranked[i - 1][1]:
                rank = lines[-1].place
            lines.append(Standing(rank, player, chips, None, False))
    for finish in sorted(finishes, key=lambda finish: finish.place):
        lines.append(Standing(finish.place, finish.player, 0, won[finish.player], True))
    return lines


def results(
    stacks: Mapping[str, int],
    log: Sequence[Sequence[Bust]],
    payouts: Sequence[int],
) -> list[Result]:
    """Results of every finished entry (all of them once one is left), best first."""
    return [
        Result(line.place, line.player, line.prize)
        for line in standings(stacks, log, payouts)
        if line.prize is not None
    ]
