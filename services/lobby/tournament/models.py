"""A tournament's state: its entries, its tables between (or during) hands, and
everything else a restart needs, kept as JSON in the store (``to_state``)."""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from poker.lobby.v1 import tournament_pb2 as tpb
from poker_rules.config import Game
from poker_rules.tournament import LevelClock, TournamentStructure

from ..checks import present


@dataclass(slots=True)
class Entry:
    """One entry (a re-entry is a new one): ``key`` names it in the bust log."""

    player_id: str
    number: int
    chips: int
    table_id: str = ""
    seat: int = 0
    busted: bool = False
    place: int = 0
    tied: int = 1
    away: bool = False

    @property
    def key(self) -> str:
        return f"{self.player_id}#{self.number}"


@dataclass(slots=True)
class TTable:
    """A tournament table between (or during) hands.

    ``last`` is the positions of the last hand planned (button, small-blind
    position, big blind), draw only; ``wait_button`` the seats whose players are
    not dealt in until the button has passed them (T3: seated between the button
    and the small blind because no other seat was free); ``pending`` the hand in
    progress: its id, the NextHandResponse bytes and the seats dealt in with their
    stacks.
    """

    table_id: str
    name: str
    seats: dict[int, str] = field(default_factory=dict)
    last: list[int] | None = None
    wait_button: list[int] = field(default_factory=list)
    broken: bool = False
    waiting: bool = False
    hands_played: int = 0
    pending_id: str = ""
    pending_plan: bytes = b""
    pending_dealt: list[list[Any]] = field(default_factory=list)  # [seat, player, stack]
    pending_last: list[int] | None = None
    finished_id: str = ""
    finished_digest: str = ""

    def clear_pending(self) -> None:
        """No hand in progress (finished, or voided: stacks as at its start)."""
        self.pending_id = ""
        self.pending_plan = b""
        self.pending_dealt = []
        self.pending_last = None


@dataclass(slots=True)
class Tournament:
    """Everything about one tournament; ``to_state``/``from_state`` for SQLite."""

    tournament_id: str
    request: tpb.CreateTournamentRequest
    structure: TournamentStructure
    game: Game
    status: str = "registering"
    entries: list[Entry] = field(default_factory=list)
    tables: dict[str, TTable] = field(default_factory=dict)
    break_order: list[str] = field(default_factory=list)
    bust_log: list[list[list[Any]]] = field(default_factory=list)  # [[key, stack], ...]
    hands_played: int = 0
    started_at: float = 0.0
    level: int = 0
    on_break: bool = False
    final_table_id: str = ""
    seed: int = 0
    events: list[tpb.TournamentEvent] = field(default_factory=list)
    changed: asyncio.Event = field(default_factory=asyncio.Event)

    # ------------------------------------------------------------ lookups

    def live(self, player_id: str) -> Entry | None:
        """The player's entry with chips in play (or registered), if any."""
        for entry in reversed(self.entries):
            if entry.player_id == player_id and not entry.busted:
                return entry
        return None

    def latest(self, player_id: str) -> Entry | None:
        for entry in reversed(self.entries):
            if entry.player_id == player_id:
                return entry
        return None

    def alive(self) -> list[Entry]:
        return [e for e in self.entries if not e.busted]

    def open_tables(self) -> list[TTable]:
        return [self.tables[t] for t in self.break_order if not self.tables[t].broken]

    def elapsed(self) -> int:
        if self.status == "registering":
            return 0
        if self.structure.clock is LevelClock.HANDS:
            return self.hands_played
        return int(time.time() - self.started_at)

    def entry_elapsed(self) -> int:
        """The clock for entries: once play has started it counts as started (at
        least 1), so a freezeout without late registration is closed at once."""
        return 0 if self.status == "registering" else max(1, self.elapsed())

    def registration_open(self) -> bool:
        if self.status == "finished":
            return False
        return self.structure.registration_open(self.entry_elapsed())

    def rng(self, salt: str) -> random.Random:
        """Reproducible randomness per decision (no generator state to store)."""
        return random.Random(f"{self.seed}:{self.hands_played}:{len(self.events)}:{salt}")

    def chips_in_play(self) -> int:
        return sum(e.chips for e in self.entries if not e.busted)

    def to_state(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "entries": [asdict(e) for e in self.entries],
            "tables": [
                asdict(t) | {"pending_plan": t.pending_plan.hex()} for t in self.tables.values()
            ],
            "break_order": self.break_order,
            "bust_log": self.bust_log,
            "hands_played": self.hands_played,
            "started_at": self.started_at,
            "level": self.level,
            "on_break": self.on_break,
            "final_table_id": self.final_table_id,
            "seed": self.seed,
        }

    def load_state(self, state: dict[str, Any]) -> None:
        self.status = state["status"]
        self.entries = [Entry(**e) for e in state["entries"]]
        for t in state["tables"]:
            t = dict(t)
            t["seats"] = {int(k): v for k, v in t["seats"].items()}
            t["pending_plan"] = bytes.fromhex(t["pending_plan"])
            table = TTable(**t)
            self.tables[table.table_id] = table
        self.break_order = state["break_order"]
        self.bust_log = state["bust_log"]
        self.hands_played = state["hands_played"]
        self.started_at = state["started_at"]
        self.level = state["level"]
        self.on_break = state["on_break"]
        self.final_table_id = state["final_table_id"]
        self.seed = state["seed"]

    def seat(self, player_id: str, table_id: str, seat: int) -> None:
        """The player's live entry takes ``seat`` at ``table_id``."""
        entry = present(self.live(player_id), f"live entry of {player_id}")
        self.tables[table_id].seats[seat] = player_id
        entry.table_id, entry.seat = table_id, seat
