"""The dealer's ServiceSpec: its settings (``settings.DealerSettings``) and servicer."""

from __future__ import annotations

from poker.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from service_kit import ServiceSpec, servicer_spec
from service_kit.logs import get_logger

from .decks import DeckStore
from .servicer import ERROR_CODES, DealerServicer
from .settings import DealerSettings

SERVICE_NAME = dealer_pb2.DESCRIPTOR.services_by_name["Dealer"].full_name


def make_spec() -> ServiceSpec:
    """Read DEALER_* settings and build the service."""
    settings = DealerSettings.from_env()
    allow_presets = settings.allow_preset_decks
    store = DeckStore(
        max_decks=settings.max_decks,
        ttl=settings.deck_ttl_s,
        max_per_caller=settings.max_open_decks_per_caller,
    )
    if allow_presets:
        get_logger().warning("preset decks are allowed: tests and certification only")
    servicer = DealerServicer(store, allow_presets=allow_presets)
    return servicer_spec(
        "dealer", SERVICE_NAME, dealer_pb2_grpc.add_DealerServicer_to_server, servicer, ERROR_CODES
    )
