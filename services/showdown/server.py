"""The showdown's ServiceSpec."""

from __future__ import annotations

from poker.showdown.v1 import showdown_pb2, showdown_pb2_grpc
from service_kit import ServiceSpec, servicer_spec

from .servicer import ERROR_CODES, ShowdownServicer

SERVICE_NAME = showdown_pb2.DESCRIPTOR.services_by_name["Showdown"].full_name


def make_spec() -> ServiceSpec:
    """The stateless showdown service (no settings of its own)."""
    servicer = ShowdownServicer()
    return servicer_spec(
        "showdown",
        SERVICE_NAME,
        showdown_pb2_grpc.add_ShowdownServicer_to_server,
        servicer,
        ERROR_CODES,
    )
