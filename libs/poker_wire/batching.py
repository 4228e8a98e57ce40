"""Batching a stream's messages: the one helper both sides of a batched stream use.

Why here: a bot playing many seats over one ``PlayMany`` stream and a service
calling another over one batched stream do the same thing, and client-side code
must not import server plumbing (``service_kit``), so the helper lives in the
layer both already share.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import TypeVar

Item = TypeVar("Item")
Batch = TypeVar("Batch")


async def drain(
    queue: asyncio.Queue[Item | None],
    new_batch: Callable[[], Batch],
    add: Callable[[Batch, Item], None],
    full: Callable[[Batch], bool] | None = None,
    fits: Callable[[Batch, Item], bool] | None = None,
) -> AsyncIterator[Batch]:
    """The messages of a batched stream: every item waiting in ``queue`` when the
    next message is due goes into it (``add``), so items queued while the last
    message was being written leave together, up to a batch that is ``full``
    (the rest leave in the next message: a backlog never makes one message
    larger than the receiver takes).  ``fits`` is the bound checked before an
    item joins a batch that already has one: an item that does not fit starts
    the next message, so a message of several items never passes the bound,
    however large the last item (one item larger than the bound leaves alone).
    None in the queue ends the stream (after the message it interrupts).

    >>> import asyncio
    >>> async def batches(full=None) -> list[list[int]]:
    ...     queue: asyncio.Queue[int | None] = asyncio.Queue()
    ...     for item in (1, 2, 3, None):
    ...         queue.put_nowait(item)
    ...     return [b async for b in drain(queue, list, list.append, full)]
    >>> asyncio.run(batches())
    [[1, 2, 3]]
    >>> asyncio.run(batches(lambda b: len(b) == 2))
    [[1, 2], [3]]
    >>> async def sized(fits) -> list[list[int]]:
    ...     queue: asyncio.Queue[int | None] = asyncio.Queue()
    ...     for item in (1, 2, 9, 3, None):
    ...         queue.put_nowait(item)
    ...     return [b async for b in drain(queue, list, list.append, fits=fits)]
    >>> asyncio.run(sized(lambda b, item: sum(b) + item <= 5))
    [[1, 2], [9], [3]]
    """
    item = await queue.get()
    while item is not None:
        batch = new_batch()
        ended = carried = False
        while True:
            add(batch, item)
            if (full is not None and full(batch)) or queue.empty():
                break
            waiting = queue.get_nowait()
            if waiting is None:
                ended = True
                break
            item = waiting
            if fits is not None and not fits(batch, item):
                carried = True  # it starts the next message
                break
        yield batch
        if ended:
            return
        if not carried:
            item = await queue.get()
