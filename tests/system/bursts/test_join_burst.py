"""Bursts queue instead of failing (issue 19, acceptance point 5): 6,000 seats
(1,000 six-handed tables) joining the table service at once all get in, and a
table-service restart with 6,000 seated re-joins them all.

The room is real processes (``bench.join_burst``: ``devroom.stack.Stack``, the
tables and players made through the lobby, every seat sat down by its player),
and the joins are real joins: ``poker_bots.play`` for every seat, started at once
in a process of its own, over PlayMany streams at the table service's public
port with TLS, as bots play.  The bots think 30 s before each action, so the
tables wait on their first turn and the machine's CPU goes to the joins.  The
restart is SIGTERM and a new process on the same ports; the SDK reconnects.

What is checked is counts, never times (the figures are ``python -m
bench.join_burst``'s): every seat has its Snapshot, none failed, the lobby
refused no token check, and every bot ended because it was asked to.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bench.join_burst import Burst, BurstRun, measure

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("join_burst")]

TABLES, SEATS = 1_000, 6


@pytest.fixture(scope="module")
def burst() -> BurstRun:
    """The room, the burst of joins, the restart: run once for both tests."""
    return asyncio.run(
        measure(
            Burst(
                tables=TABLES,
                seats=SEATS,
                think_s=30.0,
                restart=True,
                timeout_s=150.0,
                list_tables_calls=0,
            )
        )
    )


def _said(run: BurstRun) -> dict[str, Any]:
    return {k: run.details.get(k) for k in ("joined", "rejoined", "bots", "problems")}


def test_6000_seats_joining_at_once_all_get_in(burst: BurstRun) -> None:
    figures = burst.figures
    assert figures["join_burst_seats"] == TABLES * SEATS
    assert figures["join_burst_joined"] == TABLES * SEATS, _said(burst)
    assert figures["join_burst_refused"] == 0, _said(burst)
    assert figures["join_burst_lobby_authenticate_not_ok"] == 0, _said(burst)


def test_a_table_service_restart_rejoins_every_seat(burst: BurstRun) -> None:
    figures = burst.figures
    assert figures["rejoin_seats"] == TABLES * SEATS
    assert figures["rejoin_joined"] == TABLES * SEATS, _said(burst)
    assert figures["rejoin_refused"] == 0, _said(burst)
    assert figures["rejoin_lobby_authenticate_not_ok"] == 0, _said(burst)
    assert burst.details["bots"]["clean"], _said(burst)
    assert all(code == 0 for code in burst.details["exit_codes"].values()), burst.details
