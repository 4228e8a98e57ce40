"""The player plane's rate limit and the player's token from metadata
(service_kit.ratelimit, service_kit.identity)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from service_kit.errors import InvalidArgumentError
from service_kit.identity import bearer_token, caller_identity, identity_of_uri, player_token
from service_kit.ratelimit import RateLimiter, caller_key


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_allowed_then_the_rate_refills_the_bucket() -> None:
    clock = Clock()
    limiter = RateLimiter(rate=2, burst=5, clock=clock)
    assert [limiter.allow("p") for _ in range(6)] == [True] * 5 + [False]
    assert not limiter.allow("p")
    clock.now += 0.5  # one call's worth at 2 a second
    assert limiter.allow("p")
    assert not limiter.allow("p")
    assert limiter.allow("q"), "another player has a bucket of their own"


def test_the_buckets_are_bounded_the_least_recent_dropped_first() -> None:
    limiter = RateLimiter(rate=1, burst=1, max_callers=3, clock=Clock())
    for key in "abcd":
        assert limiter.allow(key)
    assert not limiter.allow("d")
    assert limiter.allow("a"), "a was dropped (the oldest): it starts again with a full bucket"


def test_a_call_is_counted_by_its_player_else_its_token_else_its_connection() -> None:
    assert caller_key(SimpleNamespace(player_id="p-1"), "tok", "ipv4:1") == "player:p-1"
    by_token = caller_key(SimpleNamespace(player_id=""), "tok", "ipv4:1")
    assert by_token.startswith("token:")
    assert "secret-token" not in caller_key(object(), "secret-token", "p")  # only its hash
    assert caller_key(object(), "", "ipv4:127.0.0.1:5") == "peer:ipv4:127.0.0.1:5"


def context(metadata: tuple[tuple[str, str], ...] = (), spiffe: str = "") -> SimpleNamespace:
    auth = {"peer_spiffe_id": [spiffe.encode()]} if spiffe else {}
    return SimpleNamespace(invocation_metadata=lambda: metadata, auth_context=lambda: auth)


def test_the_token_comes_from_the_request_or_the_bearer_metadata() -> None:
    assert bearer_token(context((("authorization", "Bearer abc"),))) == "abc"
    assert bearer_token(context((("authorization", "bearer  abc "),))) == "abc"
    assert bearer_token(context((("authorization", "Basic abc"),))) == ""
    assert player_token("abc", context()) == "abc"
    assert player_token("", context((("authorization", "Bearer xyz"),))) == "xyz"
    assert player_token("xyz", context((("authorization", "Bearer xyz"),))) == "xyz"
    with pytest.raises(InvalidArgumentError, match="different tokens"):
        player_token("abc", context((("authorization", "Bearer xyz"),)))


def test_an_identity_is_the_spiffe_uri_of_our_trust_domain_only() -> None:
    assert identity_of_uri("spiffe://cardroom.local/table") == "table"
    assert identity_of_uri("spiffe://elsewhere/table") is None
    assert identity_of_uri("spiffe://cardroom.local/a/b") is None
    assert identity_of_uri("spiffe://cardroom.local/") is None
    assert caller_identity(context(spiffe="spiffe://cardroom.local/operator")) == "operator"
    assert caller_identity(context()) is None
