"""The dev launcher's ``ports=BASE`` with more than one table shard: the first
shard takes the documented ports counted from the base, the others free ones
(shard 1 inherited shard 0's public port and failed to start: "port ... (public)
is in use")."""

from __future__ import annotations

import random

from devroom.ports import busy_port, gateway_ports_from, ports_from
from devroom.stack import Stack

SPAN = 16  # the ports a base covers: gRPC, metrics, two public, the gateway's two


def _free_base() -> int:
    """A base whose whole span of ports is free now (bounded tries)."""
    for _ in range(200):
        base = random.randrange(20_000, 32_000)  # below the ephemeral range
        if not any(busy_port("127.0.0.1", base + i) for i in range(SPAN)):
            return base
    raise RuntimeError("no free span of ports found")


def test_two_table_shards_on_a_base_port_each_get_their_own_ports() -> None:
    base = _free_base()
    with Stack(ports=base, table_shards=2) as stack:
        first, second = (stack.processes[name] for name in stack.table_names)
        assert first.target.endswith(f":{ports_from(base)['table'][0]}")
        assert len({first.public_port, second.public_port}) == 2
        assert second.public_port and first.public_port
        assert stack.gateway_target.endswith(f":{gateway_ports_from(base)[0]}")
