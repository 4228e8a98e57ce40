"""GetLedgerTotals reads the whole ledger off the event loop (issue 19: at three
million rows the exact sums take about 2 s of CPU, and on the loop every
table's hands would wait for an operator's audit)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

from poker.lobby.v1 import lobby_pb2 as pb
from services.lobby.servicer import LobbyServicer
from services.lobby.settings import LobbySettings
from services.lobby.store import LobbyStore

from .support import GRANT, PLAYERS


def test_ledger_totals_are_summed_on_a_thread_while_the_loop_runs(tmp_path: Path) -> None:
    """The sums run on a connection of their own: the loop answers meanwhile
    (here the read waits for a coroutine of the loop, which could never run if
    the read held it), and the figures are the store's exact ones."""
    store = LobbyStore(str(tmp_path / "lobby.sqlite3"))
    with store.transaction():
        for player in PLAYERS:
            store.add_player(player, player, b"h", GRANT)
    servicer = LobbyServicer(store, LobbySettings())
    loop_ran = threading.Event()
    read = store.reconcile_sums

    def slow_read():  # type: ignore[no-untyped-def]
        assert loop_ran.wait(5.0), "the loop did not run while the ledger was summed"
        return read()

    store.reconcile_sums = slow_read  # type: ignore[method-assign]

    async def main() -> pb.LedgerTotals:
        call = asyncio.create_task(servicer.GetLedgerTotals(pb.GetLedgerTotalsRequest(), None))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        loop_ran.set()  # the loop is free while the sums are read
        return await asyncio.wait_for(call, 10.0)

    totals = asyncio.run(main())
    granted = GRANT * len(PLAYERS)
    assert totals.granted == granted == totals.balances == totals.ledger_balances
    assert totals.at_tables == 0 == totals.ledger_tables
    assert totals.entries == store.totals().entries > 0
