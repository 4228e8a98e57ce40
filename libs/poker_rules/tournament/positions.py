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

When players arrive around the blinds so that the big blind would land on the
button or small-blind seat of the chain (T3 never seats them there unless a table
is full), the positions restart from the big blind: small blind the player before
it, button the player before that.
"""

from __future__ import annotations

from collections.abc import Collection

from ..errors import InvalidConfigError
from .seating import BlindPositions


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
    if any(not 1 <= s <= seat_count for s in seats):
        raise InvalidConfigError(f"seats must be 1..{seat_count}, got {seats}")
    if last is None:
        button = seats[0]
        if len(seats) == 2:
            return BlindPositions(button, button, _after(button, seats, seat_count))
        small = _after(button, seats, seat_count)
        return BlindPositions(button, small, _after(small, seats, seat_count))
    big = _after(last.big_blind, seats, seat_count)
    if len(seats) == 2:
        other = _after(big, seats, seat_count)
        return BlindPositions(other, other, big)
    if big in (last.small_blind, last.big_blind):  # players arrived around the blinds
        small = _before(big, seats, seat_count)
        return BlindPositions(_before(small, seats, seat_count), small, big)
    return BlindPositions(last.small_blind, last.big_blind, big)
