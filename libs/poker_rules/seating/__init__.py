"""Ring-game seating: who is dealt in each hand and what each player posts (B1-B6).

The engines (``DrawHand``, ``StudHand``) play one hand with the forced bets they are
given; they know nothing about the table around them.  This module is that table:
seats 1..N, each empty or holding a player with chips, away or sitting in, the
missed-blind markers (ML, MS), the new-player status and choice, the stud "I'm in"
switch, and the button history.  The lobby asks it for a ``HandPlan`` before each
hand, plays the hand, and reports the final stacks back with ``finish_hand``.  Pure:
no I/O, no clock, no randomness (the lobby draws for the first button if it wants).

Button games (7-A draw) use the dead button (B1): the big blind moves one active
player clockwise every hand, the small blind is the previous big blind's seat and the
button the previous small blind's seat, even when those seats are empty or their
players away.  Heads-up the button posts the small blind (D3).  Stud games have no
blinds and no button; a player away simply is not dealt in (B6, S3).

``plan_hand`` changes nothing but the table's "hand in progress" lock, so a hand
that cannot finish is voided with ``void_hand`` and leaves no trace (a voided
hand restores everything as it was).  ``finish_hand`` applies the markers the plan
decided (a player who was away when the blind reached them), clears the debts of
those who posted, moves the history on and reports seats lost for sitting out too
long (B5) so the lobby can return those chips to the player's balance.

``snapshot`` / ``restore`` turn the table between hands into JSON-able data and
back (the lobby stores it with every change, so a restarted lobby plans the next
hand as it would have; money always comes from the lobby's own seat rows).

Decisions where docs/rules.md is silent follow Robert's Rules of Poker; each is noted
where it is made (look for "Robert's" and "house").

The package is laid out along the rule book, so each rule is read in one place:

- ``model``: the vocabulary the lobby sees (configuration, seated players, plans,
  forced bets, why a player waits);
- ``state``: what the table remembers between hands and the seat arithmetic;
- ``plan_button``: the dead button and the blinds (B1, D3), and a new game;
- ``entry``: who else is dealt in and what they post: new players (B2), missed
  blinds (B3, B4);
- ``plan_stud``: stud's antes and "I'm in" (S3, B6);
- ``finish``: applying a played or voided hand, markers and the sit-out limit (B5);
- ``snapshot``: the durable form of the table between hands;
- ``table``: ``SeatingTable``, the one object the lobby holds, built from the above.
"""

from .model import (
    Choice,
    Forced,
    HandPlan,
    PostKind,
    SeatedPlayer,
    SeatingConfig,
    SeatingError,
    SeatLost,
    Waiting,
)
from .snapshot import SNAPSHOT_VERSION as SNAPSHOT_VERSION  # the format's version, kept importable
from .table import SeatingTable

__all__ = [
    "Choice",
    "Forced",
    "HandPlan",
    "PostKind",
    "SeatLost",
    "SeatedPlayer",
    "SeatingConfig",
    "SeatingError",
    "SeatingTable",
    "Waiting",
]
