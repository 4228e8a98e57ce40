"""Ring tables: cash games a player sits down at with a buy-in and leaves at will.

``table.py`` is one table (its row, the library's ``SeatingTable``, the hand in
progress); ``tables.py`` keeps them all over the store (rebuilt at start, one
transaction per change); ``seats.py`` is a player's seat (SitDown, StandUp, the
switches of B3-B6 and S3); ``book.py`` is the ``TableBook`` the servicer calls
(the table's view and the hand protocol); ``wire.py`` converts to and from the
protos.

Durable markers: every change writes the table's ``SeatingTable.snapshot`` in its
transaction, and a restart rebuilds the table from it and the stored seats (money
only from the seats).  A seat whose stack is 0 after a hand stays seated (the
library's NO_CHIPS: not dealt in) until the player stands up (returning 0) or
loses the seat (B5).

Crash durability: a hand that cannot finish is voided, every chip where it was at
the hand's start, and the void is recorded (the ``hands`` row: status voided, the
reason, when).  The seats always hold the stacks as at the start of the hand in
progress, since results are written at FinishHand only, so a void never moves a
chip.  Three ways a hand is voided:

- the table service reports it voided (a downstream service failed):
  ``FinishHand(voided=True, void_reason=...)``;
- the table service process died mid-hand: its successor calls
  ``VoidPendingHand`` for each table the first time it takes it over, before its
  first NextHand.  A fresh process never resumes a hand it did not start, and
  never gets an old plan dealt again under the same hand_id; this "void at
  takeover" is simpler than a claim/epoch scheme and enough while one table
  service replica runs each table (``TABLE_SHARD``);
- the lobby itself restarted while a hand was pending (the pending row is in the
  database): the restart voids it, "voided by the lobby restart", and the table's
  late FinishHand for it is refused with that reason, so the table records the
  hand voided and tells its players.
"""

from .book import RingBook
from .table import VOIDED_AT_TAKEOVER, VOIDED_BY_RESTART, VOIDED_BY_TABLE

__all__ = ["VOIDED_AT_TAKEOVER", "VOIDED_BY_RESTART", "VOIDED_BY_TABLE", "RingBook"]
