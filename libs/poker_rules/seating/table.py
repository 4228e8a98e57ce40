"""``SeatingTable``: the one object the lobby holds for a ring-game table.

Its public methods are the lobby's requests (sit down, leave, sit out and in, the
stud "I'm in", chips between hands), the planning of the next hand and what
follows it (``finish_hand``, ``void_hand``), and the snapshot.  The rules behind
them are the mixins it is built from, one module each.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..errors import InvalidConfigError
from .finish import Finishing
from .model import Choice, HandPlan, SeatedPlayer, SeatingConfig, SeatingError
from .plan_button import ButtonPlanning
from .plan_stud import StudPlanning
from .snapshot import Snapshots


class SeatingTable(ButtonPlanning, StudPlanning, Finishing, Snapshots):
    """The state of one ring-game table between hands (B1-B6, D3, S3)."""

    def copy(self) -> SeatingTable:
        """An independent copy (to roll back to when a change fails part way).

        Cheaper than ``copy.deepcopy`` (the lobby takes one at every change, two
        per hand): the configuration, the last hand's positions and the pending
        plan are frozen and only ever replaced whole, so they are shared; each
        seated player is copied (its fields are plain values)."""
        other = SeatingTable.__new__(SeatingTable)
        other.config = self.config
        other._seats = {seat: replace(p) for seat, p in self._seats.items()}
        other._last = self._last
        other._pending = self._pending
        other.hands_played = self.hands_played
        return other

    # ------------------------------------------------------------ queries

    def seat(self, seat: int) -> SeatedPlayer | None:
        """A copy of the seat's player (None when empty): read, don't mutate."""
        self._check_seat(seat)
        p = self._seats.get(seat)
        return None if p is None else replace(p)

    def occupied(self) -> list[int]:
        return sorted(self._seats)

    @property
    def button(self) -> int | None:
        """The button of the last hand played (None before the first, and in stud)."""
        return None if self._last is None else self._last.button

    @property
    def button_dead(self) -> bool:
        """Whether nobody held the last hand's button (B1's dead button)."""
        return self._last is not None and self._last.button_player is None

    @property
    def hand_in_progress(self) -> HandPlan | None:
        return self._pending

    def total_chips(self) -> int:
        return sum(p.chips for p in self._seats.values())

    # ------------------------------------------------------------ durable state

    @classmethod
    def restore(
        cls,
        config: SeatingConfig,
        data: Mapping[str, Any] | None,
        occupants: Mapping[int, tuple[str, int]],
        *,
        hands_played: int = 0,
    ) -> SeatingTable:
        """A table from a ``snapshot`` and the authoritative occupants, ``seat ->
        (player_id, chips)`` (the lobby's seats and stacks: money is never taken
        from the snapshot).  A seat whose player matches the snapshot keeps its
        markers; any other occupant sits down as a new player who posts to come in
        (B2c, what a lobby without a snapshot always did).  ``data`` None, or from
        another version: no markers, no button history.  Raises
        ``InvalidConfigError`` when the snapshot is malformed."""
        table = cls(config)
        table.hands_played = hands_played
        known = table._read_snapshot(data)
        for seat, (player_id, chips) in sorted(occupants.items()):
            p = known.get(seat)
            if p is not None and p.player_id == player_id:
                table._check_seat(seat)
                table._seats[seat] = replace(p, chips=chips)
            else:
                table.sit_down(seat, player_id, max(chips, 1), choice=Choice.POST)
                table._seats[seat].chips = chips  # a stack of 0 waits for a rebuy
        return table

    # ------------------------------------------------------------ lobby requests

    def sit_down(
        self,
        seat: int,
        player_id: str,
        chips: int,
        *,
        choice: Choice = Choice.WAIT,
        away: bool = False,
        wait_for_button: bool = False,
    ) -> None:
        """A new player takes an empty seat (B2).  ``choice`` is B2c's: post a live
        big blind now or wait for the big blind; waiting is the default so nobody
        pays a blind they did not ask for.  ``wait_for_button``: the player asks
        for B2b's path wherever they sit: not dealt in until the button has passed
        the seat, then ``choice`` applies (the big blind reaching them first still
        deals them in, posting it, B2a)."""
        self._check_seat(seat)
        if seat in self._seats:
            raise SeatingError(f"seat {seat} is taken by {self._seats[seat].player_id}")
        if any(p.player_id == player_id for p in self._seats.values()):
            raise SeatingError(f"player {player_id} already has a seat at this table")
        if type(chips) is not int or chips <= 0:
            raise InvalidConfigError(f"a player sits down with whole chips > 0, got {chips!r}")
        self._seats[seat] = SeatedPlayer(
            player_id, chips, away=away, choice=choice, button_must_pass=wait_for_button
        )

    def leave(self, seat: int) -> int:
        """The player leaves the table; returns the chips for the balance."""
        p = self._player(seat)
        if self._in_hand(seat):
            raise SeatingError(f"seat {seat} is in the hand in progress; leave after it")
        del self._seats[seat]
        return p.chips

    def sit_out(self, seat: int) -> None:
        """Away from the next hand on (B3-B6); a hand in progress is unaffected."""
        self._player(seat).away = True

    def sit_in(self, seat: int, choice: Choice | None = None) -> None:
        """Back from away; ``choice`` (B3, B4): make up what is owed now, or wait
        for the big blind."""
        p = self._player(seat)
        p.away = False
        if choice is not None:
            p.choice = choice

    def set_choice(self, seat: int, choice: Choice) -> None:
        self._player(seat).choice = choice

    def set_auto_post(self, seat: int, on: bool) -> None:
        """The stud "I'm in" switch (S3): off, the player must ``im_in`` each hand."""
        self._player(seat).auto_post = on

    def im_in(self, seat: int) -> None:
        """Stud, auto-post off: post the ante and be dealt into the next hand (S3)."""
        self._player(seat).im_in = True

    def add_chips(self, seat: int, amount: int) -> None:
        """A top-up or rebuy between hands (never into a hand in progress)."""
        if type(amount) is not int or amount <= 0:
            raise InvalidConfigError(f"chips are whole and > 0, got {amount!r}")
        p = self._player(seat)
        if self._in_hand(seat):
            raise SeatingError(f"seat {seat} is in the hand in progress; add chips after it")
        p.chips += amount

    # ------------------------------------------------------------ planning

    def plan_hand(self, *, button: int | None = None) -> HandPlan | None:
        """Decide the next hand: positions, who is dealt in, every forced bet.

        Returns None when fewer than two players can be dealt in (nothing changes).
        ``button`` places the button for a game's first hand (the lobby may draw for
        it); later hands move it by the rules.  Locks the table until
        ``finish_hand`` or ``void_hand``.
        """
        if self._pending is not None:
            raise SeatingError(f"hand {self._pending.hand_number} is still in progress")
        if button is not None:
            self._check_seat(button)
        plan = self._plan_stud() if not self.config.button_game else self._plan_button(button)
        self._pending = plan
        return plan
