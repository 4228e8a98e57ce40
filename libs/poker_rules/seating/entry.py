"""Who is dealt in besides the blinds, and what they post (B2-B4).

A new player (B2) waits for the button to pass or for the big blind, or posts a
live big blind to come in at once; a player back from away owes the blinds they
missed (B3: the big blind live and the small blind dead; B4: the small blind dead,
after the button has passed) or waits for the big blind.
"""

from __future__ import annotations

from .model import Choice, PostKind, Waiting
from .state import Draft, TableState


class EntryRules(TableState):
    """B2-B4 for one seat outside this hand's blinds."""

    def _entry(self, s: int, d: Draft, last_button: int) -> None:
        """Whether a seat that is not in the blinds is dealt in, and what it posts
        (B2-B4); fills ``d.dealt`` or ``d.waiting``."""
        p = self._seats[s]
        if p.away:
            d.waiting[s] = Waiting.AWAY
        elif p.chips <= 0:
            d.waiting[s] = Waiting.NO_CHIPS
        elif p.new:
            self._new_player(s, d, last_button)
        else:
            self._returning_player(s, d, last_button)

    def _new_player(self, s: int, d: Draft, last_button: int) -> None:
        """B2: a player not dealt in since sitting down."""
        p = self._seats[s]
        if s == d.button or self._between(d.button, s, d.big_blind):
            # B2b.  The button seat itself counts: a new player may not take the
            # button before paying the blinds (Robert's, B1's reason).
            d.waiting[s] = Waiting.BUTTON_MUST_PASS
        elif p.button_must_pass and not self._button_passes(s, last_button, d.button):
            d.waiting[s] = Waiting.BUTTON_MUST_PASS  # B2, the player's choice
        elif p.choice is Choice.POST:
            d.dealt[s] = [self._forced(s, PostKind.ENTRY_BIG_BLIND)]  # B2c, live
        else:
            d.waiting[s] = Waiting.WAIT_FOR_BIG_BLIND

    def _returning_player(self, s: int, d: Draft, last_button: int) -> None:
        """B3, B4: a player who has played here, owing any blinds missed while away."""
        p = self._seats[s]
        if (
            p.missed_small
            and p.button_must_pass
            and not self._button_passes(s, last_button, d.button)
        ):
            d.waiting[s] = Waiting.BUTTON_MUST_PASS  # B4
            return
        if not (p.missed_big or p.missed_small):
            d.dealt[s] = []  # owes nothing: plays
            return
        if p.choice is Choice.WAIT:
            d.waiting[s] = Waiting.WAIT_FOR_BIG_BLIND
            return
        if p.missed_big:
            # B3: the big blind live and the small blind dead (B5: one of each).
            d.dealt[s] = [
                self._forced(s, PostKind.MAKE_UP_BIG_BLIND),
                self._forced(s, PostKind.DEAD_SMALL_BLIND),
            ]
        elif p.chips <= self.config.small_blind:
            # All of it would be dead money: dealt in, the player could win nothing
            # (house).  They wait for the big blind, which is live.
            d.waiting[s] = Waiting.WAIT_FOR_BIG_BLIND
        else:
            d.dealt[s] = [self._forced(s, PostKind.DEAD_SMALL_BLIND)]  # B4
