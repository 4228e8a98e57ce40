"""Per-player rate limits on the player plane: a token bucket per caller.

Why: the player plane is open to anyone over TLS, and a player's unary calls each
cost the lobby a transaction (SitDown, RegisterPlayer...).  One client looping on
them would take the room's time from everyone else, so each caller gets
``rate`` calls a second with bursts of ``burst``; past that a call is
RESOURCE_EXHAUSTED, saying the limit, and does nothing.

Who "a caller" is: the player the call names (its ``player_id``), else the
player of its bearer token, else its connection.  The room's own identities
(a service certificate: the table, the operator) are not limited here; their
calls are the room's work.  Streams count once, when they open: what flows on a
Play stream is paced by the hand itself (one action per turn).

Memory is bounded: at most ``max_callers`` buckets, the least recently used
dropped first (a dropped caller starts again with a full bucket).
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable

DEFAULT_MAX_CALLERS = 100_000


class RateLimiter:
    """Token buckets by caller key."""

    def __init__(
        self,
        rate: float,
        burst: int,
        *,
        max_callers: int = DEFAULT_MAX_CALLERS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = rate
        self.burst = burst
        self._max = max_callers
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def allow(self, key: str) -> bool:
        """Take one call from ``key``'s bucket; False when it is empty."""
        now = self._clock()
        tokens = self._refilled(key, now)
        allowed = tokens >= 1.0
        if allowed:
            tokens -= 1.0
        self._buckets[key] = (tokens, now)
        self._trim()
        return allowed

    def _refilled(self, key: str, now: float) -> float:
        tokens, last = self._buckets.pop(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - last) * self.rate)

    def ready(self, key: str) -> bool:
        """Whether ``key``'s bucket holds a call, taking nothing (see ``charge``)."""
        now = self._clock()
        tokens = self._refilled(key, now)
        self._buckets[key] = (tokens, now)
        self._trim()
        return tokens >= 1.0

    def charge(self, key: str) -> None:
        """Take one call from ``key``'s bucket after the fact, into debt down to
        ``-burst``: calls let through together by ``ready`` are all counted, and
        a caller who overdrew waits the debt out."""
        now = self._clock()
        tokens = self._refilled(key, now)
        self._buckets[key] = (max(-float(self.burst), tokens - 1.0), now)
        self._trim()

    def _trim(self) -> None:
        if len(self._buckets) > self._max:
            self._buckets.popitem(last=False)

    def describe(self) -> str:
        return f"at most {self.rate:g} calls a second per player (bursts of {self.burst})"


def caller_key(request: object, bearer: str, peer: str) -> str:
    """The key a player call is counted under (see the module)."""
    player_id = getattr(request, "player_id", "")
    if isinstance(player_id, str) and player_id:
        return f"player:{player_id}"
    if bearer:
        return "token:" + hashlib.sha256(bearer.encode()).hexdigest()[:32]
    return f"peer:{peer}"
