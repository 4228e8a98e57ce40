"""The bot SDK's system tests share one room per module (``devroom.stack.Stack`` on
free ports, behind its gateway): the SDK reaches it only through the room's door,
as any bot does, and the operator's certificate creates the tables."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devroom.stack import Stack
from tests.support.lobby import ledger, lobby_client

from .room import BotRoom


@pytest.fixture(scope="module")
def room(request: pytest.FixtureRequest) -> Iterator[BotRoom]:
    """A room whose idle tables ask for a hand 50 times a second (a seat taken again
    is dealt in at once), and which keeps its chips: checked when the module ends.
    A module's ``TABLE_SETTINGS`` (a dict) adds table-service settings.

    For the module, the SDK finds it as a bot's program finds a room:
    ``POKER_ROOM`` and ``POKER_CA_FILE`` (docs/bots.md)."""
    table = {"TABLE_IDLE_POLL_S": "0.02", **getattr(request.module, "TABLE_SETTINGS", {})}
    env = {"table": table}
    with (
        Stack(ports="free", env=env) as stack,
        lobby_client(stack["lobby"]) as lobby,
        pytest.MonkeyPatch.context() as patch,
    ):
        bot_room = BotRoom(stack)
        for name, value in bot_room.environment().items():
            patch.setenv(name, value)
        yield bot_room
        ledger(lobby)
