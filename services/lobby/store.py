"""The lobby's durable state in SQLite (stdlib ``sqlite3``), behind one small class.

Five tables: ``players`` (id, name, SHA-256 of the token, balance), ``tables`` (the
definition, the ``GameConfig`` as serialized protobuf bytes), ``seats`` (table,
seat, player, chips, and whether the player stands up after the hand in progress),
``hands`` (every hand planned: its plan, the ``NextHandResponse`` with the seats and
stacks dealt in, and its status: ``pending`` until reported, then ``finished`` or
``voided`` with the reason and when; at most one pending hand per table) and
``ledger``, one row per money movement with its effect on the balances and on
the tables:

========= ================ ============== =====================================
kind      balance_delta    table_delta    when
========= ================ ============== =====================================
grant     +amount          0              RegisterPlayer
buy_in    -amount          +amount        SitDown
cash_out  +amount          -amount        StandUp, a seat lost (B5), a restart
hand      0                final - before FinishHand, one row per player dealt in
========= ================ ============== =====================================

And ``seating``: per table, its B5 setting (``max_orbits_away``) and the seating
markers as JSON (``SeatingTable.snapshot``: button history, ML/MS, new players and
their choice, away, orbits away, the stud "I'm in" switch), rewritten in the same
transaction as every change of them, so a restarted lobby plans the next hand as
it would have without the restart.  Money is never read from it: the stacks are
the ``seats`` rows.

A voided hand moves no money, so it has no ledger row: its record is its
``hands`` row.  Seats hold the stacks as at the start of the hand in progress
(results are written at FinishHand only), so voiding a hand never writes a seat.

So ``granted == balances + at_tables``, ``balances == sum(balance_delta)`` and
``at_tables == sum(table_delta)`` always hold (``totals``).  The servicer wraps the
writes of one RPC in ``transaction()``; the methods never commit on their own.  A
PostgreSQL database runs the same methods and SQL (``LOBBY_DB=postgresql://...``,
through the dialect layer in ``postgres.py``).  The process is one asyncio
loop and these calls are short, so they run inline.

The store also keeps the ledger's sums in memory (``running_totals``): every
row ``_ledger`` writes adds to the open transaction's deltas, which are added on
COMMIT and dropped on ROLLBACK, so the lobby's gauges cost nothing per hand
whatever the ledger's size.  ``totals()`` (SQL sums over everything) stays the
exact answer; ``reconcile_sums()`` runs it on a connection of its own (for a
thread) and ``reconciled()`` compares it with the running sums at the same
commit (``metrics.reconcile``).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import postgres
from .histories import HandHistories

SCHEMA = """
CREATE TABLE IF NOT EXISTS players (
    player_id  TEXT PRIMARY KEY,
    name       TEXT NOT NULL,
    token_hash BLOB NOT NULL,
    balance    INTEGER NOT NULL CHECK (balance >= 0),
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS tables (
    table_id        TEXT PRIMARY KEY,
    seq             INTEGER NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    game            TEXT NOT NULL,
    config          BLOB NOT NULL,
    seats           INTEGER NOT NULL,
    min_buy_in      INTEGER NOT NULL,
    max_buy_in      INTEGER NOT NULL,
    action_clock_ms INTEGER NOT NULL,
    hands_played    INTEGER NOT NULL DEFAULT 0,
    created_at      REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seats (
    table_id  TEXT NOT NULL REFERENCES tables (table_id),
    seat      INTEGER NOT NULL,
    player_id TEXT NOT NULL REFERENCES players (player_id),
    chips     INTEGER NOT NULL CHECK (chips >= 0),
    leaving   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seat),
    UNIQUE (table_id, player_id)
);
CREATE TABLE IF NOT EXISTS ledger (
    entry_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    at            REAL NOT NULL,
    kind          TEXT NOT NULL,
    player_id     TEXT NOT NULL REFERENCES players (player_id),
    table_id      TEXT,
    hand_id       TEXT,
    balance_delta INTEGER NOT NULL,
    table_delta   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS seats_by_player ON seats (player_id);
CREATE TABLE IF NOT EXISTS hands (
    hand_id    TEXT PRIMARY KEY,
    table_id   TEXT NOT NULL REFERENCES tables (table_id),
    plan       BLOB NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('pending', 'finished', 'voided')),
    reason     TEXT NOT NULL DEFAULT '',
    digest     BLOB,
    planned_at REAL NOT NULL,
    ended_at   REAL
);
-- ListHands' order and pages; it replaced an index on table_id alone (its prefix).
CREATE INDEX IF NOT EXISTS hands_by_table_newest ON hands (table_id, planned_at, hand_id);
DROP INDEX IF EXISTS hands_by_table;
CREATE TABLE IF NOT EXISTS seating (
    table_id        TEXT PRIMARY KEY REFERENCES tables (table_id),
    max_orbits_away INTEGER NOT NULL,
    state           TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS one_pending_hand ON hands (table_id)
    WHERE status = 'pending';
-- Retention (retention.py): the oldest ended hands first; the carried-forward
-- ledger rows, one per player and table, found without a scan.
CREATE INDEX IF NOT EXISTS hands_by_end ON hands (ended_at);
CREATE INDEX IF NOT EXISTS ledger_carried ON ledger (player_id, table_id)
    WHERE kind IN ('carried', 'carried_grant');
-- Tournaments (tournament_store.py): the money a tournament holds counts as at tables.
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    seq           INTEGER NOT NULL UNIQUE,
    request       BLOB NOT NULL,
    state         TEXT NOT NULL,
    pool_held     INTEGER NOT NULL CHECK (pool_held >= 0),
    fees          INTEGER NOT NULL CHECK (fees >= 0),
    created_at    REAL NOT NULL
);
"""

HAND_STATUSES = ("pending", "finished", "voided")


@dataclass(frozen=True, slots=True)
class PlayerRow:
    player_id: str
    name: str
    token_hash: bytes
    balance: int


@dataclass(frozen=True, slots=True)
class TableRow:
    table_id: str
    name: str
    game: str  # poker_rules.config.Game value
    config: bytes  # serialized poker.common.v1.GameConfig
    seats: int
    min_buy_in: int
    max_buy_in: int
    action_clock_ms: int
    hands_played: int = 0


@dataclass(frozen=True, slots=True)
class SeatRow:
    table_id: str
    seat: int
    player_id: str
    chips: int
    leaving: bool


@dataclass(frozen=True, slots=True)
class HandRow:
    hand_id: str
    table_id: str
    plan: bytes  # serialized poker.lobby.v1.NextHandResponse
    status: str  # one of HAND_STATUSES
    reason: str  # why it was voided
    digest: bytes | None  # SHA-256 of the FinishHand request that ended it
    planned_at: float
    ended_at: float | None


@dataclass(frozen=True, slots=True)
class Totals:
    granted: int
    balances: int
    at_tables: int
    ledger_balances: int
    ledger_tables: int
    entries: int


PAGE_SIZE = 512
"""Bytes per page of a new SQLite file (SQLite's smallest): every page a group
changes is written whole to the log, and a hand changes a dozen pages (its
table's seats, seating and index leaves) for ~4 KB of rows that last; at 20
tables flat out this host's runs wrote 3.6-4.4 times the lasting data with
512-byte pages, 5.3 times with 1,024 and 14 times with SQLite's default 4,096
(bench/lobby_store.py)."""
CACHE_KIB = 8192
"""SQLite's page cache, at most (KiB): the lobby's memory does not grow with the
database (a group's pages fit many times over)."""

# Running totals kept longest while a reconciliation reads (one per commit that
# wrote ledger rows): past this many the reconciliation is abandoned, not alerted.
MOST_RECONCILE_COMMITS = 100_000


class LobbyStore:
    """Players, tables, seats and the ledger in one SQLite (or PostgreSQL) database."""

    def __init__(self, path: str = ":memory:", *, password: str | None = None) -> None:
        # Autocommit mode: transactions are the explicit BEGIN/COMMIT of transaction().
        # A postgresql:// URL: the same SQL through the dialect layer (postgres.py).
        self._db: Any = (
            postgres.Connection(path, password=password)
            if postgres.is_postgres(path)
            else sqlite3.connect(path, isolation_level=None)
        )
        self._db.execute("PRAGMA foreign_keys = ON")
        self._file = path != ":memory:" and not postgres.is_postgres(path)
        if self._file:
            # Before the schema: a new file gets small pages (a hand rewrites
            # fewer bytes, see commits.py); an existing one keeps its own.
            self._db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            self._db.execute("PRAGMA journal_mode = WAL")
            # Every COMMIT fsyncs until a GroupCommitter takes over (group_commits).
            self._db.execute("PRAGMA synchronous = FULL")
        # Bounded memory whatever the database's size (the page cache), and the
        # savepoints' statement journals kept in memory, never in temp files.
        self._db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        self._db.execute("PRAGMA temp_store = MEMORY")
        self._db.executescript(SCHEMA)
        self.histories = HandHistories(self._db)  # every hand's history (histories.py)
        self._path, self._password = path, password
        # The ledger's sums as committed, kept in memory (module doc): balances and
        # at_tables are the ledger's own sums (ledger_balances, ledger_tables).
        # The open transaction's (granted, balance_delta, table_delta, rows) deltas.
        self._pending: list[tuple[int, int, int, int]] | None = None
        t = self.totals()
        self._running = Totals(
            t.granted, t.ledger_balances, t.ledger_tables, t.ledger_balances, t.ledger_tables,
            t.entries,
        )  # fmt: skip
        self._history: dict[int, Totals] | None = None  # by entries, while reconciling
        self.on_totals: Callable[[Totals], None] | None = None  # after each such commit
        # Group commit (commits.py): every transaction() is a savepoint of one
        # open SQLite transaction that the committer commits and fsyncs as a group.
        self.commits = 0  # transactions committed (released into the group), ever
        self._grouped = False
        self._group_open = False
        self.on_group_open: Callable[[], None] | None = None  # a new group began

    def close(self) -> None:
        """Commit an open group (and sync it: close checkpoints), then close."""
        self.commit_group()
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything written inside is committed together, or not at all.

        Grouped (``group_commits``): a savepoint of the open group transaction,
        released into it (or rolled back to) at the end; the group is committed
        and made durable by the committer (``commit_group``), all or nothing, so
        each transaction stays atomic across a crash too.  ``commits`` counts it
        either way: an answer waits for the committer to have synced that many."""
        if self._grouped:
            with self._savepoint():
                yield
            return
        self._db.execute("BEGIN IMMEDIATE")
        self._pending = []
        try:
            yield
        except BaseException:
            self._pending = None
            self._db.execute("ROLLBACK")
            raise
        try:
            self._db.execute("COMMIT")
        finally:
            deltas, self._pending = self._pending, None
        self.commits += 1
        self._add(deltas)

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        if not self._group_open:
            self._db.execute("BEGIN IMMEDIATE")
            self._group_open = True
            if self.on_group_open is not None:
                self.on_group_open()
        self._db.execute("SAVEPOINT tx")
        self._pending = []
        try:
            yield
        except BaseException:
            self._pending = None
            self._db.execute("ROLLBACK TO tx")
            self._db.execute("RELEASE tx")
            raise
        self._db.execute("RELEASE tx")
        deltas, self._pending = self._pending, None
        self.commits += 1
        self._add(deltas)

    # ------------------------------------------------------------ group commit

    @property
    def wal_path(self) -> str | None:
        """The SQLite file's write-ahead log (None: memory or PostgreSQL)."""
        return self._path + "-wal" if self._file else None

    @property
    def path(self) -> str:
        return self._path

    def group_commits(self) -> None:
        """From now on transactions are grouped (``transaction``) and COMMIT only
        writes the log (synchronous=NORMAL): the committer fsyncs it, once per
        group, and checkpoints off the loop (no automatic checkpoint at COMMIT)."""
        if not self._file:
            raise RuntimeError("group commit is for a SQLite file")
        self._db.execute("PRAGMA synchronous = NORMAL")
        self._db.execute("PRAGMA wal_autocheckpoint = 0")
        self._grouped = True

    def ungroup(self) -> None:
        """Back to one durable COMMIT per transaction (the committer stopped)."""
        self.commit_group()
        self._db.execute("PRAGMA synchronous = FULL")
        self._grouped = False

    def commit_group(self) -> int:
        """COMMIT the open group (the log's frames written, not synced); returns
        ``commits``: every transaction up to that number is in the log."""
        if self._group_open:
            self._group_open = False
            self._db.execute("COMMIT")
        return self.commits

    def checkpoint(self) -> tuple[int, int, int]:
        """A passive checkpoint on this connection (between groups, on the loop):
        (busy, log frames, frames checkpointed); it syncs the log first."""
        if self._group_open:
            raise RuntimeError("checkpoint between groups only")
        row = self._db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(row[0]), int(row[1]), int(row[2])

    # ------------------------------------------------------------ running totals

    @property
    def running_totals(self) -> Totals:
        """The ledger's sums as committed, from memory (O(1))."""
        return self._running

    def _add(self, deltas: list[tuple[int, int, int, int]] | None) -> None:
        """Committed ledger rows (granted, balance_delta, table_delta, rows) to the
        sums (rows: 1 a row written, or a fold's rows added less rows deleted)."""
        if not deltas:
            return
        r = self._running
        granted = r.granted + sum(d[0] for d in deltas)
        balances = r.balances + sum(d[1] for d in deltas)
        at_tables = r.at_tables + sum(d[2] for d in deltas)
        entries = r.entries + sum(d[3] for d in deltas)
        self._running = Totals(granted, balances, at_tables, balances, at_tables, entries)
        if self._history is not None:
            if len(self._history) >= MOST_RECONCILE_COMMITS:
                self._history = None
            else:
                self._history[entries] = self._running
        if self.on_totals is not None:
            self.on_totals(self._running)

    # ------------------------------------------------------------ reconciliation

    @property
    def reads_apart(self) -> bool:
        """Whether another connection sees this database (not so ``:memory:``)."""
        return self._path not in (":memory:", "") and not self._path.startswith("file:")

    def reconcile_start(self) -> None:
        """Keep the running totals of every commit until ``reconciled``."""
        self._history = {self._running.entries: self._running}

    def reconciled(self, sums: Totals) -> tuple[bool, Totals | None]:
        """Whether ``sums`` (a ``totals()`` read since ``reconcile_start``) agree
        with the running totals at the same commit (the one with as many ledger
        rows), and those running totals (None: no commit had that many rows, or
        too many commits were kept)."""
        history, self._history = self._history, None
        running = None if history is None else history.get(sums.entries)
        if running is None:
            return False, None
        agree = (
            sums.granted == running.granted
            and sums.balances == sums.ledger_balances == running.balances
            and sums.at_tables == sums.ledger_tables == running.at_tables
        )
        return agree, running

    def reconcile_abandon(self) -> None:
        self._history = None

    def reconcile_sums(self) -> Totals:
        """``totals()`` on a read-only connection of its own, in one read
        transaction (one snapshot): for a thread, while the loop keeps writing.
        Only when ``reads_apart``."""
        db: Any
        if postgres.is_postgres(self._path):
            db = postgres.Connection(self._path, password=self._password)
            begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        else:
            uri = Path(self._path).resolve().as_uri() + "?mode=ro"
            db = sqlite3.connect(uri, uri=True, isolation_level=None)
            begin = "BEGIN"
        try:
            db.execute(begin)
            try:
                return _totals(db)
            finally:
                db.execute("ROLLBACK")
        finally:
            db.close()

    # ------------------------------------------------------------ players

    def add_player(self, player_id: str, name: str, token_hash: bytes, grant: int) -> None:
        now = time.time()
        self._db.execute(
            "INSERT INTO players (player_id, name, token_hash, balance, created_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (player_id, name, token_hash, grant, now),
        )
        self._ledger("grant", player_id, None, None, grant, 0)

    def grant(self, player_id: str, chips: int) -> None:
        """An operator's grant: ``chips`` more on the balance, one ledger row."""
        self._db.execute(
            "UPDATE players SET balance = balance + ? WHERE player_id = ?", (chips, player_id)
        )
        self._ledger("grant", player_id, None, None, chips, 0)

    def player(self, player_id: str) -> PlayerRow | None:
        row = self._db.execute(
            "SELECT player_id, name, token_hash, balance FROM players WHERE player_id = ?",
            (player_id,),
        ).fetchone()
        return None if row is None else PlayerRow(row[0], row[1], bytes(row[2]), row[3])

    def names(self, player_ids: Iterable[str]) -> dict[str, str]:
        ids = sorted(set(player_ids))
        if not ids:
            return {}
        marks = ",".join("?" * len(ids))
        rows = self._db.execute(
            f"SELECT player_id, name FROM players WHERE player_id IN ({marks})", ids
        )
        return dict(rows.fetchall())

    def at_tables(self, player_id: str) -> int:
        row = self._db.execute(
            "SELECT COALESCE(SUM(chips), 0) FROM seats WHERE player_id = ?", (player_id,)
        ).fetchone()
        return int(row[0])

    # ------------------------------------------------------------ tables and seats

    def add_table(self, table: TableRow) -> None:
        self._db.execute(
            "INSERT INTO tables (table_id, seq, name, game, config, seats, min_buy_in, "
            "max_buy_in, action_clock_ms, hands_played, created_at) "
            "VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM tables), ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                table.table_id,
                table.name,
                table.game,
                table.config,
                table.seats,
                table.min_buy_in,
                table.max_buy_in,
                table.action_clock_ms,
                table.hands_played,
                time.time(),
            ),
        )

    def tables(self) -> list[TableRow]:
        """Every table, oldest first."""
        rows = self._db.execute(
            "SELECT table_id, name, game, config, seats, min_buy_in, max_buy_in, "
            "action_clock_ms, hands_played FROM tables ORDER BY seq"
        ).fetchall()
        return [TableRow(r[0], r[1], r[2], bytes(r[3]), *r[4:]) for r in rows]

    def set_hands_played(self, table_id: str, hands: int) -> None:
        self._db.execute("UPDATE tables SET hands_played = ? WHERE table_id = ?", (hands, table_id))

    def seats(self) -> list[SeatRow]:
        rows = self._db.execute(
            "SELECT table_id, seat, player_id, chips, leaving FROM seats ORDER BY table_id, seat"
        ).fetchall()
        return [SeatRow(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows]

    def buy_in(self, player_id: str, table_id: str, seat: int, chips: int) -> int:
        """Balance to a new seat; returns the balance after."""
        self._db.execute(
            "UPDATE players SET balance = balance - ? WHERE player_id = ?", (chips, player_id)
        )
        self._db.execute(
            "INSERT INTO seats (table_id, seat, player_id, chips) VALUES (?, ?, ?, ?)",
            (table_id, seat, player_id, chips),
        )
        self._ledger("buy_in", player_id, table_id, None, -chips, chips)
        return self.balance(player_id)

    def cash_out(self, player_id: str, table_id: str, seat: int, chips: int) -> int:
        """The seat is emptied and ``chips`` (its whole stack) go back to the balance;
        returns the balance after."""
        cur = self._db.execute(
            "DELETE FROM seats WHERE table_id = ? AND seat = ? AND player_id = ? AND chips = ?",
            (table_id, seat, player_id, chips),
        )
        if cur.rowcount != 1:
            raise RuntimeError(f"seat {table_id}/{seat} of {player_id} with {chips} not stored")
        self._db.execute(
            "UPDATE players SET balance = balance + ? WHERE player_id = ?", (chips, player_id)
        )
        self._ledger("cash_out", player_id, table_id, None, chips, -chips)
        return self.balance(player_id)

    def set_leaving(self, table_id: str, seat: int) -> None:
        self._db.execute(
            "UPDATE seats SET leaving = 1 WHERE table_id = ? AND seat = ?", (table_id, seat)
        )

    def hand_result(
        self, table_id: str, hand_id: str, results: Iterable[tuple[int, str, int, int]]
    ) -> None:
        """A finished hand: ``(seat, player_id, before, after)`` for every player
        dealt in; the stacks change and the ledger records each difference."""
        for seat, player_id, before, after in results:
            cur = self._db.execute(
                "UPDATE seats SET chips = ? WHERE table_id = ? AND seat = ? AND player_id = ? "
                "AND chips = ?",
                (after, table_id, seat, player_id, before),
            )
            if cur.rowcount != 1:
                raise RuntimeError(f"seat {table_id}/{seat} of {player_id} not stored as {before}")
            self._ledger("hand", player_id, table_id, hand_id, 0, after - before)

    # ------------------------------------------------------------ seating markers

    def save_seating(self, table_id: str, max_orbits_away: int, state: str) -> None:
        """The table's B5 setting and seating snapshot (JSON), replacing the last."""
        self._db.execute(
            "INSERT INTO seating (table_id, max_orbits_away, state) VALUES (?, ?, ?) "
            "ON CONFLICT (table_id) DO UPDATE SET max_orbits_away = excluded.max_orbits_away, "
            "state = excluded.state",
            (table_id, max_orbits_away, state),
        )

    def seating(self) -> dict[str, tuple[int, str]]:
        """table_id -> (max_orbits_away, snapshot JSON) of every table that has one
        (a table created by an older lobby has none until its first change)."""
        rows = self._db.execute("SELECT table_id, max_orbits_away, state FROM seating")
        return {r[0]: (int(r[1]), str(r[2])) for r in rows.fetchall()}

    # ------------------------------------------------------------ hands

    _HAND_COLUMNS = "hand_id, table_id, plan, status, reason, digest, planned_at, ended_at"

    @staticmethod
    def _hand_row(r: Any) -> HandRow:
        digest = None if r[5] is None else bytes(r[5])
        return HandRow(r[0], r[1], bytes(r[2]), r[3], r[4], digest, r[6], r[7])

    def add_hand(self, hand_id: str, table_id: str, plan: bytes) -> None:
        """A hand planned: pending until ``end_hand`` (one pending hand per table)."""
        self._db.execute(
            "INSERT INTO hands (hand_id, table_id, plan, status, planned_at) "
            "VALUES (?, ?, ?, 'pending', ?)",
            (hand_id, table_id, plan, time.time()),
        )

    def end_hand(
        self, hand_id: str, status: str, *, reason: str = "", digest: bytes | None = None
    ) -> None:
        """The pending hand ``hand_id`` is ``finished`` or ``voided``."""
        if status not in HAND_STATUSES[1:]:
            raise ValueError(f"a hand ends finished or voided, not {status!r}")
        cur = self._db.execute(
            "UPDATE hands SET status = ?, reason = ?, digest = ?, ended_at = ? "
            "WHERE hand_id = ? AND status = 'pending'",
            (status, reason, digest, time.time(), hand_id),
        )
        if cur.rowcount != 1:
            raise RuntimeError(f"hand {hand_id} is not stored as pending")

    def hand(self, hand_id: str) -> HandRow | None:
        row = self._db.execute(
            f"SELECT {self._HAND_COLUMNS} FROM hands WHERE hand_id = ?", (hand_id,)
        ).fetchone()
        return None if row is None else self._hand_row(row)

    def pending_hands(self) -> list[HandRow]:
        rows = self._db.execute(
            f"SELECT {self._HAND_COLUMNS} FROM hands WHERE status = 'pending' "
            "ORDER BY planned_at, hand_id"
        ).fetchall()
        return [self._hand_row(r) for r in rows]

    def hands(
        self, table_id: str, limit: int, before: tuple[float, str] | None = None
    ) -> list[HandRow]:
        """The table's hands, newest first (planned one after the other: at most one
        is pending per table); ``before`` (planned_at, hand_id): only the hands
        ordered after that one, the next page (keyset paging: no offset to drift
        when hands are added meanwhile)."""
        if before is None:
            rows = self._db.execute(
                f"SELECT {self._HAND_COLUMNS} FROM hands WHERE table_id = ? "
                "ORDER BY planned_at DESC, hand_id DESC LIMIT ?",
                (table_id, limit),
            ).fetchall()
        else:
            planned_at, hand_id = before
            rows = self._db.execute(
                f"SELECT {self._HAND_COLUMNS} FROM hands WHERE table_id = ? "
                "AND (planned_at < ? OR (planned_at = ? AND hand_id < ?)) "
                "ORDER BY planned_at DESC, hand_id DESC LIMIT ?",
                (table_id, planned_at, planned_at, hand_id, limit),
            ).fetchall()
        return [self._hand_row(r) for r in rows]

    # ------------------------------------------------------------ the ledger

    def balance(self, player_id: str) -> int:
        """The player's balance now (inside the caller's transaction)."""
        row = self._db.execute(
            "SELECT balance FROM players WHERE player_id = ?", (player_id,)
        ).fetchone()
        return int(row[0])

    def _ledger(
        self,
        kind: str,
        player_id: str,
        table_id: str | None,
        hand_id: str | None,
        balance_delta: int,
        table_delta: int,
    ) -> None:
        self._db.execute(
            "INSERT INTO ledger (at, kind, player_id, table_id, hand_id, balance_delta, "
            "table_delta) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (time.time(), kind, player_id, table_id, hand_id, balance_delta, table_delta),
        )
        delta = (balance_delta if kind == "grant" else 0, balance_delta, table_delta, 1)
        self._count(delta)

    def ledger_rows_folded(self, rows: int) -> None:
        """``rows`` ledger rows more (negative: fewer) whose sums are unchanged
        (retention's fold), counted in the running totals at COMMIT."""
        self._count((0, 0, 0, rows))

    @property
    def reconciling(self) -> bool:
        """A reconciliation is reading (``reconcile_start`` .. ``reconciled``): the
        row count then names a commit, so retention folds nothing meanwhile."""
        return self._history is not None

    def _count(self, delta: tuple[int, int, int, int]) -> None:
        if self._pending is None:  # autocommit: written already
            self._add([delta])
        else:  # added on COMMIT, dropped on ROLLBACK
            self._pending.append(delta)

    def totals(self) -> Totals:
        """The exact sums, over the whole ledger and every balance and seat."""
        return _totals(self._db)


def _totals(db: Any) -> Totals:
    """``LobbyStore.totals`` on the connection ``db``."""
    granted, ledger_balances, ledger_tables, entries = db.execute(
        "SELECT COALESCE(SUM(CASE WHEN kind IN ('grant', 'carried_grant') "
        "THEN balance_delta END), 0), "
        "COALESCE(SUM(balance_delta), 0), COALESCE(SUM(table_delta), 0), COUNT(*) "
        "FROM ledger"
    ).fetchone()
    (balances,) = db.execute("SELECT COALESCE(SUM(balance), 0) FROM players").fetchone()
    (at_tables,) = db.execute("SELECT COALESCE(SUM(chips), 0) FROM seats").fetchone()
    # Tournament buy-ins not yet paid out and fees (tournament_store.py) are money
    # that left the balances: on the tables side, as the t_* ledger rows say.
    (held,) = db.execute("SELECT COALESCE(SUM(pool_held + fees), 0) FROM tournaments").fetchone()
    at_tables += held
    return Totals(granted, balances, at_tables, ledger_balances, ledger_tables, entries)
