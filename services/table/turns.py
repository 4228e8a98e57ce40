"""The seat's pending decision: between the hand runner and the player's stream.

The runner opens a turn (``open``) and waits for its answer until the action
clock runs out (``answer``, S10); the player's stream posts at most one answer per
turn (``post``), after the hand checked it against the turn.  An answer the
betting service refuses is dropped (``drop``) and the clock keeps running; the
turn ends when an answer or the clock's timeout is applied (``close``).
"""

from __future__ import annotations

import asyncio

from poker.common.v1 import common_pb2 as common

from . import facts as f


def _resolve(future: asyncio.Future[None]) -> None:
    """Timer: the action clock ran out (the waiter then finds no answer)."""
    if not future.done():
        future.set_result(None)


class TurnBox:
    """The turn in progress, if any, and the answer taken for it."""

    def __init__(self) -> None:
        self.turn: f.Turn | None = None
        self._answer: common.Action | None = None
        # Resolved when an answer arrives (or the clock runs out): what ``answer``
        # awaits.
        self._arrived: asyncio.Future[None] | None = None

    @property
    def answered(self) -> bool:
        """An answer to this turn is taken (being applied): no second one."""
        return self._answer is not None

    def open(self, turn: f.Turn) -> None:
        """A new turn, no answer yet (tell the seat after this: it may answer at once)."""
        self._answer = None
        self.turn = turn

    def post(self, action: common.Action) -> None:
        """The seat's answer to the open turn, already checked against it."""
        self._answer = action
        if self._arrived is not None and not self._arrived.done():
            self._arrived.set_result(None)

    def drop(self) -> None:
        """The answer was refused: the turn waits for another, on the same clock."""
        self._answer = None

    def close(self) -> None:
        """The turn is over (its answer or the timeout applied, or the hand voided)."""
        self.turn = None
        self._answer = None

    async def answer(self, deadline: float) -> common.Action | None:
        """The answer, waiting for it until ``deadline`` (the event loop's clock);
        None when the clock ran out first."""
        loop = asyncio.get_running_loop()
        remaining = deadline - loop.time()
        if self._answer is None and remaining > 0:
            # One future and one timer per wait (asyncio.wait_for would add a task
            # per decision on the table's hottest path).
            arrived = self._arrived = loop.create_future()
            timer = loop.call_later(remaining, _resolve, arrived)
            try:
                await arrived
            finally:
                timer.cancel()
                self._arrived = None
        return self._answer
