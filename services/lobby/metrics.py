"""The lobby's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

import asyncio
import dataclasses

from prometheus_client import Counter, Gauge

from service_kit.logs import get_logger
from service_kit.metrics import batch_metrics

from .store import LobbyStore, Totals

PLAYERS_REGISTERED = Counter("lobby_players_registered", "Players registered.")
CHIPS_GRANTED = Counter("lobby_chips_granted", "Play money granted at registration.")
TABLES = Gauge("lobby_tables", "Ring tables, by game.", ("game",))
SEATED = Gauge("lobby_seated_players", "Players seated at tables, by game.", ("game",))
BUY_INS = Counter("lobby_buy_ins", "Buy-ins (SitDown), by game.", ("game",))
BUY_IN_CHIPS = Counter("lobby_buy_in_chips", "Chips moved from balances to tables.", ("game",))
CASH_OUTS = Counter(
    "lobby_cash_outs",
    "Seats left with their chips returned, by game and reason "
    "(stand_up, seat_lost for B5, restart).",
    ("game", "reason"),
)
CASH_OUT_CHIPS = Counter(
    "lobby_cash_out_chips", "Chips moved from tables back to balances.", ("game", "reason")
)
HANDS_PLANNED = Counter("lobby_hands_planned", "Hands planned by NextHand, by game.", ("game",))
HANDS_FINISHED = Counter("lobby_hands_finished", "Hands finished, by game.", ("game",))
HANDS_VOIDED = Counter("lobby_hands_voided", "Hands voided, by game.", ("game",))
BATCHED_CALLS, BATCH_SIZE = batch_metrics("lobby")
STORE_FSYNCS = Counter(
    "lobby_store_fsyncs",
    "fsyncs of the SQLite store (commits.py), by kind: group (one per group of "
    "transactions), checkpoint (the log and the database file), wal_restart (the "
    "log's header when it starts over).",
    ("kind",),
)
STORE_GROUPS = Counter(
    "lobby_store_commit_groups", "Groups of transactions committed with one fsync."
)
STORE_TRANSACTIONS = Counter(
    "lobby_store_transactions", "Transactions committed (each RPC's writes are one)."
)
LEDGER_GRANTED = Gauge(
    "lobby_ledger_granted_chips", "Chips ever granted (ledger grants); see GetLedgerTotals."
)
LEDGER_BALANCES = Gauge("lobby_ledger_balances_chips", "Chips in players' balances.")
LEDGER_AT_TABLES = Gauge("lobby_ledger_at_tables_chips", "Chips on seats at tables.")
LEDGER_MISMATCH = Gauge(
    "lobby_ledger_reconcile_mismatch",
    "1 when the last full reconciliation (SQL sums over the ledger, balances and "
    "seats) disagreed with the running totals behind the ledger gauges, else 0.",
)
LEDGER_RECONCILED = Gauge(
    "lobby_ledger_reconciled_timestamp_seconds", "When the last full reconciliation ended."
)

log = get_logger()


def set_ledger_totals(t: Totals) -> None:
    """The ledger gauges from the store's running totals (``LobbyStore.on_totals``:
    after every commit that wrote ledger rows; O(1)).  granted == balances +
    at_tables, or the chip-ledger alert fires."""
    LEDGER_GRANTED.set(t.granted)
    LEDGER_BALANCES.set(t.balances)
    LEDGER_AT_TABLES.set(t.at_tables)


async def reconcile(store: LobbyStore) -> bool:
    """One full reconciliation: ``totals()`` (on a thread with a connection of its
    own, or on the loop for a ``:memory:`` database no other connection sees)
    against the running totals of the same commit.  A mismatch is logged and sets
    ``lobby_ledger_reconcile_mismatch`` (the chip-ledger alert); returns agreement."""
    store.reconcile_start()
    try:
        sums = (
            await asyncio.to_thread(store.reconcile_sums) if store.reads_apart else store.totals()
        )
    except BaseException:
        store.reconcile_abandon()
        raise
    agree, running = store.reconciled(sums)
    LEDGER_MISMATCH.set(0 if agree else 1)
    LEDGER_RECONCILED.set_to_current_time()
    if agree:
        log.info("ledger reconciled", entries=sums.entries, granted=sums.granted)
    else:
        log.error(
            "ledger reconciliation mismatch: the SQL sums differ from the running totals",
            sums=dataclasses.asdict(sums),
            running=None if running is None else dataclasses.asdict(running),
        )
    return agree


async def reconcile_every(store: LobbyStore, interval_s: float) -> None:
    """``reconcile`` now, then every ``interval_s`` seconds, until cancelled."""
    while True:
        try:
            await reconcile(store)
        except Exception:
            log.exception("ledger reconciliation failed")
        await asyncio.sleep(interval_s)
