"""The building blocks of the card room's Grafana dashboards: panels, the grid
layout, and the PromQL shapes the boards repeat (rates, quantiles, error ratios).

Kept apart from the boards' content (``generate.py``) so a new board is a list of
panels and cannot get the layout, the datasource variable or the error-ratio
convention of the alerts (rules/cardroom.rules.yml) wrong.
"""

from __future__ import annotations

from typing import Any

DS = {"type": "prometheus", "uid": "${datasource}"}
RATE = "$__rate_interval"
# Server-side gRPC failures (see rules/cardroom.rules.yml: client errors excluded).
CLIENT_OK = (
    "OK|CANCELLED|INVALID_ARGUMENT|FAILED_PRECONDITION|NOT_FOUND|PERMISSION_DENIED|"
    "ALREADY_EXISTS|OUT_OF_RANGE|UNAUTHENTICATED|ABORTED|RESOURCE_EXHAUSTED"
)
# Services whose calls ride their Batch streams: grpc_server_handled_total counts
# such a stream once, when it ends, so their calls are counted in
# <service>_batched_calls_total{method,code}.
STREAM_CALLS = ("dealer", "betting", "showdown", "lobby")

Target = tuple[str, str]  # (expr, legend)


def panel(
    title: str,
    targets: list[Target],
    *,
    unit: str = "short",
    kind: str = "timeseries",
    width: int = 12,
    description: str = "",
) -> dict[str, Any]:
    return {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DS,
        "width": width,
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
        "targets": [
            {"refId": chr(ord("A") + i), "datasource": DS, "expr": expr, "legendFormat": legend}
            for i, (expr, legend) in enumerate(targets)
        ],
    }


def stat(title: str, expr: str, unit: str = "short", description: str = "") -> dict[str, Any]:
    return panel(title, [(expr, "")], unit=unit, kind="stat", width=6, description=description)


def dashboard(uid: str, title: str, panels: list[dict[str, Any]]) -> dict[str, Any]:
    x = y = row_height = 0
    for i, p in enumerate(panels, start=1):
        w = p.pop("width")
        h = 4 if p["type"] == "stat" else 8
        if x + w > 24:
            x, y = 0, y + row_height
            row_height = 0
        p["id"] = i
        p["gridPos"] = {"x": x, "y": y, "w": w, "h": h}
        x += w
        row_height = max(row_height, h)
    return {
        "uid": uid,
        "title": title,
        "tags": ["cardroom"],
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "graphTooltip": 1,
        "time": {"from": "now-1h", "to": "now"},
        "refresh": "30s",
        "timezone": "",
        "annotations": {"list": []},
        "links": [],
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Data source",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {},
                    "hide": 0,
                    "refresh": 1,
                    "regex": "",
                    "options": [],
                }
            ]
        },
        "panels": panels,
    }


def error_ratio(job: str, by: str) -> str:
    handled = f'grpc_server_handled_total{{job="{job}"}}'
    errors = f'grpc_server_handled_total{{job="{job}",grpc_code!~"{CLIENT_OK}"}}'
    return (
        f"(sum by ({by}) (rate({errors}[{RATE}])) or sum by ({by}) (rate({handled}[{RATE}])) * 0)"
        f" / sum by ({by}) (rate({handled}[{RATE}]))"
    )


def batched_error_ratio(job: str) -> str:
    """The error ratio by method of the calls on ``job``'s Batch streams."""
    calls = f'{job}_batched_calls_total{{job="{job}"}}'
    errors = f'{job}_batched_calls_total{{job="{job}",code!~"{CLIENT_OK}"}}'
    return (
        f"(sum by (method) (rate({errors}[{RATE}])) or sum by (method) (rate({calls}[{RATE}])) * 0)"
        f" / sum by (method) (rate({calls}[{RATE}]))"
    )


def grpc_panels(job: str) -> list[dict[str, Any]]:
    sel = f'job="{job}"'
    streams = job in STREAM_CALLS
    batched_calls: list[Target] = (
        [
            (
                f"sum by (method) (rate({job}_batched_calls_total{{{sel}}}[{RATE}]))",
                "{{method}} (batched)",
            )
        ]
        if streams
        else []
    )
    batched_errors: list[Target] = (
        [(batched_error_ratio(job), "{{method}} (batched)")] if streams else []
    )
    on_streams = (
        " The calls on the Batch stream are counted one by one (a stream RPC is "
        "counted once, when it ends)."
        if streams
        else ""
    )
    return [
        panel(
            "gRPC calls / s by method",
            [
                (
                    f"sum by (grpc_method) (rate(grpc_server_handled_total{{{sel}}}[{RATE}]))",
                    "{{grpc_method}}",
                ),
                *batched_calls,
            ],
            unit="reqps",
            description=on_streams.strip(),
        ),
        panel(
            "gRPC responses / s by status",
            [
                (
                    f"sum by (grpc_code) (rate(grpc_server_handled_total{{{sel}}}[{RATE}]))",
                    "{{grpc_code}}",
                )
            ],
            unit="reqps",
        ),
        panel(
            "gRPC server-side error ratio by method",
            [(error_ratio(job, "grpc_method"), "{{grpc_method}}"), *batched_errors],
            unit="percentunit",
            description="Client errors (INVALID_ARGUMENT, FAILED_PRECONDITION, NOT_FOUND, "
            "PERMISSION_DENIED, ...) and CANCELLED excluded, as in the alert." + on_streams,
        ),
        panel(
            "gRPC p99 latency by method (unary)",
            [
                (
                    "histogram_quantile(0.99, sum by (grpc_method, le) (rate("
                    f'grpc_server_handling_seconds_bucket{{{sel},grpc_type="UNARY"}}[{RATE}])))',
                    "{{grpc_method}}",
                )
            ],
            unit="s",
        ),
        panel(
            "gRPC messages / s by method",
            [
                (
                    f"sum by (grpc_method) (rate(grpc_server_msg_received_total{{{sel}}}[{RATE}]))",
                    "in {{grpc_method}}",
                ),
                (
                    f"sum by (grpc_method) (rate(grpc_server_msg_sent_total{{{sel}}}[{RATE}]))",
                    "out {{grpc_method}}",
                ),
            ],
            unit="ops",
        ),
        panel("Up", [(f"up{{{sel}}}", "{{instance}}")], width=12),
    ]


def per_min(expr: str) -> str:
    return f"{expr} * 60"


def rate(metric: str, by: str) -> str:
    return f"sum by ({by}) (rate({metric}[{RATE}]))"


def quantile(q: float, metric: str, by: str = "") -> str:
    group = f"{by}, le" if by else "le"
    return f"histogram_quantile({q}, sum by ({group}) (rate({metric}_bucket[{RATE}])))"
