"""The lobby's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

PLAYERS_REGISTERED = Counter("lobby_players_registered", "Players registered.")
CHIPS_GRANTED = Counter("lobby_chips_granted", "Play money granted at registration.")
TABLES = Gauge("lobby_tables", "Ring tables, by game.", ("game",))
SEATED = Gauge("lobby_seated_players", "Players seated at tables, by game.", ("game",))
BUY_INS = Counter("lobby_buy_ins", "Buy-ins (SitDown), by game.", ("game",))
BUY_IN_CHIPS = Counter("lobby_buy_in_chips", "Chips moved from balances to tables.", ("game",))
CASH_OUTS = Counter(
    "lobby_cash_outs",
    "Seats left with their chips returned, by game and reason "
    "(stand_up, seat_lost for B5, restart).",
    ("game", "reason"),
)
CASH_OUT_CHIPS = Counter(
    "lobby_cash_out_chips", "Chips moved from tables back to balances.", ("game", "reason")
)
HANDS_PLANNED = Counter("lobby_hands_planned", "Hands planned by NextHand, by game.", ("game",))
HANDS_FINISHED = Counter("lobby_hands_finished", "Hands finished, by game.", ("game",))
HANDS_VOIDED = Counter("lobby_hands_voided", "Hands voided, by game.", ("game",))
