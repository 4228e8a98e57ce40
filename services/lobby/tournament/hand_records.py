"""A tournament table's hands as ListHands lists them, as a ring table's are.

Why a table of its own: a ring table's hands are ``hands`` rows, whose
``table_id`` refers to the ``tables`` of ring tables; a tournament's tables live
in its state (``tournament_store.py``).  ``tournament_hands`` has the same
columns, so ListHands shows both kinds the same way (``ring/wire.hand_record``,
the same keyset pages), and each row is written in the transaction that changes
the hand: planned (pending), finished, voided (by the table, at a takeover, or by
a lobby restart).  Retention deletes rows by ``hand_id`` (``delete``), with their
histories (``histories.py``).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from ..store import HandRow

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournament_hands (
    hand_id       TEXT PRIMARY KEY,
    table_id      TEXT NOT NULL,
    tournament_id TEXT NOT NULL,
    plan          BLOB NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ('pending', 'finished', 'voided')),
    reason        TEXT NOT NULL DEFAULT '',
    planned_at    REAL NOT NULL,
    ended_at      REAL
);
CREATE INDEX IF NOT EXISTS tournament_hands_by_table
    ON tournament_hands (table_id, planned_at, hand_id);
CREATE INDEX IF NOT EXISTS tournament_hands_by_end ON tournament_hands (ended_at);
"""

_COLUMNS = "hand_id, table_id, plan, status, reason, planned_at, ended_at"


def _row(r: Any) -> HandRow:
    return HandRow(r[0], r[1], bytes(r[2]), r[3], r[4], None, r[5], r[6])


class TournamentHands:
    """Reads and writes of ``tournament_hands``; writes inside the caller's transaction."""

    def __init__(self, db: Any) -> None:
        self._db = db
        self._db.executescript(SCHEMA)

    def add(self, hand_id: str, table_id: str, tournament_id: str, plan: bytes) -> None:
        self._db.execute(
            "INSERT INTO tournament_hands (hand_id, table_id, tournament_id, plan, status, "
            "planned_at) VALUES (?, ?, ?, ?, 'pending', ?)",
            (hand_id, table_id, tournament_id, plan, time.time()),
        )

    def end(self, hand_id: str, status: str, reason: str = "") -> None:
        """The pending hand ``hand_id`` is ``finished`` or ``voided`` (a hand planned
        before this table existed has no row: nothing to change)."""
        self._db.execute(
            "UPDATE tournament_hands SET status = ?, reason = ?, ended_at = ? "
            "WHERE hand_id = ? AND status = 'pending'",
            (status, reason, time.time(), hand_id),
        )

    def status(self, table_id: str, hand_id: str) -> str | None:
        """Hand ``hand_id``'s status at table ``table_id``; None when it has no row."""
        row = self._db.execute(
            "SELECT status FROM tournament_hands WHERE hand_id = ? AND table_id = ?",
            (hand_id, table_id),
        ).fetchone()
        return None if row is None else str(row[0])

    def hands(
        self, table_id: str, limit: int, before: tuple[float, str] | None = None
    ) -> list[HandRow]:
        """The table's hands, newest first; ``before``: the page after that one
        (as ``LobbyStore.hands``)."""
        if before is None:
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM tournament_hands WHERE table_id = ? "
                "ORDER BY planned_at DESC, hand_id DESC LIMIT ?",
                (table_id, limit),
            ).fetchall()
        else:
            planned_at, hand_id = before
            rows = self._db.execute(
                f"SELECT {_COLUMNS} FROM tournament_hands WHERE table_id = ? "
                "AND (planned_at < ? OR (planned_at = ? AND hand_id < ?)) "
                "ORDER BY planned_at DESC, hand_id DESC LIMIT ?",
                (table_id, planned_at, planned_at, hand_id, limit),
            ).fetchall()
        return [_row(r) for r in rows]

    def ended_before(self, cutoff: float, limit: int) -> list[str]:
        """Retention: up to ``limit`` of the oldest ended hands that ended before
        ``cutoff`` (an index range scan: the same cost whatever the table's size)."""
        rows = self._db.execute(
            "SELECT hand_id FROM tournament_hands WHERE ended_at < ? AND status <> 'pending' "
            "ORDER BY ended_at LIMIT ?",
            (cutoff, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def delete(self, hand_ids: Iterable[str]) -> int:
        """Retention: these hands' rows go; how many there were."""
        ids = list(hand_ids)
        deleted = 0
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            cur = self._db.execute(
                f"DELETE FROM tournament_hands WHERE hand_id IN ({marks})", chunk
            )
            deleted += cur.rowcount
        return deleted


__all__ = ["SCHEMA", "TournamentHands"]
