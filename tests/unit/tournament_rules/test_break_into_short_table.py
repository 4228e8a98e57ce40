# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __T3_B1)
"""A table broken into one left with a single survivor (issue 13, defect 12; T3, B1).

Over many seeds a button-game room is built the way the lobby keeps it: table A has
dealt hands (B1 positions from ``next_positions``, players busting between hands)
until one survivor is left; another table breaks into it.  The tables are given to
``rebalance`` with ``coming_positions``, the moves are applied and the next hand at
A is dealt with ``dealt_positions`` (arrivals that had to take a seat between the
button and the small blind wait for the button).  Every arrival's seat is then checked against
that hand's button and blinds, worked out here from the last hand alone:

- the big blind is the first player after the last big blind's seat (B1);
- with three or more players the small blind is the last big blind's seat (dead
  when empty) and no arrival sits from the button through the small blind (T3:
  "any seat except between the small blind and the button"), so no arrival holds
  the button or posts the small blind before paying a big blind;
- the button is the last small blind's seat, except that nobody holds it twice
  in a row (B1): after a heads-up hand its holder does not get it again;
- the survivor does not post the big blind twice in a row.
"""

from __future__ import annotations

import random

from poker_rules.tournament import (
    BlindPositions,
    Table,
    coming_positions,
    dealt_positions,
    next_positions,
    protected_seats,
    rebalance,
)

SEEDS = 600


def clockwise(start: int, stop: int, size: int) -> list[int]:
    """Seats from ``start`` clockwise through ``stop``, both included."""
    seats = [start]
    while seats[-1] != stop:
        seats.append(seats[-1] % size + 1)
    return seats


def first_after(seat: int, occupied: set[int], size: int) -> int:
    return next(s for s in clockwise(seat % size + 1, seat, size) if s in occupied)


def stored(last: BlindPositions | None) -> BlindPositions | None:
    """The positions as the lobby keeps them between hands: three seats, no flag."""
    return None if last is None else BlindPositions(last.button, last.small_blind, last.big_blind)


def before(seat: int, occupied: set[int], size: int) -> int:
    return next(s for s in reversed(clockwise(seat, (seat - 2) % size + 1, size)) if s in occupied)


def history(rng: random.Random, size: int, players: int) -> tuple[set[int], BlindPositions]:
    """A table's seats and its last hand's positions after a few hands with busts."""
    seats = set(rng.sample(range(1, size + 1), players))
    last: BlindPositions | None = None
    for _ in range(rng.randint(1, 6)):
        if last is not None:
            while len(seats) > 2 and rng.random() < 0.35:  # busts between hands
                seats.discard(rng.choice(sorted(seats)))
            protected = coming_positions(seats, size, stored(last))
            assert protected is not None
            free = [
                s
                for s in range(1, size + 1)
                if s not in seats
                and s not in clockwise(protected.button, protected.small_blind, size)
            ]
            if free and rng.random() < 0.2:  # a balancing arrival, placed as T3 says
                seats.add(rng.choice(free))
        last = next_positions(seats, size, stored(last))
    assert last is not None
    return seats, last


def room(rng: random.Random) -> tuple[int, int, BlindPositions, list[Table], list[str]]:
    """(seat count, survivor seat, A's last hand, the tables, the break order)."""
    size = rng.choice([3, 4, 5])  # D1: 2-5 players at a 7-A draw table
    dealt, last = history(rng, size, rng.randint(2, size))
    survivor = rng.choice(sorted(dealt))
    tables = [
        Table("A", size, {survivor: "survivor"}, coming_positions({survivor}, size, stored(last)))
    ]
    # B breaks first; the others stay open, so A is not redrawn as a final table.
    others = ["B", "C"] + (["D"] if rng.random() < 0.3 else [])
    # Everyone fits the tables left after B breaks, but not one fewer (no second break).
    rest_count = len(others)
    total = rng.randint(size * (rest_count - 1) + 1, size * rest_count)
    counts = [1] * len(others)
    while sum(counts) < total - 1:
        i = rng.choice([i for i, c in enumerate(counts) if c < size])
        counts[i] += 1
    for name, count in zip(others, counts, strict=True):
        if rng.random() < 0.5:
            seats, their_last = history(rng, size, max(2, count))
            seats = set(sorted(seats)[:count])
            empty = sorted(set(range(1, size + 1)) - seats)
            seats |= set(rng.sample(empty, count - len(seats)))  # after busts in history
            positions = coming_positions(seats, size, stored(their_last))
        else:
            seats, positions = set(rng.sample(range(1, size + 1), count)), None
        tables.append(Table(name, size, {s: f"{name}{s}" for s in seats}, positions))
    rest = ["A", *others[1:]]
    rng.shuffle(rest)
    return size, survivor, last, tables, ["B", *rest]


def test_arrivals_at_a_lone_survivor_never_sit_between_small_blind_and_button__T3_B1() -> None:
    checked = heads_up = waited = afresh = 0
    for seed in range(SEEDS):
        rng = random.Random(seed)
        size, survivor, last, tables, order = room(rng)
        plan = rebalance(tables, order, button_game=True, rng=rng)
        assert plan.broken[:1] == ("B",) and plan.final_table is None, seed
        seats = {t.table_id: dict(t.players) for t in tables}
        for move in plan.moves:
            del seats[move.from_table][move.from_seat]
        waiting: set[int] = set()
        for move in plan.moves:
            seats[move.to_table][move.to_seat] = move.player
            if move.to_table == "A" and move.waits_for_button:
                waiting.add(move.to_seat)
        at_a = seats["A"]
        if survivor not in at_a or len(at_a) < 2:
            continue  # the survivor moved on (A became the fullest): nothing dealt here
        arrivals = {s for s, p in at_a.items() if p != "survivor"}
        dealt_seats, hand = dealt_positions(set(at_a), waiting, size, stored(last))
        occupied = set(dealt_seats)
        why = (seed, size, survivor, last, sorted(arrivals), sorted(waiting), hand)
        # B1: the big blind moves one player; the survivor never posts it twice.
        assert hand.big_blind == first_after(last.big_blind, occupied, size), why
        assert not (survivor == last.big_blind and hand.big_blind == survivor), why
        # B1: nobody holds the button twice in a row.
        held = last.button == survivor and not last.button_dead
        assert not (held and hand.button == survivor and not hand.button_dead), why
        if len(occupied) == 2:  # D3: the button posts the small blind
            heads_up += 1
            assert hand.button == hand.small_blind != hand.big_blind, why
            continue
        playing = set(at_a) - waiting
        coming = coming_positions(playing, size, stored(last))
        assert coming is not None
        if len(playing | (waiting - protected_seats(coming, size))) < 2:
            # Every arrival waits for the button: rather than stall, all are dealt in
            # and the positions start afresh from the big blind (dealt_positions).
            assert occupied == set(at_a), why
            assert hand.small_blind == before(hand.big_blind, occupied, size), why
            assert hand.button == before(hand.small_blind, occupied, size), why
            afresh += 1
            continue
        waited += bool(waiting)
        assert hand.small_blind == last.big_blind, why
        if last.button != last.small_blind:  # after a multi-way hand, the last small blind
            assert hand.button == last.small_blind, why
        forbidden = set(clockwise(hand.button, hand.small_blind, size))
        assert not occupied & arrivals & forbidden, why  # T3: nobody dealt in there
        assert waiting <= forbidden, why  # and nobody waits who need not
        checked += 1
    assert checked >= SEEDS // 3 and heads_up >= SEEDS // 10 and waited and afresh, (
        checked,
        heads_up,
    )


def test_a_lone_survivor_keeps_the_chain_of_the_last_hand__T3_B1() -> None:
    last = BlindPositions(1, 2, 4)  # seat 3 empty, the last small blind on seat 2
    # Survivor on seat 5: button dead on 2, small blind dead on 4, seats 2-4 closed.
    coming = coming_positions({5}, 5, last)
    assert coming == BlindPositions(2, 4, 5)
    assert protected_seats(coming, 5) == {2, 3, 4}
    # The survivor was the big blind: it posts the small blind, an arrival the big.
    assert coming_positions({4}, 5, last) == BlindPositions(2, 4, 4)
    assert next_positions({4, 5, 1}, 5, last) == BlindPositions(2, 4, 5)
    # A lone player between hands is only "no positions" for a new game.
    assert coming_positions({4}, 5, None) is None


def test_after_heads_up_the_button_does_not_go_back_to_its_holder__B1() -> None:
    last = BlindPositions(1, 1, 3)  # heads-up: seat 1 had the button and small blind
    # Three players: the button goes dead on the empty seat right of the small blind.
    assert next_positions({1, 3, 5}, 5, last) == BlindPositions(2, 3, 5)
    # No empty seat there: it lies dead on the holder's seat.
    assert next_positions({2, 3, 5}, 5, BlindPositions(2, 2, 3)) == BlindPositions(
        2, 3, 5, button_dead=True
    )
    # The holder left: the button is dead on its seat, as B1 says.
    assert next_positions({3, 4, 5}, 5, last) == BlindPositions(1, 3, 4)
    # Heads-up with a new opponent: the holder posts the small blind, button dead.
    assert next_positions({1, 4}, 5, BlindPositions(1, 1, 3)) == BlindPositions(
        1, 1, 4, button_dead=True
    )
    assert not next_positions({1, 4}, 5, BlindPositions(5, 1, 3)).button_dead


def test_seats_waiting_for_the_button_are_dealt_in_once_it_has_passed__T3() -> None:
    # Survivor on 5 (last hand 1/2/4), arrivals on 1 (open) and 3 (between the
    # coming button 2 and small blind 4, so waiting): 3 sits out this hand.
    # Heads-up (D3): the survivor, first after the last big blind, posts the big.
    dealt, hand = dealt_positions({1, 3, 5}, {3}, 5, BlindPositions(1, 2, 4))
    assert dealt == [1, 5] and (hand.button, hand.small_blind, hand.big_blind) == (1, 1, 5)
    # Later (last hand 2/4/5: button 4, small blind 5, big blind 1): 3 was passed.
    dealt, hand = dealt_positions({1, 3, 5}, {3}, 5, BlindPositions(2, 4, 5))
    assert dealt == [1, 3, 5] and hand == BlindPositions(4, 5, 1)
    # Nobody but the survivor could play: everyone does, positions from the big blind.
    dealt, hand = dealt_positions({1, 2, 3}, {1, 2}, 3, BlindPositions(3, 1, 2))
    assert dealt == [1, 2, 3] and hand.big_blind == 3 and hand.small_blind == 2
