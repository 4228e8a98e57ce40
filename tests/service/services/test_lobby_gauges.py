"""The lobby's gauges cost O(1) per event (issue 19): the table and seat gauges
move by what each event changed, the ledger gauges follow running totals the
store keeps in the transactions that move the chips, and the full reconciliation
(SQL sums) runs apart and alerts on a mismatch.

In process, over the ring book and a SQLite store (in memory, or a file for the
reconciliation on a thread of its own).
"""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from prometheus_client import REGISTRY, Gauge

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.config import Game
from service_kit.errors import ServiceError
from services.lobby import metrics
from services.lobby.ring import RingBook
from services.lobby.ring.seats import sit_down, stand_up
from services.lobby.store import LobbyStore

from .lobby_support import DRAW, STUD


def _gauge(name: str, **labels: str) -> float:
    value = REGISTRY.get_sample_value(name, labels)
    return 0.0 if value is None else value


def _player(store: LobbyStore, name: str, grant: int = 100_000) -> str:
    pid = f"p-{uuid.uuid4().hex}"
    with store.transaction():
        store.add_player(pid, name, b"h" * 32, grant)
    return pid


def _table(book: RingBook, stud: bool = True) -> str:
    config = STUD if stud else DRAW
    request = pb.CreateTableRequest(
        name="t", config=config, seats=8 if stud else 5, min_buy_in=1000
    )
    return book.create(request, "t").row.table_id


def _sit(book: RingBook, pid: str, tid: str, buy_in: int = 2000) -> None:
    player = book.store.player(pid)
    assert player is not None
    sit_down(book, player, pb.SitDownRequest(player_id=pid, table_id=tid, buy_in=buy_in))


def _stand(book: RingBook, pid: str, tid: str) -> None:
    player = book.store.player(pid)
    assert player is not None
    stand_up(book, player, tid)


def _hand(book: RingBook, tid: str, chips: int, how: str) -> None:
    """NextHand, then FinishHand: ``chips`` from one seat to another ("move"),
    chips created ("bad": refused, rolled back), or voided ("void")."""
    plan = book.next_hand(tid)
    if not plan.play:
        return
    final = {s.seat: s.stack for s in plan.dealt_in}
    seats = sorted(final)
    if how == "move":
        moved = min(chips, final[seats[1]])
        final[seats[0]] += moved
        final[seats[1]] -= moved
    elif how == "bad":
        final[seats[0]] += chips + 1
    book.finish_hand(
        pb.FinishHandRequest(
            table_id=tid,
            hand_id=plan.hand_id,
            voided=how == "void",
            final_stacks=[pb.SeatInfo(seat=s, stack=c) for s, c in final.items()],
        )
    )


def _assert_gauges(book: RingBook) -> None:
    """The gauges equal a full recount, and the ledger gauges the SQL sums."""
    tables, seated = book.recount()
    for game in Game:
        assert _gauge("lobby_tables", game=game.value) == tables[game], game
        assert _gauge("lobby_seated_players", game=game.value) == seated[game], game
    t = book.store.totals()
    assert t.granted == t.balances + t.at_tables
    assert _gauge("lobby_ledger_granted_chips") == t.granted
    assert _gauge("lobby_ledger_balances_chips") == t.balances
    assert _gauge("lobby_ledger_at_tables_chips") == t.at_tables
    running = book.store.running_totals
    assert (running.granted, running.balances, running.at_tables, running.entries) == (
        t.granted,
        t.balances,
        t.at_tables,
        t.entries,
    )


OPS = st.lists(
    st.tuples(
        st.sampled_from(["create", "sit", "stand", "hand", "grant", "refused_grant"]),
        st.integers(0, 5),  # table
        st.integers(0, 5),  # player
        st.integers(0, 3000),  # chips
        st.sampled_from(["move", "bad", "void", "move"]),
    ),
    max_size=40,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_gauges_equal_a_recount_after_any_operations(ops: list[Any]) -> None:
    store = LobbyStore()
    try:
        book = RingBook(store, 3)
        _assert_gauges(book)
        tables = [_table(book, stud=False)]
        players = [_player(store, f"n{i}") for i in range(6)]
        for op, t, p, chips, how in ops:
            tid, pid = tables[t % len(tables)], players[p]
            try:
                if op == "create":
                    tables.append(_table(book, stud=t % 2 == 0))
                elif op == "sit":
                    _sit(book, pid, tid, 1000 + chips)
                elif op == "stand":
                    _stand(book, pid, tid)
                elif op == "hand":
                    _hand(book, tid, chips, how)
                elif op == "grant":
                    with store.transaction():
                        store.grant(pid, chips + 1)
                else:
                    with pytest.raises(RuntimeError), store.transaction():
                        store.grant(pid, chips + 1)
                        raise RuntimeError("refused after the ledger row")
            except ServiceError:
                pass  # refused: nothing changed, and the gauges must say so
            _assert_gauges(book)
    finally:
        store.close()


def test_restart_recounts(tmp_path: Path) -> None:
    path = str(tmp_path / "lobby.db")
    store = LobbyStore(path)
    book = RingBook(store, 3)
    tid = _table(book)
    for name in ("a", "b", "c"):
        _sit(book, _player(store, name), tid)
    store.close()
    store = LobbyStore(path)
    try:
        _assert_gauges(RingBook(store, 3))
    finally:
        store.close()


class _Counts:
    """Calls of ``LobbyStore.totals`` and of every gauge's set/inc/dec."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.totals = 0
        self.gauges = 0
        totals = LobbyStore.totals

        def counted_totals(store: LobbyStore) -> Any:
            self.totals += 1
            return totals(store)

        monkeypatch.setattr(LobbyStore, "totals", counted_totals)
        for name in ("set", "inc", "dec"):
            method = getattr(Gauge, name)

            def counted(gauge: Gauge, *args: Any, _method: Any = method) -> None:
                self.gauges += 1
                _method(gauge, *args)

            monkeypatch.setattr(Gauge, name, counted)

    def reset(self) -> None:
        self.totals = self.gauges = 0


def _room(tables: int) -> tuple[RingBook, str, list[str]]:
    store = LobbyStore()
    book = RingBook(store, 3)
    for _ in range(tables - 1):
        _table(book)
    tid = _table(book, stud=False)
    pids = [_player(store, name) for name in ("a", "b", "c")]
    for pid in pids:
        _sit(book, pid, tid)
    return book, tid, pids


def _work(book: RingBook, tid: str, pids: list[str], counts: _Counts) -> tuple[int, int]:
    """A hand, a hand after which a player stood up, a sit-down: the counts."""
    counts.reset()
    _hand(book, tid, 300, "move")
    plan = book.next_hand(tid)
    _stand(book, pids[0], tid)  # pending: done when the hand is finished
    final = {s.seat: s.stack for s in plan.dealt_in}
    book.finish_hand(
        pb.FinishHandRequest(
            table_id=tid,
            hand_id=plan.hand_id,
            final_stacks=[pb.SeatInfo(seat=s, stack=c) for s, c in final.items()],
            plan_next=True,
        )
    )
    _sit(book, _player(book.store, "d"), tid)
    return counts.totals, counts.gauges


def test_per_hand_work_does_not_grow_with_the_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    small, big = _room(1), _room(500)
    counts = _Counts(monkeypatch)
    few = _work(*small, counts)
    many = _work(*big, counts)
    assert few[0] == many[0] == 0  # no SQL sums over the ledger on the way
    assert few == many  # the same gauge updates at 1 table as at 500
    assert few[1] > 0
    monkeypatch.undo()
    _assert_gauges(big[0])  # the last room built (the gauges are the process's)
    for book, *_ in (small, big):
        book.store.close()


@pytest.mark.parametrize("on_file", [False, True], ids=["memory", "file"])
def test_reconciliation_detects_a_mismatch(tmp_path: Path, on_file: bool) -> None:
    store = LobbyStore(str(tmp_path / "lobby.db") if on_file else ":memory:")
    assert store.reads_apart is on_file
    try:
        book = RingBook(store, 3)
        tid = _table(book)
        for name in ("a", "b"):
            _sit(book, _player(store, name), tid)
        assert asyncio.run(metrics.reconcile(store))
        assert _gauge("lobby_ledger_reconcile_mismatch") == 0
        # Chips out of thin air, behind the ledger's back: the gauges still balance.
        store._db.execute("UPDATE players SET balance = balance + 7")
        assert not asyncio.run(metrics.reconcile(store))
        assert _gauge("lobby_ledger_reconcile_mismatch") == 1
        t = store.running_totals
        assert t.granted == t.balances + t.at_tables
        store._db.execute("UPDATE players SET balance = balance - 7")
        assert asyncio.run(metrics.reconcile(store))
        assert _gauge("lobby_ledger_reconcile_mismatch") == 0
    finally:
        store.close()


def test_reconciliation_on_a_thread_matches_the_commit_it_read(tmp_path: Path) -> None:
    """Commits while the thread reads: compared with the running totals of the
    commit the snapshot saw, not those of the last one (no false alarm)."""
    store = LobbyStore(str(tmp_path / "lobby.db"))
    try:
        book = RingBook(store, 3)
        pid = _player(store, "a")

        async def busy() -> bool:
            task = asyncio.create_task(metrics.reconcile(store))
            for _ in range(50):
                with store.transaction():
                    store.grant(pid, 1)
                await asyncio.sleep(0)
            return await task

        assert asyncio.run(busy())
        _assert_gauges(book)
    finally:
        store.close()
