"""One card room per test worker, and the dealer's commitment audited for every hand.

The stack (``devroom.stack.Stack``: five processes on loopback) is started once per
xdist worker.  ``Room`` remembers every table the tests create; when the session
ends, every finished hand of every one of them is audited from the auditor's
reveal: the commitment published in HandStarted verifies against the revealed
order and secrets, and replaying the dealer's log gives exactly the cards dealt
(G4).  So "the commitment verifies" holds for every hand these tests played, not a
sample.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from devroom.stack import Stack

from .leaks import audit, first
from .room import STACK_ENV, Room


@pytest.fixture(scope="session")
def stack() -> Iterator[Stack]:
    with Stack(env=STACK_ENV) as running:
        yield running


@pytest.fixture(scope="session")
def room(stack: Stack) -> Iterator[Room]:
    room = Room(stack)
    yield room
    try:
        problems = audit_every_hand(room)
    finally:
        room.close()
    assert not problems, "\n".join(problems)


def audit_every_hand(room: Room) -> list[str]:
    """Audit the reveal of every finished hand at every table the tests created."""
    problems: list[str] = []
    for table_id in room.tables:
        hands = room.history(table_id, limit=100)
        played = room.summary(table_id).hands_played
        if played > len(hands):
            problems.append(f"table {table_id}: {played} hands, only {len(hands)} audited")
        for hand in hands:
            started = first(hand.events, "hand_started")
            if started is None:
                problems.append(f"{hand.hand_id}: no HandStarted")
                continue
            try:
                reveal = room.reveal(table_id, hand.hand_id)
            except grpc.RpcError as error:
                finished = first(hand.events, "hand_finished")
                if finished is not None and finished.hand_finished.voided:
                    continue  # voided before the deck was closed: nothing to reveal
                raise AssertionError(f"{hand.hand_id}: no reveal") from error
            problems += [f"{hand.hand_id}: {p}" for p in audit(reveal)]
            if reveal.commitment != started.hand_started.deck_commitment:
                problems.append(f"{hand.hand_id}: HandStarted carries another commitment")
            room.audited += 1
    return problems
