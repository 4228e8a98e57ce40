"""Retention: old hands deleted, old ledger rows folded, the sums unchanged.

The policy (docs/operations.md, "The lobby's store: group commit and
retention"):

- **Hands.** A hand's record (its ``hands`` row: plan, status, why voided) is
  kept ``LOBBY_KEEP_HANDS_DAYS`` after it ended, then deleted; a pending hand
  is never touched.  ListHands then lists the newer ones only.  Hands move no
  money by themselves (the ledger's ``hand`` rows do), so no sum changes.
- **Ledger.** Rows older than ``LOBBY_KEEP_LEDGER_DAYS`` are folded: each
  player's old rows at one table (or off tables: grants, tournaments) become
  one carried-forward row holding their sums (kind ``carried``, and
  ``carried_grant`` for grants so that ``granted`` stays the sum of every
  grant).  Every sum of ``totals()`` is unchanged, so ``GetLedgerTotals`` and
  the reconciliation agree before and after; the row count falls, and the
  running totals count that (``LobbyStore.ledger_rows_folded``).  A fold waits
  while a reconciliation reads, whose check names a commit by its row count.

Both run as small batches (``BATCH`` rows), each one transaction on the event
loop, which is the database's one writer (a second connection could not write
while a group is open: commits.py), with the loop given back between batches;
each batch is an index range scan, so a batch costs the same whatever the
database's size.  0 days (the default) keeps everything.

PostgreSQL runs the same fold and deletes (portable SQL).  A large
PostgreSQL room would rather partition ``hands`` and ``ledger`` by time
(declarative range partitions on ``ended_at``/``at``, one per month) and drop
or archive whole partitions: that is a schema migration for its operators, not
something the lobby does at start (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections import defaultdict

from service_kit.logs import get_logger

from .store import LobbyStore
from .tournament.hand_records import TournamentHands

BATCH = 500
"""Rows of one retention transaction (a few milliseconds on the loop)."""

DAY_S = 86_400.0

log = get_logger()


class Retention:
    """One retention pass over a store, batch by batch."""

    def __init__(
        self,
        store: LobbyStore,
        keep_hands_days: float,
        keep_ledger_days: float,
        tournament_hands: TournamentHands | None = None,
    ) -> None:
        self.store = store
        self.tournament_hands = tournament_hands  # tournament tables' hands, kept alike
        self.keep_hands_s = keep_hands_days * DAY_S
        self.keep_ledger_s = keep_ledger_days * DAY_S

    @property
    def enabled(self) -> bool:
        return bool(self.keep_hands_s or self.keep_ledger_s)

    def hands_batch(self, now: float | None = None) -> int:
        """Delete up to ``BATCH`` of the oldest ended hands past their keep (ring
        tables' first, then tournament tables'), with their histories; how many."""
        if not self.keep_hands_s:
            return 0
        cutoff = (time.time() if now is None else now) - self.keep_hands_s
        db = self.store._db
        with self.store.transaction():
            rows = db.execute(
                "SELECT hand_id FROM hands WHERE ended_at < ? AND status <> 'pending' "
                "ORDER BY ended_at LIMIT ?",
                (cutoff, BATCH),
            ).fetchall()
            ids = [r[0] for r in rows]
            if ids:
                marks = ",".join("?" * len(ids))
                db.execute(f"DELETE FROM hands WHERE hand_id IN ({marks})", ids)
            if self.tournament_hands is not None and len(ids) < BATCH:
                more = self.tournament_hands.ended_before(cutoff, BATCH - len(ids))
                self.tournament_hands.delete(more)
                ids += more
            if ids:
                histories = getattr(self.store, "histories", None)
                if histories is not None:  # each hand's history goes with it
                    histories.delete(ids)
        return len(ids)

    def ledger_batch(self, now: float | None = None) -> int:
        """Fold up to ``BATCH`` of the oldest ledger rows past their keep into the
        carried-forward rows; how many rows were folded (0 while reconciling)."""
        if not self.keep_ledger_s or self.store.reconciling:
            return 0
        cutoff = (time.time() if now is None else now) - self.keep_ledger_s
        db = self.store._db
        with self.store.transaction():
            rows = db.execute(
                "SELECT entry_id, at, kind, player_id, table_id, balance_delta, table_delta "
                "FROM ledger WHERE kind NOT IN ('carried', 'carried_grant') "
                "ORDER BY entry_id LIMIT ?",
                (BATCH,),
            ).fetchall()
            # The old rows are a prefix of the ledger by id (time goes forward):
            # stop at the first one that is not old enough.
            rows = list(itertools.takewhile(lambda r: r[1] < cutoff, rows))
            if not rows:
                return 0
            sums: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0, 0, 0.0])
            for _, at, kind, player_id, table_id, balance_delta, table_delta in rows:
                carried = "carried_grant" if kind == "grant" else "carried"
                entry = sums[(carried, player_id, table_id or "")]
                entry[0] += balance_delta
                entry[1] += table_delta
                entry[2] = max(entry[2], at)
            added = 0
            for (kind, player_id, table_id), (balance_delta, table_delta, at) in sums.items():
                cur = db.execute(
                    "UPDATE ledger SET balance_delta = balance_delta + ?, "
                    "table_delta = table_delta + ?, at = ? "
                    # The partial index's own condition, so that it is used.
                    "WHERE kind IN ('carried', 'carried_grant') AND player_id = ? "
                    "AND kind = ? AND COALESCE(table_id, '') = ?",
                    (int(balance_delta), int(table_delta), at, player_id, kind, table_id),
                )
                if cur.rowcount == 0:
                    db.execute(
                        "INSERT INTO ledger (at, kind, player_id, table_id, hand_id, "
                        "balance_delta, table_delta) VALUES (?, ?, ?, ?, NULL, ?, ?)",
                        (at, kind, player_id, table_id or None, int(balance_delta),
                         int(table_delta)),
                    )  # fmt: skip
                    added += 1
            ids = [r[0] for r in rows]
            marks = ",".join("?" * len(ids))
            db.execute(f"DELETE FROM ledger WHERE entry_id IN ({marks})", ids)
            self.store.ledger_rows_folded(added - len(ids))
        return len(ids)

    async def run_once(self) -> tuple[int, int]:
        """Every batch due now, giving the loop back between batches: (hands
        deleted, ledger rows folded)."""
        hands = folded = 0
        while True:
            n = self.hands_batch()
            hands += n
            await asyncio.sleep(0)
            if n < BATCH:
                break
        while True:
            n = self.ledger_batch()
            folded += n
            await asyncio.sleep(0)
            if n < BATCH:
                break
        if hands or folded:
            log.info("retention", hands_deleted=hands, ledger_rows_folded=folded)
        return hands, folded


async def retain_every(retention: Retention, interval_s: float) -> None:
    """``run_once`` every ``interval_s`` seconds, until cancelled."""
    while True:
        await asyncio.sleep(interval_s)
        try:
            await retention.run_once()
        except Exception:
            log.exception("retention failed")
