"""The betting service's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

from prometheus_client import Counter

from poker_rules.config import Game
from service_kit.metrics import batch_metrics

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
BATCHED_CALLS, BATCH_SIZE = batch_metrics("betting")
# The rounds' names at the table (StreetStarted.name): stud streets 0..4 are third
# to seventh street, the draw's rounds 0 and 1 are before and after the draw.
_STUD_STREETS = ("third", "fourth", "fifth", "sixth", "seventh")
_STREET_NAMES = {
    Game.STUD: _STUD_STREETS,
    Game.STUD_HILO: _STUD_STREETS,
    Game.DRAW_7A: ("pre_draw", "post_draw"),
}


def street_label(game: Game, street: int) -> str:
    """The ``street`` label of ``betting_rounds_started_total``: the round's name,
    since the number (0-4, meaning different streets in stud and the draw) is not
    what people read on a dashboard."""
    names = _STREET_NAMES[game]
    return names[street] if 0 <= street < len(names) else str(street)


STATE_REFS_USED = Counter(
    "betting_state_refs",
    "state_refs received on Batch streams: found (the state was not sent "
    "nor parsed) or unknown (NOT_FOUND; the caller sends the state).",
    ("result",),
)
for _result in ("found", "unknown"):
    STATE_REFS_USED.labels(_result)

# Every game's series exists from the first scrape at 0, so rate() over a game's
# uncontested hands is defined before its first one (and dashboards show 0, not "no data").
for _game in Game:
    HANDS_UNCONTESTED.labels(_game.value)
