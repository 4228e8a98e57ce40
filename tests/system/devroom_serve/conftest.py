"""A room started by a test is gone when the test ends, whatever happened."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .served import RoomProcess


@pytest.fixture
def rooms() -> Iterator[list[RoomProcess]]:
    started: list[RoomProcess] = []
    try:
        yield started
    finally:
        for room in started:
            room.kill()
