"""The Showdown gRPC servicer: a thin adapter over ``evaluation``."""

from __future__ import annotations

from typing import Any

from poker.showdown.v1 import showdown_pb2 as pb
from poker.showdown.v1 import showdown_pb2_grpc as pb_grpc

from .evaluation import evaluate, settle


class ShowdownServicer(pb_grpc.ShowdownServicer):
    """Stateless: every answer follows from the request alone."""

    async def Evaluate(self, request: pb.EvaluateRequest, context: Any) -> pb.EvaluateResponse:
        return evaluate(request)

    async def Settle(self, request: pb.SettleRequest, context: Any) -> pb.SettleResponse:
        return settle(request)
