"""The Showdown gRPC servicer: a thin adapter over ``evaluation``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from poker.showdown.v1 import showdown_pb2 as pb
from poker.showdown.v1 import showdown_pb2_grpc as pb_grpc
from poker_rules.errors import InvalidConfigError
from service_kit.batches import Handler, answer_batches
from service_kit.errors import ErrorCodes

from .evaluation import evaluate, settle
from .metrics import SESSION_BATCH_CALLS, SESSION_CALLS

# The library's exceptions the adapter does not turn into a status itself: the
# unary calls' ErrorInterceptor and the Session's replies map them the same way.
ERROR_CODES: ErrorCodes = {InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT}


class ShowdownServicer(pb_grpc.ShowdownServicer):
    """Stateless: every answer follows from the request alone."""

    def __init__(self) -> None:
        self._calls: dict[str, Handler] = {"evaluate": self.Evaluate, "settle": self.Settle}

    async def Evaluate(self, request: pb.EvaluateRequest, context: Any) -> pb.EvaluateResponse:
        return evaluate(request)

    async def Settle(self, request: pb.SettleRequest, context: Any) -> pb.SettleResponse:
        return settle(request)

    async def Session(
        self, request_iterator: AsyncIterator[pb.SessionBatch], context: Any
    ) -> AsyncIterator[pb.SessionBatchReply]:
        """Evaluate and Settle in batches, each answered in order (see the proto)."""
        async for replies in answer_batches(
            request_iterator,
            pb.SessionBatchReply,
            self._calls,
            ERROR_CODES,
            context,
            SESSION_CALLS,
            SESSION_BATCH_CALLS,
        ):
            yield replies
