"""The table service's domain metrics (the gRPC ones come from service_kit)."""

from __future__ import annotations

import time

from prometheus_client import Counter, Gauge, Histogram

from poker_rules.config import Game
from poker_wire.enums import TIMEOUT_POLICIES

HANDS_STARTED = Counter("table_hands_started", "Hands started, by game.", ("game",))
HANDS_FINISHED = Counter(
    "table_hands_finished",
    "Hands finished, by game and how (showdown, uncontested, voided).",
    ("game", "outcome"),
)
ACTIONS = Counter(
    "table_actions", "Decisions applied, by game and kind (timeouts included).", ("game", "kind")
)
TIMEOUTS = Counter(
    "table_timeouts", "Action clocks run out (S10), by game and policy.", ("game", "policy")
)
PLAYERS_SAT_OUT = Counter(
    "table_players_sat_out",
    "Players named in a hand's report to be sat out, by game: the action clock took "
    "their every decision in TABLE_SIT_OUT_AFTER_CLOCK_HANDS hands in a row (their "
    "client gone).",
    ("game",),
)
ACTIONS_REJECTED = Counter(
    "table_actions_rejected", "Player actions refused, by status code.", ("code",)
)
RIVER_OUTCOMES = Counter(
    "table_river_outcomes", "Seventh streets served, by S11 outcome.", ("outcome",)
)
POT_SIZE = Histogram(
    "table_pot_size_chips",
    "Chips awarded per finished hand, by game.",
    ("game",),
    buckets=(10, 50, 100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 100_000, 1_000_000),
)
DECISION_SECONDS = Histogram(
    "table_decision_seconds",
    "From a player's action arriving to the next turn being sent (the table's cost).",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
)
DOWNSTREAM_CALLS = Counter(
    "table_downstream_calls",
    "Calls to other services, by service, method and transport (unary: an RPC; "
    "batched: a call on the service's Batch stream).",
    ("service", "method", "transport"),
)
DOWNSTREAM_SECONDS = Histogram(
    "table_downstream_call_seconds",
    "The table's calls to other services, by service, from the call to its answer "
    "or error, unary or batched: what the hands wait on "
    "(grpc_server_handling_seconds cannot time a call on a Batch stream).",
    ("service",),
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 2.5),
)
DOWNSTREAM_FAILURES = Counter(
    "table_downstream_failures",
    "Failed calls to other services, by service, method and status.",
    ("service", "method", "code"),
)
STREAM_MESSAGES = Counter(
    "table_stream_messages", "Messages sent on player and spectator streams.", ("kind",)
)
WATCHERS_DROPPED = Counter(
    "table_watchers_dropped",
    "Spectator (Watch) streams the table ended or refused, by reason: too_slow (its "
    "TABLE_WATCH_BUFFER was full), table_limit (TABLE_WATCHERS_PER_TABLE), client_limit "
    "(TABLE_WATCHERS_PER_CLIENT).",
    ("reason",),
)
TABLE_LOOP_ERRORS = Counter(
    "table_loop_errors",
    "Unexpected errors in a table's loop outside a hand (logged; the table goes on).",
)
TABLES = Gauge("table_tables_running", "Tables this replica runs.")
CONNECTED = Gauge("table_connected_streams", "Open player and spectator streams.", ("kind",))
HANDS_IN_PROGRESS = Gauge("table_hands_in_progress", "Hands being played now on this replica.")
OLDEST_HAND_STARTED = Gauge(
    "table_oldest_hand_started_timestamp_seconds",
    "Unix time the oldest hand in progress on this replica started (0: none); "
    "the stuck-hand alert watches it.",
)
LAST_HAND_FINISHED = Gauge(
    "table_last_hand_finished_timestamp_seconds",
    "Unix time a hand last finished (or was voided) on this replica.",
)
# table id -> start time of its hand in progress, in the order the hands started:
# the first entry is the oldest hand, so the gauges cost the same at 1,000 tables
# as at one (a ``min`` over every table was per-hand work that grew with the room).
_hands_started: dict[str, float] = {}


def hand_started(table_id: str) -> None:
    """A hand starts at ``table_id``: the in-progress gauges (one series per replica)."""
    _hands_started.pop(table_id, None)  # re-inserted last: the order stays start order
    _hands_started[table_id] = time.time()
    _set_in_progress()


def hand_ended(table_id: str) -> None:
    """The hand at ``table_id`` finished or was voided."""
    _hands_started.pop(table_id, None)
    LAST_HAND_FINISHED.set(time.time())
    _set_in_progress()


def timeout_policy_label(policy: int) -> str:
    """The ``policy`` label of ``table_timeouts_total``: the S10 policy the clock
    applied, by name (``all_in_protection``, ``check_or_fold``).  A table created
    without one has the proto's UNSPECIFIED, which means the rule book's default,
    ALL_IN_PROTECTION, and that is what betting applies (``TIMEOUT_POLICIES``);
    naming the enum value instead showed "unspecified" for most tables."""
    chosen = TIMEOUT_POLICIES.get(policy)
    return chosen.value if chosen is not None else "unknown"


def _set_in_progress() -> None:
    HANDS_IN_PROGRESS.set(len(_hands_started))
    OLDEST_HAND_STARTED.set(next(iter(_hands_started.values()), 0.0))


# Per-game series exist from the first scrape at 0, so rate() is defined before a
# game's first hand finishes (and dashboards show 0, not "no data"); so do the
# reasons a watcher is dropped.
for _reason in ("too_slow", "table_limit", "client_limit"):
    WATCHERS_DROPPED.labels(_reason)
for _game in Game:
    HANDS_STARTED.labels(_game.value)
    for _outcome in ("showdown", "uncontested", "voided"):
        HANDS_FINISHED.labels(_game.value, _outcome)
