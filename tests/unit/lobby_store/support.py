"""A lobby store on a file with players, a table and hands written through its
own methods (no servicer), for the group-commit, retention and memory tests."""

from __future__ import annotations

from pathlib import Path

from services.lobby.store import LobbyStore, TableRow

PLAYERS = ("p-a", "p-b", "p-c")
GRANT = 10_000
BUY_IN = 1_000


def table_row(table_id: str = "t-1") -> TableRow:
    return TableRow(table_id, "t", "stud_hilo", b"", 6, 100, 0, 10_000)


def seeded(path: Path | str) -> LobbyStore:
    """Three players granted ``GRANT`` each, seated at one table with ``BUY_IN``."""
    store = LobbyStore(str(path))
    with store.transaction():
        store.add_table(table_row())
        for n, player in enumerate(PLAYERS, 1):
            store.add_player(player, player, b"h", GRANT)
            store.buy_in(player, "t-1", n, BUY_IN)
    return store


class Hands:
    """Hands at table t-1: each moves 10 chips from one seat to the next."""

    def __init__(self, store: LobbyStore) -> None:
        self.store = store
        self.stacks = {n: BUY_IN for n in range(1, len(PLAYERS) + 1)}
        self.played = 0

    def one(self) -> str:
        """A hand planned and finished, each in its own transaction."""
        self.played += 1
        hand_id = f"h-{self.played:08d}"
        with self.store.transaction():
            self.store.add_hand(hand_id, "t-1", b"plan" * 20)
        loser = 1 + self.played % len(PLAYERS)
        winner = 1 + loser % len(PLAYERS)
        before = dict(self.stacks)
        self.stacks[loser] -= 10
        self.stacks[winner] += 10
        with self.store.transaction():
            self.store.end_hand(hand_id, "finished", digest=b"d" * 32)
            self.store.hand_result(
                "t-1",
                hand_id,
                [(s, PLAYERS[s - 1], before[s], self.stacks[s]) for s in sorted(before)],
            )
            self.store.set_hands_played("t-1", self.played)
        return hand_id
