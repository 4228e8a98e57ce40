"""A local certificate authority for the room on one machine, with the
``cryptography`` package: one CA and a certificate per identity.

In Kubernetes cert-manager issues the certificates (deploy/base/certificates);
on one machine ``make run``, the tests and the containers need the same mutual
TLS without a cluster, so the room issues its own CA when it starts.  The layout
is cert-manager's Secret layout, one directory per identity, so a service reads
its ``TLS_DIR`` the same way in both places::

    <root>/ca.crt             the CA certificate (what clients trust)
    <root>/ca.key             the CA's key (only the issuer reads it)
    <root>/<identity>/ca.crt  the CA again
    <root>/<identity>/tls.crt the identity's certificate
    <root>/<identity>/tls.key its key (mode 0600)

Every certificate names its identity by a SPIFFE URI
(``spiffe://cardroom.local/table``, ``service_kit.identity``) and is valid for
server and client authentication, for ``localhost``, ``127.0.0.1``, ``::1`` and
the identity's own name (a container's host name).  Keys are ECDSA P-256: cheap
handshakes, small certificates.

``python -m service_kit.pki DIR`` issues a fresh set (or adds missing identities
to an existing CA in DIR): how an operator gets the files for containers without
cert-manager.  An operator who brings their own CA puts its ``ca.crt`` and
``ca.key`` in DIR first; the identities are then issued under it.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import ipaddress
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .identity import IDENTITIES, spiffe_id

CA_DAYS = 30
LEAF_DAYS = 7
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


@dataclass(frozen=True)
class Pki:
    """Where a room's certificates are."""

    root: Path

    @property
    def ca_file(self) -> Path:
        return self.root / "ca.crt"

    def dir(self, identity: str) -> Path:
        """The TLS_DIR of ``identity``: ca.crt, tls.crt and tls.key."""
        return self.root / identity


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _write(path: Path, data: bytes, *, private: bool = False) -> None:
    """Write atomically (a reloading server never reads half a file)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as file:
        if private:
            os.fchmod(file.fileno(), 0o600)
        file.write(data)
    os.replace(tmp, path)


def _new_ca(root: Path, name: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    _write(root / "ca.key", _key_pem(key), private=True)
    _write(root / "ca.crt", cert.public_bytes(serialization.Encoding.PEM))
    return cert, key


def _load_ca(root: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey] | None:
    try:
        cert = x509.load_pem_x509_certificate((root / "ca.crt").read_bytes())
        key = serialization.load_pem_private_key((root / "ca.key").read_bytes(), None)
    except FileNotFoundError:
        return None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise ValueError(f"{root / 'ca.key'}: an ECDSA CA key is expected")
    return cert, key


def _san(identity: str, hosts: Iterable[str]) -> x509.SubjectAlternativeName:
    names: list[x509.GeneralName] = [x509.UniformResourceIdentifier(spiffe_id(identity))]
    for host in dict.fromkeys((*LOCAL_HOSTS, identity, *hosts)):
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return x509.SubjectAlternativeName(names)


def issue(
    root: Path,
    identity: str,
    ca: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
    *,
    hosts: Iterable[str] = (),
    days: float = LEAF_DAYS,
) -> Path:
    """Issue (or re-issue: rotation) ``identity``'s certificate under ``ca``."""
    ca_cert, ca_key = ca
    key = ec.generate_private_key(ec.SECP256R1())
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, identity)]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.ExtendedKeyUsage(
                [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH]
            ),
            critical=False,
        )
        .add_extension(_san(identity, hosts), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    directory = root / identity
    directory.mkdir(parents=True, exist_ok=True)
    _write(directory / "ca.crt", ca_cert.public_bytes(serialization.Encoding.PEM))
    _write(directory / "tls.key", _key_pem(key), private=True)
    _write(directory / "tls.crt", cert.public_bytes(serialization.Encoding.PEM))
    return directory


def _fresh(path: Path, margin: datetime.timedelta) -> bool:
    """Whether the certificate at ``path`` exists and is valid beyond ``margin``."""
    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
    except (OSError, ValueError):
        return False
    return cert.not_valid_after_utc > _now() + margin


def issue_room(
    root: Path | str,
    identities: Iterable[str] = IDENTITIES,
    *,
    hosts: Iterable[str] = (),
    ca_name: str = "cardroom local CA",
) -> Pki:
    """A CA in ``root`` and a certificate for every identity: the ones there are
    kept while they stay valid for a while (a day for a certificate, two for the
    CA, which then re-issues everything), so a long-lived local room's directory
    never serves an expired certificate."""
    path = Path(root)
    path.mkdir(parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    ca = _load_ca(path) if _fresh(path / "ca.crt", datetime.timedelta(days=2)) else None
    renew_all = ca is None
    if ca is None:
        ca = _new_ca(path, ca_name)
    host_list = tuple(hosts)
    for identity in identities:
        leaf = path / identity / "tls.crt"
        if renew_all or not _fresh(leaf, datetime.timedelta(days=1)):
            issue(path, identity, ca, hosts=host_list)
    return Pki(path)


def rotate(root: Path | str, identity: str, *, hosts: Iterable[str] = ()) -> Path:
    """Re-issue one identity's certificate under the room's CA (servers reload it)."""
    path = Path(root)
    ca = _load_ca(path)
    if ca is None:
        raise FileNotFoundError(f"no CA in {path}")
    return issue(path, identity, ca, hosts=hosts)


def spki_pin(cert_file: Path | str) -> str:
    """The base64 SHA-256 of a certificate's public key (SubjectPublicKeyInfo): the
    pin Chromium's ``--ignore-certificate-errors-spki-list`` takes, so a browser
    trusts exactly this key (the local room's door) without trusting the CA for
    every name or ignoring certificate errors."""
    cert = x509.load_pem_x509_certificate(Path(cert_file).read_bytes())
    der = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m service_kit.pki",
        description="Issue the room's CA (unless DIR has one) and a certificate per identity.",
    )
    parser.add_argument("dir", type=Path)
    parser.add_argument("--identity", action="append", default=None, help="default: all")
    parser.add_argument("--host", action="append", default=[], help="extra DNS/IP SANs")
    args = parser.parse_args(argv)
    pki = issue_room(args.dir, args.identity or IDENTITIES, hosts=args.host)
    print(f"CA: {pki.ca_file}")
    for identity in args.identity or IDENTITIES:
        print(f"{identity}: TLS_DIR={pki.dir(identity)}")


if __name__ == "__main__":
    main()
