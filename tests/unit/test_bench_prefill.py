"""The soak's prefilled lobby store (bench/prefill.py), at a small size: exactly
the rows asked for, the money adding up as the lobby checks it, real-looking
hands, ids that cannot collide with the lobby's own, and a lobby that starts on
the file and plays on."""

from __future__ import annotations

import re
import sqlite3
import uuid
from pathlib import Path

import pytest

from bench.prefill import HAS_HISTORY, Prefill, build
from poker.lobby.v1 import lobby_pb2 as pb
from services.lobby.ring import RingBook
from services.lobby.ring.seats import sit_down
from services.lobby.store import LobbyStore

SMALL = Prefill(ledger_rows=3_000, hands=1_000, tables=3, days=2.0, block_hands=300)
PREFILLED_ID = re.compile(r"[pth]-[0-9a-f]{12}0[0-9a-f]{19}")


@pytest.fixture(scope="module")
def prefilled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("prefill") / "lobby.db"
    written = build(path, SMALL, log=lambda _: None)
    assert written.hands == SMALL.hands
    return path


def test_exactly_the_rows_asked_for_and_the_ledger_adds_up(prefilled: Path) -> None:
    store = LobbyStore(str(prefilled))
    t = store.totals()
    store.close()
    assert t.entries == SMALL.ledger_rows
    assert t.granted == t.balances + t.at_tables  # the lobby's chip-ledger invariant
    assert t.balances == t.ledger_balances and t.at_tables == t.ledger_tables
    assert t.at_tables == 0  # everyone stood up: no seat, no chips at a table


def test_the_rows_are_consistent_play(prefilled: Path) -> None:
    db = sqlite3.connect(prefilled)
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("SELECT COUNT(*) FROM hands").fetchone() == (SMALL.hands,)
    assert db.execute("SELECT COUNT(*) FROM hands WHERE status = 'pending'").fetchone() == (0,)
    assert db.execute("SELECT COUNT(*) FROM seats").fetchone() == (0,)
    kinds = dict(db.execute("SELECT kind, COUNT(*) FROM ledger GROUP BY kind").fetchall())
    assert set(kinds) == {"grant", "buy_in", "cash_out", "hand"}
    assert kinds["buy_in"] == kinds["cash_out"]  # every session ended
    # A finished hand moves chips between its players only, and its plan (a BLOB
    # rewritten per copy) names the hand and the players of its ledger rows.
    for hand_id, plan_bytes, status in db.execute(
        "SELECT hand_id, plan, status FROM hands ORDER BY hand_id LIMIT 50"
    ).fetchall():
        plan = pb.NextHandResponse.FromString(plan_bytes)
        assert plan.hand_id == hand_id
        rows = db.execute(
            "SELECT player_id, table_delta FROM ledger WHERE hand_id = ?", (hand_id,)
        ).fetchall()
        if status == "finished":
            assert sorted(p for p, _ in rows) == sorted(s.player_id for s in plan.dealt_in)
            assert sum(d for _, d in rows) == 0
        else:
            assert rows == []
    # Each table's hand count is its finished hands; the times lie in the span.
    for table_id, played in db.execute("SELECT table_id, hands_played FROM tables").fetchall():
        (finished,) = db.execute(
            "SELECT COUNT(*) FROM hands WHERE table_id = ? AND status = 'finished'", (table_id,)
        ).fetchone()
        assert played == finished > 0
    first, last = db.execute("SELECT MIN(planned_at), MAX(ended_at) FROM hands").fetchone()
    assert last - first <= SMALL.days * 86_400
    db.close()


def test_prefilled_ids_can_never_be_the_lobbys_own(prefilled: Path) -> None:
    db = sqlite3.connect(prefilled)
    ids = [
        r[0]
        for query in (
            "SELECT player_id FROM players",
            "SELECT table_id FROM tables",
            "SELECT hand_id FROM hands",
        )
        for r in db.execute(query).fetchall()
    ]
    db.close()
    assert len(ids) == len(set(ids))
    assert all(PREFILLED_ID.fullmatch(i) for i in ids), ids[:5]
    # The lobby's ids are uuid4's hex: its 13th digit is always 4.
    assert all(uuid.uuid4().hex[12] == "4" for _ in range(100))


def test_the_lobby_starts_on_it_and_plays_on(prefilled: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    copy.write_bytes(prefilled.read_bytes())
    store = LobbyStore(str(copy))
    book = RingBook(store, 3)  # the lobby's restore
    table_id = next(iter(book.tables))
    assert len(book.tables) == SMALL.tables
    if HAS_HISTORY:
        (hand_id,) = store._db.execute(
            "SELECT hand_id FROM hands WHERE table_id = ? LIMIT 1", (table_id,)
        ).fetchone()
        assert store.histories.one(table_id, hand_id) is not None
    for n in (1, 2):
        player_id = f"p-{uuid.uuid4().hex}"
        with store.transaction():
            store.add_player(player_id, f"new {n}", b"\0" * 32, 10_000)
        row = store.player(player_id)
        assert row is not None
        sit_down(book, row, pb.SitDownRequest(table_id=table_id, buy_in=1_000))
    plan = book.next_hand(table_id)
    assert plan.play and len(plan.dealt_in) == 2
    stacks = [pb.SeatInfo(seat=s.seat, stack=s.stack) for s in plan.dealt_in]
    stacks[0].stack, stacks[1].stack = stacks[0].stack + 5, stacks[1].stack - 5
    book.finish_hand(
        pb.FinishHandRequest(table_id=table_id, hand_id=plan.hand_id, final_stacks=stacks)
    )
    t = store.totals()
    store.close()
    assert t.entries == SMALL.ledger_rows + 2 + 2 + 2  # grants, buy-ins, the hand
    assert t.granted == t.balances + t.at_tables


def test_tables_only_and_refusals(tmp_path: Path) -> None:
    empty = tmp_path / "empty.db"
    written = build(empty, Prefill(ledger_rows=0, hands=0, tables=2), log=lambda _: None)
    assert written.hands == 0 and written.totals.entries == 0 and len(written.tables) == 2
    with pytest.raises(FileExistsError):
        build(empty, Prefill(ledger_rows=0, hands=0, tables=2))
    with pytest.raises(ValueError, match="rows a hand"):
        build(tmp_path / "thin.db", Prefill(ledger_rows=1_000, hands=1_000, tables=1))
