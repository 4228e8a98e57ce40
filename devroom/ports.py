"""How the room on one machine picks its services' ports, and checks them first.

``--ports fixed`` is the services' own default table (``service_kit.ports``),
``free`` lets every process pick free ports, and a base port counts ten ports from
it (``ports_from``).  A launcher checks the ports it means to bind before starting
anything (``busy_port``): a port still held (by a room that was not stopped, say)
is then one clear line naming the port and the service, not a service's bind
failure deep in a log.
"""

from __future__ import annotations

import argparse
from typing import Final, Literal

from service_kit.ports import DEFAULT_PUBLIC_PORTS, SERVICES
from service_kit.process import port_in_use

HIGHEST_BASE: Final = 65535 - 2 * len(SERVICES) - len(DEFAULT_PUBLIC_PORTS) - 2 + 1
# How a launcher picks ports: the services' defaults, any free ones, or from a base port.
Ports = Literal["fixed", "free"] | int
# ``--ports BASE`` in a launcher's help: every port counted from the base.
BASE_HELP: Final = (
    "BASE (a number): gRPC on BASE..BASE+4, /metrics on BASE+5..BASE+9, the lobby's "
    "and the table's public ports BASE+10 and BASE+11, the gateway's door BASE+12 and "
    "its /metrics BASE+13"
)


class PortInUseError(RuntimeError):
    """A port a service is to listen on is held by another socket."""

    def __init__(self, port: int, service: str, what: str = "") -> None:
        self.port = port
        self.service = service
        label = f"{service} {what}".strip()
        super().__init__(f"port {port} ({label}) is in use")


def ports_from(base: int) -> dict[str, tuple[int, int]]:
    """Ports counted from ``base``: gRPC on base..base+4 and ``/metrics`` on
    base+5..base+9, in the order of ``SERVICES`` (the public ports follow,
    ``public_port_from``) (so a room can run beside
    another, or a test can point one at a port it holds)."""
    if not 1 <= base <= HIGHEST_BASE:
        raise ValueError(f"a base port must be 1..{HIGHEST_BASE}, got {base}")
    n = len(SERVICES)
    return {name: (base + i, base + n + i) for i, name in enumerate(SERVICES)}


def public_port_from(base: int, service: str) -> int | None:
    """The public (player plane) port of ``service`` counted from ``base``: after
    the gRPC and metrics ports, base+10 for the lobby and base+11 for the table;
    None for a service without one."""
    names = tuple(DEFAULT_PUBLIC_PORTS)
    if service not in names:
        return None
    return base + 2 * len(SERVICES) + names.index(service)


def gateway_ports_from(base: int) -> tuple[int, int]:
    """The gateway's (public, metrics) ports counted from ``base``: after the
    services' public ports."""
    first = base + 2 * len(SERVICES) + len(DEFAULT_PUBLIC_PORTS)
    return first, first + 1


def busy_port(host: str, port: int) -> bool:
    """Whether ``host:port`` is held by another socket (``service_kit.process``)."""
    return port_in_use(host, port)


def ports_option(value: str) -> Ports:
    """``--ports``: fixed, free, or a base port."""
    if value in ("fixed", "free"):
        return "fixed" if value == "fixed" else "free"
    try:
        base = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected fixed, free or a base port, got {value!r}"
        ) from None
    if not 1024 <= base <= HIGHEST_BASE:
        raise argparse.ArgumentTypeError(f"a base port must be 1024..{HIGHEST_BASE}, got {base}")
    return base
