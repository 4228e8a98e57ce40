"""``services.lobby.listing``: a ring table's view is built once per change, and
what ListTables and GetTable show is the view a fresh build gives, after every
kind of change (a seat taken, a hand planned and finished, a stand-up)."""

from __future__ import annotations

import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from service_kit.errors import FailedPreconditionError
from services.lobby.auth import token_hash
from services.lobby.listing import ViewedRingBook
from services.lobby.ring import RingBook
from services.lobby.ring.seats import sit_down, stand_up
from services.lobby.store import LobbyStore

STUD = common.GameConfig(game=common.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)


def _book() -> tuple[ViewedRingBook, str]:
    store = LobbyStore(":memory:")
    with store.transaction():
        for n in (1, 2, 3):
            store.add_player(f"p-{n}", f"player {n}", token_hash(f"token {n}"), 10_000)
    book = ViewedRingBook(store, 3)
    request = pb.CreateTableRequest(name="t", config=STUD, seats=6, min_buy_in=100)
    table = book.create(request, "t")
    return book, table.row.table_id


def _fresh(book: ViewedRingBook, table_id: str) -> pb.Table:
    """The view built now, as the book without a cache builds it."""
    return RingBook.view(book, book.table(table_id))


def _sit(book: ViewedRingBook, table_id: str, n: int) -> None:
    player = book.store.player(f"p-{n}")
    assert player is not None
    sit_down(book, player, pb.SitDownRequest(table_id=table_id, seat=n, buy_in=1_000))


def test_a_view_is_built_once_until_its_table_changes() -> None:
    book, table_id = _book()
    first = book.table_view(table_id)
    assert book.table_view(table_id) is first
    assert book.table_views(None) == [first]
    _sit(book, table_id, 1)
    assert book.table_view(table_id) is not first
    assert [s.player_id for s in book.table_view(table_id).occupied] == ["p-1"]


def test_what_is_shown_is_a_fresh_build_after_every_change() -> None:
    book, table_id = _book()
    for n in (1, 2, 3):
        _sit(book, table_id, n)
        assert book.table_view(table_id) == _fresh(book, table_id)
    plan = book.next_hand(table_id)
    assert plan.play
    assert book.table_view(table_id) == _fresh(book, table_id)
    player = book.store.player("p-3")
    assert player is not None
    stand_up(book, player, table_id)  # dealt in: leaves when the hand finishes
    assert book.table_view(table_id) == _fresh(book, table_id)
    stacks = [pb.SeatInfo(seat=s.seat, stack=s.stack) for s in plan.dealt_in]
    book.finish_hand(
        pb.FinishHandRequest(table_id=table_id, hand_id=plan.hand_id, final_stacks=stacks)
    )
    shown = book.table_view(table_id)
    assert shown == _fresh(book, table_id)
    assert shown.hands_played == 1
    assert [s.seat for s in shown.occupied] == [1, 2]
    assert book.table_views(None) == [shown]


def test_a_refused_change_leaves_the_view_as_it_was() -> None:
    book, table_id = _book()
    _sit(book, table_id, 1)
    before = book.table_view(table_id)
    player = book.store.player("p-2")
    assert player is not None
    with pytest.raises(FailedPreconditionError):  # seat 1 is taken
        sit_down(book, player, pb.SitDownRequest(table_id=table_id, seat=1, buy_in=1_000))
    assert book.table_view(table_id) == before == _fresh(book, table_id)
