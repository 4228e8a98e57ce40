"""Channels to the room, for its services and for its players.

Two kinds, as the room has two planes (poker/common/v1/access.proto):

* ``service_channel``: mutual TLS with an identity's certificate, for the room's
  own services and staff (the table calling the dealer, an operator's tool, an
  auditor).  ``tls_dir`` holds ``ca.crt``, ``tls.crt`` and ``tls.key``
  (``service_kit.pki``'s and cert-manager's layout).
* ``player_channel``: server TLS only (the player proves who they are with their
  token), to the public port of the lobby or the table.  The CA to trust is
  ``ca_file``, else ``POKER_CA_FILE``, else the local room's
  (``~/.cardroom/pki/ca.crt``, where ``make run`` issues it).

The certificate files are read when the channel is made: a process that rotates
its own certificate makes new channels.  ``plaintext=True`` is the bench's
``--plaintext`` run only.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import grpc

LOCAL_ROOM_PKI = Path.home() / ".cardroom" / "pki"
"""Where ``make run`` keeps the local room's CA and certificates."""
CA_FILE_ENV = "POKER_CA_FILE"

Options = Sequence[tuple[str, Any]]


def default_ca_file() -> Path:
    """``POKER_CA_FILE``, else the local room's CA."""
    configured = os.environ.get(CA_FILE_ENV, "").strip()
    return Path(configured) if configured else LOCAL_ROOM_PKI / "ca.crt"


def _read(path: Path, what: str) -> bytes:
    try:
        return path.read_bytes()
    except OSError as error:
        raise FileNotFoundError(
            f"{what} {path}: {error.strerror}; the room's CA comes with the room "
            f"(`make run` writes it to {LOCAL_ROOM_PKI}/ca.crt), or set {CA_FILE_ENV}"
        ) from None


def service_credentials(tls_dir: str | Path) -> grpc.ChannelCredentials:
    """Mutual TLS with the identity whose certificate is in ``tls_dir``."""
    directory = Path(tls_dir)
    return grpc.ssl_channel_credentials(
        root_certificates=_read(directory / "ca.crt", "CA certificate"),
        private_key=_read(directory / "tls.key", "key"),
        certificate_chain=_read(directory / "tls.crt", "certificate"),
    )


def player_credentials(ca_file: str | Path | None = None) -> grpc.ChannelCredentials:
    """Server TLS trusting the room's CA."""
    path = Path(ca_file) if ca_file else default_ca_file()
    return grpc.ssl_channel_credentials(root_certificates=_read(path, "CA certificate"))


def service_channel(
    target: str,
    tls_dir: str | Path | None,
    *,
    options: Options = (),
    plaintext: bool = False,
) -> grpc.aio.Channel:
    """An asyncio channel to an internal port, as the identity of ``tls_dir``."""
    if plaintext or tls_dir is None:
        if not plaintext:
            raise ValueError("a service channel needs a TLS_DIR (plaintext: benchmarks only)")
        return grpc.aio.insecure_channel(target, options=list(options))
    return grpc.aio.secure_channel(target, service_credentials(tls_dir), options=list(options))


def service_channel_sync(
    target: str, tls_dir: str | Path, *, options: Options = ()
) -> grpc.Channel:
    """A blocking channel to an internal port, as the identity of ``tls_dir``."""
    return grpc.secure_channel(target, service_credentials(tls_dir), options=list(options))


# How soon a player's channel tries the room again after losing it.  grpc's own
# default backs off to two minutes; a table service restarts in seconds, and a bot
# whose channel still waits out its backoff when the service is back fails every
# reconnect in the meantime (each fails at once, UNAVAILABLE), and gives up.  grpc
# jitters each wait, so thousands of clients do not come back in step.
RECONNECT_OPTIONS: Options = (
    ("grpc.initial_reconnect_backoff_ms", 500),
    ("grpc.max_reconnect_backoff_ms", 3_000),
)


def _player_options(options: Options) -> list[tuple[str, Any]]:
    """``options``, with RECONNECT_OPTIONS for what they do not set."""
    given = {name for name, _ in options}
    return [*options, *(o for o in RECONNECT_OPTIONS if o[0] not in given)]


def player_channel(
    target: str,
    ca_file: str | Path | None = None,
    *,
    options: Options = (),
    plaintext: bool = False,
) -> grpc.aio.Channel:
    """An asyncio channel to a public port (lobby or table), trusting the room's CA;
    it reconnects within seconds of the room coming back (RECONNECT_OPTIONS)."""
    if plaintext:
        return grpc.aio.insecure_channel(target, options=_player_options(options))
    return grpc.aio.secure_channel(
        target, player_credentials(ca_file), options=_player_options(options)
    )


def player_channel_sync(
    target: str, ca_file: str | Path | None = None, *, options: Options = ()
) -> grpc.Channel:
    """A blocking channel to a public port, trusting the room's CA (RECONNECT_OPTIONS)."""
    return grpc.secure_channel(
        target, player_credentials(ca_file), options=_player_options(options)
    )


class Stubs:
    """The methods of several stubs on one channel as one object: the lobby's
    player plane with its staff's calls (an operator's tool), or with the table's
    hand protocol (the table service)."""

    def __init__(self, *stubs: object) -> None:
        for stub in stubs:
            self.__dict__.update(vars(stub))

    def __getattr__(self, name: str) -> Any:  # for type checkers: any method
        raise AttributeError(name)


def staff_lobby(channel: grpc.aio.Channel | grpc.Channel) -> Any:
    """The lobby as the room's staff calls it, on an operator's channel to its
    internal port: the player plane (register, tables) and the staff's calls
    (create tables, grant chips, the ledger) as one object."""
    from poker.lobby.v1 import lobby_pb2_grpc  # the generated code, made by `make setup`

    return Stubs(lobby_pb2_grpc.LobbyStub(channel), lobby_pb2_grpc.LobbyOperatorStub(channel))
