"""Smoke test of the full-stack benchmark (bench/stack.py): a tiny room (2 tables of
3 bots, a 2 s window) gives every figure, and every process (the five services,
the bots' process, the ceiling's echo server) exits cleanly.  No thresholds: speed
is the benchmark's business, not the test's."""

from __future__ import annotations

import asyncio

from bench import stack, stack_figures

POSITIVE = (
    stack.hands_key(2, 3),
    "stack_window_s",
    "stack_hands",
    "stack_turn_latency_p50_ms",
    "stack_turn_latency_p99_ms",
    "stack_turn_latency_samples",
    "stack_batched_calls_per_hand",  # betting, dealer and lobby calls on Batch streams
    "stack_betting_stream_messages_per_hand",  # in batches
    "stack_dealer_stream_messages_per_hand",
    "stack_lobby_stream_messages_per_hand",  # NextHand, FinishHand
    "stack_interservice_calls_per_hand",
    "stack_stream_messages_per_hand",
    "stack_player_messages_per_hand",
    "stack_actions_per_hand",
    "stack_stream_messages_per_s",
    "stack_ceiling_unary_calls_per_s",
    "stack_ceiling_stream_messages_per_s",
    "stack_hands_per_s_vs_unary_ceiling",
    "stack_stream_messages_per_s_vs_stream_ceiling",
)
PRESENT = (
    # Unary RPCs per hand: none left on the hand's path (every call is on a stream).
    "stack_rpcs_per_hand",
    "stack_showdown_stream_messages_per_hand",  # 0 in a window without a showdown
    "stack_server_rpcs_per_hand",
    "stack_rpcs_per_s",
    "stack_rpcs_per_s_vs_unary_ceiling",
    "stack_lobby_rpcs_per_hand",  # 0 with the lobby's stream
    "stack_timeouts",
    "stack_betting_rpcs_per_hand",  # 0 with the betting stream
    "stack_dealer_rpcs_per_hand",  # 0 with the dealer's stream
    "stack_showdown_rpcs_per_hand",
    "stack_loadavg_1m",
    "stack_host_steal_pct",
    *(f"stack_cpu_pct_{name}" for name in stack.PROCESSES if name != "spectators"),
    *(f"stack_cpu_ms_per_hand_{name}" for name in stack.PROCESSES if name != "spectators"),
)


def test_a_tiny_room_gives_every_figure_and_every_process_exits_cleanly() -> None:
    bench = stack.StackBench(tables=2, seats=3, warmup_s=1.0, seconds=2.0, ceiling_seconds=0.1)
    result = asyncio.run(stack.measure_stack(bench))

    assert result.exit_codes == {
        "gateway": 0,
        "table": 0,
        "dealer": 0,
        "betting": 0,
        "showdown": 0,
        "lobby": 0,
        "bots": 0,
        "echo": 0,
    }
    assert result.clean
    figures = result.figures
    missing = set(POSITIVE + PRESENT) - figures.keys()
    assert not missing, missing
    assert all(figures[key] > 0 for key in POSITIVE), {k: figures[k] for k in POSITIVE}
    assert all(figures[key] >= 0 for key in PRESENT), figures
    assert figures["stack_turn_latency_p50_ms"] <= figures["stack_turn_latency_p99_ms"]
    bots = result.details["bots"]
    assert bots["connected"] and bots["clean"], bots
    assert bots["bots"] == 6
    assert not bots["errors"], bots


def test_a_paced_tiny_room_reports_its_speed_and_latency() -> None:
    """Bots thinking before they act (the SDK's async bot form): the room plays, the
    processes exit cleanly, and the paced keys come from the run's figures."""
    bench = stack.StackBench(
        tables=2, seats=3, warmup_s=1.0, seconds=2.0, ceiling_seconds=0.1, think_ms=20.0
    )
    result = asyncio.run(stack.measure_stack(bench))
    assert result.clean, result.exit_codes
    bots = result.details["bots"]
    assert bots["clean"] and not bots["errors"] and bots["actions"] > 0, bots
    paced = stack.paced_figures(bench, result.figures)
    assert paced["stack_paced_think_ms"] == 20.0
    assert paced["stack_paced_hands_per_s"] == result.figures[stack.hands_key(2, 3)] > 0
    assert 0 < paced["stack_paced_turn_latency_p50_ms"] <= paced["stack_paced_turn_latency_p99_ms"]
    assert paced["stack_paced_cpu_ms_per_hand"] > 0
    # Thinking paces the room but is not in the latency: 20 ms a decision would put
    # every sample above 20 ms; a tiny room answers in a few.
    assert paced["stack_paced_turn_latency_p50_ms"] < 20.0


def test_steal_is_the_stolen_share_of_the_machines_ticks() -> None:
    assert stack_figures._steal_pct((100, 10_000), (250, 11_000)) == 15.0
    assert stack_figures._steal_pct((0, 0), (0, 0)) == 0.0  # no /proc/stat: no figure, no error
    steal, ticks = stack_figures._host_ticks()
    assert 0 <= steal <= ticks


def test_profile_summary_of_collapsed_stacks() -> None:
    root = "<module> (services/table/__main__.py:9)"
    raw = "\n".join(
        [
            f"{root};_decide (services/table/hand.py:480) 30",
            f"{root};_invoke (/x/site-packages/grpc/aio/_call.py:5) 70",
        ]
    )
    text = stack.summarize_profile(raw, top=5)
    assert "100 samples" in text
    assert "70.0%  _invoke (grpc/aio/_call.py)" in text
    assert "30.0%  _decide (services/table/hand.py)" in text
    assert "100.0%  <module> (services/table/__main__.py)" in text
    assert stack.summarize_profile("") == "py-spy recorded no samples"


def test_a_tiny_room_through_the_door_with_spectators() -> None:
    """The bots through the gateway, spectators watching through it: the door's
    figures, and the per-player watcher limit refusing the probe's extra streams."""
    bench = stack.StackBench(
        tables=2,
        seats=3,
        warmup_s=1.0,
        seconds=3.0,
        ceiling_seconds=0.1,
        via_gateway=True,
        spectators=10,
        spectators_per_player=5,
    )
    result = asyncio.run(stack.measure_stack(bench))
    assert result.clean, result.exit_codes
    figures = result.figures
    assert figures[stack.hands_key(2, 3)] > 0
    assert figures["stack_cpu_pct_gateway"] > 0
    assert figures["door_spectators"] == 10
    assert figures["door_spectator_events_per_s"] > 0
    assert figures["door_spectators_ended_early"] == 0
    assert figures["door_gateway_cpu_us_per_spectator_event"] > 0
    assert figures["door_limit_probe_refused"] == 5  # per player + 5 opened at once
    assert figures["door_limit_probe_admitted"] == 5
