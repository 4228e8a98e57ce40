"""A lobby store pre-filled with weeks of play: the soak's store (bench/soak.py).

Why: the lobby's work per hand must not grow with what it has recorded.  The soak
compares the 20-table bench on a fresh store and on one holding millions of
ledger rows and a million hands; this module writes the latter, in minutes.

``python -m bench.prefill DB --ledger-rows 3000000 --hands 1000000`` writes the
SQLite file ``DB`` (refused if it exists); ``--tables`` (20) ring tables hold the
history, ``--days`` (7) is the time it spans, ending now.

How, without knowing the schema by heart (other work changes it):

1. **A block of real play.**  One Stud Hi-Lo table in an in-memory
   ``LobbyStore`` played by the lobby's own code (``RingBook``: registration
   grants, ``sit_down`` buy-ins, ``next_hand``/``finish_hand`` with results
   ``checks.final_stacks`` accepts and a history of a real hand's size when the
   protocol carries one, ``stand_up`` cash-outs, operator top-ups, a few voided
   hands).  Players come and go (sessions of about 30 hands, two to six seated,
   steered so the block's ledger rows per hand are the target's); at the end
   everyone has stood up, and operator grants make the block's ledger rows exact.
2. **Copies of it.**  Every table of the block's database that is not keyed by the
   table (``players``, ``hands``, ``ledger``, ``hand_histories``...: read from
   ``sqlite_master`` and ``PRAGMA table_info``, no column list written here) is
   copied into the file once per block with its ids rewritten (players and hands
   get ids of their own per block, the table one of the ``--tables``; inside
   BLOBs too: a plan names its players), its REAL columns (the times) moved into
   the block's slot of the history, and an ``INTEGER PRIMARY KEY`` (a ledger
   entry, a history's seq) numbered afresh.  Blocks go round the tables, oldest
   first, in big transactions with the journal off.  A last block of its own
   makes the totals exact.
3. **The lobby's own start-up.**  The tables were made with the store's
   ``add_table`` and their hand counts set with ``set_hands_played``; then the
   file is opened as the lobby opens it (``LobbyStore`` and ``RingBook``: the
   restore, which writes each table's seating snapshot), and ``totals()`` must
   show ``granted == balances + at_tables`` and the ledger's sums equal to the
   balances and the stacks, with exactly the rows asked for.

Ids: every prefilled id is ``x-`` and 32 hex digits whose thirteenth is ``0``; the
lobby's own (``uuid4().hex``) always have a ``4`` there, so no table or player
the bench creates later can collide with the history.

The histories are stand-ins of a real one's size (the table service's stored
format tag, then zlib-packed bytes): the lobby never reads them, and a table
service asked for a prefilled hand's history cannot read it.  Timings of the
whole build, on a 2-core VM: see docs/performance.md#soak.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import sqlite3
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from service_kit.errors import FailedPreconditionError
from service_kit.logs import configure_logging
from services.lobby.ring import RingBook
from services.lobby.ring.seats import sit_down, stand_up
from services.lobby.store import LobbyStore, TableRow, Totals

# Bump when what the tool writes changes (bench/soak.py keys its cache on it).
PREFILL_VERSION = 2

CONFIG = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=5, bring_in=10, small_bet=20, big_bet=40
)
SEATS = 6
MIN_BUY_IN = 400
CLOCK_MS = 30_000
MAX_ORBITS_AWAY = 3
BLOCK_HANDS = 5_000  # hands of real play per block (the rest are copies)
SESSION_HANDS = 30  # a player's session, on average
VOID_SHARE = 0.005  # hands voided (a service restarted mid-hand)
# A stored hand history's size (zlib-packed; the bench's six-handed Stud Hi-Lo
# hands store 1.4-2.3 KB, 1.85 KB on average): this much, plus so much a player.
HISTORY_BYTES = (600, 200)
# What a hand costs a loser: the ante, then some of the limit bets (20/40).
LOSSES = (5, 5, 15, 25, 45, 65, 105, 145, 185, 245)
# Ledger rows per hand the play can make: heads-up (2 a hand, plus the sessions'
# buy-ins, cash-outs and grants) to six-handed.
LEAST_ROWS_PER_HAND = 2.5
MOST_ROWS_PER_HAND = 6.0

HAS_HISTORY = "history" in pb.FinishHandRequest.DESCRIPTOR.fields_by_name
HISTORY_TAG = b"th1:"  # services/table/archive.py STORED_FORMAT
ID = re.compile(rb"[pth]-[0-9a-f]{32}")


@dataclass(frozen=True)
class Prefill:
    """What to write: exact ledger rows and hands, over ``tables`` tables."""

    ledger_rows: int = 3_000_000
    hands: int = 1_000_000
    tables: int = 20
    days: float = 7.0  # the span of the history, ending at ``end`` (0: now)
    end: float = 0.0
    block_hands: int = BLOCK_HANDS
    seed: int = 19


@dataclass(frozen=True)
class Written:
    """What the build wrote and how long it took."""

    path: Path
    totals: Totals
    hands: int
    tables: list[str]
    seconds: float


def _new_id(kind: str, block: int, serial: int) -> str:
    """A prefilled id: never a uuid4's (the 13th hex digit is 0, not 4)."""
    return f"{kind}-{block:012x}0{serial:019x}"


# --------------------------------------------------------------------------- one block


class _Play:
    """One table's play in an in-memory store, by the lobby's own code."""

    def __init__(self, hands: int, ledger_rows: int, rng: random.Random) -> None:
        self.store = LobbyStore(":memory:")
        self.book = RingBook(self.store, MAX_ORBITS_AWAY)
        request = pb.CreateTableRequest(
            name="soak", config=CONFIG, seats=SEATS, min_buy_in=MIN_BUY_IN, action_clock_ms=CLOCK_MS
        )
        self.table_id = self.book.create(request, "soak").row.table_id
        self.hands, self.ledger_rows, self.rng = hands, ledger_rows, rng
        self.players: list[str] = []
        self.idle: list[str] = []  # registered, not seated
        self.seated: dict[str, int] = {}

    def _register(self) -> str:
        player_id = _new_id("p", 0, len(self.players) + 1)
        grant = self.rng.choice((20_000, 50_000, 100_000))
        with self.store.transaction():
            self.store.add_player(
                player_id, f"player {len(self.players) + 1}", self.rng.randbytes(32), grant
            )
        self.players.append(player_id)
        return player_id

    def _sit(self) -> None:
        if self.idle and self.rng.random() < 0.6:  # a regular comes back
            player_id = self.idle.pop(self.rng.randrange(len(self.idle)))
        else:
            player_id = self._register()
        buy_in = self.rng.choice((MIN_BUY_IN, 1_000, 2_000, 4_000))
        player = self.store.player(player_id)
        assert player is not None
        if player.balance < buy_in:  # an operator tops the balance up
            with self.store.transaction():
                self.store.grant(player_id, 50_000)
            player = self.store.player(player_id)
            assert player is not None
        request = pb.SitDownRequest(player_id=player_id, table_id=self.table_id, buy_in=buy_in)
        self.seated[player_id] = sit_down(self.book, player, request).seat

    def _leave(self, player_id: str) -> None:
        player = self.store.player(player_id)
        assert player is not None
        stand_up(self.book, player, self.table_id)
        del self.seated[player_id]
        self.idle.append(player_id)

    def _wanted(self, played: int) -> int:
        """Players to seat: the rows per hand still wanted, less the sessions'."""
        left = max(self.hands - played, 1)
        # Kept for the last cash-outs and a few grants: the block ends short, and
        # operators' grants make up the difference (run).
        reserve = 2 * SEATS + self.ledger_rows // 100
        rows_left = self.ledger_rows - reserve - self.store.running_totals.entries
        return max(2, min(SEATS, round(rows_left / left - 0.45)))

    def _outcome(self, plan: pb.NextHandResponse) -> list[pb.SeatInfo]:
        """A result the lobby accepts: one winner (or a hi-lo split) takes what
        each loser lost, never more than the smallest winner's stack covers."""
        dealt = list(plan.dealt_in)
        winners = self.rng.sample(dealt, 2 if len(dealt) > 2 and self.rng.random() < 0.3 else 1)
        cover = min(w.stack for w in winners)
        lost = {
            d.seat: min(d.stack, cover, self.rng.choice(LOSSES)) for d in dealt if d not in winners
        }
        pot = sum(lost.values())
        won = {w.seat: pot // len(winners) for w in winners}
        won[winners[0].seat] += pot % len(winners)
        return [
            pb.SeatInfo(
                seat=d.seat,
                player_id=d.player_id,
                stack=d.stack - lost.get(d.seat, 0) + won.get(d.seat, 0),
            )
            for d in dealt
        ]

    def _history(self, players: int) -> bytes:
        """A stand-in of a stored history's size (the lobby never reads it)."""
        size = HISTORY_BYTES[0] + HISTORY_BYTES[1] * players
        return HISTORY_TAG + zlib.compress(self.rng.randbytes(size - 16), 1)

    def run(self) -> None:
        played = idle = 0
        while played < self.hands:
            wanted = self._wanted(played)
            for player_id, seat in list(self.seated.items()):
                stack = self.book.table(self.table_id).seating.seat(seat)
                busted = stack is None or stack.chips < LOSSES[-1]
                # Hysteresis: a table one over the wanted count waits for a departure.
                crowded = len(self.seated) > wanted + 1
                if busted or crowded or self.rng.random() < 1 / SESSION_HANDS:
                    self._leave(player_id)
            while len(self.seated) < wanted:
                self._sit()
            plan = self.book.next_hand(self.table_id)
            if not plan.play:  # cannot last: every seated player has chips
                idle += 1
                if idle > 100:
                    raise RuntimeError(f"the table stopped dealing after {played} hands")
                continue
            idle = 0
            request = pb.FinishHandRequest(table_id=self.table_id, hand_id=plan.hand_id)
            if self.rng.random() < VOID_SHARE:
                request.voided, request.void_reason = True, "dealer.Deal: UNAVAILABLE"
            else:
                request.final_stacks.extend(self._outcome(plan))
            if HAS_HISTORY:
                request.history = self._history(len(plan.dealt_in))
            try:
                self.book.finish_hand(request)
            except FailedPreconditionError:  # cannot happen (the outcome is bounded)
                self.book.finish_hand(
                    pb.FinishHandRequest(table_id=self.table_id, hand_id=plan.hand_id, voided=True)
                )
            played += 1
        for player_id in list(self.seated):
            self._leave(player_id)
        short = self.ledger_rows - self.store.running_totals.entries
        if short < 0:
            raise ValueError(
                f"{self.hands} hands made {self.store.running_totals.entries} ledger rows, "
                f"more than the {self.ledger_rows} asked for"
            )
        with self.store.transaction():  # operators' grants make the count exact
            for _ in range(short):
                self.store.grant(self.rng.choice(self.players), 10_000)


@dataclass(frozen=True)
class _Column:
    name: str
    kind: str  # "time", "rowid", "text", "blob", "other"


@dataclass
class _Block:
    """A played block, read back for copying: each table's rows and columns."""

    table: TableRow
    hands_played: int
    rows: dict[str, tuple[list[_Column], list[tuple[Any, ...]]]]
    players: list[str]
    hand_ids: list[str]
    first: float
    last: float


def _columns(db: Any, table: str) -> list[_Column]:
    info = db.execute(
        f'PRAGMA table_info("{table}")'
    ).fetchall()  # cid, name, type, notnull, dflt, pk
    pks = [r for r in info if r[5]]
    columns = []
    for _, name, decl, _, _, pk in info:
        decl = str(decl).upper()
        if pk and len(pks) == 1 and decl == "INTEGER":
            kind = "rowid"
        elif decl == "REAL":
            kind = "time"
        elif decl == "TEXT":
            kind = "text"
        elif decl == "BLOB":
            kind = "blob"
        else:
            kind = "other"
        columns.append(_Column(name, kind))
    return columns


def _keyed_by_table(db: Any, table: str) -> bool:
    """A table with one row per table (``tables``, ``seating``): not copied."""
    info = db.execute(f'PRAGMA table_info("{table}")').fetchall()
    return [r[1] for r in info if r[5]] == ["table_id"]


def _play_block(hands: int, ledger_rows: int, seed: int) -> _Block:
    rng = random.Random(seed)
    started = time.time()
    play = _Play(hands, ledger_rows, rng)
    play.run()
    db = play.store._db  # the block's own database, read back whole
    rows: dict[str, tuple[list[_Column], list[tuple[Any, ...]]]] = {}
    for (name,) in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY rowid"
    ).fetchall():
        columns = _columns(db, name)
        if _keyed_by_table(db, name):
            continue
        listed = ", ".join(f'"{c.name}"' for c in columns)
        rows[name] = (
            columns,
            db.execute(f'SELECT {listed} FROM "{name}" ORDER BY rowid').fetchall(),
        )
    table = play.store.tables()[0]
    hand_ids = [str(r[0]) for r in db.execute("SELECT hand_id FROM hands ORDER BY rowid")]
    block = _Block(table, table.hands_played, rows, play.players, hand_ids, started, time.time())
    play.store.close()
    return block


# --------------------------------------------------------------------------- copies


def _rewriter(
    block: _Block, number: int, table_id: str, start: float, span: float
) -> Callable[[list[_Column], tuple[Any, ...]], tuple[Any, ...]]:
    """The row transform of one copy: ids, times, fresh row ids."""
    ids = {block.table.table_id: table_id}
    ids.update({p: _new_id("p", number, i + 1) for i, p in enumerate(block.players)})
    ids.update({h: _new_id("h", number, i + 1) for i, h in enumerate(block.hand_ids)})
    as_bytes = {k.encode(): v.encode() for k, v in ids.items()}
    scale = span / max(block.last - block.first, 1e-9)

    def one(m: re.Match[bytes]) -> bytes:
        return as_bytes.get(m.group(), m.group())

    def cell(column: _Column, value: Any) -> Any:
        if value is None:
            return None
        if column.kind == "rowid":
            return None
        if column.kind == "time":
            return start + (value - block.first) * scale
        if column.kind == "text" and isinstance(value, str):
            return ids.get(value, value)
        if isinstance(value, bytes):
            return ID.sub(one, value)
        return value

    def row(columns: list[_Column], values: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(cell(c, v) for c, v in zip(columns, values, strict=True))

    return row


def _quota(total: int, parts: int) -> tuple[int, int]:
    """``parts - 1`` equal parts and the last one that makes ``total`` exact."""
    each = total // parts
    return each, total - each * (parts - 1)


def _say(line: str) -> None:
    print(line, flush=True)


def build(path: Path, spec: Prefill = Prefill(), *, log: Callable[[str], None] = _say) -> Written:
    """Write ``path`` (which must not exist) as the module doc says."""
    started = time.monotonic()
    if path.exists():
        raise FileExistsError(f"{path} exists; the prefill writes a new store")
    if spec.tables < 1:
        raise ValueError(f"tables must be at least 1, got {spec.tables}")
    if (
        spec.hands
        and not LEAST_ROWS_PER_HAND <= spec.ledger_rows / spec.hands <= MOST_ROWS_PER_HAND
    ):
        raise ValueError(
            f"{spec.ledger_rows} ledger rows for {spec.hands} hands: real play makes "
            f"{LEAST_ROWS_PER_HAND}..{MOST_ROWS_PER_HAND} rows a hand"
        )
    configure_logging("prefill", "warning")  # the lobby's code logs every hand at info
    blocks = max(1, math.ceil(spec.hands / spec.block_hands)) if spec.hands else 0
    end = spec.end or time.time()
    span = spec.days * 86_400
    rounds = max(1, math.ceil(blocks / spec.tables))
    slot = span / rounds

    # The tables, by the store's own code (the schema and pragmas are the store's).
    store = LobbyStore(str(path))
    table_ids = [_new_id("t", 0, i + 1) for i in range(spec.tables)]
    template: TableRow | None = None
    played: dict[str, int] = dict.fromkeys(table_ids, 0)
    main = tail = None
    if blocks:
        (hands, last_hands), (rows, last_rows) = (
            _quota(spec.hands, blocks),
            _quota(spec.ledger_rows, blocks),
        )
        t = time.monotonic()
        main = _play_block(hands, rows, spec.seed) if blocks > 1 else None
        tail = _play_block(last_hands, last_rows, spec.seed + 1)
        log(f"played {hands if main else 0} + {last_hands} hands in {time.monotonic() - t:.1f} s")
        template = tail.table
    with store.transaction():
        for i, table_id in enumerate(table_ids):
            row = template or TableRow(
                "",
                "",
                "stud_hilo",
                CONFIG.SerializeToString(deterministic=True),
                SEATS,
                MIN_BUY_IN,
                0,
                CLOCK_MS,
            )
            store.add_table(replace(row, table_id=table_id, name=f"soak {i + 1}", hands_played=0))
    store.close()

    # The copies, round by round, straight into the file.
    db = sqlite3.connect(str(path), isolation_level=None)
    for pragma in (
        "journal_mode = OFF",
        "synchronous = OFF",
        "foreign_keys = OFF",
        "cache_size = -400000",
    ):
        db.execute(f"PRAGMA {pragma}")
    t = time.monotonic()
    for number in range(blocks):
        block = tail if number == blocks - 1 else main
        assert block is not None
        table_id = table_ids[number % spec.tables]
        if number % spec.tables == 0:
            db.execute("BEGIN")
        start = end - span + (number // spec.tables) * slot
        rewrite = _rewriter(block, number + 1, table_id, start, slot * 0.95)
        for name, (columns, values) in block.rows.items():
            if values:
                marks = ", ".join("?" * len(columns))
                listed = ", ".join(f'"{c.name}"' for c in columns)
                db.executemany(
                    f'INSERT INTO "{name}" ({listed}) VALUES ({marks})',
                    (rewrite(columns, v) for v in values),
                )
        played[table_id] += block.hands_played
        if number % spec.tables == spec.tables - 1 or number == blocks - 1:
            db.execute("COMMIT")
            log(f"copied {number + 1}/{blocks} blocks, {time.monotonic() - t:.1f} s")
    db.execute("PRAGMA journal_mode = WAL")
    db.close()

    # The lobby's own start-up on it, and the sums.
    store = LobbyStore(str(path))
    with store.transaction():
        for table_id, hands in played.items():
            store.set_hands_played(table_id, hands)
    RingBook(store, MAX_ORBITS_AWAY)  # the restore: every table's seating snapshot
    totals = store.totals()
    (hands_stored,) = store._db.execute("SELECT COUNT(*) FROM hands").fetchone()
    store.close()
    if not (
        totals.granted == totals.balances + totals.at_tables
        and totals.balances == totals.ledger_balances
        and totals.at_tables == totals.ledger_tables
        and totals.entries == spec.ledger_rows
        and hands_stored == spec.hands
    ):
        raise RuntimeError(f"the prefilled store does not add up: {totals}, {hands_stored} hands")
    return Written(path, totals, hands_stored, table_ids, time.monotonic() - started)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.prefill",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    default = Prefill()
    parser.add_argument("db", type=Path, help="the SQLite file to write (must not exist)")
    parser.add_argument("--ledger-rows", type=int, default=default.ledger_rows)
    parser.add_argument("--hands", type=int, default=default.hands)
    parser.add_argument("--tables", type=int, default=default.tables)
    parser.add_argument(
        "--days", type=float, default=default.days, help="the history's span, ending now"
    )
    parser.add_argument("--seed", type=int, default=default.seed)
    args = parser.parse_args(argv)
    spec = Prefill(args.ledger_rows, args.hands, args.tables, args.days, seed=args.seed)
    try:
        written = build(args.db, spec)
    except (FileExistsError, ValueError) as error:
        parser.error(str(error))
    t = written.totals
    print(
        f"{written.path}: {t.entries} ledger rows, {written.hands} hands, {len(written.tables)} "
        f"tables, granted {t.granted} = balances {t.balances} + at tables {t.at_tables}; "
        f"{os.path.getsize(written.path) / 1e6:.0f} MB in {written.seconds:.1f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
