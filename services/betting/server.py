"""The betting service's ServiceSpec."""

from __future__ import annotations

from poker.betting.v1 import betting_pb2, betting_pb2_grpc
from service_kit import ServiceSpec, servicer_spec

from .servicer import ERROR_CODES, BettingServicer

SERVICE_NAME = betting_pb2.DESCRIPTOR.services_by_name["Betting"].full_name


def make_spec() -> ServiceSpec:
    """The stateless betting service (no settings of its own)."""
    servicer = BettingServicer()
    return servicer_spec(
        "betting",
        SERVICE_NAME,
        betting_pb2_grpc.add_BettingServicer_to_server,
        servicer,
        ERROR_CODES,
    )
