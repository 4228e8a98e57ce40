"""Who is calling: the bearer credential, checked with the lobby.

The credential ``Room.Register`` gives a player is their id and secret token
joined by a dot (``<player_id>.<token>``: a token never holds a dot, so the last
dot splits them).  The gateway checks it with the lobby's ``GetPlayer`` (the
lobby keeps only the token's digest and compares in constant time) and
remembers an accepted credential for ``GATEWAY_CREDENTIAL_CACHE_S``, keyed by
its SHA-256, so a player's every action does not cost the lobby a lookup.  A
refused one is not remembered: the lobby answers again, but each refusal counts
against the caller's address (``limits.Limits.credential_refused``), and an
address past its limit is refused before the lobby is asked.  The internal services
check the token again themselves (the gateway forwards it), so a stale cache
entry can never act for anyone.  No credential is ever logged.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import grpc

from poker_wire import check_id
from service_kit.errors import InvalidArgumentError, ServiceError

from .limits import Limits
from .metrics import CREDENTIALS

MAX_CREDENTIAL_LENGTH = 256
MAX_CACHED = 100_000


class UnauthenticatedError(ServiceError):
    """The call needs a player's credential and has none."""

    code = grpc.StatusCode.UNAUTHENTICATED


@dataclass(frozen=True, slots=True)
class Player:
    """An authenticated caller: the id and the token the room's services check."""

    player_id: str
    token: str


def credential(player_id: str, token: str) -> str:
    """The bearer credential of a player (what Register returns)."""
    return f"{player_id}.{token}"


def parse(bearer: str) -> Player:
    """The player a credential names; INVALID_ARGUMENT when it is malformed."""
    if len(bearer) > MAX_CREDENTIAL_LENGTH:
        raise InvalidArgumentError(f"the credential is at most {MAX_CREDENTIAL_LENGTH} characters")
    player_id, dot, token = bearer.rpartition(".")
    if not dot or not player_id or not token:
        raise InvalidArgumentError(
            "the credential is malformed: send `authorization: Bearer <credential>` with "
            "the credential Register returned (<player_id>.<token>)"
        )
    check_id(player_id, "the credential's player id")
    return Player(player_id, token)


def bearer_of(authorization: str | None) -> str:
    """The credential of an ``authorization: Bearer ...`` header; "" without one."""
    if not authorization:
        return ""
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return ""
    return value.strip()


Check = Callable[[Player], Awaitable[None]]


class Credentials:
    """Accepted credentials, remembered a while (see the module)."""

    def __init__(
        self,
        check: Check,
        ttl_s: float,
        *,
        limits: Limits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._check = check
        self._ttl = ttl_s
        self._limits = limits
        self._clock = clock
        self._accepted: OrderedDict[bytes, float] = OrderedDict()

    async def player(self, authorization: str | None, address: str | None) -> Player:
        """The authenticated caller of a call with this header, from this client
        address; UNAUTHENTICATED without a credential or with one the lobby does
        not accept, RESOURCE_EXHAUSTED when the address has had too many refused."""
        bearer = bearer_of(authorization)
        if not bearer:
            raise UnauthenticatedError(
                "this call acts for a player: send `authorization: Bearer <credential>` "
                "with the credential Register returned"
            )
        player = parse(bearer)
        key = hashlib.sha256(bearer.encode()).digest()
        now = self._clock()
        expires = self._accepted.get(key)
        if expires is not None and expires > now:
            self._accepted.move_to_end(key)
            CREDENTIALS.labels("cached").inc()
            return player
        if self._limits is not None:
            self._limits.before_credential_check(address)
        try:
            await self._check(player)
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED):
                if self._limits is not None:
                    self._limits.credential_refused(address)
                # One answer for an unknown player and a wrong token: the door
                # does not tell a stranger which player ids exist.
                raise UnauthenticatedError(
                    "the credential was not accepted: send the credential Register "
                    "returned, unchanged"
                ) from None
            raise
        if self._ttl > 0:
            self._accepted[key] = now + self._ttl
            self._accepted.move_to_end(key)
            while len(self._accepted) > MAX_CACHED:
                self._accepted.popitem(last=False)
        return player

    async def of_join(self, player_id: str, token: str, address: str | None) -> Player:
        """A Join's own credential (Play without a bearer, each PlayMany seat),
        checked as a bearer's is."""
        return await self.player(f"Bearer {credential(player_id, token)}", address)

    async def optional(self, authorization: str | None, address: str | None) -> Player | None:
        """The caller when the call carries a credential, else None."""
        if not bearer_of(authorization):
            return None
        return await self.player(authorization, address)
