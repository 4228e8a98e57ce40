"""Writes the Grafana dashboards of the card room (the *.json beside this file).

    .venv/bin/python -m deploy.monitoring.dashboards.generate

The JSON is what Grafana imports; this module is what each dashboard shows, built
from the panel builders of ``panels.py`` so every board has one layout, one
datasource variable and unique panel ids.  tests/ops/monitoring checks that the
committed JSON is what this module writes, that every expression parses (promtool)
and that every one returns series from a real scrape of the room.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from deploy.monitoring.dashboards.panels import (
    dashboard,
    grpc_panels,
    panel,
    per_min,
    quantile,
    rate,
    stat,
)

HERE = Path(__file__).resolve().parent


def batched_calls(job: str, whose: str = "") -> dict[str, Any]:
    """The calls a service takes on its Batch stream, one by one, by method and status."""
    return panel(
        f"Batched calls / s by method and status{whose}",
        [(rate(f"{job}_batched_calls_total", "method, code"), "{{method}} {{code}}")],
        unit="ops",
    )


def chip_ledger(title: str) -> dict[str, Any]:
    """The lobby's chip ledger: granted = balances + at tables, so the mismatch stays 0."""
    return panel(
        title,
        [
            ("lobby_ledger_granted_chips", "granted"),
            ("lobby_ledger_balances_chips", "balances"),
            ("lobby_ledger_at_tables_chips", "at tables"),
            (
                "lobby_ledger_granted_chips - lobby_ledger_balances_chips"
                " - lobby_ledger_at_tables_chips",
                "mismatch (must be 0)",
            ),
        ],
    )


def overview() -> dict[str, Any]:
    return dashboard(
        "cardroom-overview",
        "Card room: overview",
        [
            stat("Tables running", "sum(table_tables_running)"),
            stat("Hands in progress", "sum(table_hands_in_progress)"),
            stat("Players seated", "sum(lobby_seated_players)"),
            stat(
                "Since the last hand finished",
                "time() - max(table_last_hand_finished_timestamp_seconds)",
                unit="s",
            ),
            panel(
                "Hands / min by game",
                [(per_min(rate("table_hands_finished_total", "game")), "{{game}}")],
            ),
            panel(
                "Hands / min by outcome",
                [(per_min(rate("table_hands_finished_total", "outcome")), "{{outcome}}")],
            ),
            panel(
                "Turn latency (a player's action to the next turn)",
                [
                    (quantile(0.5, "table_decision_seconds"), "p50"),
                    (quantile(0.9, "table_decision_seconds"), "p90"),
                    (quantile(0.99, "table_decision_seconds"), "p99"),
                ],
                unit="s",
            ),
            panel(
                "Server-side error ratio by service (unary and batched calls)",
                [("job:cardroom_call_errors:ratio_rate5m", "{{job}}")],
                unit="percentunit",
                description="Of the calls in 'Calls / s by service', those that ended in a "
                "server-side status (client errors and CANCELLED excluded), as the "
                "CardroomGrpcErrorRate alert counts them.",
            ),
            panel(
                "Calls / s by service (unary and batched calls)",
                [("job:cardroom_calls:rate5m", "{{job}}")],
                unit="reqps",
                description="Unary RPCs, the calls on the Batch streams (betting, "
                "dealer, showdown and the lobby's hand calls: *_batched_calls_total) and "
                "the players' messages on the Play and PlayMany streams of the table and "
                "of the gateway, which forwards them.",
            ),
            panel(
                "p99 latency by service: the table's calls, and the slowest unary method",
                [
                    (
                        quantile(0.99, "table_downstream_call_seconds", "service"),
                        "{{service}}: the table's calls (unary and batched)",
                    ),
                    (
                        "max by (job) (job_method:grpc_server_handling_seconds:p99_rate5m)",
                        "{{job}}: slowest unary method",
                    ),
                ],
                unit="s",
                description="Betting, dealer and showdown take their calls on streams, "
                "which grpc_server_handling_seconds cannot time (a stream lasts as long "
                "as the table runs): the table times every call it makes, as the hands "
                "wait on it.",
            ),
            panel(
                "Timeouts / min by game and policy (S10)",
                [(per_min(rate("table_timeouts_total", "game, policy")), "{{game}} {{policy}}")],
            ),
            panel(
                "Share of decisions made by the clock",
                [("job_game:table_timeouts:ratio_rate5m", "{{game}}")],
                unit="percentunit",
            ),
            panel(
                "Seventh streets / min by S11 outcome",
                [(per_min(rate("table_river_outcomes_total", "outcome")), "{{outcome}}")],
            ),
            panel(
                "Pot size by game",
                [
                    (quantile(0.5, "table_pot_size_chips", "game"), "p50 {{game}}"),
                    (
                        f"{rate('table_pot_size_chips_sum', 'game')} / "
                        f"{rate('table_pot_size_chips_count', 'game')}",
                        "mean {{game}}",
                    ),
                ],
            ),
            panel(
                "Open streams by kind", [("sum by (kind) (table_connected_streams)", "{{kind}}")]
            ),
            panel(
                "Player actions refused / min by status",
                [(per_min(rate("table_actions_rejected_total", "code")), "{{code}}")],
            ),
            chip_ledger("Chip ledger (lobby)"),
            panel(
                "Services up",
                [
                    (
                        'up{job=~"dealer|betting|showdown|lobby|table|gateway"}',
                        "{{job}} {{instance}}",
                    )
                ],
            ),
        ],
    )


def dealer() -> dict[str, Any]:
    return dashboard(
        "cardroom-dealer",
        "Card room: dealer",
        [
            *grpc_panels("dealer"),
            panel(
                "Decks opened / min by game",
                [(per_min(rate("dealer_decks_opened_total", "game")), "{{game}}")],
            ),
            panel("Decks open", [("sum(dealer_decks_open)", "open")]),
            panel(
                "Decks closed and expired / min",
                [
                    (per_min(rate("dealer_decks_closed_total", "job")), "closed"),
                    (per_min(rate("dealer_decks_expired_total", "job")), "expired (TTL)"),
                ],
            ),
            panel("Cards dealt / s", [(rate("dealer_cards_dealt_total", "job"), "cards")]),
            panel(
                "Seventh streets / min by S11 outcome",
                [(per_min(rate("dealer_river_deals_total", "outcome")), "{{outcome}}")],
            ),
            panel(
                "Reshuffles / min by reason",
                [(per_min(rate("dealer_reshuffles_total", "reason")), "{{reason}}")],
            ),
            batched_calls("dealer"),
        ],
    )


def betting() -> dict[str, Any]:
    return dashboard(
        "cardroom-betting",
        "Card room: betting",
        [
            *grpc_panels("betting"),
            batched_calls("betting"),
            panel(
                "Actions / s by game and kind",
                [(rate("betting_actions_total", "game, kind"), "{{game}} {{kind}}")],
                unit="ops",
            ),
            panel(
                "Timeouts / min by game and outcome (S10)",
                [
                    (
                        per_min(rate("betting_timeouts_total", "game, outcome")),
                        "{{game}} {{outcome}}",
                    )
                ],
            ),
            panel(
                "Rounds opened / min by game and street",
                [
                    (
                        per_min(rate("betting_rounds_started_total", "game, street")),
                        "{{game}} {{street}}",
                    )
                ],
            ),
            panel(
                "Hands won uncontested / min by game (G6)",
                [(per_min(rate("betting_hands_uncontested_total", "game")), "{{game}}")],
            ),
            panel(
                "State refs / s: found, unknown (state sent again)",
                [(rate("betting_state_refs_total", "result"), "{{result}}")],
                unit="ops",
            ),
        ],
    )


def showdown() -> dict[str, Any]:
    return dashboard(
        "cardroom-showdown",
        "Card room: showdown",
        [
            *grpc_panels("showdown"),
            batched_calls("showdown"),
            panel(
                "Pots settled / min by game",
                [(per_min(rate("showdown_pots_settled_total", "game")), "{{game}}")],
            ),
            panel(
                "Hands evaluated / s by game",
                [(rate("showdown_hands_evaluated_total", "game"), "{{game}}")],
                unit="ops",
            ),
            panel(
                "Pot size by game",
                [
                    (quantile(0.5, "showdown_pot_size_chips", "game"), "p50 {{game}}"),
                    (quantile(0.99, "showdown_pot_size_chips", "game"), "p99 {{game}}"),
                ],
            ),
        ],
    )


def lobby() -> dict[str, Any]:
    return dashboard(
        "cardroom-lobby",
        "Card room: lobby",
        [
            *grpc_panels("lobby"),
            batched_calls("lobby", " (the table service's hand calls)"),
            panel("Tables by game", [("sum by (game) (lobby_tables)", "{{game}}")]),
            panel("Players seated by game", [("sum by (game) (lobby_seated_players)", "{{game}}")]),
            panel(
                "Hands / min by game",
                [
                    (per_min(rate("lobby_hands_planned_total", "game")), "planned {{game}}"),
                    (per_min(rate("lobby_hands_finished_total", "game")), "finished {{game}}"),
                    (
                        per_min(
                            f"({rate('lobby_hands_voided_total', 'game')} or "
                            f"{rate('lobby_hands_finished_total', 'game')} * 0)"
                        ),
                        "voided {{game}}",
                    ),
                ],
            ),
            panel(
                "Chips moved / min",
                [
                    (per_min(rate("lobby_buy_in_chips_total", "game")), "bought in {{game}}"),
                    (
                        per_min(rate("lobby_cash_out_chips_total", "game, reason")),
                        "cashed out {{game}} {{reason}}",
                    ),
                ],
            ),
            panel(
                "Registrations / min",
                [
                    (per_min(rate("lobby_players_registered_total", "job")), "players"),
                    (per_min(rate("lobby_buy_ins_total", "game")), "buy-ins {{game}}"),
                ],
            ),
            chip_ledger("Chip ledger"),
        ],
    )


def table() -> dict[str, Any]:
    return dashboard(
        "cardroom-table",
        "Card room: table",
        [
            *grpc_panels("table"),
            stat("Tables running", "sum(table_tables_running)"),
            stat("Hands in progress", "sum(table_hands_in_progress)"),
            stat(
                "Oldest hand in progress, age",
                "max(time() - table_oldest_hand_started_timestamp_seconds"
                " and table_hands_in_progress > 0) or vector(0)",
                unit="s",
            ),
            stat(
                "Since the last hand finished",
                "time() - max(table_last_hand_finished_timestamp_seconds)",
                unit="s",
            ),
            panel(
                "Hands / min by game and outcome",
                [
                    (per_min(rate("table_hands_started_total", "game")), "started {{game}}"),
                    (
                        per_min(rate("table_hands_finished_total", "game, outcome")),
                        "{{outcome}} {{game}}",
                    ),
                ],
            ),
            panel(
                "Turn latency",
                [
                    (quantile(0.5, "table_decision_seconds"), "p50"),
                    (quantile(0.99, "table_decision_seconds"), "p99"),
                ],
                unit="s",
            ),
            panel(
                "Decisions / s by game and kind",
                [(rate("table_actions_total", "game, kind"), "{{game}} {{kind}}")],
                unit="ops",
            ),
            panel(
                "Timeouts / min by game and policy",
                [(per_min(rate("table_timeouts_total", "game, policy")), "{{game}} {{policy}}")],
            ),
            panel(
                "Actions refused / min by status",
                [(per_min(rate("table_actions_rejected_total", "code")), "{{code}}")],
            ),
            panel(
                "Seventh streets / min by S11 outcome",
                [(per_min(rate("table_river_outcomes_total", "outcome")), "{{outcome}}")],
            ),
            panel(
                "Calls to other services / s",
                [
                    (
                        rate("table_downstream_calls_total", "service, method"),
                        "{{service}} {{method}}",
                    )
                ],
                unit="ops",
            ),
            panel(
                "Failed calls to other services / s",
                [
                    (
                        f"{rate('table_downstream_failures_total', 'service, method')} or "
                        f"{rate('table_downstream_calls_total', 'service, method')} * 0",
                        "{{service}} {{method}}",
                    )
                ],
                unit="ops",
                description="A failed call voids the hand.",
            ),
            panel(
                "Stream messages / s by kind",
                [(rate("table_stream_messages_total", "kind"), "{{kind}}")],
                unit="ops",
            ),
            panel(
                "Open streams by kind", [("sum by (kind) (table_connected_streams)", "{{kind}}")]
            ),
            panel(
                "Pot size by game",
                [
                    (quantile(0.5, "table_pot_size_chips", "game"), "p50 {{game}}"),
                    (quantile(0.99, "table_pot_size_chips", "game"), "p99 {{game}}"),
                ],
            ),
        ],
    )


def gateway() -> dict[str, Any]:
    """The room's public door: the public API's calls (gRPC, gRPC-Web and Connect
    alike, each counted as the gRPC call it is) and the streams it holds open."""
    sel = 'job="gateway",grpc_type!="UNARY"'
    started = f"sum by (grpc_method) (grpc_server_started_total{{{sel}}})"
    handled = f"sum by (grpc_method) (grpc_server_handled_total{{{sel}}})"
    return dashboard(
        "cardroom-gateway",
        "Card room: gateway",
        [
            *grpc_panels("gateway"),
            panel(
                "Open streams by method (Play, PlayMany, Follow, Watch)",
                [(f"{started} - ({handled} or {started} * 0)", "{{grpc_method}}")],
                description="Streams started and not yet ended, on every gateway pod: "
                "a seat's Play or Follow, a spectator's Watch. They stay on the pod "
                "they opened on; a new pod of the autoscaler takes new ones.",
            ),
        ],
    )


DASHBOARDS = {
    "cardroom-overview.json": overview,
    "cardroom-dealer.json": dealer,
    "cardroom-betting.json": betting,
    "cardroom-showdown.json": showdown,
    "cardroom-lobby.json": lobby,
    "cardroom-table.json": table,
    "cardroom-gateway.json": gateway,
}


def render() -> dict[str, str]:
    """File name -> JSON text, as committed."""
    return {name: json.dumps(build(), indent=2) + "\n" for name, build in DASHBOARDS.items()}


def main() -> None:
    for name, text in render().items():
        (HERE / name).write_text(text)
        print(f"wrote {HERE / name}")


if __name__ == "__main__":
    main()
