# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""B3 end to end: the lobby's make-up posts are played by the table service and
its hand history (GetHandHistory) shows the dead small blind as dead money, apart
from the live big blind.

The whole room runs (five processes).  The table service starts a table only when
it is first asked about it (``TABLE_DISCOVERY_S`` is long in the e2e settings), so
the test first plays the table's first three hands itself against the lobby, as
the table service would (NextHand / FinishHand): player 4 sits out and misses the
big blind in hand 2, and sits in again after hand 3, choosing to post.  Then it
asks the table service for the table's history, which starts the table: its first
hand is the lobby's hand 4, where player 4 posts the big blind live and the small
blind dead.  Nobody is connected, so every turn runs out on the action clock and
the timeout policy acts (S10).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from devroom.stack import Stack
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from tests.support.lobby import LobbyClient, ledger, lobby_client
from tests.support.room import Room
from tests.support.stacks import stack_env, stop_stack

from .client import BB, DRAW, SB, Player, finish, next_hand, positions

WAIT_S = 60.0


@pytest.fixture(scope="module")
def room() -> Iterator[Room]:
    stack = Stack(env=stack_env()).start()
    room = Room(stack)
    try:
        yield room
        assert room.audit_all() == {}, "deck reveals that do not verify"
        room.assert_chips_conserved()
    finally:
        room.close()
        stop_stack(stack)


@pytest.fixture
def lobby(room: Room) -> Iterator[LobbyClient]:
    """The lobby as the test calls it while it plays the table service's part
    (NextHand / FinishHand as the ``table``; the rest as the ``operator``)."""
    with lobby_client(room.stack["lobby"]) as client:
        yield client


@pytest.mark.parametrize("chips", [1_000, 120], ids=["full", "short"])
def test_B3_dead_small_blind_is_dead_money_in_the_table_hand_history(
    room: Room, lobby: LobbyClient, chips: int
) -> None:
    """``short``: player 4 has 120 chips, so the make-up post is the big blind live
    (100) and all-in for 20 of the dead small blind: the history shows what went in."""
    table = lobby.CreateTable(
        lpb.CreateTableRequest(
            name="b3", config=DRAW, seats=5, min_buy_in=100, action_clock_ms=100
        ),
        timeout=10,
    )
    tid = table.table_id
    room.tables.append(tid)  # the room's audit covers its hands
    players = {s: Player(lobby, f"b3-{s}") for s in range(1, 6)}
    for seat, player in players.items():
        player.sit(tid, seat, chips if seat == 4 else 1_000)
    for n in range(3):  # hands 1-3, played "by hand": stacks unchanged
        if n == 1:
            players[4].sit_out()
        hand = next_hand(lobby, tid)
        assert positions(hand) == [(1, 2, 3), (2, 3, 5), (3, 5, 1)][n]
        finish(lobby, tid, hand)
    players[4].sit_in(lpb.RETURN_CHOICE_POST)  # back two hands after missing it

    # The table service takes the table over and plays the lobby's next hand.
    room.table.GetHandHistory(tpb.GetHandHistoryRequest(table_id=tid), timeout=10)
    deadline = time.monotonic() + WAIT_S
    while True:
        hands = room.table.GetHandHistory(
            tpb.GetHandHistoryRequest(table_id=tid, limit=100), timeout=10
        ).hands
        if hands:
            break
        assert time.monotonic() < deadline, "the table played no hand"
        time.sleep(0.2)
    first = hands[0]  # oldest first: the table's first hand
    records = lobby.ListHands(lpb.ListHandsRequest(table_id=tid, limit=500), timeout=10).hands
    fourth = records[-4]  # the lobby's hands, newest first: hands 1-3 were ours
    assert (fourth.hand_id, fourth.status) == (first.hand_id, lpb.HAND_STATUS_FINISHED)

    started = [e.hand_started for e in first.events if e.HasField("hand_started")]
    assert len(started) == 1
    assert started[0].button_seat == 5
    posts = [(p.seat, p.amount, p.kind) for p in started[0].posts]
    dead = min(SB, chips - BB)
    assert posts == [(1, SB, "blind"), (2, BB, "blind"), (4, BB, "blind"), (4, dead, "dead")]
    # Seat 4's history as its player sees it shows the same posts.
    mine = room.table.GetHandHistory(
        tpb.GetHandHistoryRequest(
            table_id=tid, player_id=players[4].id, token=players[4].token, hand_id=first.hand_id
        ),
        timeout=10,
    ).hands
    (own,) = mine
    own_posts = [
        (p.seat, p.amount, p.kind)
        for e in own.events
        if e.HasField("hand_started")
        for p in e.hand_started.posts
    ]
    assert own_posts == posts
    # The dead money is in the pot: nobody acts (every clock runs out: checks and
    # folds), so the pot is exactly the four posts, 50 + 100 + 100 live and the dead.
    (done,) = [e.hand_finished for e in first.events if e.HasField("hand_finished")]
    assert not done.voided
    assert sum(a.amount for a in done.awards) == SB + BB + BB + dead
    stacks = {s.seat: s.stack for s in done.seats}
    assert sum(stacks.values()) == 4 * 1_000 + chips
    ledger(lobby)
    for player in players.values():  # the table stops dealing to these seats
        player.stand()
