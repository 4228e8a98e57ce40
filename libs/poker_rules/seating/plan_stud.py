"""Stud tables: no button and no blinds; who is in, and the antes (S3, B6).

A player away, busted, or with auto-post off and no "I'm in" for this hand is not
dealt in and owes nothing; everyone else posts the ante.
"""

from __future__ import annotations

from .model import Forced, HandPlan, PostKind, Waiting
from .state import TableState


class StudPlanning(TableState):
    """The plan of a stud table's next hand."""

    def _plan_stud(self) -> HandPlan | None:
        """S3, B6: antes from everyone in; auto-post off without "I'm in", or away,
        is not dealt in and owes nothing."""
        seats: list[int] = []
        waiting: list[tuple[int, Waiting]] = []
        for s in sorted(self._seats):
            p = self._seats[s]
            if p.away:
                waiting.append((s, Waiting.AWAY))
            elif p.chips <= 0:
                waiting.append((s, Waiting.NO_CHIPS))
            elif not (p.auto_post or p.im_in):
                waiting.append((s, Waiting.NOT_IN))
            else:
                seats.append(s)
        if len(seats) < 2:
            return None
        ante = self.config.ante
        posts = tuple(
            Forced(s, self._seats[s].player_id, PostKind.ANTE, ante) for s in seats if ante
        )
        # "I'm in" is for one hand: the plan uses it up, so a player who says it again
        # during this hand is in the next one too (void_hand gives it back).
        used = tuple(s for s in seats if not self._seats[s].auto_post)
        for s in used:
            self._seats[s].im_in = False
        return HandPlan(
            hand_number=self.hands_played + 1,
            game=self.config.game,
            seats=tuple(seats),
            players=tuple(self._seats[s].player_id for s in seats),
            stacks=tuple(self._seats[s].chips for s in seats),
            posts=posts,
            waiting=tuple(waiting),
            im_in_used=used,
        )
