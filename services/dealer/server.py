"""The dealer's ServiceSpec: its settings (see the package docstring) and servicer."""

from __future__ import annotations

import grpc

from poker.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from service_kit import ServiceSpec
from service_kit.logs import get_logger
from service_kit.settings import env_bool, env_float, env_int

from .decks import DeckStore
from .servicer import ERROR_CODES, DealerServicer

SERVICE_NAME = dealer_pb2.DESCRIPTOR.services_by_name["Dealer"].full_name


def make_spec() -> ServiceSpec:
    """Read DEALER_* settings and build the service."""
    allow_presets = env_bool("DEALER_ALLOW_PRESET_DECKS", False)
    store = DeckStore(
        max_decks=env_int("DEALER_MAX_DECKS", 10_000, minimum=1),
        ttl=env_float("DEALER_DECK_TTL_S", 3600.0, minimum=1.0),
    )
    if allow_presets:
        get_logger().warning("preset decks are allowed: tests and certification only")
    servicer = DealerServicer(store, allow_presets=allow_presets)

    def register(server: grpc.aio.Server) -> None:
        dealer_pb2_grpc.add_DealerServicer_to_server(servicer, server)

    return ServiceSpec(
        name="dealer",
        service_names=(SERVICE_NAME,),
        register=register,
        error_codes=ERROR_CODES,
    )
