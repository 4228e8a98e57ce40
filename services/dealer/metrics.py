"""The dealer's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

from service_kit.metrics import batch_metrics

DECKS_OPENED = Counter(
    "dealer_decks_opened", "Decks opened, by game and preset.", ("game", "preset")
)
DECKS_CLOSED = Counter("dealer_decks_closed", "Decks closed and revealed.")
DECKS_EXPIRED = Counter("dealer_decks_expired", "Decks dropped unclosed after DEALER_DECK_TTL_S.")
DECKS_OPEN = Gauge("dealer_decks_open", "Decks currently open.")
RIVER_DEALS = Counter("dealer_river_deals", "Seventh streets dealt, by S11 outcome.", ("outcome",))
RESHUFFLES = Counter(
    "dealer_reshuffles", "Mid-hand reshuffles, by reason (river S11, draw D6).", ("reason",)
)
CARDS_DEALT = Counter("dealer_cards_dealt", "Cards dealt to players (burns excluded).")
CARDS_RETURNED = Counter(
    "dealer_cards_returned",
    "Cards dealt ahead and given back unused (return_unused: their players folded).",
)
BATCHED_CALLS, BATCH_SIZE = batch_metrics("dealer")
