"""The dealer's own settings (besides ``service_kit.settings.ServerSettings``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from service_kit.settings import Var, read_settings, setting


@dataclass(frozen=True, slots=True)
class DealerSettings:
    """DEALER_*: presets for tests, and how many open decks are held how long.

    A deck lives as long as its hand: the table closes it when the hand ends, so
    only the decks of a table that crashed mid-hand are ever dropped unclosed.
    Each caller identity (``service_kit.identity``; callers without one count as
    one caller, "anonymous") holds at most ``max_open_decks_per_caller`` of the
    ``max_decks``, so no caller can take the dealer from the others.  A table
    process holds one deck per table with a hand in progress, and every table
    process presents the one identity "table", so the table shards calling one
    dealer share the limit: the default leaves room for 4,000 tables in play.
    """

    allow_preset_decks: bool = setting(
        Var(
            "DEALER_ALLOW_PRESET_DECKS",
            False,
            "1 = accept preset deck orders (tests and certification only; never in production)",
        )
    )
    max_decks: int = setting(
        Var(
            "DEALER_MAX_DECKS",
            10_000,
            "open decks held at most, all callers together (RESOURCE_EXHAUSTED past that)",
            minimum=1,
        )
    )
    max_open_decks_per_caller: int = setting(
        Var(
            "DEALER_MAX_OPEN_DECKS_PER_CALLER",
            4_000,
            "open decks one caller connection holds at most (a table-service process "
            "calls on one); RESOURCE_EXHAUSTED past that, while the others deal on",
            minimum=1,
        )
    )
    deck_ttl_s: float = setting(
        Var(
            "DEALER_DECK_TTL_S",
            900.0,
            "seconds an open deck may go unused (no call on it) before it is dropped; "
            "a deck is closed with its hand, so only a crashed table's decks expire "
            "(longer than a betting round at the slowest clock)",
            minimum=1.0,
        )
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DealerSettings:
        """Read DEALER_* (a bad value is a ``ConfigError`` naming the variable)."""
        return read_settings(cls, environ)
