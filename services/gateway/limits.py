"""The door's limits: calls per player, calls per address for callers without a
credential (or with one the lobby refused), and registrations per address.

Token buckets (``service_kit.ratelimit``), as the services' own public ports
apply them: ``PLAYER_CALLS_PER_S`` with bursts of ``PLAYER_BURST`` per player
(every call that acts for them, each stream counted once when it opens, each
PlayMany seat once when it joins); the same per client address for calls that
carry no credential; ``GATEWAY_REGISTRATIONS_PER_MIN`` per address for Register,
the one call that makes something from nothing.  Credentials the lobby refused
fill a bucket of their own per address (the same rate and burst), and once it is
empty a credential the gateway has not accepted lately is refused before the
lobby is asked: a client guessing tokens costs the lobby no more than that rate,
while players whose credentials were accepted play on, and neither people
browsing without a credential nor new players signing in from the same address
spend it.  Past a limit the call is
RESOURCE_EXHAUSTED, saying the limit, and does nothing.  Each replica counts
its own callers (the door is stateless): a room behind N replicas allows a
player up to N times the rate, which a load balancer's stickiness makes rare.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from service_kit.errors import ResourceExhaustedError
from service_kit.ratelimit import RateLimiter

from .metrics import LIMITED

REGISTRATION_BURST = 20


def _host(address: str | None) -> str:
    """The address without its port (``[::1]:5000`` -> ``[::1]``)."""
    if not address:
        return "unknown"
    host, sep, port = address.rpartition(":")
    return host if sep and port.isdigit() else address


class Limits:
    """The four kinds of bucket (see the module)."""

    def __init__(
        self,
        calls_per_s: float,
        burst: int,
        registrations_per_min: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._players = RateLimiter(calls_per_s, burst, clock=clock)
        self._addresses = RateLimiter(calls_per_s, burst, clock=clock)
        self._refusals = RateLimiter(calls_per_s, burst, clock=clock)
        self._registrations = RateLimiter(
            registrations_per_min / 60.0, REGISTRATION_BURST, clock=clock
        )
        self._calls = f"at most {calls_per_s:g} calls a second (bursts of {burst})"
        self._regs = (
            f"at most {registrations_per_min:g} registrations a minute from one address "
            f"(bursts of {REGISTRATION_BURST})"
        )

    def player(self, player_id: str) -> None:
        if not self._players.allow(player_id):
            LIMITED.labels("player_calls").inc()
            raise ResourceExhaustedError(f"too many calls: {self._calls} per player; retry soon")

    def address(self, address: str | None) -> None:
        if not self._addresses.allow(_host(address)):
            LIMITED.labels("address_calls").inc()
            raise ResourceExhaustedError(
                f"too many calls: {self._calls} per address without a credential; retry soon"
            )

    def before_credential_check(self, address: str | None) -> None:
        """RESOURCE_EXHAUSTED, without asking the lobby, when this address's
        refused credentials are past the limit."""
        if not self._refusals.ready(_host(address)):
            LIMITED.labels("refused_credentials").inc()
            raise ResourceExhaustedError(
                f"too many refused credentials: {self._calls} per address; retry soon "
                "with the credential Register returned"
            )

    def credential_refused(self, address: str | None) -> None:
        """Count a credential the lobby refused against its address."""
        self._refusals.charge(_host(address))

    def registration(self, address: str | None) -> None:
        if not self._registrations.allow(_host(address)):
            LIMITED.labels("registrations").inc()
            raise ResourceExhaustedError(f"too many registrations: {self._regs}; retry later")
