"""Every hand's history, stored once, by the lobby: ring and tournament tables alike.

Why here and not at the table: a table service kept the last 500 hands of every
table in memory (about 15 KB each), so its memory grew with the tables it runs and
a restart lost them all.  The table now sends each finished hand's history with its
result (``FinishHandRequest.history``) and keeps a few for itself (its cache,
``TABLE_HISTORY_HANDS``); it reads older ones back with ``GetHandHistories``.  The
lobby writes the history in the same transaction as the result, so a hand is
recorded with its history or not at all.  A hand the lobby voided itself (its
report refused) gets the table's voided history afterwards (``StoreVoidedHistory``).

The bytes are the table's own form (``services/table/archive.py``): the lobby
stores them and never reads them.  ``seq`` orders a table's histories (the order
they were recorded, which is the order the hands ended: one hand at a time per
table); ``hand_id`` is the key, so retention deletes a hand's history with its
``hands`` row (``delete``).  The same SQL runs on PostgreSQL through
``postgres.py`` (``AUTOINCREMENT`` becomes an identity column there).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS hand_histories (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    hand_id  TEXT NOT NULL UNIQUE,
    table_id TEXT NOT NULL,
    history  BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS hand_histories_by_table ON hand_histories (table_id, seq);
"""

MOST_HISTORIES = 500  # GetHandHistories: the largest limit


class HandHistories:
    """The ``hand_histories`` table, on the lobby store's connection: writes join
    the caller's transaction (the store's ``transaction()``)."""

    def __init__(self, db: Any) -> None:
        self._db = db
        self._db.executescript(SCHEMA)

    def add(self, hand_id: str, table_id: str, history: bytes) -> None:
        """Hand ``hand_id``'s history (inside the transaction that records its end)."""
        self._db.execute(
            "INSERT INTO hand_histories (hand_id, table_id, history) VALUES (?, ?, ?)",
            (hand_id, table_id, history),
        )

    def one(self, table_id: str, hand_id: str) -> bytes | None:
        """Hand ``hand_id``'s history at table ``table_id``, None when not stored."""
        row = self._db.execute(
            "SELECT history FROM hand_histories WHERE hand_id = ? AND table_id = ?",
            (hand_id, table_id),
        ).fetchone()
        return None if row is None else bytes(row[0])

    def newest(
        self, table_id: str, limit: int, before_hand_id: str = ""
    ) -> list[tuple[str, bytes]] | None:
        """The table's newest ``limit`` histories, (hand_id, history) oldest first;
        ``before_hand_id``: only those stored before that hand's (None when the
        table has no history of that hand)."""
        if before_hand_id:
            row = self._db.execute(
                "SELECT seq FROM hand_histories WHERE hand_id = ? AND table_id = ?",
                (before_hand_id, table_id),
            ).fetchone()
            if row is None:
                return None
            rows = self._db.execute(
                "SELECT hand_id, history FROM hand_histories WHERE table_id = ? AND seq < ? "
                "ORDER BY seq DESC LIMIT ?",
                (table_id, row[0], limit),
            ).fetchall()
        else:
            rows = self._db.execute(
                "SELECT hand_id, history FROM hand_histories WHERE table_id = ? "
                "ORDER BY seq DESC LIMIT ?",
                (table_id, limit),
            ).fetchall()
        return [(r[0], bytes(r[1])) for r in reversed(rows)]

    def delete(self, hand_ids: Iterable[str]) -> int:
        """Retention: the histories of these hands go (with their ``hands`` rows,
        in the same transaction); how many were stored."""
        ids = list(hand_ids)
        deleted = 0
        for start in range(0, len(ids), 500):  # SQLite's bound parameters per statement
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            cur = self._db.execute(f"DELETE FROM hand_histories WHERE hand_id IN ({marks})", chunk)
            deleted += cur.rowcount
        return deleted


__all__ = ["MOST_HISTORIES", "SCHEMA", "HandHistories"]
