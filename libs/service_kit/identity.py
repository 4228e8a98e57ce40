"""Who is calling: the service identity a caller proved with its TLS client
certificate.

Every internal connection is mutual TLS (``service_kit.tls``).  A certificate
names its holder by a SPIFFE URI in its subject alternative names,
``spiffe://<trust domain>/<identity>`` (``spiffe://cardroom.local/table``); gRPC's
TLS stack verifies the chain against the room's CA and puts that URI in the call's
auth context as ``peer_spiffe_id``.  The identity is its last path segment, and
only when the trust domain is ours: a certificate of another domain, or a
connection without one (a player on the public port), has no identity.

The identities: the five services by name, ``gateway`` (the room's public door:
it calls the player plane of the lobby and the tables for the players it has
authenticated), ``operator`` (creates tables, grants chips, reads ledger totals)
and ``auditor`` (reads deck reveals).
"""

from __future__ import annotations

import os
from typing import Any, Final

from .errors import InvalidArgumentError

TRUST_DOMAIN_ENV: Final = "TLS_TRUST_DOMAIN"
DEFAULT_TRUST_DOMAIN: Final = "cardroom.local"

SERVICES: Final = ("dealer", "betting", "showdown", "lobby", "table")
GATEWAY: Final = "gateway"
OPERATOR: Final = "operator"
AUDITOR: Final = "auditor"
IDENTITIES: Final = (*SERVICES, GATEWAY, OPERATOR, AUDITOR)


def trust_domain() -> str:
    """The trust domain whose certificates name our identities."""
    return os.environ.get(TRUST_DOMAIN_ENV, "").strip() or DEFAULT_TRUST_DOMAIN


def spiffe_id(identity: str, domain: str | None = None) -> str:
    """The URI a certificate of ``identity`` carries: ``spiffe://cardroom.local/table``."""
    return f"spiffe://{domain or trust_domain()}/{identity}"


def identity_of_uri(uri: str, domain: str | None = None) -> str | None:
    """``table`` for ``spiffe://cardroom.local/table``; None for another domain or
    a malformed URI."""
    prefix = f"spiffe://{domain or trust_domain()}/"
    if not uri.startswith(prefix):
        return None
    name = uri[len(prefix) :]
    return name if name and "/" not in name else None


def caller_identity(context: Any) -> str | None:
    """The verified service identity of the caller of ``context`` (a grpc.aio
    ServicerContext), or None when the connection presented no certificate of ours
    (a player, or a plaintext bench run)."""
    auth = context.auth_context()
    for value in auth.get("peer_spiffe_id", ()):
        identity = identity_of_uri(value.decode(errors="replace"))
        if identity is not None:
            return identity
    return None


BEARER = "bearer "


def bearer_token(context: Any) -> str:
    """The player's token from the call's ``authorization: Bearer <token>``
    metadata, or "" without one."""
    metadata = getattr(context, "invocation_metadata", None)
    if metadata is None:
        return ""
    for key, value in metadata() or ():
        if (
            key == "authorization"
            and isinstance(value, str)
            and value[: len(BEARER)].lower() == BEARER
        ):
            return value[len(BEARER) :].strip()
    return ""


def player_token(field: str, context: Any) -> str:
    """The token a player call carries: the request's ``token`` field, or the
    ``authorization: Bearer`` metadata (the same rule on every method, and what a
    gateway passes on).  Both, differing, is INVALID_ARGUMENT: one call has one
    caller."""
    bearer = bearer_token(context)
    if field and bearer and field != bearer:
        raise InvalidArgumentError(
            "the request's token and its authorization metadata name different tokens; "
            "send one of them"
        )
    return field or bearer
