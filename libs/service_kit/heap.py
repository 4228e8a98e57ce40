"""The heap and CPython's garbage collector in a long-running service.

Why: CPython's full (generation 2) collections walk every tracked object while
the event loop waits, so their pauses grow with the heap, and every call in
flight waits them out.  Three measures:

- **The startup heap** (modules, classes, protobuf descriptors, grpc and
  Prometheus objects: some 40,000 objects) lives as long as the process, so
  walking it again and again only stalls every call.  ``freeze_startup_heap``
  moves it to the permanent generation after one last collection, and full
  collections then walk only what the process allocated since (refcounting
  still frees frozen objects; only cycles among them would stay, and the
  startup heap has none worth collecting).
- **Full collections when memory grew, not when objects were promoted**
  (``FullCollections``).  CPython starts a full collection once the objects
  promoted to the oldest generation since the last one pass a quarter of it,
  whether or not any of them is garbage.  A table process at 1,000 tables holds
  some 290,000 live objects (each hand in progress: its facts, the seats'
  views, the sessions), a new hand's objects are promoted and die by
  refcounting some 20 s later, and so a full collection ran every 5-25 s,
  found nothing (``collected=0`` in every one of them, bench ``scale``) and
  stopped all 1,000 tables for 150-290 ms of CPU (the bots' process likewise,
  up to 350 ms): those pauses were the scale bench's p99.  Garbage a full
  collection can find is a reference cycle that outlived two young
  collections, and while it stays it takes memory: so here the oldest
  generation is collected when the process's resident memory has grown by
  ``growth`` (a share) since the last full collection, checked every
  ``check_s`` seconds.  The default, 1.0 (collect when memory doubled), is
  Go's GOGC=100, the field's usual trade of memory for pauses.  Memory stays
  bounded (at most that share above what the last full collection left; a
  room that grows collects a few times on the way, each doubling once), and a
  process whose garbage dies young never pauses for nothing.
- **No young collections either** (``young=False``, the default of every
  service but the lobby).  A ``gc.callbacks`` probe in every process of the
  1,000-table bench (docs/performance.md#scale-group-scale) found the table
  process's young collections walking 2,000-13,000 live objects each (the
  coroutines of the seats' turns, the timers, the hands' facts), some 1,400 of
  them and 125 middle ones in 100 s: 2.4 s of pauses, 27 of them over 20 ms (up
  to 68 ms), and all of them together collecting under a thousand objects, about
  nothing.  The bench's bots' process likewise (pauses up to 131 ms; 700
  objects found).  Refcounting frees everything else the moment it dies, so
  here the collector runs only on memory growth, as above: a cycle that does
  form waits for the next full collection, and memory stays within the same
  bound.  The lobby makes cycles (its young collections found some 1,400
  objects a second), so it keeps CPython's young collections.

``GC_FULL_GROWTH`` (service_kit.settings) sets ``growth``; 0 keeps CPython's own
rule, young collections included.  ``GC_YOUNG_COLLECTIONS`` sets ``young``.
Where /proc/self/statm cannot be read, CPython's rule stays.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
from collections.abc import Callable
from dataclasses import dataclass

from .logs import get_logger

NEVER = 2**31 - 1  # gc.set_threshold's largest: no full collection by count

log = get_logger()


def freeze_startup_heap() -> int:
    """Collect once, then freeze everything alive; returns how many objects were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


def resident_bytes() -> int | None:
    """The process's resident set (/proc/self/statm), None where unreadable."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            pages = int(statm.read().split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


@dataclass
class FullCollections:
    """Generation-2 collections on memory growth (module doc): ``start`` on the
    running loop, ``stop`` to give CPython its own rule back."""

    growth: float = 1.0
    young: bool = True  # CPython's young collections too (False: memory growth alone)
    check_s: float = 2.0
    rss: Callable[[], int | None] = resident_bytes
    baseline: int = 0  # resident bytes after the last full collection
    collections: int = 0  # full collections this policy ran
    _saved: tuple[int, int, int] | None = None  # CPython's thresholds, while installed
    _task: asyncio.Task[None] | None = None

    def install(self) -> bool:
        """Stop CPython's count-triggered full collections (and its young ones
        unless ``young``); False (nothing changed) when the policy is off or
        memory cannot be read."""
        now = self.rss()
        if self.growth <= 0 or now is None:
            return False
        self.baseline = now
        self._saved = gc.get_threshold()
        young, middle, _ = self._saved
        # A first threshold of 0 stops every automatic collection: only ``check``
        # collects then.
        gc.set_threshold(young if self.young else 0, middle, NEVER)
        return True

    def uninstall(self) -> None:
        """CPython's own thresholds back (an in-process server in the tests
        must not leave its process without full collections)."""
        if self._saved is not None:
            gc.set_threshold(*self._saved)
            self._saved = None

    def check(self) -> bool:
        """One check: a full collection if memory grew past the share; whether
        one ran."""
        now = self.rss()
        if now is None or now <= self.baseline * (1 + self.growth):
            return False
        found = gc.collect(2)
        self.collections += 1
        after = self.rss()
        self.baseline = now if after is None else after
        log.info(
            "full collection on memory growth",
            resident_mb=round(now / 2**20, 1),
            after_mb=round(self.baseline / 2**20, 1),
            collected=found,
        )
        return True

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.check_s)
            self.check()

    def start(self) -> bool:
        """``install``, then ``check`` every ``check_s`` seconds on the running
        loop; False when the policy cannot run (CPython's rule stays)."""
        if not self.install():
            return False
        self._task = asyncio.get_running_loop().create_task(self._run(), name="full collections")
        return True

    async def stop(self) -> None:
        """Stop checking and ``uninstall``."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None
        self.uninstall()


__all__ = ["FullCollections", "freeze_startup_heap", "resident_bytes"]
