"""Certificates rotate without a restart: a service serves the re-issued
certificate to every new connection, and the room keeps dealing.

cert-manager renews a mounted Secret in place; ``service_kit.pki.rotate`` does the
same to a local room's directory.  The server re-reads its files at each new
connection (``service_kit.tls``), so the next handshake presents the new
certificate, and calls made under it are answered as before.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import tempfile
from pathlib import Path

import grpc
from cryptography import x509

from devroom.launcher import ServiceProcess
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.dealer.v1 import dealer_pb2_grpc
from service_kit.pki import issue_room, rotate


def served_certificate(port: int, client_dir: Path) -> x509.Certificate:
    """The certificate the server presents to a new mutual-TLS connection."""
    context = ssl.create_default_context(cafile=str(client_dir / "ca.crt"))
    context.load_cert_chain(str(client_dir / "tls.crt"), str(client_dir / "tls.key"))
    context.set_alpn_protocols(["h2"])
    with (
        socket.create_connection(("127.0.0.1", port), timeout=5) as raw,
        context.wrap_socket(raw, server_hostname="127.0.0.1") as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return x509.load_der_x509_certificate(der)


def test_a_rotated_certificate_is_served_to_new_connections_without_a_restart() -> None:
    with tempfile.TemporaryDirectory() as root:
        pki = issue_room(root)
        with ServiceProcess("dealer", pki=pki) as dealer:
            before = served_certificate(dealer.port, pki.dir("table"))
            rotate(root, "dealer")
            after = served_certificate(dealer.port, pki.dir("table"))
            assert after.serial_number != before.serial_number
            assert (
                after.serial_number
                == x509.load_pem_x509_certificate(
                    (pki.dir("dealer") / "tls.crt").read_bytes()
                ).serial_number
            )

            async def still_answers() -> grpc.StatusCode:
                async with dealer.aio_channel("table") as channel:
                    try:
                        await dealer_pb2_grpc.DealerStub(channel).CloseDeck(
                            dpb.CloseDeckRequest(deck_id="no-such-deck"), timeout=5
                        )
                    except grpc.aio.AioRpcError as error:
                        return error.code()
                return grpc.StatusCode.OK

            # The call reached the dealer under the new certificate: the deck is unknown.
            assert asyncio.run(still_answers()) == grpc.StatusCode.NOT_FOUND
            assert "certificate reloaded" in dealer.log
