# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S10)
"""Issue 13, defect 10: metric label values people read, set where they are counted.

The timeout panel showed ``policy="unspecified"`` (the proto enum's name for a table
created without a policy, which plays the rule book's default) and the betting
rounds' panel showed streets as numbers 0-4 (whose meaning differs between stud and
the draw).  tests/ops/monitoring/test_scrape.py checks the same on a real scrape.
"""

from __future__ import annotations

from poker.common.v1 import common_pb2 as common
from poker_rules.config import Game, TimeoutPolicy
from services.betting.metrics import street_label
from services.table.metrics import timeout_policy_label


def test_the_timeout_label_names_the_policy_the_clock_applies__S10() -> None:
    assert timeout_policy_label(common.TIMEOUT_POLICY_UNSPECIFIED) == "all_in_protection"
    assert timeout_policy_label(common.TIMEOUT_POLICY_ALL_IN_PROTECTION) == "all_in_protection"
    assert timeout_policy_label(common.TIMEOUT_POLICY_CHECK_OR_FOLD) == "check_or_fold"
    assert {timeout_policy_label(v) for v in common.TimeoutPolicy.values()} == {
        p.value for p in TimeoutPolicy
    }


def test_betting_rounds_are_labelled_by_street_name() -> None:
    for game in (Game.STUD, Game.STUD_HILO):
        assert [street_label(game, s) for s in range(5)] == [
            "third",
            "fourth",
            "fifth",
            "sixth",
            "seventh",
        ]
    assert [street_label(Game.DRAW_7A, s) for s in range(2)] == ["pre_draw", "post_draw"]


def test_the_oldest_hand_gauge_follows_the_hands_in_start_order(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The stuck-hand alert's gauge: the oldest hand in progress, kept without a
    walk over every table at each hand (issue 19: per-hand work must not grow
    with the room)."""
    import time

    from services.table import metrics

    clock = iter([100.0, 101.0, 102.0, 103.0])
    monkeypatch.setattr(time, "time", lambda: next(clock, 200.0))
    monkeypatch.setattr(metrics, "_hands_started", {})
    gauge = metrics.OLDEST_HAND_STARTED
    metrics.hand_started("t-a")  # 100
    metrics.hand_started("t-b")  # 101
    metrics.hand_started("t-c")  # 102
    assert gauge._value.get() == 100.0 and metrics.HANDS_IN_PROGRESS._value.get() == 3
    metrics.hand_ended("t-a")  # LAST_HAND_FINISHED takes 103
    assert gauge._value.get() == 101.0
    metrics.hand_started("t-b")  # t-b again without an end (a void path): 200, last
    assert gauge._value.get() == 102.0
    metrics.hand_ended("t-c")
    assert gauge._value.get() == 200.0
    metrics.hand_ended("t-b")
    assert gauge._value.get() == 0.0 and metrics.HANDS_IN_PROGRESS._value.get() == 0
