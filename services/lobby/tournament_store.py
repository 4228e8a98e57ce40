"""Tournament state in the lobby's SQLite database, beside ``store.LobbyStore``.

Two tables: ``tournaments`` (the CreateTournamentRequest as protobuf bytes, the
live state as JSON, and the money the tournament holds: ``pool_held``, the prize
pool not yet paid, and ``fees``, what the house took) and ``tournament_events``
(every event, numbered, so a watcher resumes from any sequence number after a
restart).  The writes share the lobby's connection and its ``transaction()``, so
a tournament's state, its events and the ledger rows of its money are committed
together or not at all.

Money (play money, the balances) moves through the ledger with these kinds; the
tournament's chips are not money and never appear in it:

============ ================ ============== =====================================
kind         balance_delta    table_delta    when
============ ================ ============== =====================================
t_buy_in     -buy_in          +buy_in        Register, ReEnter (to the prize pool)
t_fee        -fee             +fee           Register, ReEnter (to the house)
t_refund     +buy_in + fee    -(buy_in+fee)  Unregister before the start
t_prize      +prize           -prize         the tournament ends
============ ================ ============== =====================================

``LobbyStore.totals`` counts ``pool_held + fees`` of every tournament on the
tables side, so ``granted == balances + at_tables`` and the ledger sums keep
holding with tournaments running.
"""

from __future__ import annotations

import json
import time
from typing import Any

from .store import LobbyStore

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament_events (
    tournament_id TEXT NOT NULL,
    seq           INTEGER NOT NULL,
    body          BLOB NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);
"""


class TournamentStore:
    """Reads and writes of tournaments; every write inside the caller's transaction."""

    def __init__(self, store: LobbyStore) -> None:
        self.store = store
        # The lobby store's connection: one database, one transaction per RPC.
        self._db = store._db  # same database by design (module doc)
        self._db.executescript(SCHEMA)

    def transaction(self) -> Any:
        return self.store.transaction()

    def add(self, tournament_id: str, request: bytes, state: dict[str, Any]) -> None:
        self._db.execute(
            "INSERT INTO tournaments (tournament_id, seq, request, state, pool_held, fees, "
            "created_at) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tournaments), "
            "?, ?, 0, 0, ?)",
            (tournament_id, request, json.dumps(state), time.time()),
        )

    def save(self, tournament_id: str, state: dict[str, Any]) -> None:
        self._db.execute(
            "UPDATE tournaments SET state = ? WHERE tournament_id = ?",
            (json.dumps(state, separators=(",", ":")), tournament_id),
        )

    def load(self) -> list[tuple[str, bytes, dict[str, Any]]]:
        rows = self._db.execute(
            "SELECT tournament_id, request, state FROM tournaments ORDER BY seq"
        ).fetchall()
        return [(r[0], bytes(r[1]), json.loads(r[2])) for r in rows]

    def add_event(self, tournament_id: str, seq: int, body: bytes) -> None:
        self._db.execute(
            "INSERT INTO tournament_events (tournament_id, seq, body) VALUES (?, ?, ?)",
            (tournament_id, seq, body),
        )

    def events(self, tournament_id: str) -> list[bytes]:
        rows = self._db.execute(
            "SELECT body FROM tournament_events WHERE tournament_id = ? ORDER BY seq",
            (tournament_id,),
        ).fetchall()
        return [bytes(r[0]) for r in rows]

    def balance(self, player_id: str) -> int:
        return self.store.balance(player_id)

    def move_money(
        self, tournament_id: str, player_id: str, kind: str, to_pool: int, to_fees: int
    ) -> int:
        """Balance to the tournament (positive amounts) or back (negative): the
        player's balance, the tournament's pool and fees and the ledger change
        together.  Returns the balance after."""
        total = to_pool + to_fees
        self._db.execute(
            "UPDATE players SET balance = balance - ? WHERE player_id = ?", (total, player_id)
        )
        self._db.execute(
            "UPDATE tournaments SET pool_held = pool_held + ?, fees = fees + ? "
            "WHERE tournament_id = ?",
            (to_pool, to_fees, tournament_id),
        )
        self.store._ledger(kind, player_id, None, None, -total, total)
        return self.balance(player_id)
