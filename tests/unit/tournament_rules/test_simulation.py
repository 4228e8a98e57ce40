# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __T3)
"""Property test: a 120-player tournament simulated at the arithmetic level.

Every table deals hands in turn; each hand a random winner takes chips from the
others, some of whom bust.  After every hand the balancing of T3 runs and its plan
is applied.  Checked throughout: chips are conserved (T5); tables stay within one
player, and a table three or more short of the fullest is paused (T3); tables break
exactly when the players fit one fewer table, in the pre-set order, and the final
table is redrawn (T3); at the end every entry has exactly one place, the places
cover 1..120 and the prizes sum to the prize pool (T4, T5).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker_rules.tournament import (
    BlindPositions,
    BlindStakes,
    Bust,
    Level,
    LevelClock,
    Rebalance,
    Table,
    TournamentStructure,
    check_chips,
    draw_seats,
    protected_seats,
    rebalance,
    results,
    standings,
    tables_needed,
)

ENTRIES = 120
STACK = 1_500


def first_after(seat: int, occupied: dict[int, str], seat_count: int) -> int:
    for k in range(1, seat_count + 1):
        candidate = (seat + k - 1) % seat_count + 1
        if candidate in occupied:
            return candidate
    raise AssertionError("empty table")


class Room:
    """The lobby's state, kept the way a lobby would keep it."""

    def __init__(self, rng: random.Random, button_game: bool) -> None:
        self.rng = rng
        self.button_game = button_game
        self.seat_count = 5 if button_game else 8  # D1: draw 2-5 players; S1: stud 2-8
        players = [f"p{i:03d}" for i in range(ENTRIES)]
        ids = [f"T{i:02d}" for i in range(tables_needed(ENTRIES, self.seat_count))]
        self.tables: dict[str, dict[int, str]] = {t: {} for t in ids}
        for seat in draw_seats(players, ids, self.seat_count, rng):
            self.tables[seat.table][seat.seat] = seat.player
        self.break_order = ids[:]
        rng.shuffle(self.break_order)
        self.stacks = dict.fromkeys(players, STACK)
        self.log: list[list[Bust]] = []
        self.last_hand: dict[str, tuple[int, int, int] | None] = dict.fromkeys(ids)
        self.final_redraws = 0

    # B1 dead button: next button = last small-blind seat, next small blind = last
    # big-blind seat, next big blind = first player after the small-blind seat.
    def next_positions(self, table: str) -> BlindPositions | None:
        last = self.last_hand[table]
        if not self.button_game or last is None:
            return None
        occupied = self.tables[table]
        return BlindPositions(last[1], last[2], first_after(last[2], occupied, self.seat_count))

    def play_hand(self, table: str, bust_rate: float) -> None:
        occupied = self.tables[table]
        if self.button_game:
            positions = self.next_positions(table)
            if positions is None:
                button = self.rng.choice(sorted(occupied))
                small = first_after(button, occupied, self.seat_count)
                positions = BlindPositions(
                    button, small, first_after(small, occupied, self.seat_count)
                )
            self.last_hand[table] = (positions.button, positions.small_blind, positions.big_blind)
            start = positions.button
        else:
            start = self.seat_count  # stud: odd-chip order from seat 1
        order = [
            occupied[s] for s in sorted(occupied, key=lambda s: (s - start - 1) % self.seat_count)
        ]
        starting = {p: self.stacks[p] for p in order}
        winner = self.rng.choice(order)
        for player in order:
            if player == winner:
                continue
            if self.rng.random() < bust_rate:
                lost = self.stacks[player]
            else:
                lost = self.rng.randint(0, self.stacks[player] // 3)
            self.stacks[player] -= lost
            self.stacks[winner] += lost
        busts = [Bust(p, starting[p]) for p in order if self.stacks[p] == 0]
        if busts:
            self.log.append(busts)
            for bust in busts:
                del self.stacks[bust.player]
            for seat in [s for s, p in occupied.items() if p not in self.stacks]:
                del occupied[seat]

    def snapshot(self) -> list[Table]:
        return [
            Table(t, self.seat_count, dict(seats), self.next_positions(t))
            for t, seats in self.tables.items()
        ]

    def apply(self, plan: Rebalance) -> None:
        for move in plan.moves:
            assert self.tables[move.from_table].pop(move.from_seat) == move.player
        for move in plan.moves:
            assert move.to_seat not in self.tables[move.to_table]
            self.tables[move.to_table][move.to_seat] = move.player
        for table in plan.broken:
            assert not self.tables.pop(table)
            del self.last_hand[table]
        self.break_order = [t for t in self.break_order if t not in plan.broken]
        if plan.final_table is not None:
            self.last_hand[plan.final_table] = None  # the button is drawn again
            self.final_redraws += 1


def check_single_move(room: Room, before: list[Table], plan: Rebalance) -> None:
    """An isolated balancing move follows T3's choice of player and seat."""
    (move,) = plan.moves
    source = next(t for t in before if t.table_id == move.from_table)
    dest = next(t for t in before if t.table_id == move.to_table)
    if source.positions is not None:  # the player who will be big blind next
        assert move.from_seat == first_after(
            source.positions.small_blind, dict(source.players), room.seat_count
        )
    if dest.positions is not None:  # no empty seat would post the big blind sooner
        protected = protected_seats(dest.positions, room.seat_count)
        seat = dest.positions.small_blind % room.seat_count + 1
        while seat != move.to_seat:
            assert seat in dest.players or seat in protected
            seat = seat % room.seat_count + 1
        assert move.to_seat not in protected or move.waits_for_button
    elif not room.button_game:  # stud: by position
        free = [s for s in range(1, room.seat_count + 1) if s not in dest.players]
        assert move.to_seat == min(free)
        later = [s for s in sorted(source.players) if s >= move.to_seat]
        assert move.from_seat == (later[0] if later else min(source.players))


def run(seed: int, button_game: bool, bust_rate: float) -> None:
    rng = random.Random(seed)
    room = Room(rng, button_game)
    structure = TournamentStructure(
        (Level(BlindStakes(10, 20), 20), Level(BlindStakes(25, 50), 20)),
        STACK,
        buy_in=100,
        clock=LevelClock.HANDS,
    )
    hands = 0
    while len(room.stacks) > 1:
        for table in list(room.break_order):
            if table not in room.tables or len(room.stacks) == 1:
                continue
            room.play_hand(table, bust_rate)
            hands += 1
            assert hands < 50_000
            check_chips(room.stacks.values(), ENTRIES, STACK)
            assert sum(room.stacks.values()) == structure.total_chips(ENTRIES)

            before = room.snapshot()
            counts = {t.table_id: len(t.players) for t in before}
            plan = rebalance(before, room.break_order, button_game=button_game, rng=rng)
            open_after = [t for t in room.break_order if t not in plan.broken]
            most = max(counts.values())
            assert plan.paused == {t for t in open_after if counts[t] <= most - 3}
            expected_tables = tables_needed(len(room.stacks), room.seat_count)
            assert plan.broken == tuple(room.break_order[: len(room.break_order) - expected_tables])
            assert (plan.final_table is not None) == (len(room.break_order) > 1 == expected_tables)
            if len(plan.moves) == 1 and not plan.broken:
                check_single_move(room, before, plan)
            room.apply(plan)

            sizes = [len(room.tables[t]) for t in room.break_order]
            assert len(sizes) == expected_tables
            assert max(sizes) - min(sizes) <= 1
            assert min(sizes) >= 1
            if hands % 97 == 0:
                assert len(standings(room.stacks, room.log, structure.payouts(ENTRIES))) == ENTRIES

    assert room.final_redraws == 1
    payouts = structure.payouts(ENTRIES)
    final = results(room.stacks, room.log, payouts)
    assert sorted(r.player for r in final) == sorted(f"p{i:03d}" for i in range(ENTRIES))
    covered: list[int] = []
    for place in sorted({r.place for r in final}):
        tied = sum(1 for r in final if r.place == place)
        covered.extend(range(place, place + tied))
    assert covered == list(range(1, ENTRIES + 1))
    assert sum(r.prize for r in final) == structure.prize_pool(ENTRIES) == 12_000


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    button_game=st.booleans(),
    bust_rate=st.sampled_from([0.03, 0.1, 0.3]),
)
def test_simulated_120_player_tournament__T2_T3_T4_T5(
    seed: int, button_game: bool, bust_rate: float
) -> None:
    run(seed, button_game, bust_rate)
