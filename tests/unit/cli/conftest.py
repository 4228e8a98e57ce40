"""Fixtures of the CLI tests: a fake of the room's door (the gateway's Room API)
and of the lobby's staff port, on free local ports (threaded grpc), stopped when
the test ends.

The fakes serve TLS with the lobby's certificate of this process's test PKI
(``devroom.launcher.shared_pki``), as the room's ports do: the door asks no client
certificate (players), the staff's port requires one (the operator's, for
create-table and register --balance).  The CLI trusts that CA (``POKER_CA_FILE``)
and presents the operator's certificate (``POKER_OPERATOR_DIR``).  No
credential, no room address is taken from the environment of the machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass

import grpc
import pytest

from devroom.launcher import shared_pki
from poker.lobby.v1 import lobby_pb2_grpc
from poker.room.v1 import room_pb2_grpc
from tests.unit.bots.fake_table import tls_port

from .support import FakeRoom, FakeStaffLobby

ENVIRONMENT = ("POKER_ROOM", "POKER_CREDENTIAL", "POKER_PLAYER_ID", "POKER_TOKEN")


@pytest.fixture(autouse=True)
def room_pki(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI trusts the test PKI's CA and acts as its operator; who the player
    is and where the room is come from each test's options."""
    pki = shared_pki()
    monkeypatch.setenv("POKER_CA_FILE", str(pki.ca_file))
    monkeypatch.setenv("POKER_OPERATOR_DIR", str(pki.dir("operator")))
    for name in ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)


@dataclass
class Door:
    """The fake room: the door's address and servicer, the staff port's."""

    address: str
    room: FakeRoom
    staff_address: str
    staff: FakeStaffLobby

    @property
    def at(self) -> list[str]:
        """The options that point the CLI at the fakes."""
        return ["--room", self.address, "--lobby-internal", self.staff_address, "--timeout", "5"]


@pytest.fixture
def door() -> Iterator[Door]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    room = FakeRoom()  # type: ignore[abstract]
    room_pb2_grpc.add_RoomServicer_to_server(room, server)
    port = tls_port(server)
    staff_server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    staff = FakeStaffLobby()  # type: ignore[abstract]
    lobby_pb2_grpc.add_LobbyServicer_to_server(staff, staff_server)
    lobby_pb2_grpc.add_LobbyOperatorServicer_to_server(staff, staff_server)
    staff_port = tls_port(staff_server, internal=True)
    server.start()
    staff_server.start()
    try:
        yield Door(f"127.0.0.1:{port}", room, f"127.0.0.1:{staff_port}", staff)
    finally:
        server.stop(0)
        staff_server.stop(0)
