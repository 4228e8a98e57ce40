"""Where a match's players sit at its room table, so that the lobby deals them in
the order the match asked for.

Why a mirror of the lobby: the room decides each hand's dealing order itself (the
lobby's ``NextHand`` plan, ``poker_rules.seating``): stud deals from the lowest
seat (G5), the 7-A draw from the first player left of a button that moves by
B1's rules (the big blind one ready player on, D3 heads-up, new players' B2
entries).  Nothing can ask the lobby what it will plan before it plans, and the
deck must be preset before the hand starts, so :class:`SeatPlanner` runs the
same library object the lobby runs (``SeatingTable``) through the same calls in
the same order (sit down, finish the hand, the stand-ups leave, plan the next),
and tries the seat assignments until the plan deals the players in the wanted
order.  The backend checks each hand's ``HandStarted`` against the prediction,
so a lobby that planned differently stops the match instead of giving it wrong
hands.

The table has two groups of seats (``groups``): while a hand is played in one,
the next hand's players sit down in the other (see ``poker_bots.match_room``).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from poker.common.v1 import common_pb2
from poker_rules.config import DrawConfig
from poker_rules.seating import Choice, HandPlan, SeatingConfig, SeatingTable
from poker_wire.config import game_config

__all__ = ["MOST_SEATS", "SeatPlanner", "SeatingUnreachableError"]

MOST_SEATS = {"stud": 8, "draw": 5}  # S1, D1: the largest table of each game
MAX_ORBITS_AWAY = 1_000  # B5: the match table never takes a seat from anyone
_MOST_TRIES = 5_040  # 7!: the seat assignments tried for one hand


class SeatingUnreachableError(RuntimeError):
    """No assignment of the free seats deals the players in the order asked."""


class SeatPlanner:
    """The lobby's ``SeatingTable`` of one match table, one step ahead of it.

    ``seats`` is the table's size; ``groups`` its two halves.  The planner holds the
    plan of the hand in progress at the table (``current``); ``seat_next`` seats
    the next hand's players during it and returns the next plan, as the lobby will
    make it when the hand in progress is reported.
    """

    def __init__(self, config: common_pb2.GameConfig, players_most: int) -> None:
        rules = game_config(config)
        draw = isinstance(rules, DrawConfig)
        most = MOST_SEATS["draw" if draw else "stud"]
        self.seats = 2 * players_most
        if players_most < 2 or self.seats > most:
            game = "7-A draw" if draw else "stud"
            raise ValueError(
                f"a {game} match table seats two groups of up to {most // 2} players "
                f"(the next hand's players sit down while a hand is played); "
                f"got hands of {players_most} players"
            )
        if isinstance(rules, DrawConfig):
            seating = SeatingConfig.for_draw(
                rules, seats=self.seats, max_orbits_away=MAX_ORBITS_AWAY
            )
        else:
            seating = SeatingConfig.for_stud(
                rules, seats=self.seats, max_orbits_away=MAX_ORBITS_AWAY
            )
        self.table = SeatingTable(seating)
        self.groups: tuple[tuple[int, ...], tuple[int, ...]] = (
            tuple(range(1, players_most + 1)),
            tuple(range(players_most + 1, self.seats + 1)),
        )
        self.current: HandPlan | None = None

    def seat_first(self, players: Sequence[str], chips: int, group: int) -> dict[str, int]:
        """Players sitting down at the empty table, in the seats of ``group`` in
        order: their seats.  The first hand (``current``) is planned once all of
        them sit; its dealing order is the lobby's (a warm-up hand's does not
        matter)."""
        if self.current is not None or self.table.occupied():
            raise RuntimeError("the first players sit down at an empty table")
        seats = dict(zip(players, self.groups[group], strict=False))
        if len(seats) != len(players) or len(players) < 2:
            raise SeatingUnreachableError(
                f"{len(players)} players for the {len(self.groups[group])} seats of a group"
            )
        for player, seat in seats.items():
            self.table.sit_down(seat, player, chips, choice=Choice.POST)
        plan = self.table.plan_hand()
        if plan is None or set(plan.players) != set(players):
            raise SeatingUnreachableError(f"the first hand would deal {plan}, not {players}")
        self.current = plan
        return seats

    def seat_next(
        self, players: Sequence[str], chips: int, group: int
    ) -> tuple[dict[str, int], HandPlan]:
        """The seats of ``group`` for ``players`` (in dealing order) such that the
        hand after the one in progress deals them in that order, and that hand's
        plan.  The planner moves on to it: the players sit down now, the hand in
        progress finishes and its players stand up (their StandUp is pending), then
        the lobby plans."""
        current = self.current
        if current is None:
            raise RuntimeError("no hand is in progress to seat the next one during")
        free = self.groups[group]
        if len(players) > len(free):
            raise SeatingUnreachableError(f"{len(players)} players, {len(free)} free seats")
        tries = itertools.islice(itertools.permutations(free, len(players)), _MOST_TRIES)
        for chosen in tries:
            trial = self.table.copy()
            plan = self._advance(trial, current, dict(zip(players, chosen, strict=True)), chips)
            if plan is not None and plan.players == tuple(players):
                self.table = trial
                self.current = plan
                return dict(zip(players, chosen, strict=True)), plan
        raise SeatingUnreachableError(
            f"no seating of {list(free)} deals {list(players)} in that order after "
            f"the hand of {list(current.players)}"
        )

    def finish(self) -> None:
        """The hand in progress was the last: its players stand up after it."""
        current = self.current
        if current is None:
            return
        self.table.finish_hand(current, list(current.stacks))
        for seat in current.seats:
            self.table.leave(seat)
        self.current = None

    @staticmethod
    def _advance(
        table: SeatingTable, current: HandPlan, seats: dict[str, int], chips: int
    ) -> HandPlan | None:
        """What the lobby does to ``table`` from now to the next plan: the new
        players sit down (posting to come in, as a SitDown without an entry does,
        B2c), the hand in progress finishes (its stacks do not matter: its
        players all leave), they leave, and the next hand is planned."""
        for player, seat in seats.items():
            table.sit_down(seat, player, chips, choice=Choice.POST)
        table.finish_hand(current, list(current.stacks))
        for seat in current.seats:
            table.leave(seat)
        return table.plan_hand()
