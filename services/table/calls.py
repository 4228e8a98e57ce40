"""One hand's downstream calls: counted for the hand, and what a failure means.

The ``Downstream`` is shared by every table of the process, so its own count is no
hand's; each hand counts its calls here (``HandResult.rpc_calls``, the "hand
finished" log line).  A call the hand cannot do without voids the hand
(``HandVoided``): the table reports it voided and the lobby keeps every stack as
before it.
"""

from __future__ import annotations

from typing import Any

from .clients import Downstream, DownstreamError


class HandVoided(Exception):  # noqa: N818 - an outcome of the hand, named as such
    """A downstream failure the hand cannot survive: void it (chips as before)."""


class HandCalls:
    """The calls of one hand, over the process's ``Downstream``."""

    def __init__(self, downstream: Downstream) -> None:
        self.downstream = downstream
        self.count = 0

    async def call(self, service: str, method: str, request: Any) -> Any:
        """A call whose failure voids the hand (``HandVoided``)."""
        self.count += 1
        try:
            return await self.downstream.call(service, method, request)
        except DownstreamError as error:
            raise HandVoided(
                f"{service}.{method}: {error.code().name} {error.details()}"
            ) from error

    async def attempt(self, service: str, method: str, request: Any) -> Any:
        """A call whose refusal the caller handles: raises ``DownstreamError``."""
        self.count += 1
        return await self.downstream.call(service, method, request)
