"""SIGTERM on the table service mid-hand: the hand is voided and reported before
the process exits, so the lobby returns every chip at once (not only when another
table process takes the table over)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from services.stack import Stack

from .client import Room, sample, stack_env, stop_stack

STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=20, small_bet=40, big_bet=80)


@pytest.fixture
def stack() -> Iterator[Stack]:
    running = Stack(env=stack_env()).start()
    try:
        yield running
    finally:
        stop_stack(running)


def test_sigterm_voids_and_reports_the_hand_in_progress(stack: Stack) -> None:
    room = Room(stack)
    try:
        # A long clock: the hand waits on the first player, so it is in progress
        # when the table service is told to stop.
        hand = room.start_hand(
            STUD, order=None, buy_ins=[1_000, 1_000], action_clock_ms=60_000, stand_up=False
        )
        hand.players[0].wait_for(lambda e: True, what="an event of the hand")
        before = room.ledger()
        assert stack["table"].terminate() == 0  # SIGTERM: exits cleanly
        voided = sample(room.metrics("lobby"), "lobby_hands_voided_total", game="stud")
        assert voided == 1.0
        # Nothing is pending at the lobby: its next plan is a new hand, with the
        # stacks of before the voided one.
        plan = room.lobby.NextHand(lpb.NextHandRequest(table_id=hand.table_id), timeout=10)
        assert plan.hand_id != hand.hand_id
        assert [s.stack for s in plan.dealt_in] == [1_000, 1_000]
        after = room.ledger()
        assert (after.granted, after.balances, after.at_tables) == (
            before.granted,
            before.balances,
            before.at_tables,
        )
        room.assert_chips_conserved()
    finally:
        room.close()
