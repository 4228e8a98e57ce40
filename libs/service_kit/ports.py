"""The services' default ports on one machine (PORT / METRICS_PORT override them).

======== ===== ============ =========
service  gRPC  /metrics     public
======== ===== ============ =========
dealer   50051 9101
betting  50052 9102
showdown 50053 9103
lobby    50054 9104         50064
table    50055 9105         50065
gateway        9106         50050
======== ===== ============ =========

gRPC is the internal plane (mutual TLS); public is the player plane of the
lobby and the table (server TLS, no client certificate).  The gateway, the
room's one public door (services/gateway), has only a public port: it serves
the public API over gRPC, gRPC-Web and Connect, and calls the others' internal
ports.

A service listens on its row when started without PORT / METRICS_PORT, and the
table service dials the others at theirs unless ``TABLE_<SERVICE>_ADDR`` says
otherwise; the development room (``devroom``) binds them with ``--ports fixed``.
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
"""service name -> (gRPC port, metrics port)."""
DEFAULT_PUBLIC_PORTS: Final[dict[str, int]] = {"lobby": 50064, "table": 50065}
"""The player plane's port (PUBLIC_PORT) of the two services that serve it."""
DEFAULT_GATEWAY_PORT: Final = 50050
"""The gateway's public port: the room's one door (PUBLIC_PORT of the gateway)."""
GATEWAY_METRICS_PORT: Final = 9106
SERVICES: Final = tuple(DEFAULT_PORTS)
"""The five services in their start order: the table, which dials the others, last."""
