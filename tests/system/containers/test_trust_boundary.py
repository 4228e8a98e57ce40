"""The trust boundary, played as a hostile client against the containers: the
same attacks as against the local room (tests/system/security/test_trust_boundary.py),
on the service images as they ship, each with its certificate mounted.

Every internal method of every service is refused without a certificate (on the
public port: UNAUTHENTICATED; on the internal port: no handshake) and with every
identity its proto does not list (PERMISSION_DENIED), the chip-rewrite attack and
a player's self-granted balance are refused, and nothing changes.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.system.security.hostile import (
    INTERNAL,
    attack_every_internal_method,
    chip_rewrite_attack,
    hold_hands,
    self_grant_attack,
)

from .stack import ContainerStack

pytestmark = pytest.mark.xdist_group("containers")


class ContainerEndpoints:
    """The containers' ports (host network) and their PKI."""

    def __init__(self, stack: ContainerStack) -> None:
        self.pki = stack.pki
        self._stack = stack

    def internal(self, name: str) -> str:
        return self._stack.target(name)

    def public(self, name: str) -> str | None:
        return self._stack.public_target(name) if self._stack[name].public_port else None


def test_the_containers_refuse_every_internal_call_they_must(stack: ContainerStack) -> None:
    async def attack() -> list[str]:
        hostile = await hold_hands(ContainerEndpoints(stack))
        wrong = await attack_every_internal_method(hostile)
        await chip_rewrite_attack(hostile)
        await self_grant_attack(hostile)
        return wrong

    assert asyncio.run(attack()) == []
    assert len(INTERNAL) >= 25
