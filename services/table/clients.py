"""The table service's downstream calls: one stub per service, every call with a
deadline (``service_kit.insecure_channel``) and counted.

The count is the table's cost per hand (issue 3 asks for "inter-service RPCs per
hand"): ``table_downstream_calls_total{service,method}`` on /metrics, and
``Downstream.calls`` for the hand runner's own per-hand figure in its logs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc

from poker.betting.v1 import betting_pb2_grpc
from poker.dealer.v1 import dealer_pb2_grpc
from poker.lobby.v1 import lobby_pb2_grpc
from poker.showdown.v1 import showdown_pb2_grpc
from service_kit import insecure_channel

from .metrics import DOWNSTREAM_CALLS, DOWNSTREAM_FAILURES


@dataclass(frozen=True)
class Addresses:
    lobby: str
    dealer: str
    betting: str
    showdown: str


class Downstream:
    """Stubs of the four services the table calls, over long-lived channels."""

    def __init__(self, addresses: Addresses, deadline: float | None = None) -> None:
        options = [("grpc.keepalive_time_ms", 30_000)]
        self._channels = {
            name: insecure_channel(getattr(addresses, name), deadline=deadline, options=options)
            for name in ("lobby", "dealer", "betting", "showdown")
        }
        self.lobby = lobby_pb2_grpc.LobbyStub(self._channels["lobby"])
        self.dealer = dealer_pb2_grpc.DealerStub(self._channels["dealer"])
        self.betting = betting_pb2_grpc.BettingStub(self._channels["betting"])
        self.showdown = showdown_pb2_grpc.ShowdownStub(self._channels["showdown"])
        self.calls = 0

    async def call(self, service: str, method: str, request: Any) -> Any:
        """``await stub.method(request)``, counted; failures are counted and raised
        (``grpc.aio.AioRpcError``) for the caller to void the hand or retry."""
        stub = getattr(self, service)
        self.calls += 1
        DOWNSTREAM_CALLS.labels(service, method).inc()
        try:
            return await getattr(stub, method)(request)
        except grpc.aio.AioRpcError as error:
            DOWNSTREAM_FAILURES.labels(service, method, error.code().name).inc()
            raise

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
