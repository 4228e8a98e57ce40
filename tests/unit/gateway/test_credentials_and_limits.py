"""Who is calling through the door, and how often they may (credentials, limits)."""

from __future__ import annotations

import asyncio

import grpc
import pytest

from service_kit.errors import InvalidArgumentError, ResourceExhaustedError
from services.gateway.credentials import (
    Credentials,
    Player,
    UnauthenticatedError,
    bearer_of,
    credential,
    parse,
)
from services.gateway.limits import Limits

HERE = "10.0.0.9:5000"


def test_the_credential_is_the_player_id_and_token_split_at_the_last_dot() -> None:
    made = credential("p-1.b", "tok-_en")
    assert made == "p-1.b.tok-_en"
    assert parse(made) == Player("p-1.b", "tok-_en")
    for malformed in ("nodot", ".token", "p-1.", "x" * 300):
        with pytest.raises(InvalidArgumentError):
            parse(malformed)


def test_only_a_bearer_header_carries_a_credential() -> None:
    assert bearer_of("Bearer abc.def") == "abc.def"
    assert bearer_of("bearer   abc.def ") == "abc.def"
    assert bearer_of("Basic abc") == ""
    assert bearer_of(None) == ""


class Lobby:
    """The lobby's answers to GetPlayer: accepts one token, counts the asks."""

    def __init__(self) -> None:
        self.asked = 0

    async def check(self, player: Player) -> None:
        self.asked += 1
        await asyncio.sleep(0)  # an answer over the network: other calls run meanwhile
        if player.token != "right":
            code = (
                grpc.StatusCode.NOT_FOUND
                if player.player_id == "p-ghost"
                else grpc.StatusCode.PERMISSION_DENIED
            )
            raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), "no")


def test_an_accepted_credential_is_remembered_and_a_refused_one_is_not() -> None:
    async def scenario() -> None:
        lobby = Lobby()
        now = [0.0]
        cache = Credentials(lobby.check, 30.0, clock=lambda: now[0])
        assert await cache.player("Bearer p-1.right", HERE) == Player("p-1", "right")
        assert await cache.player("Bearer p-1.right", HERE) == Player("p-1", "right")
        assert lobby.asked == 1
        now[0] = 31.0  # past the cache time: asked again
        await cache.player("Bearer p-1.right", HERE)
        assert lobby.asked == 2
        for wrong in ("Bearer p-1.wrong", "Bearer p-ghost.wrong"):
            for _ in range(2):
                with pytest.raises(UnauthenticatedError) as refused:
                    await cache.player(wrong, HERE)
                # One answer for a wrong token and an unknown player.
                assert "not accepted" in refused.value.message
        assert lobby.asked == 6
        with pytest.raises(UnauthenticatedError):
            await cache.player(None, HERE)
        assert await cache.optional(None, HERE) is None

    asyncio.run(scenario())


def test_limits_refuse_past_the_burst_and_say_the_limit() -> None:
    limits = Limits(calls_per_s=1.0, burst=3, registrations_per_min=1.0)
    for _ in range(3):
        limits.player("p-1")
    with pytest.raises(ResourceExhaustedError) as error:
        limits.player("p-1")
    assert "per player" in error.value.message
    limits.player("p-2")  # another player has a bucket of their own
    for _ in range(3):
        limits.address("10.0.0.1:5000")
    with pytest.raises(ResourceExhaustedError):
        limits.address("10.0.0.1:6000")  # the same address, another port
    for _ in range(20):
        limits.registration("10.0.0.2:1")
    with pytest.raises(ResourceExhaustedError) as registrations:
        limits.registration("10.0.0.2:2")
    assert "registrations" in registrations.value.message


def test_refused_credentials_spend_the_address_limit_before_the_lobby_is_asked() -> None:
    """A client guessing tokens gets RESOURCE_EXHAUSTED once its address has had
    a burst refused, and the lobby is not asked again; a player whose credential
    was accepted plays on from the same address, and another address is not
    touched."""

    async def scenario() -> None:
        lobby = Lobby()
        now = [0.0]
        limits = Limits(calls_per_s=1.0, burst=3, registrations_per_min=1.0, clock=lambda: now[0])
        cache = Credentials(lobby.check, 30.0, limits=limits, clock=lambda: now[0])
        assert await cache.player("Bearer p-1.right", HERE) == Player("p-1", "right")
        for _ in range(3):
            with pytest.raises(UnauthenticatedError):
                await cache.player("Bearer p-2.wrong", HERE)
        asked = lobby.asked
        for _ in range(5):
            with pytest.raises(ResourceExhaustedError) as limited:
                await cache.player("Bearer p-2.wrong", "10.0.0.9:6000")  # another port
            assert "refused credentials" in limited.value.message
        assert lobby.asked == asked  # the lobby was not asked
        assert await cache.player("Bearer p-1.right", HERE) == Player("p-1", "right")
        with pytest.raises(UnauthenticatedError):
            await cache.player("Bearer p-2.wrong", "10.0.0.8:5000")
        limits.address(HERE)  # calls without a credential have a bucket of their own

    asyncio.run(scenario())


def test_calls_without_a_credential_do_not_keep_new_players_out() -> None:
    """Browsing without a credential spends its own bucket: a player signing in
    from the same address is still checked."""

    async def scenario() -> None:
        lobby = Lobby()
        limits = Limits(calls_per_s=1.0, burst=3, registrations_per_min=1.0, clock=lambda: 0.0)
        cache = Credentials(lobby.check, 30.0, limits=limits, clock=lambda: 0.0)
        for _ in range(3):
            limits.address(HERE)
        with pytest.raises(ResourceExhaustedError):
            limits.address(HERE)
        assert await cache.player("Bearer p-1.right", HERE) == Player("p-1", "right")

    asyncio.run(scenario())


def test_refusals_let_through_together_are_all_counted() -> None:
    """Many wrong credentials in flight at once each reach the lobby (they were
    all within the limit when they came), but each refusal is charged, so the
    address then waits the whole overdraft out."""

    async def scenario() -> None:
        lobby = Lobby()
        now = [0.0]
        limits = Limits(calls_per_s=1.0, burst=3, registrations_per_min=1.0, clock=lambda: now[0])
        cache = Credentials(lobby.check, 30.0, limits=limits, clock=lambda: now[0])
        results = await asyncio.gather(
            *(cache.player(f"Bearer p-{i}.wrong", HERE) for i in range(6)),
            return_exceptions=True,
        )
        assert all(isinstance(r, UnauthenticatedError) for r in results)
        now[0] = 3.5  # six charged to a burst of three: -3, plus 3.5 refilled, short of one
        with pytest.raises(ResourceExhaustedError):
            await cache.player("Bearer p-1.right", HERE)
        now[0] = 4.5
        assert await cache.player("Bearer p-1.right", HERE) == Player("p-1", "right")

    asyncio.run(scenario())
