"""The gateway's system tests share one room behind its door (door.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .door import Door, door_room


@pytest.fixture(scope="module")
def door() -> Iterator[Door]:
    """Three shards, tables on each, bots playing through the gateway."""
    with door_room() as room:
        yield room
