"""The table service's own settings (besides ``service_kit.settings.ServerSettings``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from service_kit.ports import DEFAULT_PORTS
from service_kit.settings import (
    CALL_DEADLINE,
    ConfigError,
    Var,
    parse_address,
    read_settings,
    setting,
)

# The spectators' defaults (also ``viewers.WatchLimits``'s, for a table built in code).
WATCH_BUFFER = 256
WATCHERS_PER_TABLE = 500
WATCHERS_PER_CLIENT = 20
# PlayMany's default (also ``many.Many``'s, for a stream built in code): a bot lab
# of 1,000 six-handed tables in one process is 6,000 seats.
PLAYMANY_SESSIONS = 10_000


def parse_shard(name: str, text: str) -> tuple[int, int]:
    """``i/n`` with ``0 <= i < n``: this replica runs the tables whose id hashes to i."""
    try:
        index, count = (int(part) for part in text.split("/"))
    except ValueError:
        raise ConfigError(f"{name}={text!r}: expected i/n, like 0/1 or 2/3") from None
    if not 0 <= index < count:
        raise ConfigError(f"{name}={text!r}: need 0 <= i < n")
    return index, count


def _address(service: str) -> Var[str]:
    return Var(
        f"TABLE_{service.upper()}_ADDR",
        f"127.0.0.1:{DEFAULT_PORTS[service][0]}",
        f"the {service} service",
        values="host:port",
    )


@dataclass(frozen=True, slots=True)
class TableSettings:
    """TABLE_*: where the other services are, the table loop's pace, when a player
    who left is sat out, the shard, presets and the auditors' token, how downstream
    calls travel, and what the spectators may take."""

    lobby_addr: str = setting(_address("lobby"), parse=parse_address)
    dealer_addr: str = setting(_address("dealer"), parse=parse_address)
    betting_addr: str = setting(_address("betting"), parse=parse_address)
    showdown_addr: str = setting(_address("showdown"), parse=parse_address)
    discovery_s: float = setting(
        Var(
            "TABLE_DISCOVERY_S", 1.0, "seconds between listings of the lobby's tables", minimum=0.05
        )
    )
    idle_poll_s: float = setting(
        Var(
            "TABLE_IDLE_POLL_S",
            0.25,
            "seconds before asking again when a table has fewer than two players",
            minimum=0.01,
        )
    )
    hand_pause_ms: int = setting(
        Var(
            "TABLE_HAND_PAUSE_MS",
            0,
            "pause between hands in milliseconds (a room shows the result a few seconds; "
            "bots need none)",
            minimum=0,
            maximum=60_000,
        )
    )
    sit_out_after_clock_hands: int = setting(
        Var(
            "TABLE_SIT_OUT_AFTER_CLOCK_HANDS",
            2,
            "a player whose every decision the action clock took in this many hands in a "
            "row (their client gone) is sat out with the last one's report (B3-B6; B5 "
            "then takes the seat); acting, or connecting again, starts the count over; "
            "0 = never",
            minimum=0,
            maximum=1_000,
        )
    )
    history_hands: int = setting(
        Var(
            "TABLE_HISTORY_HANDS",
            20,
            "finished hands kept in memory per table (a cache: the lobby stores every "
            "hand's history, and older hands are read from it)",
            minimum=1,
            maximum=100_000,
        )
    )
    shard: tuple[int, int] = setting(
        Var(
            "TABLE_SHARD",
            "0/1",
            "run only the tables whose id hashes to i mod n (one shard per replica)",
            values="i/n, 0 <= i < n",
        ),
        parse=parse_shard,
        default=(0, 1),
    )
    allow_preset_decks: bool = setting(
        Var(
            "TABLE_ALLOW_PRESET_DECKS",
            False,
            "1 = tests and certification may set the next hand's deck (PresetNextDeck); "
            "the dealer must allow presets too",
        )
    )
    audit_token: str = setting(
        Var(
            "TABLE_AUDIT_TOKEN",
            "",
            "token for GetDeckReveal (the deck order and salt of a finished hand); "
            "empty = GetDeckReveal disabled",
            secret=True,
        )
    )
    audit_token_file: str = setting(
        Var(
            "TABLE_AUDIT_TOKEN_FILE",
            "",
            "or: a file whose first line is that token (a mounted Secret); not both",
            values="path",
        )
    )
    batched_calls: bool = setting(
        Var(
            "TABLE_BATCHED_CALLS",
            True,
            "1 = the calls to betting, dealer, showdown and the lobby's hand calls travel "
            "batched on each service's Batch stream; 0 = unary calls",
        )
    )
    watch_buffer: int = setting(
        Var(
            "TABLE_WATCH_BUFFER",
            WATCH_BUFFER,
            "events one spectator's Watch stream may have waiting unread; a spectator "
            "that falls further behind is dropped (RESOURCE_EXHAUSTED), never waited for",
            minimum=1,
            maximum=100_000,
        )
    )
    watchers_per_table: int = setting(
        Var(
            "TABLE_WATCHERS_PER_TABLE",
            WATCHERS_PER_TABLE,
            "Watch streams open at once on one table, the gateway's included; past it "
            "a new one is RESOURCE_EXHAUSTED",
            minimum=1,
            maximum=1_000_000,
        )
    )
    watchers_per_client: int = setting(
        Var(
            "TABLE_WATCHERS_PER_CLIENT",
            WATCHERS_PER_CLIENT,
            "Watch streams open at once from one client address (any port) without a "
            "service certificate, across tables; past it RESOURCE_EXHAUSTED (the "
            "gateway and the room's services are exempt)",
            minimum=1,
            maximum=1_000_000,
        )
    )
    play_many_sessions: int = setting(
        Var(
            "TABLE_PLAYMANY_SESSIONS",
            PLAYMANY_SESSIONS,
            "seats one PlayMany stream may hold at once (a bot lab's process); past it "
            "the new session ends RESOURCE_EXHAUSTED and the others go on",
            minimum=1,
            maximum=1_000_000,
        )
    )
    call_deadline_s: float = setting(CALL_DEADLINE)

    @property
    def hand_pause_s(self) -> float:
        """TABLE_HAND_PAUSE_MS in seconds."""
        return self.hand_pause_ms / 1000

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> TableSettings:
        """Read TABLE_* and CALL_DEADLINE_S (a bad value names the variable)."""
        return read_settings(cls, environ)
