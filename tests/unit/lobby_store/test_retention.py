"""Retention (services/lobby/retention.py): old hands deleted, old ledger rows
folded into one carried-forward row per player and table, and every sum, the
reconciliation and the money invariant (granted == balances + at_tables)
unchanged."""

from __future__ import annotations

import time
from pathlib import Path

from services.lobby.retention import DAY_S, Retention
from services.lobby.store import LobbyStore, Totals

from .support import PLAYERS, Hands, seeded

OLD = 40 * DAY_S


def age_everything(store: LobbyStore) -> None:
    """Every row written so far ended 40 days ago."""
    with store.transaction():
        store._db.execute("UPDATE ledger SET at = at - ?", (OLD,))
        store._db.execute("UPDATE hands SET ended_at = ended_at - ?", (OLD,))


def same_sums(a: Totals, b: Totals) -> bool:
    return (a.granted, a.balances, a.at_tables, a.ledger_balances, a.ledger_tables) == (
        b.granted,
        b.balances,
        b.at_tables,
        b.ledger_balances,
        b.ledger_tables,
    )


def reconciles(store: LobbyStore) -> bool:
    """The full reconciliation (metrics.reconcile), on a connection of its own."""
    store.reconcile_start()
    agree, _ = store.reconciled(store.reconcile_sums())
    return agree


def test_old_ledger_rows_fold_and_every_sum_still_agrees(tmp_path: Path) -> None:
    store = seeded(tmp_path / "lobby.sqlite3")
    hands = Hands(store)
    for _ in range(30):
        hands.one()
    age_everything(store)
    for _ in range(5):  # recent: kept row by row
        hands.one()
    before = store.totals()
    rows_before = before.entries

    retention = Retention(store, keep_hands_days=30, keep_ledger_days=30)
    while retention.ledger_batch():
        pass
    after = store.totals()
    assert same_sums(after, before)
    assert after.granted == after.balances + after.at_tables
    # 3 grants, 3 buy-ins and 90 hand rows folded into one grant row per player
    # and one carried row per player at the table; the 15 recent rows kept.
    assert after.entries == 3 + 3 + 15 == rows_before - 96 + 6
    assert store.running_totals == after
    assert reconciles(store)

    # More hands age and fold into the same carried rows, not new ones.
    for _ in range(10):
        hands.one()
    age_everything(store)
    while retention.ledger_batch():
        pass
    again = store.totals()
    assert again.entries == 6
    carried = store._db.execute(
        "SELECT kind, player_id, table_id FROM ledger ORDER BY kind, player_id"
    ).fetchall()
    assert carried == [("carried", p, "t-1") for p in PLAYERS] + [
        ("carried_grant", p, None) for p in PLAYERS
    ]
    assert same_sums(again, store.running_totals) and again == store.running_totals
    assert again.granted == again.balances + again.at_tables
    assert reconciles(store)
    # A restarted store starts from the same sums.
    assert LobbyStore(store.path).running_totals == again


def test_old_hands_are_deleted_and_recent_and_pending_ones_kept(tmp_path: Path) -> None:
    store = seeded(tmp_path / "lobby.sqlite3")
    hands = Hands(store)
    old = [hands.one() for _ in range(12)]
    age_everything(store)
    recent = [hands.one() for _ in range(3)]
    with store.transaction():
        store.add_hand("h-pending", "t-1", b"plan")
    sums = store.totals()

    retention = Retention(store, keep_hands_days=30, keep_ledger_days=0)
    assert retention.hands_batch() == len(old)
    assert retention.hands_batch() == 0
    assert retention.ledger_batch() == 0  # ledger retention off
    assert all(store.hand(h) is None for h in old)
    assert [h.hand_id for h in store.hands("t-1", 10)] == ["h-pending", *reversed(recent)]
    assert store.totals() == sums


def test_nothing_folds_while_a_reconciliation_reads(tmp_path: Path) -> None:
    store = seeded(tmp_path / "lobby.sqlite3")
    Hands(store).one()
    age_everything(store)
    retention = Retention(store, keep_hands_days=0, keep_ledger_days=1)
    store.reconcile_start()
    assert retention.ledger_batch() == 0
    agree, _ = store.reconciled(store.reconcile_sums())
    assert agree
    assert retention.ledger_batch() > 0
    assert reconciles(store)


def test_a_fold_is_one_short_transaction_per_batch(tmp_path: Path) -> None:
    """Batches of at most BATCH rows: a big backlog takes several, each small."""
    from services.lobby import retention as module

    store = seeded(tmp_path / "lobby.sqlite3")
    hands = Hands(store)
    for _ in range(20):
        hands.one()
    age_everything(store)
    sums = store.totals()
    retention = Retention(store, keep_hands_days=0, keep_ledger_days=1)
    module_batch, module.BATCH = module.BATCH, 7
    try:
        sizes = []
        while n := retention.ledger_batch(time.time()):
            sizes.append(n)
    finally:
        module.BATCH = module_batch
    assert max(sizes) == 7 and len(sizes) >= 66 // 7
    assert same_sums(store.totals(), sums)
    assert reconciles(store)


def test_tournament_hands_and_every_history_go_with_the_ring_hands(tmp_path: Path) -> None:
    """ListHands covers tournament tables (their ``tournament_hands`` rows), so
    retention keeps them alike; each deleted hand's stored history goes too."""
    from services.lobby.tournament.hand_records import TournamentHands

    store = seeded(tmp_path / "lobby.sqlite3")
    rows = TournamentHands(store._db)
    with store.transaction():
        for i in range(4):
            rows.add(f"th-{i}", "tt-1", "tour-1", b"plan")
            rows.end(f"th-{i}", "finished")
            store.histories.add(f"th-{i}", "tt-1", b"history")
        rows.add("th-pending", "tt-1", "tour-1", b"plan")
        store._db.execute("UPDATE tournament_hands SET ended_at = ended_at - ?", (OLD,))
        rows.add("th-recent", "tt-1", "tour-1", b"plan")
        rows.end("th-recent", "finished")
        store.histories.add("th-recent", "tt-1", b"history")

    retention = Retention(store, keep_hands_days=30, keep_ledger_days=0, tournament_hands=rows)
    assert retention.hands_batch() == 4
    assert retention.hands_batch() == 0
    left = {h.hand_id for h in rows.hands("tt-1", 10, None)}
    assert left == {"th-pending", "th-recent"}
    kept = store._db.execute("SELECT hand_id FROM hand_histories").fetchall()
    assert {r[0] for r in kept} == {"th-recent"}
