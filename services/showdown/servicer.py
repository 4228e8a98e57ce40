"""The Showdown gRPC servicer: a thin adapter over ``evaluation``."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import grpc

from poker.common.v1.batch_pb2 import CallBatch, ReplyBatch
from poker.showdown.v1 import showdown_pb2 as pb
from poker.showdown.v1 import showdown_pb2_grpc as pb_grpc
from poker_rules.errors import InvalidConfigError
from service_kit.batches import BatchServer
from service_kit.errors import ErrorCodes

from .evaluation import evaluate, settle
from .metrics import BATCH_SIZE, BATCHED_CALLS

# Every method is called by grpc.aio with its servicer context.
Context = grpc.aio.ServicerContext[Any, Any]

# The library's exceptions the adapter does not turn into a status itself: the
# unary calls' ErrorInterceptor and the Batch stream's replies map them the same way.
ERROR_CODES: ErrorCodes = {InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT}


class ShowdownServicer(pb_grpc.ShowdownServicer):
    """Stateless: every answer follows from the request alone."""

    def __init__(self) -> None:
        self._batch = BatchServer(
            pb.DESCRIPTOR.services_by_name["Showdown"], self, ERROR_CODES, BATCHED_CALLS, BATCH_SIZE
        )

    async def Evaluate(self, request: pb.EvaluateRequest, context: Context) -> pb.EvaluateResponse:
        return evaluate(request)

    async def Settle(self, request: pb.SettleRequest, context: Context) -> pb.SettleResponse:
        return settle(request)

    async def Batch(
        self, request_iterator: AsyncIterator[CallBatch], context: Context
    ) -> AsyncIterator[ReplyBatch]:
        """Evaluate and Settle in batches, each answered in order (see the proto)."""
        async for replies in self._batch.answer(request_iterator, context):
            yield replies
