"""Fixtures of the CLI tests: fake lobby and table servers on a free local port
(threaded grpc), stopped when the test ends.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2_grpc

from .cli_support import FakeLobby, FakePlay, FakeWatch


@pytest.fixture
def servers() -> Iterator[tuple[str, FakeLobby]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    lobby = FakeLobby()  # type: ignore[abstract]
    lobby_pb2_grpc.add_LobbyServicer_to_server(lobby, server)
    table_pb2_grpc.add_TableServiceServicer_to_server(FakeWatch(), server)  # type: ignore[abstract]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", lobby
    finally:
        server.stop(0)


@pytest.fixture
def play_server() -> Iterator[tuple[str, FakePlay]]:
    """A fake table and lobby at one address (``play`` asks the lobby for the seat)."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    fake = FakePlay()  # type: ignore[abstract]
    table_pb2_grpc.add_TableServiceServicer_to_server(fake, server)
    lobby_pb2_grpc.add_LobbyServicer_to_server(FakeLobby(), server)  # type: ignore[abstract]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", fake
    finally:
        server.stop(0)
