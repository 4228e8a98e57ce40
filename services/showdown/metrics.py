"""The showdown's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from poker_rules.config import Game
from service_kit.metrics import batch_metrics

POTS_SETTLED = Counter("showdown_pots_settled", "Pots split at showdown, by game.", ("game",))
POT_SIZE = Histogram(
    "showdown_pot_size_chips",
    "Size of each pot settled, in the smallest chip.",
    ("game",),
    buckets=(
        10,
        50,
        100,
        500,
        1_000,
        5_000,
        10_000,
        50_000,
        100_000,
        500_000,
        1_000_000,
        10_000_000,
    ),
)
BATCHED_CALLS, BATCH_SIZE = batch_metrics("showdown")
HANDS_EVALUATED = Counter("showdown_hands_evaluated", "Hands scored, by game.", ("game",))

# Per-game series exist from the first scrape at 0 (rate() defined before a game's
# first showdown; dashboards show 0, not "no data").
for _game in Game:
    POTS_SETTLED.labels(_game.value)
    HANDS_EVALUATED.labels(_game.value)
