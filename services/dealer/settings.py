"""The dealer's own settings (besides ``service_kit.settings.ServerSettings``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from service_kit.settings import Var, read_settings, setting


@dataclass(frozen=True, slots=True)
class DealerSettings:
    """DEALER_*: presets for tests, and how many open decks are held how long."""

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
            "open decks held at most (RESOURCE_EXHAUSTED past that)",
            minimum=1,
        )
    )
    deck_ttl_s: float = setting(
        Var(
            "DEALER_DECK_TTL_S",
            3600.0,
            "seconds after which an open deck not closed is dropped",
            minimum=1.0,
        )
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> DealerSettings:
        """Read DEALER_* (a bad value is a ``ConfigError`` naming the variable)."""
        return read_settings(cls, environ)
