"""T2, T3: the seating draw, table balancing and table breaking (TDA practice).

The caller describes each table as it stands between hands: its seats (numbered
clockwise from 1, G5), who sits where, and — in button games — the button and
blind seats of the *next* hand as its B1 (dead button) bookkeeping computes them
(``positions.coming_positions``; a table of one or two players has them too: a
table left with one survivor is where a broken table's players land).
This module answers with moves; it keeps no state and deals no cards.

Position model (button games).  Under B1 the small blind is tied to a seat (the
previous big blind's) and the big blind is the first player clockwise after the
small-blind seat.  So a player seated between the small blind and the big blind
becomes the big blind, and one seated between the button and the small blind would
see the button pass without paying the blinds.  Hence:

- *The player who will be big blind next* is the first player clockwise after the
  small-blind seat.  When several players must leave one table, they go in the
  order they would take the big blind.
- *The worst position* (T3 balancing) is the empty seat that posts the big blind
  soonest: the first empty seat clockwise after the small-blind seat.  The seats
  from the button through the small blind (inclusive; a dead button or dead small
  blind leaves them empty) are never given: never the small blind, never the
  button without paying.
- Players from a broken table, and late entrants, take a random seat except those
  same seats ("between the small blind and the button").

When no other seat is free (a table filled to the last seat), the player takes an
excluded seat and the move is marked ``waits_for_button``: they are not dealt in
until the button has passed them, as a ring game does in B2(b).

Stud events have no button: players move *by position*, defined here as the seat
number.  The destination is the lowest-numbered empty seat at the short table; the
player who moves is the one in that same seat number at the full table, or else the
next occupied seat in increasing seat order (wrapping).  A button-game table that has
not dealt a hand yet (no positions) is treated the same way.

Ties (several fullest or shortest tables) go to the table listed first in the break
order, so plans are reproducible; randomness (the draw, broken-table seats) only
comes from the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import InvalidConfigError

# A table three or more players short of the fullest stops dealing until balanced (T3).
PAUSE_SHORTFALL = 3


@dataclass(frozen=True, slots=True)
class BlindPositions:
    """Seats of the button and blinds for a table's next hand (B1; seats may be empty).

    ``big_blind`` must be the first player clockwise after ``small_blind``.
    ``button_dead``: nobody holds the button although a player sits on its seat
    (around heads-up play, so that nobody holds it twice in a row; ``positions``).
    """

    button: int
    small_blind: int
    big_blind: int
    button_dead: bool = False


@dataclass(frozen=True, slots=True)
class Table:
    """A tournament table between hands: ``players`` maps seat number to player id."""

    table_id: str
    seat_count: int
    players: Mapping[int, str]
    positions: BlindPositions | None = None


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat given by the draw or to a late entrant."""

    player: str
    table: str
    seat: int
    waits_for_button: bool = False


@dataclass(frozen=True, slots=True)
class Move:
    """A player moving between seats; ``waits_for_button``: see the module docstring."""

    player: str
    from_table: str
    from_seat: int
    to_table: str
    to_seat: int
    waits_for_button: bool = False


@dataclass(frozen=True, slots=True)
class Rebalance:
    """What to do after a hand.

    - ``moves``: one per player who changes seat (a player is never moved twice).
    - ``paused``: tables that must not deal until the moves into them are done,
      because they were three or more players short of the fullest table.
    - ``broken``: tables broken by this plan, in break order; they are empty after it.
    - ``final_table``: set when this plan redraws the final table (its button must
      then be drawn again: the old positions mean nothing after a redraw).
    """

    moves: tuple[Move, ...] = ()
    paused: frozenset[str] = frozenset()
    broken: tuple[str, ...] = ()
    final_table: str | None = None


# ---------------------------------------------------------------- the draw (T2)


def tables_needed(players: int, seats_per_table: int) -> int:
    """The fewest tables that seat ``players``."""
    if seats_per_table < 2:
        raise InvalidConfigError(f"a table needs at least 2 seats, got {seats_per_table}")
    return max(1, -(-players // seats_per_table))


def draw_seats(
    players: Sequence[str], table_ids: Sequence[str], seat_count: int, rng: random.Random
) -> tuple[Seat, ...]:
    """The random seating draw: tables filled evenly, seats drawn at random (T2).

    Table sizes differ by at most one; the tables listed first get the extra
    players.  Which seats are left empty at a table that is not full is random too.
    """
    if len(set(players)) != len(players):
        raise InvalidConfigError("a player is seated once: duplicate player ids")
    if not table_ids or len(set(table_ids)) != len(table_ids):
        raise InvalidConfigError("the draw needs one or more distinct table ids")
    if seat_count < 2:
        raise InvalidConfigError(f"a table needs at least 2 seats, got {seat_count}")
    if len(players) > len(table_ids) * seat_count:
        raise InvalidConfigError(
            f"{len(players)} players do not fit {len(table_ids)} tables of {seat_count}: "
            f"{tables_needed(len(players), seat_count)} tables are needed"
        )
    if len(players) < 2 * len(table_ids):
        raise InvalidConfigError(
            f"{len(players)} players cannot fill {len(table_ids)} tables with two each; "
            f"use {tables_needed(len(players), seat_count)} tables"
        )
    base, extra = divmod(len(players), len(table_ids))
    cards: list[tuple[str, int]] = []
    for i, table in enumerate(table_ids):
        size = base + (1 if i < extra else 0)
        cards.extend((table, seat) for seat in sorted(rng.sample(range(1, seat_count + 1), size)))
    order = list(players)
    rng.shuffle(order)
    return tuple(Seat(p, t, s) for p, (t, s) in zip(order, cards, strict=True))


# ---------------------------------------------------------------- positions


def clockwise_after(seat: int, seat_count: int) -> list[int]:
    """Every other seat, clockwise starting just after ``seat``."""
    return [(seat + k - 1) % seat_count + 1 for k in range(1, seat_count)]


def protected_seats(positions: BlindPositions, seat_count: int) -> frozenset[int]:
    """Seats from the button through the small blind: no arriving player takes them."""
    seats = {positions.button}
    seat = positions.button
    while seat != positions.small_blind:
        seat = seat % seat_count + 1
        seats.add(seat)
    return frozenset(seats)


def next_big_blind(players: Mapping[int, str], seat_count: int, positions: BlindPositions) -> int:
    """Seat of the player who will be big blind next: first player after the small blind."""
    for seat in clockwise_after(positions.small_blind, seat_count):
        if seat in players:
            return seat
    if positions.small_blind in players:  # a lone player
        return positions.small_blind
    raise InvalidConfigError("an empty table has no big blind")


def worst_position(
    players: Mapping[int, str], seat_count: int, positions: BlindPositions
) -> tuple[int, bool]:
    """The empty seat that posts the big blind soonest, never the small blind (T3).

    Returns ``(seat, waits_for_button)``; the flag is set only when every empty seat
    lies between the button and the small blind.
    """
    order = [*clockwise_after(positions.small_blind, seat_count), positions.small_blind]
    protected = protected_seats(positions, seat_count)
    empty = [seat for seat in order if seat not in players]
    if not empty:
        raise InvalidConfigError("the table is full")
    for seat in empty:
        if seat not in protected:
            return seat, False
    return empty[0], True


def mover_by_position(players: Mapping[int, str], to_seat: int) -> int:
    """Stud balancing: the seat that moves to ``to_seat`` at the short table.

    The player in the same seat number, else the next occupied seat in increasing
    seat order, wrapping to seat 1.
    """
    if not players:
        raise InvalidConfigError("an empty table has nobody to move")
    later = [seat for seat in sorted(players) if seat >= to_seat]
    return later[0] if later else min(players)


# ---------------------------------------------------------------- validation


def _validate(tables: Sequence[Table], break_order: Sequence[str], button_game: bool) -> None:
    ids = [table.table_id for table in tables]
    if len(set(ids)) != len(ids):
        raise InvalidConfigError(f"duplicate table ids: {ids}")
    if sorted(break_order) != sorted(ids):
        raise InvalidConfigError(
            f"the break order must list every table exactly once: tables {sorted(ids)}, "
            f"break order {list(break_order)}"
        )
    seen: set[str] = set()
    for table in tables:
        if table.seat_count < 2:
            raise InvalidConfigError(f"table {table.table_id}: at least 2 seats needed")
        for seat, player in table.players.items():
            if not 1 <= seat <= table.seat_count:
                raise InvalidConfigError(
                    f"table {table.table_id}: seat {seat} is not 1..{table.seat_count}"
                )
            if player in seen:
                raise InvalidConfigError(f"player {player} is seated twice")
            seen.add(player)
        positions = table.positions
        if not button_game or positions is None or not table.players:
            continue
        for name in ("button", "small_blind", "big_blind"):
            seat = getattr(positions, name)
            if not 1 <= seat <= table.seat_count:
                raise InvalidConfigError(f"table {table.table_id}: {name} seat {seat} out of range")
        expected = next_big_blind(table.players, table.seat_count, positions)
        if positions.big_blind != expected:
            raise InvalidConfigError(
                f"table {table.table_id}: the big blind must be the first player after the "
                f"small-blind seat {positions.small_blind} (B1), i.e. seat {expected}, "
                f"got {positions.big_blind}"
            )


# ---------------------------------------------------------------- planning


class _Plan:
    """Working copy of the room while a rebalance is planned."""

    def __init__(self, tables: Sequence[Table], button_game: bool) -> None:
        self.seats = {t.table_id: dict(t.players) for t in tables}
        self.size = {t.table_id: t.seat_count for t in tables}
        self.positions = {t.table_id: t.positions if button_game else None for t in tables}
        self.origin: dict[str, tuple[str, int]] = {}
        self.landing: dict[str, tuple[str, int, bool]] = {}

    def count(self, table: str) -> int:
        return len(self.seats[table])

    def free(self, table: str) -> list[int]:
        return [s for s in range(1, self.size[table] + 1) if s not in self.seats[table]]

    def allowed(self, table: str) -> list[int]:
        positions = self.positions[table]
        free = self.free(table)
        if positions is None:
            return free
        protected = protected_seats(positions, self.size[table])
        return [seat for seat in free if seat not in protected]

    def move(self, table: str, seat: int, to_table: str, to_seat: int, waits: bool) -> None:
        player = self.seats[table].pop(seat)
        self.seats[to_table][to_seat] = player
        self.origin.setdefault(player, (table, seat))
        self.landing[player] = (to_table, to_seat, waits)

    def moves(self) -> tuple[Move, ...]:
        result = []
        for player, (table, seat) in self.origin.items():
            to_table, to_seat, waits = self.landing[player]
            if (to_table, to_seat) != (table, seat):
                result.append(Move(player, table, seat, to_table, to_seat, waits))
        return tuple(result)

    def place_random(
        self, table: str, seat: int, candidates: list[str], rng: random.Random
    ) -> None:
        """Seat a player at random at a shortest table, outside the protected seats."""
        open_tables = [t for t in candidates if self.free(t)]
        fewest = min(self.count(t) for t in open_tables)
        shortest = [t for t in open_tables if self.count(t) == fewest]
        with_allowed = [t for t in shortest if self.allowed(t)]
        if with_allowed:
            to_table = rng.choice(with_allowed)
            self.move(table, seat, to_table, rng.choice(self.allowed(to_table)), False)
        else:
            to_table = rng.choice(shortest)
            self.move(table, seat, to_table, rng.choice(self.free(to_table)), True)

    def balance_one(self, open_ids: list[str]) -> bool:
        """Move one player from the fullest to the shortest table; False when balanced."""
        most = max(self.count(t) for t in open_ids)
        receivers = [t for t in open_ids if self.count(t) <= most - 2 and self.free(t)]
        if not receivers:
            return False
        fewest = min(self.count(t) for t in receivers)
        dest = next(t for t in receivers if self.count(t) == fewest)
        source = next(t for t in open_ids if self.count(t) == most)
        src_positions = self.positions[source]
        dest_positions = self.positions[dest]
        if dest_positions is not None:
            to_seat, waits = worst_position(self.seats[dest], self.size[dest], dest_positions)
        else:  # stud, or a table that has not dealt yet: the first seat in seat order
            to_seat, waits = min(self.free(dest)), False
        if src_positions is not None:
            from_seat = next_big_blind(self.seats[source], self.size[source], src_positions)
        else:
            from_seat = mover_by_position(self.seats[source], to_seat)
        self.move(source, from_seat, dest, to_seat, waits)
        return True


def rebalance(
    tables: Sequence[Table],
    break_order: Sequence[str],
    *,
    button_game: bool,
    rng: random.Random,
) -> Rebalance:
    """The TDA balancing check, run after every hand (T3).

    1. While the players fit in one fewer table, the next table in ``break_order``
       breaks; its players take random seats at the shortest tables (never between
       the button and the small blind).  When only one table would remain, that is
       the final table: everyone is redrawn to a random seat at it.
    2. While two tables differ by two or more players, one player moves from the
       fullest to the shortest: the next big blind to the worst position (button
       games), or by position (stud).
    3. Tables that were three or more players short of the fullest before the plan
       are paused until the moves are done.

    ``break_order`` lists every table, first to break first; the last one is the
    final table.
    """
    _validate(tables, break_order, button_game)
    plan = _Plan(tables, button_game)
    open_ids = list(break_order)
    most_before = max((plan.count(t) for t in open_ids), default=0)
    before = {t: plan.count(t) for t in open_ids}
    total = sum(before.values())
    broken: list[str] = []
    final_table: str | None = None

    while len(open_ids) > 1:
        breaking, rest = open_ids[0], open_ids[1:]
        if total > sum(plan.size[t] for t in rest):
            break
        broken.append(breaking)
        open_ids = rest
        if len(rest) == 1:
            final_table = rest[0]
            _redraw_final(plan, tables, final_table, rng)
            break
        leaving = sorted(plan.seats[breaking])
        rng.shuffle(leaving)
        for seat in leaving:
            plan.place_random(breaking, seat, rest, rng)

    while len(open_ids) > 1 and plan.balance_one(open_ids):
        pass

    paused = frozenset(t for t in open_ids if before[t] <= most_before - PAUSE_SHORTFALL)
    return Rebalance(plan.moves(), paused, tuple(broken), final_table)


def _redraw_final(plan: _Plan, tables: Sequence[Table], final: str, rng: random.Random) -> None:
    """T3: the final table is redrawn — every remaining player draws a new seat."""
    everyone = [
        (table.table_id, seat) for table in tables for seat in sorted(plan.seats[table.table_id])
    ]
    new_seats = rng.sample(range(1, plan.size[final] + 1), len(everyone))
    players = {(t, s): plan.seats[t][s] for t, s in everyone}
    for table, _seat in everyone:
        plan.seats[table] = {}
    for (table, seat), to_seat in zip(everyone, new_seats, strict=True):
        player = players[(table, seat)]
        plan.seats[final][to_seat] = player
        plan.origin.setdefault(player, (table, seat))
        plan.landing[player] = (final, to_seat, False)
    plan.positions[final] = None


def seat_entrant(
    player: str, tables: Sequence[Table], *, button_game: bool, rng: random.Random
) -> Seat | None:
    """A random seat for a late entrant at a shortest table with room, or ``None``.

    ``None`` means every table is full: the caller opens a new table, and the next
    rebalance fills it (the new table is paused while it is three or more short).
    """
    plan = _Plan(tables, button_game)
    candidates = [t.table_id for t in tables if plan.free(t.table_id)]
    if not candidates:
        return None
    if any(player in t.players.values() for t in tables):
        raise InvalidConfigError(f"player {player} is already seated")
    ghost = "\x00entrant"  # placeholder table holding the entrant before seating
    plan.seats[ghost] = {1: player}
    plan.size[ghost] = 1
    plan.positions[ghost] = None
    plan.place_random(ghost, 1, candidates, rng)
    table, seat, waits = plan.landing[player]
    return Seat(player, table, seat, waits)
