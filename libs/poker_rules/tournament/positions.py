"""The button and blinds of a tournament table's next hand (B1 as tournaments play it).

A tournament table never waits for a player to come back (T6) and has no missed
blinds to collect, so the dead-button rule reduces to three steps from the last
hand's positions: the big blind moves to the next player clockwise; the small
blind is the previous big blind's seat (dead, nobody posts it, when that player
has left: busted or moved); the button goes to the previous small blind's seat
(dead when empty).  Nobody skips the big blind or has the button twice in a row.
Heads-up, the button posts the small blind and the other player the big blind
(D3).  A new game (the first hand, or the final table after its redraw) puts the
button on the lowest occupied seat.

Around heads-up play B1's "the button goes to the last small blind" can give the
button back to the player who just held it (heads-up the button *is* the small
blind).  B1's "never twice in a row" wins, as at ring tables
(docs/rule-decisions.md#button-heads-up): with three or more players the button goes dead on the
empty seat just right of the small blind, or, when there is none, lies dead on the
holder's seat (``button_dead``: they play the position without holding it);
heads-up the same player posts the small blind, with the button marked dead.

When players arrive around the blinds so that the big blind would land on the
button or small-blind seat of the chain (T3 never seats them there unless a table
is full), the positions restart from the big blind: small blind the player before
it, button the player before that.

``coming_positions`` is what T3 balancing needs: the positions of the next hand
at a table *before* players arrive, even when only one or two players are left
(the lone survivor of a table that another table breaks into).  Seats from its
button through its small blind are the ones "between the small blind and the
button" that no arrival takes.
"""

from __future__ import annotations

from collections.abc import Collection

from ..errors import InvalidConfigError
from .seating import BlindPositions, protected_seats


def _after(seat: int, occupied: Collection[int], size: int) -> int:
    for k in range(1, size + 1):
        s = (seat + k - 1) % size + 1
        if s in occupied:
            return s
    raise InvalidConfigError("an empty table has no positions")


def _before(seat: int, occupied: Collection[int], size: int) -> int:
    for k in range(1, size + 1):
        s = (seat - k - 1) % size + 1
        if s in occupied:
            return s
    raise InvalidConfigError("an empty table has no positions")


def _right_of(seat: int, size: int) -> int:
    """The seat number just right of (before, counter-clockwise) ``seat``."""
    return (seat - 2) % size + 1


def _chain(seats: Collection[int], size: int, last: BlindPositions) -> BlindPositions:
    """B1's chain from ``last``: button on its small-blind position, small blind on its
    big-blind seat, big blind the first player after that (for any number of players).

    After a heads-up hand the chain's button seat is the heads-up button's own
    seat; if that player is still there they would hold it twice in a row, so the
    button goes dead on the empty seat just right of the small blind, or (no such
    seat) lies dead on the holder's seat.
    """
    small = last.big_blind
    big = _after(small, seats, size)
    button = last.small_blind
    if last.button == last.small_blind and button in seats:
        right = _right_of(small, size)
        if right in seats:
            return BlindPositions(button, small, big, button_dead=True)
        button = right
    return BlindPositions(button, small, big)


def next_positions(
    occupied: Collection[int], seat_count: int, last: BlindPositions | None
) -> BlindPositions:
    """Positions of the next hand at a table whose players sit in ``occupied``.

    ``last`` is the previous hand's (its ``small_blind`` the small-blind position,
    even when nobody posted it), or None for a new game.  The result's
    ``small_blind`` is a position too: the small blind is posted only when a player
    sits there.  ``big_blind`` is always the first player after ``small_blind``, as
    ``rebalance`` expects.
    """
    seats = sorted(set(occupied))
    if len(seats) < 2:
        raise InvalidConfigError(f"a hand needs two players, the table has {len(seats)}")
    _check_seats(seats, seat_count)
    if last is None:
        button = seats[0]
        if len(seats) == 2:
            return BlindPositions(button, button, _after(button, seats, seat_count))
        small = _after(button, seats, seat_count)
        return BlindPositions(button, small, _after(small, seats, seat_count))
    big = _after(last.big_blind, seats, seat_count)
    if len(seats) == 2:
        other = _after(big, seats, seat_count)
        # B1: the player who held the button last hand posts the small blind again
        # (D3) but does not hold the button twice in a row.
        return BlindPositions(other, other, big, button_dead=other == last.button)
    if last.button != last.small_blind and big == last.small_blind:
        # Players arrived around the blinds (a full table): restart from the big blind.
        small = _before(big, seats, seat_count)
        return BlindPositions(_before(small, seats, seat_count), small, big)
    return _chain(seats, seat_count, last)


def coming_positions(
    occupied: Collection[int], seat_count: int, last: BlindPositions | None
) -> BlindPositions | None:
    """The positions T3 balancing (``rebalance``) must be told for a table between hands.

    They are those of the table's next hand once players arrive: B1's chain from
    ``last`` (``next_positions`` with three or more players), computed also for a
    table of one or two players, whose own ``next_positions`` cannot say it (one
    player deals no hand; two would be the heads-up positions, which arrivals
    change).  Arrivals seated outside the seats from its button through its small
    blind leave the button and small blind of the hand that is then dealt where
    these say, and the first player after the small blind takes the big blind.
    None for a new game (``last`` None: the button is placed afresh, any seat is
    fair) or an empty table.
    """
    seats = sorted(set(occupied))
    if last is None or not seats:
        return None
    _check_seats(seats, seat_count)
    if len(seats) >= 3:
        return next_positions(seats, seat_count, last)
    return _chain(seats, seat_count, last)


def dealt_positions(
    occupied: Collection[int],
    waiting: Collection[int],
    seat_count: int,
    last: BlindPositions | None,
) -> tuple[list[int], BlindPositions]:
    """Who is dealt in, and the positions, when some seats wait for the button (T3).

    ``waiting`` are seats ``rebalance`` could only give between the button and the
    small blind (``waits_for_button``): their players are dealt in once the seats
    from the coming button through the small blind no longer include theirs.  If
    that leaves fewer than two players (a lone survivor whose every free seat lay
    there), waiting would stall the table for good, so everyone is dealt in and the
    positions start afresh from the big blind, which still moves one player on
    (B1): the small blind and the button are the players right of it; the button
    is dead if that gives it to last hand's holder again.
    """
    seats = sorted(set(occupied))
    wait = set(waiting) & set(seats)
    if last is None or not wait:
        return seats, next_positions(seats, seat_count, last)
    playing = [s for s in seats if s not in wait]
    coming = coming_positions(playing or seats, seat_count, last)
    assert coming is not None  # None only without ``last`` or seats, both excluded above
    zone = protected_seats(coming, seat_count)
    dealt = [s for s in seats if s not in wait or s not in zone]
    if len(dealt) >= 2:
        return dealt, next_positions(dealt, seat_count, last)
    if len(seats) == 2:
        return seats, next_positions(seats, seat_count, last)
    big = _after(last.big_blind, seats, seat_count)
    small = _before(big, seats, seat_count)
    button = _before(small, seats, seat_count)
    return seats, BlindPositions(button, small, big, button_dead=button == last.button)


def _check_seats(seats: Collection[int], seat_count: int) -> None:
    if any(not 1 <= s <= seat_count for s in seats):
        raise InvalidConfigError(f"seats must be 1..{seat_count}, got {sorted(seats)}")
