"""Default ports of the services on one machine (PORT / METRICS_PORT override them).

======== ===== ============
service  gRPC  /metrics
======== ===== ============
dealer   50051 9101
betting  50052 9102
showdown 50053 9103
lobby    50054 9104
table    50055 9105
======== ===== ============
"""

from __future__ import annotations

from typing import Final

DEFAULT_PORTS: Final[dict[str, tuple[int, int]]] = {
    "dealer": (50051, 9101),
    "betting": (50052, 9102),
    "showdown": (50053, 9103),
    "lobby": (50054, 9104),
    "table": (50055, 9105),
}
