"""Crash durability over real processes (issue 4, acceptance point 3).

The rule (card rooms): a hand that cannot finish because a service died mid-hand
is voided, every chip goes back to where it was at the hand's start, and the void
is recorded.  Each test starts the room (five processes, the lobby on a SQLite
file), waits until a hand is in progress (a turn is offered; the long clock keeps
it waiting), SIGKILLs one service, restarts it where it was, and checks:

- the hand in progress is voided and the lobby recorded it (``ListHands``: status
  voided and why; the ``lobby_hands_voided`` metric);
- the stacks are those of before the hand, and no chip appeared or vanished
  (``GetLedgerTotals``: granted == balances + at_tables, the ledger's sums agree,
  the same totals as before the kill);
- play resumes: new hands are played to the end, with new hand ids.
"""

from __future__ import annotations

import pytest

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from services.lobby.ring import VOIDED_AT_TAKEOVER, VOIDED_BY_RESTART, VOIDED_BY_TABLE
from tests.support.player import Player
from tests.support.room import sample

from .conftest import (
    BUY_IN,
    CrashRoom,
    autoplay,
    eventually,
    first_turn,
    hands,
    hands_played,
    money,
    reconnect,
    record,
    retry,
    stacks,
    voided_record,
)

BEFORE = {1: BUY_IN, 2: BUY_IN}  # every hand here starts with these stacks until one finishes


def play_to_the_end(players: list[Player], hand_id: str) -> list[tpb.HandFinished]:
    """Answer every turn until each player has the hand's HandFinished (one each)."""
    autoplay(
        players,
        lambda: all(p.of("hand_finished", hand_id) for p in players),
        f"hand {hand_id} ended",
    )
    ends = []
    for player in players:
        (end,) = player.of("hand_finished", hand_id)
        ends.append(end)
    return ends


def voided_count(crash: CrashRoom) -> float:
    return sample(crash.room.metrics("lobby"), "lobby_hands_voided_total", game="stud")


def test_table_sigkill_voids_the_hand_in_progress_and_play_resumes(crash: CrashRoom) -> None:
    """SIGKILL of the table service mid-hand: its successor voids the hand at
    takeover (recorded), never deals that hand id again, and plays new hands."""
    room = crash.room
    table_id, players = crash.seat_two()
    first = first_turn(players)
    listed = room.table.ListTables(tpb.ListTablesRequest(), timeout=10)
    assert [t.current_hand_id for t in listed.tables if t.table_id == table_id] == [first]
    before = room.assert_chips_conserved()
    assert stacks(room, table_id) == BEFORE

    crash.kill("table")
    crash.restart("table")

    voided = eventually(
        lambda: voided_record(room, table_id, first), f"hand {first} recorded voided"
    )
    assert voided.void_reason == VOIDED_AT_TAKEOVER
    assert {s.seat: s.stack for s in voided.dealt_in} == BEFORE
    assert voided.ended_at_unix_ms >= voided.planned_at_unix_ms > 0
    assert stacks(room, table_id) == BEFORE
    assert money(room.assert_chips_conserved()) == money(before)
    assert voided_count(crash) == 1
    assert "hand voided at takeover" in crash.stack["table"].log

    reconnect(players, table_id)
    autoplay(players, lambda: hands_played(room, table_id) >= 2, "two hands after the restart")

    assert all(e.hand_id != first for p in players for e in p.events)  # never dealt again
    records = hands(room, table_id)
    ids = [r.hand_id for r in records]
    assert len(set(ids)) == len(ids)
    assert [r.hand_id for r in records if r.status == lpb.HAND_STATUS_VOIDED] == [first]
    finished = [r for r in records if r.status == lpb.HAND_STATUS_FINISHED]
    assert len(finished) == 2 and first not in {r.hand_id for r in finished}
    assert {s.seat: s.stack for s in finished[0].dealt_in} == BEFORE
    assert sum(stacks(room, table_id).values()) == 2 * BUY_IN
    assert money(room.assert_chips_conserved()) == money(before)


@pytest.mark.parametrize("crash", ["sqlite", "postgresql"], indirect=True)
def test_lobby_sigkill_voids_the_hand_in_progress_and_loses_nothing(crash: CrashRoom) -> None:
    """SIGKILL of the lobby mid-hand, restarted from its SQLite file: players,
    balances, tables and seats survive; the pending hand is voided by the restart
    and recorded; the table's late result is refused, so the table voids the hand
    too (history, and a voided HandFinished to the players); play resumes."""
    room = crash.room
    table_id, players = crash.seat_two()
    first = first_turn(players)
    before = room.assert_chips_conserved()
    accounts = {p.id: (p.balance().balance, p.balance().at_tables) for p in players}
    assert set(accounts.values()) == {(100_000 - BUY_IN, BUY_IN)}
    table_before = room.lobby.GetTable(lpb.GetTableRequest(table_id=table_id), timeout=10)

    crash.kill("lobby")
    crash.restart("lobby")

    voided = retry(lambda: record(room, table_id, first))
    assert voided is not None and voided.status == lpb.HAND_STATUS_VOIDED
    assert voided.void_reason == VOIDED_BY_RESTART
    assert {s.seat: s.stack for s in voided.dealt_in} == BEFORE
    assert {p.id: (p.balance().balance, p.balance().at_tables) for p in players} == accounts
    table_after = room.lobby.GetTable(lpb.GetTableRequest(table_id=table_id), timeout=10)
    assert table_after == table_before  # name, config, seats, stacks, hands played
    assert stacks(room, table_id) == BEFORE
    assert money(room.assert_chips_conserved()) == money(before)
    assert voided_count(crash) == 1

    # The table service still runs the hand: the players finish it, the lobby
    # refuses its result, and the table voids it as well.
    autoplay(
        players,
        lambda: all(any(e.voided for e in p.of("hand_finished", first)) for p in players),
        f"hand {first} voided at the table",
    )
    for player in players:
        ends = player.of("hand_finished", first)
        assert [e.voided for e in ends] == [False, True]
        assert {s.seat: s.stack for s in ends[-1].seats} == BEFORE
    history = players[0].history(first)
    last = history.events[-1]
    assert last.HasField("hand_finished") and last.hand_finished.voided
    refused = [line for line in crash.stack["table"].lines if "finish hand refused" in line]
    assert refused and VOIDED_BY_RESTART in refused[0]

    autoplay(players, lambda: hands_played(room, table_id) >= 1, "a hand after the restart")
    records = hands(room, table_id)
    assert [r.hand_id for r in records if r.status == lpb.HAND_STATUS_VOIDED] == [first]
    finished = [r for r in records if r.status == lpb.HAND_STATUS_FINISHED]
    assert finished and first not in {r.hand_id for r in finished}
    assert {s.seat: s.stack for s in finished[0].dealt_in} == BEFORE
    assert sum(stacks(room, table_id).values()) == 2 * BUY_IN
    assert money(room.assert_chips_conserved()) == money(before)


def test_dealer_sigkill_voids_the_hand_and_play_resumes_after_restart(crash: CrashRoom) -> None:
    """SIGKILL of the dealer mid-hand: the table's next dealer call fails, so the
    hand is voided (the players told, the lobby records why); hands tried while the
    dealer is down are voided too; once it is back, hands are played again."""
    room = crash.room
    table_id, players = crash.seat_two()
    first = first_turn(players)
    before = room.assert_chips_conserved()

    crash.kill("dealer")
    for end in play_to_the_end(players, first):
        assert end.voided
        assert {s.seat: s.stack for s in end.seats} == BEFORE
    voided = eventually(
        lambda: voided_record(room, table_id, first), f"hand {first} recorded voided"
    )
    assert voided.void_reason.startswith(f"{VOIDED_BY_TABLE}: dealer.")
    assert "UNAVAILABLE" in voided.void_reason
    assert stacks(room, table_id) == BEFORE
    assert money(room.assert_chips_conserved()) == money(before)

    crash.restart("dealer")
    autoplay(players, lambda: hands_played(room, table_id) >= 1, "a hand after the restart")

    records = hands(room, table_id)
    statuses = [r.status for r in records]
    first_finished = statuses.index(lpb.HAND_STATUS_FINISHED)
    voided_hands = records[:first_finished]
    assert voided_hands[0].hand_id == first
    assert all(r.status == lpb.HAND_STATUS_VOIDED for r in voided_hands)
    assert all({s.seat: s.stack for s in r.dealt_in} == BEFORE for r in voided_hands)
    assert voided_count(crash) == len([s for s in statuses if s == lpb.HAND_STATUS_VOIDED])
    assert sum(stacks(room, table_id).values()) == 2 * BUY_IN
    assert money(room.assert_chips_conserved()) == money(before)


def test_betting_restart_between_decisions_loses_nothing(crash: CrashRoom) -> None:
    """SIGKILL and restart of the betting service while a turn waits: betting keeps
    nothing between calls, so the hand goes on.  The table names its state by the
    ref the old stream gave; the new stream does not know it (NOT_FOUND, counted),
    so the table sends the state itself and the hand is played to the end, not
    voided, with every chip accounted for."""
    room = crash.room
    table_id, players = crash.seat_two()
    first = first_turn(players)
    before = room.assert_chips_conserved()

    crash.kill("betting")
    crash.restart("betting")
    for end in play_to_the_end(players, first):
        assert not end.voided
    finished = eventually(
        lambda: (r := record(room, table_id, first)) and r.status == lpb.HAND_STATUS_FINISHED,
        f"hand {first} recorded finished",
    )
    assert finished
    assert sum(stacks(room, table_id).values()) == 2 * BUY_IN
    assert money(room.assert_chips_conserved()) == money(before)
    unknown = sample(room.metrics("betting"), "betting_state_refs_total", result="unknown")
    found = sample(room.metrics("betting"), "betting_state_refs_total", result="found")
    assert unknown >= 1 and found >= 1  # the old stream's ref, then this stream's refs
