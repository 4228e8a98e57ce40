"""The betting service's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

from prometheus_client import Counter

ACTIONS = Counter("betting_actions", "Actions applied, by game and kind.", ("game", "kind"))
TIMEOUTS = Counter(
    "betting_timeouts",
    "Action clocks run out (S10), by game and what the clock did "
    "(fold, check, bring_in, discard, all_in_protection).",
    ("game", "outcome"),
)
ROUNDS_STARTED = Counter(
    "betting_rounds_started", "Rounds opened, by game and street.", ("game", "street")
)
HANDS_UNCONTESTED = Counter(
    "betting_hands_uncontested", "Hands won without a showdown (G6), by game.", ("game",)
)
SESSION_CALLS = Counter(
    "betting_session_calls",
    "Calls answered on Session streams, by method and status code.",
    ("method", "code"),
)
