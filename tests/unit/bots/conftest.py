"""Fixtures of the CLI tests: fake lobby and table servers on a free local port
(threaded grpc), stopped when the test ends.

The fakes serve TLS with the lobby's certificate of this process's test PKI
(``devroom.launcher.shared_pki``), as the room's ports do: a client certificate
is verified when one is presented (the operator's, for the staff's commands) and
not required (the player plane).  The CLI trusts that CA (``POKER_CA_FILE``) and
presents the operator's certificate (``POKER_OPERATOR_DIR``) for create-table.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest

from devroom.launcher import shared_pki
from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2_grpc

from .cli_support import FakeLobby, FakePlay, FakeWatch
from .fake_table import tls_port


@pytest.fixture(autouse=True)
def room_pki(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI and the SDK trust the test PKI's CA and act as its operator."""
    pki = shared_pki()
    monkeypatch.setenv("POKER_CA_FILE", str(pki.ca_file))
    monkeypatch.setenv("POKER_OPERATOR_DIR", str(pki.dir("operator")))


@pytest.fixture
def servers() -> Iterator[tuple[str, FakeLobby]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    lobby = FakeLobby()  # type: ignore[abstract]
    lobby_pb2_grpc.add_LobbyServicer_to_server(lobby, server)
    lobby_pb2_grpc.add_LobbyOperatorServicer_to_server(lobby, server)
    table_pb2_grpc.add_TableServiceServicer_to_server(FakeWatch(), server)  # type: ignore[abstract]
    port = tls_port(server)
    lobby.internal = f"127.0.0.1:{tls_port(server, internal=True)}"  # the staff's calls
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
    port = tls_port(server)
    server.start()
    try:
        yield f"127.0.0.1:{port}", fake
    finally:
        server.stop(0)
