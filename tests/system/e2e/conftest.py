"""Fixtures of the end-to-end tests: the whole room (five processes) per module.

Each test module gets its own :class:`devroom.stack.Stack` on free ports (xdist
workers never share one) and a :class:`tests.support.room.Room` over it.  When the
module is done, the room checks what must hold whatever the tests did: chips are
conserved (lobby ``GetLedgerTotals``: granted == balances + at_tables) and every
hand finished at any table the module created has a deck reveal that verifies
(commitment and replay, ``services.dealer.audit``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from devroom.stack import Stack
from tests.support.room import Room
from tests.support.stacks import stack_env, stop_stack


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    running = Stack(env=stack_env()).start()
    try:
        yield running
    finally:
        stop_stack(running)


@pytest.fixture(scope="module")
def room(stack: Stack) -> Iterator[Room]:
    room = Room(stack)
    try:
        yield room
        problems = room.audit_all()
        assert problems == {}, f"deck reveals that do not verify: {problems}"
        room.assert_chips_conserved()
    finally:
        room.close()
