"""Play streams: how they end, and a reconnect in the middle of a hand (S10 clock)."""

from __future__ import annotations

from poker.common.v1 import common_pb2 as common

from .client import Room

STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=25, small_bet=50, big_bet=100)


def test_half_closed_play_stream_ends_ok(room: Room) -> None:
    """A player who half-closes the Play stream (done sending) gets a clean end with
    status OK; it used to end in an INTERNAL error the client never received
    (``context.abort`` with OK), leaving the stream hanging."""
    table_id = room.create_table(STUD, 2)
    player = room.register()
    player.connect(table_id)
    player.close()
    assert player.stream_done.is_set()
    assert player.ended is None  # the call finished with OK
    player.connect(table_id)  # and the player can come back
    player.close()
    assert player.ended is None
