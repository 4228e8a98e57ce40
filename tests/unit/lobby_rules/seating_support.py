"""What the ring-game seating scenario files share: the draw table they sit at and
the shorthands that play a hand's plan and read its posts and positions.

Seats are 1..N.  Unless a test says otherwise the draw table has five seats and
blinds 50/100 (``DrawConfig()``: small bet 100), and ``play`` finishes each hand with
the stacks unchanged (positions, not chips, are under test).
"""

from __future__ import annotations

from poker_rules import DrawConfig
from poker_rules.seating import HandPlan, PostKind, SeatingConfig, SeatingTable, Waiting

DRAW = DrawConfig()
SB, BB = DRAW.small_blind, DRAW.big_blind  # 50, 100


def draw_table(seats: list[int], *, size: int = 5, max_orbits_away: int = 3) -> SeatingTable:
    t = SeatingTable(SeatingConfig.for_draw(DRAW, seats=size, max_orbits_away=max_orbits_away))
    for s in seats:
        t.sit_down(s, f"p{s}", 10_000)
    return t


def play(t: SeatingTable, *, button: int | None = None) -> HandPlan:
    plan = t.plan_hand(button=button)
    assert plan is not None
    t.finish_hand(plan, plan.stacks)
    return plan


def posts(plan: HandPlan) -> list[tuple[int, PostKind, int, bool]]:
    return [(p.seat, p.kind, p.amount, p.live) for p in plan.posts]


def positions(plan: HandPlan) -> tuple[int | None, int | None, int | None]:
    return plan.button, plan.small_blind, plan.big_blind


def waiting(plan: HandPlan) -> dict[int, Waiting]:
    return dict(plan.waiting)
