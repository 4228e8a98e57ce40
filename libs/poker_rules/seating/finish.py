"""After a hand: apply it (stacks, markers, debts, the button history) or void it,
and take away the seats of players sitting out too long (B3-B5).

The markers a plan decided (ML, MS) are applied here, not when planning, so a
voided hand leaves no trace.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import HandPlan, SeatingError, SeatLost
from .state import History, TableState


class Finishing(TableState):
    """The end of a hand, played or voided."""

    def void_hand(self, plan: HandPlan) -> None:
        """The hand could not finish: forget the plan; nothing is marked or moved
        (an "I'm in" the plan used is given back)."""
        self._check_pending(plan)
        for s in self._im_in_back(plan):
            self._seats[s].im_in = True
        self._pending = None

    def finish_hand(self, plan: HandPlan, final_stacks: Sequence[int]) -> list[SeatLost]:
        """Apply a finished hand: stacks (the engine's ``final_stacks``, in the
        plan's order), markers, debts paid, the button history, and B5.

        Everyone dealt in has paid what the plan asked (the engine takes all-in
        for less), so their debts and new status are cleared.  Returns the seats
        lost for sitting out too long, already emptied.  Markers only reach the
        player who was in the seat when the hand was planned.
        """
        self._check_pending(plan)
        if len(final_stacks) != len(plan.seats):
            raise SeatingError(
                f"{len(plan.seats)} players were dealt in, got {len(final_stacks)} stacks"
            )
        if any(type(c) is not int or c < 0 for c in final_stacks):
            raise SeatingError(f"final stacks are whole chips >= 0, got {list(final_stacks)}")
        if sum(final_stacks) != sum(plan.stacks):
            raise SeatingError(
                f"chips not conserved: {sum(plan.stacks)} dealt in, {sum(final_stacks)} after"
            )
        for seat, pid in zip(plan.seats, plan.players, strict=True):
            p = self._seats.get(seat)
            if p is None or p.player_id != pid:
                raise SeatingError(f"seat {seat} no longer holds {pid}")
        for seat, chips in zip(plan.seats, final_stacks, strict=True):
            p = self._seats[seat]
            p.chips = chips
            p.new = p.missed_big = p.missed_small = p.button_must_pass = False
            p.orbits_away = p.hands_away = 0
        if self.config.button_game:
            self._finish_button(plan)
        self._pending = None
        self.hands_played += 1
        return self._remove_long_absent(plan)

    def _finish_button(self, plan: HandPlan) -> None:
        # Type narrowing: a button game's plan always places all three (_plan_button).
        assert plan.button is not None and plan.big_blind is not None
        assert plan.small_blind_position is not None
        last = self._last
        if last is not None:
            for s, seated in self._seats.items():
                if seated.button_must_pass and self._button_passes(s, last.button, plan.button):
                    seated.button_must_pass = False
        for s in plan.passed_away:
            p = self._same_player(plan, s)
            if p is not None:
                p.orbits_away += 1
                p.missed_big = p.missed_big or (s in plan.missed_big and not p.new)
        for s in plan.missed_small:
            p = self._same_player(plan, s)
            if p is not None and not p.new:
                p.missed_small = p.button_must_pass = True
        self._last = History(
            big_blind=plan.big_blind,
            big_blind_player=plan.players[plan.index(plan.big_blind)],
            small_blind_position=plan.small_blind_position,
            button=plan.button,
            button_player=plan.button_player,
        )

    def _remove_long_absent(self, plan: HandPlan) -> list[SeatLost]:
        """B5: away more than ``max_orbits_away`` orbits loses the seat."""
        lost: list[SeatLost] = []
        limit = self.config.max_orbits_away
        for s in sorted(self._seats):
            p = self._seats[s]
            if not self.config.button_game and s not in plan.seats:
                # Stud: away, busted or not "in" (S3) all sit the hand out.
                p.hands_away += 1
                p.orbits_away = p.hands_away // self.size
            if p.orbits_away > limit:
                lost.append(SeatLost(s, p.player_id, p.chips))
                del self._seats[s]
        return lost
