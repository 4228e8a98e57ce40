"""The services' TLS: mutual TLS on the internal port, server TLS on the public one.

A service reads its certificate from ``TLS_DIR``: ``ca.crt`` (the room's CA, the
only one it trusts), ``tls.crt`` and ``tls.key`` (its own certificate, which
names its identity, ``service_kit.identity``), the layout of a cert-manager
Secret and of ``service_kit.pki``.  The internal port requires a client
certificate signed by that CA (a connection without one fails its handshake, a
plaintext one is refused outright); the public port of the lobby and the table
(the player plane) presents the same server certificate and asks for none.

Rotation: the server re-reads the three files when one of them changes (checked
on each new connection, a ``stat`` of three files), so cert-manager renewing the
mounted Secret, or ``service_kit.pki.rotate``, takes effect for new connections
without a restart.  Established connections keep the certificate they
negotiated until they close.

``GRPC_PLAINTEXT=1`` serves plaintext with no identities at all: only the bench's
``--plaintext`` run uses it, to measure what TLS costs (docs/trust-model.md).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import grpc

from .logs import get_logger
from .settings import ConfigError

FILES = ("ca.crt", "tls.crt", "tls.key")


@dataclass(frozen=True)
class TlsFiles:
    """A TLS_DIR: the CA to trust and this process's certificate and key."""

    directory: Path

    @property
    def ca(self) -> Path:
        return self.directory / "ca.crt"

    @property
    def cert(self) -> Path:
        return self.directory / "tls.crt"

    @property
    def key(self) -> Path:
        return self.directory / "tls.key"

    def check(self) -> TlsFiles:
        """Refuse a directory without the three files, naming the missing ones."""
        missing = [name for name in FILES if not (self.directory / name).is_file()]
        if missing:
            raise ConfigError(
                f"TLS_DIR={self.directory}: missing {', '.join(missing)} (the layout of a "
                "cert-manager Secret; `python -m service_kit.pki DIR` issues a local set)"
            )
        return self

    def stamp(self) -> tuple[int, ...]:
        """The files' modification times: a change means a rotation."""
        try:
            return tuple(os.stat(self.directory / name).st_mtime_ns for name in FILES)
        except OSError:
            return ()

    def read(self) -> tuple[bytes, bytes, bytes]:
        """(ca, certificate chain, key) as PEM bytes."""
        return self.ca.read_bytes(), self.cert.read_bytes(), self.key.read_bytes()


class ReloadingCredentials:
    """Server credentials that follow the files of a TLS_DIR."""

    def __init__(self, files: TlsFiles, *, require_client_auth: bool) -> None:
        self._files = files
        self._stamp = files.stamp()
        self.credentials = grpc.dynamic_ssl_server_credentials(
            self._config(),
            self._fetch,  # type: ignore[arg-type]  # grpc takes None as "no change"
            require_client_authentication=require_client_auth,
        )

    def _config(self) -> grpc.ServerCertificateConfiguration:
        ca, chain, key = self._files.read()
        return grpc.ssl_server_certificate_configuration([(key, chain)], root_certificates=ca)

    def _fetch(self) -> grpc.ServerCertificateConfiguration | None:
        """Called by grpc for each new connection: a new configuration when the
        files changed, else None (keep the current one)."""
        stamp = self._files.stamp()
        if not stamp or stamp == self._stamp:
            return None
        try:
            config = self._config()
        except OSError:  # a rotation half done: keep serving the last good set
            return None
        self._stamp = stamp
        get_logger().info("certificate reloaded", tls_dir=str(self._files.directory))
        return config


def server_credentials(
    directory: str | Path, *, require_client_auth: bool
) -> grpc.ServerCredentials:
    """Credentials for a port: mutual TLS (internal) or server TLS (public)."""
    files = TlsFiles(Path(directory)).check()
    return ReloadingCredentials(files, require_client_auth=require_client_auth).credentials
