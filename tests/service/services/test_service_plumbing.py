"""What every service gets from service_kit: health, reflection, metrics, shutdown."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2, dealer_pb2_grpc
from poker.showdown.v1 import showdown_pb2, showdown_pb2_grpc
from tests.support.health import SERVING, health_status, reflected_services
from tests.support.metrics import scrape
from tests.support.typed_grpc import health_stub

from .process import ServiceProcess

SERVICES = {
    "dealer": "poker.dealer.v1.Dealer",
    "showdown": "poker.showdown.v1.Showdown",
    "betting": "poker.betting.v1.Betting",
}


@pytest.fixture(scope="module")
def processes() -> Iterator[dict[str, ServiceProcess]]:
    started = {name: ServiceProcess(name) for name in SERVICES}  # start both, then wait
    try:
        for process in started.values():
            process.wait_serving()
        yield started
    finally:
        for process in started.values():
            process.terminate()


def test_services_are_healthy_and_listed_by_reflection(
    processes: dict[str, ServiceProcess],
) -> None:
    for name, service in SERVICES.items():
        target = processes[name]
        for checked in ("", service):
            assert health_status(target, checked) == SERVING, (name, checked)
        listed = reflected_services(target)
        assert service in listed and "grpc.health.v1.Health" in listed, listed
        assert "grpc.reflection.v1alpha.ServerReflection" in listed


def test_logs_are_json_lines_with_hand_and_table_ids(processes: dict[str, ServiceProcess]) -> None:
    dealer = processes["dealer"]
    serving = next(r for r in dealer.records() if r.get("event") == "serving")
    assert serving["service"] == "dealer" and serving["level"] == "info"
    assert "timestamp" in serving
    # The startup heap was frozen out of the GC's reach (service_kit.heap).
    assert serving["gc_frozen_objects"] > 10_000
    assert serving["gc_full_collections"] == "on memory growth"  # GC_FULL_GROWTH
    with dealer.channel("table") as channel:
        stub = dealer_pb2_grpc.DealerStub(channel)
        request = dealer_pb2.OpenDeckRequest(
            game=common.GAME_STUD, players=2, hand_id="hand-42", table_id="table-7"
        )
        deck_id = stub.OpenDeck(request, timeout=5).deck_id
        stub.CloseDeck(dealer_pb2.CloseDeckRequest(deck_id=deck_id), timeout=5)
    deadline = time.monotonic() + 5
    while True:
        mine = [r for r in dealer.records() if r.get("hand_id") == "hand-42"]
        if [r["event"] for r in mine] == ["deck opened", "deck closed"]:
            break
        assert time.monotonic() < deadline, dealer.log
        time.sleep(0.02)
    assert all((r["hand_id"], r["table_id"]) == ("hand-42", "table-7") for r in mine), mine
    # never the deck id: it is as secret as the cards (whoever holds it can close the deck)
    assert deck_id not in dealer.log and not any("deck_id" in r for r in mine), mine


def test_metrics_expose_standard_grpc_families(processes: dict[str, ServiceProcess]) -> None:
    dealer, showdown = processes["dealer"], processes["showdown"]
    with dealer.channel("table") as channel:
        stub = dealer_pb2_grpc.DealerStub(channel)
        opened = stub.OpenDeck(
            dealer_pb2.OpenDeckRequest(game=common.GAME_STUD, players=2), timeout=5
        )
        stub.CloseDeck(dealer_pb2.CloseDeckRequest(deck_id=opened.deck_id), timeout=5)
        with pytest.raises(grpc.RpcError):
            stub.Deal(dealer_pb2.DealRequest(deck_id="gone", count=1), timeout=5)
    with showdown.channel("table") as channel:
        showdown_pb2_grpc.ShowdownStub(channel).Settle(
            showdown_pb2.SettleRequest(
                config=common.GameConfig(
                    game=common.GAME_STUD, ante=1, bring_in=1, small_bet=2, big_bet=4
                ),
                hands=[
                    showdown_pb2.SeatHand(seat=1, cards=["As", "Ks", "Qs", "Js", "Ts", "2c", "3d"]),
                    showdown_pb2.SeatHand(seat=2, cards=["Ah", "Kh", "Qh", "Jh", "9h", "2d", "3h"]),
                ],
                pots=[common.Pot(amount=40, eligible_seats=[1, 2])],
                first_to_show_seat=2,
            ),
            timeout=5,
        )
    reflected_services(dealer)  # a bidirectional stream

    samples = scrape(dealer)

    def value(name: str, **labels: str) -> float:
        return samples.get((name, tuple(sorted(labels.items()))), 0.0)

    unary = {"grpc_type": "UNARY", "grpc_service": "poker.dealer.v1.Dealer"}
    assert value("grpc_server_started_total", **unary, grpc_method="OpenDeck") >= 1
    assert value("grpc_server_handled_total", **unary, grpc_method="OpenDeck", grpc_code="OK") >= 1
    assert (
        value("grpc_server_handled_total", **unary, grpc_method="Deal", grpc_code="NOT_FOUND") >= 1
    )
    assert value("grpc_server_handling_seconds_count", **unary, grpc_method="OpenDeck") >= 1
    bucket = {**unary, "grpc_method": "OpenDeck", "le": "+Inf"}
    assert value("grpc_server_handling_seconds_bucket", **bucket) >= 1
    stream = {
        "grpc_type": "BIDI_STREAM",
        "grpc_service": "grpc.reflection.v1alpha.ServerReflection",
        "grpc_method": "ServerReflectionInfo",
    }
    assert value("grpc_server_msg_received_total", **stream) >= 1
    assert value("grpc_server_msg_sent_total", **stream) >= 1
    assert value("dealer_decks_opened_total", game="stud", preset="false") >= 1
    assert value("dealer_decks_closed_total") >= 1

    shown = scrape(showdown)
    assert shown[("showdown_pots_settled_total", (("game", "stud"),))] >= 1
    assert shown[("showdown_pot_size_chips_count", (("game", "stud"),))] >= 1
    settle = (
        ("grpc_code", "OK"),
        ("grpc_method", "Settle"),
        ("grpc_service", "poker.showdown.v1.Showdown"),
        ("grpc_type", "UNARY"),
    )
    assert shown[("grpc_server_handled_total", settle)] >= 1


@pytest.mark.parametrize("event_loop", ["uvloop", "asyncio"])
def test_sigterm_goes_not_serving_then_exits_cleanly(event_loop: str) -> None:
    """On either event loop (EVENT_LOOP; uvloop is the default)."""
    with ServiceProcess("dealer", {"SHUTDOWN_DRAIN_S": "1", "EVENT_LOOP": event_loop}) as process:
        with process.channel("table") as channel:
            health = health_stub(channel)
            request = health_pb2.HealthCheckRequest(service=SERVICES["dealer"])
            assert health.Check(request, timeout=5).status == health_pb2.HealthCheckResponse.SERVING
            process.proc.terminate()  # SIGTERM
            deadline = time.monotonic() + 5
            status: int = health_pb2.HealthCheckResponse.SERVING
            while status == health_pb2.HealthCheckResponse.SERVING:
                assert time.monotonic() < deadline, process.log
                status = health.Check(request, timeout=5).status
                time.sleep(0.02)
            assert status == health_pb2.HealthCheckResponse.NOT_SERVING
        assert process.proc.wait(timeout=15) == 0
    events = [r.get("event") for r in process.records()]
    assert events.index("shutting down") < events.index("stopped")


def test_a_bad_setting_stops_the_service_with_a_clear_message() -> None:
    process = ServiceProcess("dealer", {"DEALER_MAX_DECKS": "lots"})
    assert process.proc.wait(timeout=30) == 2
    process.terminate()
    assert "DEALER_MAX_DECKS='lots': expected an integer" in process.log


def test_an_unknown_event_loop_stops_the_service_with_a_clear_message() -> None:
    process = ServiceProcess("dealer", {"EVENT_LOOP": "tokio"})
    assert process.proc.wait(timeout=30) == 2
    process.terminate()
    assert "EVENT_LOOP='tokio': expected one of uvloop, asyncio" in process.log
