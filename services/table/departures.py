"""Players who left: a seat whose client has gone, told from the action clock.

A client that disconnects (or never connects) leaves its seat dealt in, and the
clock (S10) folds or checks it at every turn, hand after hand.  Card rooms sit
such a player out.  The table sees only the clock, so that is the sign used
(docs/rule-decisions.md#departed-players): a player whose every decision the
clock took in ``limit`` hands in a row that they were dealt into is named in the
last one's FinishHand (``sit_out_player_ids``), and the lobby sits them out in
the same transaction as the hand's stacks (B3-B6, and B5 takes the seat later;
a tournament marks them away, T6).

What counts, per hand a player was dealt into:

- the player answered at least once (a stream's action or an Act, applied or
  refused by the betting service): they are here, the count starts over;
- else the clock took at least one decision of theirs: one hand more;
- else (no decision: all-in on the ante, everybody folded first): no change.

A new connection of the player (Play, PlayMany) starts the count over too.  A
T6 seat (``fold_on_turn``: already away) never counts, and a voided hand adds
no clock hand (it did not stand; a clock that ran out there may have been a
failing service's), though an answer in it still starts the count over.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

# A player not dealt in for this many of the table's hands is forgotten (they
# stood up, most likely); their count, if they come back, starts from zero.
FORGET_AFTER_HANDS = 64


@dataclass(slots=True)
class Presence:
    """What one hand showed of each seat: who answered, whose clock ran out."""

    answered: set[int] = field(default_factory=set)
    clocked: set[int] = field(default_factory=set)


class ClockHands:
    """One table's counts: per player, the hands in a row the clock played."""

    def __init__(self, limit: int) -> None:
        self.limit = limit  # 0: nobody is ever sat out
        self._runs: dict[str, tuple[int, int]] = {}  # player -> (hands in a row, last hand)
        self._hands = 0

    def count(self, player_id: str) -> int:
        """The player's clock hands in a row now."""
        return self._runs.get(player_id, (0, 0))[0]

    def present(self, player_id: str) -> None:
        """The player connected again: whatever the clock did before, they are here."""
        self._runs.pop(player_id, None)

    def hand(
        self,
        seats: Sequence[int],
        players: Sequence[str],
        presence: Presence,
        *,
        voided: bool = False,
    ) -> list[str]:
        """Count one hand (``seats`` and ``players`` dealt in, in the same order):
        the players who reach the limit with it, to sit out with its report (their
        count starts over: it is said once)."""
        if not self.limit:
            return []
        self._hands += 1
        leaving: list[str] = []
        for seat, player in zip(seats, players, strict=True):
            if seat in presence.answered:
                self._runs.pop(player, None)
            elif seat in presence.clocked and not voided:
                run = self.count(player) + 1
                if run >= self.limit:
                    leaving.append(player)
                    self._runs.pop(player, None)
                else:
                    self._runs[player] = (run, self._hands)
            elif player in self._runs:
                self._runs[player] = (self.count(player), self._hands)
        self._forget(players)
        return leaving

    def _forget(self, dealt: Collection[str]) -> None:
        stale = self._hands - FORGET_AFTER_HANDS
        for player in [p for p, (_, last) in self._runs.items() if last < stale]:
            if player not in dealt:
                del self._runs[player]
