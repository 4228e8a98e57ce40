"""The betting service's ServiceSpec."""

from __future__ import annotations

import grpc

from poker.betting.v1 import betting_pb2, betting_pb2_grpc
from service_kit import ServiceSpec

from .servicer import ERROR_CODES, BettingServicer

SERVICE_NAME = betting_pb2.DESCRIPTOR.services_by_name["Betting"].full_name


def make_spec() -> ServiceSpec:
    """The stateless betting service (no settings of its own)."""
    servicer = BettingServicer()

    def register(server: grpc.aio.Server) -> None:
        betting_pb2_grpc.add_BettingServicer_to_server(servicer, server)

    return ServiceSpec(
        name="betting",
        service_names=(SERVICE_NAME,),
        register=register,
        error_codes=ERROR_CODES,
    )
