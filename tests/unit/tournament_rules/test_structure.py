# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __T3)
"""T1: tournament structure — levels, breaks, clock, late registration, re-entry."""

from __future__ import annotations

import pytest

from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import (
    BlindStakes,
    Break,
    ClockPosition,
    EntryRefusedError,
    Level,
    LevelClock,
    StudStakes,
    TournamentStructure,
)

L1 = BlindStakes(25, 50)
L2 = BlindStakes(50, 100)
L3 = BlindStakes(100, 200, ante=25)
L4 = BlindStakes(150, 300, ante=50)


def timed() -> TournamentStructure:
    """20-minute levels, a 10-minute break after level 2, late registration through level 2."""
    return TournamentStructure(
        schedule=(Level(L1, 1200), Level(L2, 1200), Break(600), Level(L3, 1200), Level(L4, 1200)),
        starting_stack=10_000,
        buy_in=10_000,
        fee=1_000,
        late_registration_level=2,
        max_entries=2,
    )


def by_hands() -> TournamentStructure:
    return TournamentStructure(
        schedule=(Level(L1, 10), Level(L2, 10), Level(L3, 5)),
        starting_stack=1_500,
        buy_in=100,
        clock=LevelClock.HANDS,
    )


def test_level_from_elapsed_seconds__T1() -> None:
    s = timed()
    assert s.position(0) == ClockPosition(1, L1, False, 1200)
    assert s.position(1199) == ClockPosition(1, L1, False, 1)
    assert s.position(1200) == ClockPosition(2, L2, False, 1200)
    assert s.position(2400) == ClockPosition(3, L3, True, 600)  # break before level 3
    assert s.position(2999) == ClockPosition(3, L3, True, 1)
    assert s.position(3000) == ClockPosition(3, L3, False, 1200)
    assert s.position(4200) == ClockPosition(4, L4, False, None)  # last level never ends
    assert s.position(10**9) == ClockPosition(4, L4, False, None)
    assert [s.level_start(n) for n in (1, 2, 3, 4)] == [0, 1200, 3000, 4200]


def test_level_from_hands_played__T1() -> None:
    s = by_hands()
    assert s.position(0).level == 1
    assert s.position(9) == ClockPosition(1, L1, False, 1)
    assert s.position(10) == ClockPosition(2, L2, False, 10)
    assert s.position(20) == ClockPosition(3, L3, False, None)
    assert s.position(500).stakes == L3


def test_stud_levels_ante_bring_in_and_limits__T1() -> None:
    s = TournamentStructure(
        schedule=(Level(StudStakes(10, 25, 100, 200), 15), Level(StudStakes(25, 50, 200, 400), 15)),
        starting_stack=4_000,
        buy_in=500,
        clock=LevelClock.HANDS,
    )
    assert s.is_stud
    assert s.position(15).stakes == StudStakes(25, 50, 200, 400)
    assert not timed().is_stud


def test_breaks_need_a_seconds_clock_and_timed_by_hands_drops_them__T1() -> None:
    with pytest.raises(InvalidConfigError, match="breaks need a clock in seconds"):
        TournamentStructure(
            (Level(L1, 10), Break(5), Level(L2, 10)), 1000, 100, clock=LevelClock.HANDS
        )
    fast = timed().timed_by_hands(8)
    assert fast.clock is LevelClock.HANDS
    assert fast.schedule == (Level(L1, 8), Level(L2, 8), Level(L3, 8), Level(L4, 8))
    assert (fast.starting_stack, fast.buy_in, fast.fee, fast.max_entries) == (
        10_000,
        10_000,
        1_000,
        2,
    )
    assert fast.position(16).level == 3


def test_late_registration_open_through_level_and_following_break__T1() -> None:
    s = timed()
    assert s.registration_open(0)
    assert s.registration_open(2399)  # level 2
    assert s.registration_open(2999)  # the break after level 2
    assert not s.registration_open(3000)  # level 3 has started
    freezeout = by_hands()
    assert freezeout.registration_open(0)
    assert not freezeout.registration_open(1)


def test_re_entry_after_bust_up_to_max_entries__T1() -> None:
    s = timed()
    s.check_entry(0, previous_entries=0, has_live_entry=False)
    s.check_entry(1500, previous_entries=1, has_live_entry=False)  # re-entry in level 2
    with pytest.raises(EntryRefusedError, match="used 2 of 2 entries"):
        s.check_entry(1500, previous_entries=2, has_live_entry=False)
    with pytest.raises(EntryRefusedError, match="already has chips in play"):
        s.check_entry(1500, previous_entries=1, has_live_entry=True)
    with pytest.raises(EntryRefusedError, match="closed at the start of level 3"):
        s.check_entry(3000, previous_entries=1, has_live_entry=False)


def test_freezeout_refuses_re_entry_and_late_entry__T1() -> None:
    s = by_hands()
    with pytest.raises(EntryRefusedError, match="freezeout"):
        s.check_entry(0, previous_entries=1, has_live_entry=False)
    with pytest.raises(EntryRefusedError, match="when play started"):
        s.check_entry(3, previous_entries=0, has_live_entry=False)


def test_buy_in_to_pool_fee_excluded_and_chips_in_play__T1() -> None:
    s = timed()
    assert s.prize_pool(120) == 1_200_000
    assert sum(s.payouts(120)) == 1_200_000
    assert s.total_chips(120) == 1_200_000


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"schedule": ()}, "at least one level"),
        ({"schedule": (Break(60), Level(L1, 60))}, "must start with a level"),
        ({"schedule": (Level(L1, 60), Break(60))}, "must end with a level"),
        ({"schedule": (Level(L1, 60), Break(60), Break(60), Level(L2, 60))}, "two breaks in a row"),
        ({"schedule": (Level(L1, 0),)}, "duration must be positive"),
        ({"schedule": (Level(BlindStakes(100, 50), 60),)}, "small blind <= big blind"),
        ({"schedule": (Level(BlindStakes(25, 50, -1), 60),)}, "ante must not be negative"),
        ({"schedule": (Level(L2, 60), Level(L1, 60))}, "stakes go down"),
        (
            {"schedule": (Level(L1, 60), Level(StudStakes(10, 25, 100, 200), 60))},
            "mixes them",
        ),
        ({"schedule": (Level(StudStakes(10, 150, 100, 200), 60),)}, "bring_in <= small_bet"),
        ({"schedule": (Level(BlindStakes(25, 50.0), 60),)}, "int of chips"),  # type: ignore[arg-type]
        ({"starting_stack": 0}, "starting stack must be positive"),
        ({"starting_stack": 1500.0}, "starting_stack must be an int"),
        ({"fee": -1}, "must not be negative"),
        ({"late_registration_level": 2}, "before the last level"),
        ({"max_entries": 0}, "at least 1"),
        ({"max_entries": 3}, "re-entry needs late registration"),
    ],
)
def test_invalid_structures_are_refused_with_clear_errors__T1(
    kwargs: dict[str, object], message: str
) -> None:
    fields: dict[str, object] = {
        "schedule": (Level(L1, 60), Level(L2, 60)),
        "starting_stack": 1500,
        "buy_in": 100,
    }
    fields.update(kwargs)
    with pytest.raises(InvalidConfigError, match=message):
        TournamentStructure(**fields)  # type: ignore[arg-type]
