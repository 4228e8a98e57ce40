# ruff: noqa: N802  (test names carry the docs/rules.md rule IDs)
"""T3 through the lobby: a table breaks into one left with a single survivor
(issue 13, defect 12).

For many seeds a three-table tournament is played by the scripted table service
(``Driver``) until one table (A, not the first to break) is down to one survivor
and the players left fit two tables; the next NextHand breaks the last table of
the break order and A deals.  The hand A then deals is checked against A's last
hand alone: the big blind moved one player on (B1); with three or more players
the small blind is the last big blind's seat and no arrival is dealt in from the
button through the small blind (T3), an arrival seated there waits for the
button; the survivor neither posts the big blind nor holds the button twice in a
row (B1).  Draw in all three structures (button games); stud has no button, so
any seat will do and everyone is dealt in at once.
"""

from __future__ import annotations

import random

import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.tournaments import (
    Driver,
    Lobby,
    Player,
    draw_levels,
    players,
    request,
    started,
    stud_levels,
)

SEEDS_PER_STRUCTURE = 70  # 210 draw tournaments
STRUCTURES = {
    "draw_fl": common.STRUCTURE_FIXED_LIMIT,
    "draw_pl": common.STRUCTURE_POT_LIMIT,
    "draw_nl": common.STRUCTURE_NO_LIMIT,
}


def clockwise(start: int, stop: int, size: int) -> list[int]:
    """Seats from ``start`` clockwise through ``stop``, both included."""
    seats = [start]
    while seats[-1] != stop:
        seats.append(seats[-1] % size + 1)
    return seats


def first_after(seat: int, occupied: set[int], size: int) -> int:
    return next(s for s in clockwise(seat % size + 1, seat, size) if s in occupied)


def bust(
    d: Driver, table_id: str, rng: random.Random, keep: int
) -> tuple[pb.NextHandResponse, str]:
    """One hand at the table after which only ``keep`` of its players are left."""
    plan = d.next_hand(table_id)
    assert plan.play, table_id
    chips = {s.player_id: s.stack for s in plan.dealt_in}
    order = list(chips)
    rng.shuffle(order)
    winner, losers = order[0], order[keep:]
    result = {p: 0 for p in losers}
    result[winner] = chips[winner] + sum(chips[p] for p in losers)
    d.finish(plan, table_id, result)
    return plan, winner


def to_the_break(
    lobby: Lobby, field: list[Player], rng: random.Random, config: common.GameConfig, size: int
) -> tuple[Driver, str, str, pb.NextHandResponse] | None:
    """Play until A has one survivor and the players fit two tables; returns the
    driver, A, the survivor and A's last hand (None if balancing got in the way)."""
    stud = config.game == common.GAME_STUD_HILO
    n = rng.randint(2 * size + 1, 3 * size)
    req = request(
        "stud_hilo" if stud else "draw",
        config=config,
        seats_per_table=size,
        schedule=stud_levels(hands=50) if stud else draw_levels(hands=50),
        buy_in=0,
        fee=0,
        seed=rng.randrange(1, 2**31),
    )
    d = Driver(lobby, started(lobby, req, field[:n]))
    first, second, _breaks_first = (t.table_id for t in d.tournament().tables)
    for table in (first, second, _breaks_first):
        for _ in range(rng.randint(0, 3)):  # a few hands: the positions move on
            d.play(table)
    a, c = (first, second) if rng.random() < 0.5 else (second, first)

    def counts() -> dict[str, int]:
        return {t.table_id: t.players for t in d.open_tables()}

    while sum(counts().values()) - counts()[a] + 1 > 2 * size:  # C loses players first
        if counts()[c] < 2:
            return None
        bust(d, c, rng, counts()[c] - 1)
    if len(counts()) != 3 or counts()[a] < 2:
        return None
    last, survivor = bust(d, a, rng, 1)
    return d, a, survivor, last


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(STRUCTURES))
def test_T3_B1_players_from_a_broken_table_at_a_lone_survivors_table(
    lobby: Lobby, game: str
) -> None:
    field = players(lobby, 15)
    config = common.GameConfig(game=common.GAME_DRAW_7A, structure=STRUCTURES[game])
    checked = waited = 0
    for seed in range(SEEDS_PER_STRUCTURE):
        rng = random.Random(f"{game}:{seed}")
        size = rng.choice([3, 4, 5])  # D1: 2-5 players at a 7-A table
        setup = to_the_break(lobby, field, rng, config, size)
        if setup is None:
            continue
        d, a, survivor, last = setup
        (survivor_seat,) = (s.seat for s in last.dealt_in if s.player_id == survivor)
        hand = d.next_hand(a)  # the break is made now, then A deals
        assert hand.play, seed
        t = d.tournament()
        assert sum(x.broken for x in t.tables) == 1 and not t.final_table_id, seed
        seated = d.seats(a)
        dealt = {s.seat for s in hand.dealt_in}
        arrivals = {s for s, p in seated.items() if p != survivor}
        why = (game, seed, size, survivor_seat, last, sorted(arrivals), hand)
        assert seated.get(survivor_seat) == survivor and arrivals, why
        # B1: the big blind moves one player on; the survivor never posts it twice.
        assert hand.big_blind_seat == first_after(last.big_blind_seat, dealt, size), why
        assert not (survivor_seat == last.big_blind_seat == hand.big_blind_seat), why
        # B1: nobody holds the button twice in a row.
        held = last.button_seat == survivor_seat and not last.button_dead
        assert not (held and hand.button_seat == survivor_seat and not hand.button_dead), why
        posted = {p.seat for p in hand.posts}
        if len(dealt) == 2:  # D3: heads-up the button posts the small blind
            assert hand.small_blind_seat == hand.button_seat != hand.big_blind_seat, why
            assert posted == dealt, why
            continue
        if dealt == set(seated) and len(dealt) > 2 and hand.button_seat in dealt - {survivor_seat}:
            # Every arrival had to wait for the button: the table started afresh
            # from the big blind rather than stall (docs/rule-decisions.md, T3/B1).
            continue
        # The small blind is the last big blind's seat, posted only if someone sits there.
        small = last.big_blind_seat
        assert hand.small_blind_seat == (small if small in dealt else 0), why
        forbidden = set(clockwise(hand.button_seat, small, size))
        assert not (dealt & arrivals & forbidden), why  # T3: nobody dealt in there
        assert set(seated) - dealt <= forbidden, why  # only those seats wait
        assert posted <= {hand.big_blind_seat, hand.small_blind_seat}, why
        waited += dealt != set(seated)
        checked += 1
    assert checked >= SEEDS_PER_STRUCTURE // 4, (checked, waited)


@pytest.mark.slow
def test_T3_stud_players_from_a_broken_table_take_any_seat_by_position(lobby: Lobby) -> None:
    field = players(lobby, 24)
    config = common.GameConfig(game=common.GAME_STUD_HILO)
    checked = 0
    for seed in range(15):
        rng = random.Random(f"stud:{seed}")
        size = rng.choice([3, 5, 8])
        setup = to_the_break(lobby, field, rng, config, size)
        if setup is None:
            continue
        d, a, survivor, _last = setup
        hand = d.next_hand(a)
        assert hand.play, seed
        seated = d.seats(a)
        # Stud has no button or blinds (B6): every arrival is dealt in at once.
        assert {s.seat for s in hand.dealt_in} == set(seated), seed
        assert survivor in seated.values() and len(seated) > 1 and not hand.posts, seed
        assert hand.button_seat == 0, seed
        checked += 1
    assert checked >= 5, checked
