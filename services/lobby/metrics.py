"""The lobby's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from prometheus_client import Counter, Gauge

from service_kit.metrics import batch_metrics

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
LEDGER_GRANTED = Gauge(
    "lobby_ledger_granted_chips", "Chips ever granted (ledger grants); see GetLedgerTotals."
)
LEDGER_BALANCES = Gauge("lobby_ledger_balances_chips", "Chips in players' balances.")
LEDGER_AT_TABLES = Gauge("lobby_ledger_at_tables_chips", "Chips on seats at tables.")
LEDGER_REFRESH_S = 1.0  # the totals are SQL sums over the ledger: at most once a second
_ledger_refreshed = [float("-inf")]


def set_ledger_totals(totals: Callable[[], Any]) -> None:
    """Set the ledger gauges from one ``store.totals()`` snapshot (granted ==
    balances + at_tables; the chip-ledger alert fires when not), throttled."""
    now = time.monotonic()
    if now - _ledger_refreshed[0] < LEDGER_REFRESH_S:
        return
    _ledger_refreshed[0] = now
    t = totals()
    LEDGER_GRANTED.set(t.granted)
    LEDGER_BALANCES.set(t.balances)
    LEDGER_AT_TABLES.set(t.at_tables)
