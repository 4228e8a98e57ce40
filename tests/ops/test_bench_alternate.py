"""bench.alternate and its users, bench.door and bench.soak: two configurations
compared as A, B, B, A, each the mean of its two runs (the machine's speed drifts
between runs: a steady drift must not show as the difference measured)."""

from __future__ import annotations

import doctest
from typing import Any

import pytest

from bench import alternate, door, soak, stack
from bench.stack_figures import hands_key


def _figures(
    hands: float, p50: float, p99: float, table_cpu: float, gateway_cpu: float
) -> dict[str, float]:
    return {
        hands_key(20, 6): hands,
        "stack_turn_latency_p50_ms": p50,
        "stack_turn_latency_p99_ms": p99,
        "stack_host_steal_pct": 0.1,
        "stack_cpu_ms_per_hand_table": table_cpu,
        "stack_cpu_ms_per_hand_gateway": gateway_cpu,
    }


def test_a_steady_drift_is_cancelled_and_each_way_is_its_two_runs_mean(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The machine slows by 10 hands/s each run; the hop itself costs nothing.
    runs = iter(
        [
            _figures(100.0, 10.0, 30.0, 6.0, 0.0),  # direct
            _figures(90.0, 11.0, 33.0, 6.6, 3.0),  # gateway
            _figures(80.0, 12.0, 36.0, 7.2, 4.0),  # gateway
            _figures(70.0, 13.0, 39.0, 7.8, 0.0),  # direct
        ]
    )
    ways: list[bool] = []

    def measure(bench: Any) -> dict[str, float]:
        ways.append(bench.via_gateway)
        assert bench.think_ms == 8.0
        return next(runs)

    monkeypatch.setattr(door, "_measure", measure)
    out = door._hop("paced", 8.0)

    assert ways == [False, True, True, False]
    assert out["door_paced_direct_hands_per_s"] == 85.0
    assert out["door_paced_gateway_hands_per_s"] == 85.0
    assert out["door_paced_hands_ratio"] == 1.0
    assert out["door_paced_p50_ratio"] == 1.0
    assert out["door_paced_p99_ratio"] == 1.0
    assert out["door_paced_gateway_cpu_ms_per_hand"] == 3.5
    assert out["door_paced_direct_table_cpu_ms_per_hand"] == 6.9
    assert out["door_paced_gateway_table_cpu_ms_per_hand"] == 6.9
    # direct 100 against 70: 30 % apart; gateway 90 against 80: 11 %
    assert out["door_paced_runs_spread"] == 0.3


def test_a_hop_that_costs_shows_in_the_ratios(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = iter(
        [
            _figures(100.0, 10.0, 20.0, 6.0, 0.0),
            _figures(80.0, 12.0, 30.0, 6.0, 4.0),
            _figures(80.0, 12.0, 30.0, 6.0, 4.0),
            _figures(100.0, 10.0, 20.0, 6.0, 0.0),
        ]
    )
    monkeypatch.setattr(door, "_measure", lambda bench: next(runs))
    out = door._hop("flat", 0.0)
    assert out["door_flat_hands_ratio"] == 0.8
    assert out["door_flat_p50_ratio"] == 1.2
    assert out["door_flat_p99_ratio"] == 1.5
    assert out["door_flat_runs_spread"] == 0.0


def test_alternate_runs_a_b_b_a_as_its_doctest_shows() -> None:
    result = doctest.testmod(alternate)
    assert result.attempted >= 3
    assert result.failed == 0


def test_the_soak_takes_each_stores_mean_and_says_how_far_its_runs_were_apart() -> None:
    runs = [
        {
            "hands_per_s": 100.0,
            "turn_latency_p50_ms": 10.0,
            "turn_latency_p99_ms": 30.0,
            "lobby_cpu_ms_per_hand": 2.0,
            "table_cpu_ms_per_hand": 6.0,
            "host_steal_pct": 0.1,
            "reconcile_in_window": 0,
        },
        {
            "hands_per_s": 75.0,
            "turn_latency_p50_ms": 14.0,
            "turn_latency_p99_ms": 40.0,
            "lobby_cpu_ms_per_hand": 3.0,
            "table_cpu_ms_per_hand": 8.0,
            "host_steal_pct": 0.7,
            "reconcile_in_window": 1,
        },
    ]
    out = soak._combined("filled", runs)
    assert out == {
        "soak_filled_hands_per_s": 87.5,
        "soak_filled_turn_latency_p50_ms": 12.0,
        "soak_filled_turn_latency_p99_ms": 35.0,
        "soak_filled_lobby_cpu_ms_per_hand": 2.5,
        "soak_filled_table_cpu_ms_per_hand": 7.0,
        "soak_filled_host_steal_pct": 0.7,
        "soak_filled_reconcile_in_window": 1,
        "soak_filled_runs_spread": 0.25,
    }


def test_what_tls_costs_is_taken_tls_plain_plain_tls(monkeypatch: pytest.MonkeyPatch) -> None:
    # The machine slows steadily; TLS costs 10 % of the CPU per hand.
    speed = iter([1.0, 1.1, 1.2, 1.3])
    sides: list[bool] = []

    def one_run(plaintext: bool) -> dict[str, float]:
        sides.append(plaintext)
        slow = next(speed)
        return {
            "hands_per_s": 100.0 / slow,
            "turn_latency_p50_ms": 10.0 * slow,
            "turn_latency_p99_ms": 30.0 * slow,
            "cpu_ms_per_hand": (20.0 if plaintext else 22.0) * slow,
            "host_steal_pct": 0.2 if plaintext else 0.0,
        }

    monkeypatch.setattr(stack, "_tls_run", one_run)
    out = stack.run_plaintext()
    assert sides == [False, True, True, False]
    assert out["stack_plaintext_cpu_ms_per_hand"] == 23.0  # 20 x (1.1 + 1.2) / 2
    assert out["stack_tls_cpu_ratio"] == 1.1
    assert out["stack_tls_p99_ratio"] == 1.0
    assert out["stack_plaintext_host_steal_pct"] == 0.2
    assert out["stack_tls_hands_ratio"] == 1.015  # 1 / slowness is convex: nearly 1
    assert out["stack_tls_runs_spread"] == 0.231  # 100 against 76.9
