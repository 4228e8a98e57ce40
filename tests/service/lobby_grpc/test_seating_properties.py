# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B1_...)
"""Property test of ring-game seating through the lobby's gRPC API (B1-B5, D3).

5,000 hands (``SEEDS`` tables of ``HANDS_PER_TABLE``; ``POKER_LOBBY_GRPC_HANDS``
sets the per-table count) on one lobby process, no table service: before each
hand random arrivals (SitDown with a random B2 entry), departures (StandUp),
sit-outs (SitOut) and returns (SitIn with a random B3/B4 choice); then NextHand,
the checks below, and FinishHand with made-up final stacks that conserve the chips
dealt in (random transfers, sometimes a bust).  Now and then a hand is voided
instead, and the next NextHand must plan exactly the same hand again.  Players
lose seats for sitting out too long (B5, ``max_orbits_away`` 2) and leave with
their chips; the ledger must balance throughout (GetLedgerTotals).

What is checked on every plan, from what GetTable said just before it (a seat is
*ready* when it is seated, not away, with chips):

- everyone dealt in is ready; dealing order runs clockwise from the seat left of
  the button; the big blind is dealt in and posts it live; a small blind, when
  there is one, is dealt in and posts it live;
- D3: heads-up the button posts the small blind and the big blind is dealt first;
- B5: nobody posts more than one live blind and one dead small blind;
- B1, nobody skips the big blind: no ready seat sits strictly between the last
  big blind and this one, the big blind never goes to the same player twice in a
  row, and a player who stays ready posts it before it has travelled a full circle;
- B1, nobody gets the button twice in a row, in every pair of hands played: a
  player holds it when it is on their seat, they are dealt in, and it is not dead
  (``button_dead``: on an empty seat, on a player not dealt in, or, around
  heads-up play where the button posts the small blind, on the last holder's
  seat: they play the position without holding the button);
- B1: the small blind, outside heads-up, is the last big blind's seat and player,
  unless the hand is a fresh start (everyone ready dealt in, nobody posting
  anything but the two blinds: the library restarts play rather than stall).
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from collections.abc import Iterator

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient, ledger

from .client import BB, SB, Player, create_table, finish, get_table, lobby_stub

pytestmark = pytest.mark.slow

SIZE = 5
SEEDS = (11, 22, 33, 44, 55)
HANDS_PER_TABLE = int(os.environ.get("POKER_LOBBY_GRPC_HANDS", "1000"))  # 5 x 1000 hands
POOL = 12  # players per table who come and go
ENTRIES = [pb.ENTRY_POST_NOW, pb.ENTRY_WAIT_FOR_BIG_BLIND, pb.ENTRY_WAIT_FOR_BUTTON]
RETURNS = [pb.RETURN_CHOICE_POST, pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND]


def holder(hand: pb.NextHandResponse) -> str | None:
    """Who holds the button (B1): None when it is dead, empty or not dealt in."""
    players = {s.seat: s.player_id for s in hand.dealt_in}
    if hand.button_seat not in players:
        assert hand.button_dead, "a button on a seat not dealt in is dead"
        return None
    return None if hand.button_dead else players[hand.button_seat]


def dist(a: int, b: int) -> int:
    return (b - a) % SIZE


def between(a: int, x: int, b: int) -> bool:
    """x strictly between a and b clockwise (a == b: every other seat)."""
    return 0 < dist(a, x) < (dist(a, b) or SIZE)


@pytest.fixture(scope="module")
def big_lobby() -> Iterator[LobbyClient]:
    with lobby_stub({"LOBBY_DEFAULT_BALANCE": "10000000"}) as (_, stub):
        yield stub


class Simulation:
    """One draw table, a pool of players, random events, checks on every plan."""

    def __init__(self, lobby: LobbyClient, seed: int, rate: float) -> None:
        self.lobby = lobby
        self.rng = random.Random(seed)
        self.rate = rate
        self.table_id = create_table(lobby, seats=SIZE, max_orbits_away=2).table_id
        self.pool = [Player(lobby, f"s{seed}-{i}") for i in range(POOL)]
        self.by_id = {p.id: p for p in self.pool}
        self.seats: dict[int, pb.SeatInfo] = {}  # GetTable's seats before the plan
        self.prev: pb.NextHandResponse | None = None
        self.prev_ready: dict[int, str] = {}
        self.travel: dict[str, int] = {}  # big-blind travel since each player's last BB
        self.stats: Counter[str] = Counter()
        self.left: set[str] = set()  # stood up since the last hand played

    # -- the players' side

    def refresh(self) -> None:
        self.seats = {s.seat: s for s in get_table(self.lobby, self.table_id).occupied}

    def events(self) -> None:
        rng = self.rng
        seated_ids = {s.player_id for s in self.seats.values()}
        left = self.left  # who stood up does not sit again before the next hand
        for seat in range(1, SIZE + 1):
            if rng.random() >= self.rate:
                continue
            info = self.seats.get(seat)
            if info is None:
                free = [p for p in self.pool if p.id not in seated_ids | left]
                player = rng.choice(free)
                player.sit(
                    self.table_id, seat, rng.choice([500, 1_000, 3_000]), rng.choice(ENTRIES)
                )
                seated_ids.add(player.id)
                if rng.random() < 0.1:
                    player.sit_out()
                self.stats["sat down"] += 1
                continue
            player = self.by_id[info.player_id]
            roll = rng.random()
            if roll < 0.15 or (info.stack == 0 and roll < 0.6):
                player.stand()
                seated_ids.discard(player.id)
                left.add(player.id)
                self.stats["stood up"] += 1
            elif roll < 0.45 and not info.away:
                player.sit_out()
                self.stats["sat out"] += 1
            elif info.away and info.stack > 0:
                player.sit_in(rng.choice(RETURNS))
                self.stats["sat in"] += 1

    # -- the table's side

    def ready(self) -> dict[int, str]:
        return {s: i.player_id for s, i in self.seats.items() if not i.sitting_out}

    def check(self, hand: pb.NextHandResponse) -> None:
        ready = self.ready()
        seats = [s.seat for s in hand.dealt_in]
        assert len(seats) >= 2 and len(set(seats)) == len(seats)
        assert all(ready.get(i.seat) == i.player_id for i in hand.dealt_in), ready
        button, small, big = hand.button_seat, hand.small_blind_seat, hand.big_blind_seat
        assert button and big in seats
        assert seats == sorted(seats, key=lambda s: dist(button, s) or SIZE)
        posts = [(p.seat, p.amount, p.live) for p in hand.posts]
        assert (big, BB, True) in posts
        if small:
            assert small in seats and small != big and (small, SB, True) in posts
        heads_up = len(seats) == 2
        if heads_up:  # D3
            assert button == small == seats[1] and big == seats[0]
            self.stats["heads-up"] += 1
        for s in seats:  # B5: one live blind and one dead small blind at most
            mine = [(a, live) for seat, a, live in posts if seat == s]
            assert sum(live for _, live in mine) <= 1, mine
            assert [a for a, live in mine if not live] in ([], [SB]), mine
        if any(not live for _, _, live in posts):
            self.stats["dead money"] += 1
        prev = self.prev
        if prev is None:
            return
        b0, b1 = prev.big_blind_seat, big
        prev_players = {s.seat: s.player_id for s in prev.dealt_in}
        players = {s.seat: s.player_id for s in hand.dealt_in}
        # B1, no jump: nobody ready strictly between the last big blind and this one.
        assert not [s for s in ready if between(b0, s, b1)], (b0, b1, ready)
        assert players[b1] != prev_players[b0], ("the big blind twice in a row", b0, b1)
        if small and not heads_up and (small != b0 or players[small] != prev_players[b0]):
            # Only a fresh start gives the small blind to another player.
            assert set(seats) == set(ready) and len(posts) == 2, "small blind misplaced"
            self.stats["fresh start"] += 1
        held, was_held = holder(hand), holder(prev)
        if held is not None and was_held is not None:
            assert held != was_held, ("the button twice in a row", was_held)
            self.stats["button checked"] += 1
        if hand.button_dead and button in seats:
            assert heads_up or len(prev.dealt_in) == 2, "a dead button on a dealt seat"
            assert players[button] == was_held
            self.stats["button dead between seats"] += 1
        step = dist(b0, b1) or SIZE
        for s, pid in ready.items():
            if pid not in self.travel:
                self.travel[pid] = 0
            elif s == b1:
                self.travel[pid] = 0
                self.stats["orbit checked"] += 1
            else:
                self.travel[pid] += step
                assert self.travel[pid] < SIZE, f"{pid} skipped the big blind"

    def forget_unready(self) -> None:
        """A player not ready (or gone) restarts the orbit count when back."""
        ready_ids = set(self.ready().values())
        for pid in list(self.travel):
            if pid not in ready_ids:
                del self.travel[pid]

    def final_stacks(self, hand: pb.NextHandResponse) -> dict[int, int]:
        stacks = {s.seat: s.stack for s in hand.dealt_in}
        start = dict(stacks)
        moved: dict[tuple[int, int], int] = {}
        seats = list(stacks)
        for _ in range(3):  # random transfers, conserving the chips dealt in
            a, b = self.rng.choice(seats), self.rng.choice(seats)
            # a possible outcome (services.lobby.checks): b wins from a at most
            # what b covers of a's chips
            room = min(stacks[a], min(start[a], start[b]) - moved.get((a, b), 0))
            amount = self.rng.randint(0, max(room, 0))
            moved[a, b] = moved.get((a, b), 0) + amount
            stacks[a] -= amount
            stacks[b] += amount
        return stacks

    def run(self, hands: int) -> None:
        lobby, tid = self.lobby, self.table_id
        self.refresh()
        for n in range(3 * hands):
            if self.stats["hands"] == hands:
                break
            self.events()
            self.refresh()
            self.forget_unready()
            hand = lobby.NextHand(pb.NextHandRequest(table_id=tid), timeout=5)
            if not hand.play:
                self.stats["no hand"] += 1
                continue  # self.seats is still what GetTable said
            if self.rng.random() < 0.02:  # a voided hand changes nothing
                lobby.FinishHand(
                    pb.FinishHandRequest(table_id=tid, hand_id=hand.hand_id, voided=True),
                    timeout=5,
                )
                again = lobby.NextHand(pb.NextHandRequest(table_id=tid), timeout=5)
                assert again.hand_id != hand.hand_id
                again_fields = pb.NextHandResponse()
                again_fields.CopyFrom(again)
                again_fields.hand_id = hand.hand_id
                assert again_fields == hand, "a voided hand changed the next plan"
                hand = again
                self.stats["voided"] += 1
            self.check(hand)
            before = set(self.seats)
            finish(lobby, tid, hand, self.final_stacks(hand))
            self.stats["hands"] += 1
            self.prev = hand
            self.left.clear()
            self.refresh()
            self.stats["seat lost"] += len(before - set(self.seats))
            if n % 100 == 0:
                ledger(lobby)
        ledger(lobby)


def test_B1_nobody_skips_the_big_blind_or_gets_the_button_twice_over_grpc(
    big_lobby: LobbyClient,
) -> None:
    """Every seed's table in turn (one test: the coverage check below needs all of
    them, whichever xdist worker runs it), then: the random mix really produced
    hands, heads-up play, dead money, voids, lost seats and checks of each property."""
    totals: Counter[str] = Counter()
    for seed in SEEDS:
        started = time.monotonic()
        sim = Simulation(big_lobby, seed, rate=[0.03, 0.08, 0.2][seed % 3])
        try:
            sim.run(HANDS_PER_TABLE)
        except grpc.RpcError as error:  # say which seed and hand, not only the status
            raise AssertionError(
                f"seed {seed}, after {sim.stats['hands']} hands: {error}"
            ) from error
        totals.update(sim.stats)
        totals["seconds"] += round(time.monotonic() - started)
    assert totals["hands"] == len(SEEDS) * HANDS_PER_TABLE, totals
    for key in (
        "heads-up",
        "dead money",
        "voided",
        "seat lost",
        "button checked",
        "button dead between seats",
        "orbit checked",
    ):
        assert totals[key] > 0, (key, totals)
    ledger(big_lobby)
