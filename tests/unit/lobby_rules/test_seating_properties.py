# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __B3)
"""Property test of the dead-button table (B1-B5, D3) over thousands of simulated
hands with random arrivals, departures, sit-outs, returns, busts and rebuys.

Each Hypothesis example is a seed and an event rate; the seed drives a
``random.Random`` that scripts ``HANDS_PER_EXAMPLE`` hands (the table's own
decisions are deterministic, so the seed replays the failure exactly).  Chips move
between the players dealt in at random, conserving the total, sometimes busting a
player (who then counts as away, Robert's).

What "nobody skips the big blind" means here, precisely (B1):

- *No jump:* each hand the big blind goes to the first seat clockwise from the last
  big blind holding a player who is sitting in with chips: no such player sits
  strictly between the two.
- *Once per orbit:* a player who stays seated and sitting in with chips posts the
  big blind before the big blind has travelled a full circle (N seats) since they
  were last big blind (or since they sat in), and never twice in a row.
"""

from __future__ import annotations

import copy
import os
import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker_rules import DrawConfig
from poker_rules.seating import Choice, HandPlan, PostKind, SeatingConfig, SeatingTable

pytestmark = pytest.mark.slow

SIZE = 5  # D1: the 7-A table
EXAMPLES = 10
HANDS_PER_EXAMPLE = int(os.environ.get("POKER_SEATING_HANDS", "1000"))  # 10,000 hands
DRAW = DrawConfig()
SB, BB = DRAW.small_blind, DRAW.big_blind
BIG_KINDS = {PostKind.BIG_BLIND, PostKind.ENTRY_BIG_BLIND, PostKind.MAKE_UP_BIG_BLIND}
SMALL_KINDS = {PostKind.SMALL_BLIND, PostKind.DEAD_SMALL_BLIND}


def dist(a: int, b: int) -> int:
    return (b - a) % SIZE


def between(a: int, x: int, b: int) -> bool:
    """x strictly between a and b clockwise (a == b: every other seat)."""
    return 0 < dist(a, x) < (dist(a, b) or SIZE)


class Simulation:
    def __init__(self, rng: random.Random, rate: float) -> None:
        self.rng = rng
        self.rate = rate
        self.t = SeatingTable(SeatingConfig.for_draw(DRAW, seats=SIZE, max_orbits_away=2))
        self.bought_in = 0
        self.cashed_out = 0
        self.serial = 0
        self.prev: HandPlan | None = None
        # Big-blind travel since each ready player was last BB (or became ready).
        self.travel: dict[str, int] = {}
        self.stats: Counter[str] = Counter()

    def ready(self, seat: int) -> bool:
        p = self.t.seat(seat)
        return p is not None and not p.away and p.chips > 0

    def events(self) -> None:
        rng, t = self.rng, self.t
        for seat in range(1, SIZE + 1):
            if rng.random() >= self.rate:
                continue
            p = t.seat(seat)
            if p is None:
                self.serial += 1
                chips = rng.choice([150, 1_000, 3_000])
                t.sit_down(
                    seat,
                    f"n{self.serial}",
                    chips,
                    choice=rng.choice(list(Choice)),
                    away=rng.random() < 0.1,
                )
                self.bought_in += chips
                continue
            roll = rng.random()
            if roll < 0.15:
                self.cashed_out += t.leave(seat)
            elif roll < 0.45 and not p.away:
                t.sit_out(seat)
            elif p.away or p.chips == 0:
                if p.chips == 0 and roll < 0.8:
                    t.add_chips(seat, 1_000)
                    self.bought_in += 1_000
                t.sit_in(seat, rng.choice(list(Choice)))

    def check_plan(self, plan: HandPlan) -> None:
        t, prev = self.t, self.prev
        seats = plan.seats
        assert len(seats) >= 2 and len(set(seats)) == len(seats)
        assert all(self.ready(s) for s in seats)
        assert plan.button is not None and plan.big_blind is not None
        # Engine order: clockwise from the first seat left of the button.
        assert list(seats) == sorted(seats, key=lambda s: dist(plan.button or 0, s) or SIZE)
        # The blinds are posted by players dealt in.
        assert plan.big_blind in seats
        kinds = {(p.seat, p.kind) for p in plan.posts}
        assert (plan.big_blind, PostKind.BIG_BLIND) in kinds
        if plan.small_blind is not None:
            assert plan.small_blind in seats and plan.small_blind != plan.big_blind
            assert (plan.small_blind, PostKind.SMALL_BLIND) in kinds
        if plan.heads_up:  # D3
            assert plan.button == plan.small_blind == seats[1]
            assert plan.big_blind == seats[0]
        # At most one big and one small blind owed (B5): what anyone posts.
        for s in seats:
            mine = plan.posts_of(s)
            assert sum(p.kind in BIG_KINDS for p in mine) <= 1
            assert sum(p.kind in SMALL_KINDS for p in mine) <= 1
            assert sum(p.amount for p in mine) <= SB + BB
            assert all(p.amount == SB for p in mine if not p.live)
        if plan.dead_money:
            self.stats["dead"] += 1
        if prev is None:
            return
        assert prev.big_blind is not None
        b0, b1 = prev.big_blind, plan.big_blind
        # B1, no jump: nobody ready sits strictly between the last BB and this one.
        assert not any(self.ready(s) for s in range(1, SIZE + 1) if between(b0, s, b1))
        # Nobody has the big blind twice in a row.
        prev_bb_player = prev.players[prev.index(b0)]
        assert plan.players[plan.index(b1)] != prev_bb_player
        # B1: the small blind, when posted outside a heads-up or fresh start, is the
        # last big blind.
        if plan.small_blind is not None and not (plan.heads_up or plan.new_game):
            assert plan.small_blind == b0
            assert plan.players[plan.index(b0)] == prev_bb_player
        # B1: nobody gets the button twice in a row, in every pair of hands played
        # (heads-up included).  A player holds it when it is on their seat, they are
        # dealt in and it is not dead; a dead button is held by nobody.
        assert plan.button_dead == (plan.button_player is None)
        if plan.button not in seats:
            assert plan.button_dead, "a button on a seat not dealt in is dead"
        holder = prev.button_player
        if holder is not None and plan.button_player is not None:
            assert plan.button_player != holder, ("button twice in a row", holder)
            self.stats["button checked"] += 1
        if plan.button_dead and plan.button in seats:
            # A dead button on a player's seat happens only around heads-up play,
            # where the holder posted the small blind (D3): going heads-up, or back
            # to three with no seat between the holder and the small blind.
            assert plan.heads_up or prev.heads_up or prev.new_game, "dead button on a dealt seat"
            assert plan.players[plan.index(plan.button)] == holder
            self.stats["button dead between seats"] += 1
        # Once per orbit.
        step = dist(b0, b1) or SIZE
        for s in range(1, SIZE + 1):
            p = t.seat(s)
            if p is None or not self.ready(s):
                continue
            if p.player_id not in self.travel:
                self.travel[p.player_id] = 0
                continue
            if s == b1:
                self.travel[p.player_id] = 0
                self.stats["orbit checked"] += 1
            else:
                self.travel[p.player_id] += step
                assert self.travel[p.player_id] < SIZE, f"{p.player_id} skipped the BB"

    def forget_unready(self) -> None:
        """Players who are not ready (or gone) restart their orbit count on return."""
        ready_ids = {
            p.player_id
            for s in range(1, SIZE + 1)
            if (p := self.t.seat(s)) is not None and self.ready(s)
        }
        for pid in list(self.travel):
            if pid not in ready_ids:
                del self.travel[pid]

    def finish(self, plan: HandPlan) -> None:
        rng = self.rng
        stacks = list(plan.stacks)
        for _ in range(3):  # random transfers, conserving chips
            a, b = rng.randrange(len(stacks)), rng.randrange(len(stacks))
            amount = rng.randint(0, stacks[a])
            stacks[a] -= amount
            stacks[b] += amount
        lost = self.t.finish_hand(plan, stacks)
        for seat_lost in lost:
            self.cashed_out += seat_lost.chips
            self.stats["seat lost"] += 1
        self.prev = plan

    def run(self, hands: int) -> None:
        for _ in range(hands):
            self.events()
            self.forget_unready()
            plan = self.t.plan_hand()
            if plan is None:
                self.stats["no hand"] += 1
                continue
            if self.rng.random() < 0.02:  # a voided hand changes nothing
                self.t.void_hand(plan)
                again = self.t.plan_hand()
                assert again is not None and again == plan
                plan = again
            self.check_plan(plan)
            self.stats["hands"] += 1
            self.stats["heads-up"] += plan.heads_up
            self.finish(plan)
            assert self.t.total_chips() + self.cashed_out == self.bought_in


TOTALS: Counter[str] = Counter()


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), rate=st.sampled_from([0.03, 0.08, 0.2]))
def test_dead_button_properties_over_random_hands__B1(seed: int, rate: float) -> None:
    sim = Simulation(random.Random(seed), rate)
    sim.run(HANDS_PER_EXAMPLE)
    TOTALS.update(sim.stats)


def test_property_run_covered_the_cases__B1() -> None:
    """The random mix really produced hands, heads-up play, dead money, lost seats
    and checks of each property (run after the property test, same module)."""
    if not TOTALS:
        test_dead_button_properties_over_random_hands__B1()
    assert TOTALS["hands"] >= 5_000 * HANDS_PER_EXAMPLE // 1000
    for key in (
        "heads-up",
        "dead",
        "seat lost",
        "button checked",
        "button dead between seats",
        "orbit checked",
    ):
        assert TOTALS[key] > 0, key


def test_copy_is_a_deepcopy_that_shares_nothing_mutable() -> None:
    """``SeatingTable.copy`` (the lobby's roll-back point at every change) equals
    ``copy.deepcopy`` at every step of random play, copies every attribute the
    table has, and shares nothing that changes: changing the copy's players leaves
    the table as it was."""
    sim = Simulation(random.Random(7), 0.08)
    compared = 0
    for _ in range(300):
        sim.run(1)
        table = sim.t
        assert set(vars(table)) == {"config", "_seats", "_last", "_pending", "hands_played"}
        if sim.rng.random() < 0.3:  # sometimes with a hand planned and pending
            table.plan_hand()
        clone, deep = table.copy(), copy.deepcopy(table)
        assert {k: getattr(clone, k) for k in vars(table)} == {
            k: getattr(deep, k) for k in vars(table)
        }
        assert clone.snapshot() == deep.snapshot()
        for player in clone._seats.values():
            player.chips += 1
            player.away = not player.away
            player.orbits_away += 1
        clone.hands_played += 1
        assert table.snapshot() == deep.snapshot()
        assert table._seats == deep._seats
        if table._pending is not None:
            table.void_hand(table._pending)
        compared += 1
    assert compared == 300
