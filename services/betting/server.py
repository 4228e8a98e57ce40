"""The betting service's ServiceSpec."""

from __future__ import annotations

import grpc

from poker.betting.v1 import betting_pb2, betting_pb2_grpc
from poker_rules.errors import IllegalActionError, InvalidConfigError
from service_kit import ServiceSpec

from .servicer import BettingServicer

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
        error_codes={
            # Not on the menu, not your turn, nobody to act: the state cannot serve it.
            IllegalActionError: grpc.StatusCode.FAILED_PRECONDITION,
            InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT,
        },
    )
