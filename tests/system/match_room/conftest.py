"""The match room's system tests share one local room (five services behind the
door, preset decks allowed), started by the backend's own convenience."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from poker_bots.match_room import RoomAccess
from poker_bots.match_room_local import local_room


@pytest.fixture(scope="module")
def room() -> Iterator[RoomAccess]:
    with local_room() as access:
        yield access
