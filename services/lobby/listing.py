"""Ring tables' views built once per change, for ListTables and GetTable.

Why: the table service lists the lobby's tables every second (its discovery,
TABLE_DISCOVERY_S) and every Join reads its table's seats (GetTable).  Built
afresh, each listing cost a players-table query and a ``Table`` message per
table: at 1,000 tables about 130 ms of the lobby's loop a second, a tenth of a
core, and more during a burst of joins, whatever had changed.  A ring table
changes only inside ``RingTables.change`` (its docstring says so: every change
of a table is one), so the view built after a change holds until the next one:
this book keeps it and drops it when the table changes, and a listing is the
cached messages put together.  What callers see is the same message, field
for field.

The cached message is shared by every answer that shows the table: nothing may
change it (a repeated field copies it into a response; a GetTable answer is
serialized as it is).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from poker.lobby.v1 import lobby_pb2 as pb

from .ring import RingBook
from .ring.table import RingTable
from .store import LobbyStore


class ViewedRingBook(RingBook):
    """The ring tables' book, each table's view built once per change."""

    def __init__(self, store: LobbyStore, max_orbits_away: int) -> None:
        self._views: dict[str, pb.Table] = {}
        super().__init__(store, max_orbits_away)

    @contextmanager
    def change(self, table: RingTable | None = None) -> Iterator[None]:
        """``RingTables.change``; the table's view is built again after it (after
        a refused change too: the view is then the same, built once more)."""
        try:
            with super().change(table):
                yield
        finally:
            if table is not None:
                self._views.pop(table.row.table_id, None)

    def view(self, table: RingTable) -> pb.Table:
        """The table as GetTable and ListTables show it; not to be changed."""
        table_id = table.row.table_id
        view = self._views.get(table_id)
        if view is None:
            view = self._views[table_id] = super().view(table)
        return view
