"""The lobby's own settings (besides ``service_kit.settings.ServerSettings``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from service_kit.settings import Var, read_settings, setting, var_of

DEFAULT_DB = "lobby.sqlite3"
"""LOBBY_DB's default: a file in the working directory (``make run`` and the test
launcher pass one of their own in a fresh temporary directory)."""

MOST_CHIPS = 10**12
"""No balance setting may exceed this (play money, but still an integer bound)."""


@dataclass(frozen=True, slots=True)
class LobbySettings:
    """LOBBY_*: the database, the play money granted, and B5's default absence."""

    default_balance: int = setting(
        Var(
            "LOBBY_DEFAULT_BALANCE",
            100_000,
            "play money granted by RegisterPlayer when it asks for 0",
            minimum=1,
            maximum=MOST_CHIPS,
        )
    )
    max_balance: int = setting(
        Var(
            "LOBBY_MAX_BALANCE",
            1_000_000_000,
            "largest initial_balance RegisterPlayer accepts",
            maximum=MOST_CHIPS,
            shown="1000000000, or LOBBY_DEFAULT_BALANCE if larger",
            values=f"integer LOBBY_DEFAULT_BALANCE..{MOST_CHIPS}",
        )
    )
    max_orbits_away: int = setting(
        Var(
            "LOBBY_MAX_ORBITS_AWAY",
            3,
            "B5: orbits a player may sit out before the seat is lost (the chips go back "
            "to the balance), for tables whose CreateTable leaves it unset",
            minimum=0,
            maximum=1000,
        )
    )
    reconcile_s: float = setting(
        Var(
            "LOBBY_RECONCILE_S",
            300.0,
            "seconds between full reconciliations of the ledger (SQL sums over every row, "
            "off the event loop) against the running totals behind the ledger gauges; a "
            "mismatch sets lobby_ledger_reconcile_mismatch (the CardroomChipLedgerMismatch alert)",
            minimum=1.0,
        )
    )
    db: str = setting(
        Var(
            "LOBBY_DB",
            DEFAULT_DB,
            "SQLite database file (relative: to the working directory; `:memory:` keeps "
            "nothing after the process exits), or a PostgreSQL URL "
            "`postgresql://user@host:5432/db`",
            values="path or URL",
        )
    )
    group_commit: bool = setting(
        Var(
            "LOBBY_GROUP_COMMIT",
            True,
            "SQLite file: commit transactions in groups, one fsync per group (every "
            "answer still waits for its transaction to be durable); off: one COMMIT "
            "with its own fsyncs per transaction",
        )
    )
    group_commit_ms: float = setting(
        Var(
            "LOBBY_GROUP_COMMIT_MS",
            100.0,
            "SQLite file: milliseconds a group of transactions stays open before it is "
            "committed and fsynced as one (every answer but a FinishHand's waits for its "
            "group's fsync, the table's HandRecorded before the next hand included; 0: at "
            "once, the groups then form while the previous fsync runs; 100: about one "
            "fsync per ten hands at 20 tables flat out, for up to 100 ms on those answers)",
            minimum=0.0,
            maximum=1000,
        )
    )
    checkpoint_s: float = setting(
        Var(
            "LOBBY_CHECKPOINT_S",
            30.0,
            "SQLite file: seconds between checkpoints (the log copied into the database "
            "file, off the event loop); the log holds at most about this much writing",
            minimum=0.1,
            maximum=3600,
        )
    )
    keep_hands_days: float = setting(
        Var(
            "LOBBY_KEEP_HANDS_DAYS",
            0.0,
            "days a finished or voided hand's record is kept (ListHands) before retention "
            "deletes it; 0: kept for ever",
            minimum=0.0,
            maximum=100_000,
        )
    )
    keep_ledger_days: float = setting(
        Var(
            "LOBBY_KEEP_LEDGER_DAYS",
            0.0,
            "days ledger rows are kept one by one; older ones are folded into one "
            "carried-forward row per player and table (every sum unchanged); 0: never",
            minimum=0.0,
            maximum=100_000,
        )
    )
    retention_s: float = setting(
        Var(
            "LOBBY_RETENTION_S",
            600.0,
            "seconds between retention passes (small batches on the event loop)",
            minimum=1.0,
            maximum=86_400,
        )
    )
    db_password: str = setting(
        Var(
            "LOBBY_DB_PASSWORD",
            "",
            "PostgreSQL's password when LOBBY_DB is a URL (empty: libpq's own "
            "PGPASSWORD/PGPASSFILE)",
            secret=True,
        )
    )
    db_password_file: str = setting(
        Var(
            "LOBBY_DB_PASSWORD_FILE",
            "",
            "or: a file whose first line is that password (a mounted Secret); not both",
            values="path",
        )
    )

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> LobbySettings:
        """Read LOBBY_*; the largest balance is at least the default one."""
        default_balance: int = var_of(cls, "default_balance").read(environ)
        max_balance: int = var_of(cls, "max_balance").read(
            environ,
            default=max(1_000_000_000, default_balance),
            minimum=default_balance,
        )
        return read_settings(cls, environ, default_balance=default_balance, max_balance=max_balance)
