"""The startup heap, set aside from the garbage collector once a process is up.

Why: CPython's full (generation 2) collections walk every tracked object while
the event loop waits, so their pauses grow with the heap.  A service's startup
heap (modules, classes, protobuf descriptors, grpc and Prometheus objects: some
40,000 objects) lives as long as the process, so walking it again and again only
stalls every call in flight.  ``gc.freeze`` moves it to the permanent generation
after one last collection, and full collections then walk only what the process
allocated since (refcounting still frees frozen objects; only cycles among them
would stay, and the startup heap has none worth collecting).
"""

from __future__ import annotations

import gc


def freeze_startup_heap() -> int:
    """Collect once, then freeze everything alive; returns how many objects were frozen."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


__all__ = ["freeze_startup_heap"]
