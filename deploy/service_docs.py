"""Writes the generated tables of ``docs/services.md`` from the code they describe.

    .venv/bin/python -m deploy.service_docs          # rewrite the tables in place
    .venv/bin/python -m deploy.service_docs --check  # exit 1 when they differ

Each table sits between ``<!-- generated:NAME -->`` and ``<!-- /generated:NAME -->``
and is written from one source: the ports from ``service_kit.ports.DEFAULT_PORTS``,
the settings from each service's settings dataclass (``settings_table``), the
metrics from what each service's ``metrics`` module registers with Prometheus.
The prose around them is hand-written.  tests/ops/docs fails when a table differs
from what this module writes, so the docs cannot drift from the code.
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys
from pathlib import Path

from prometheus_client import REGISTRY

from service_kit.ports import DEFAULT_GATEWAY_PORT, DEFAULT_PORTS, GATEWAY_METRICS_PORT
from service_kit.settings import ServerSettings, Settings, settings_table
from services.dealer.settings import DealerSettings
from services.gateway.settings import GatewaySettings
from services.lobby.settings import LobbySettings
from services.table.settings import TableSettings

DOC = Path(__file__).resolve().parents[1] / "docs" / "services.md"
SETTINGS: dict[str, type[Settings]] = {
    "common": ServerSettings,
    "dealer": DealerSettings,
    "lobby": LobbySettings,
    "table": TableSettings,
    "gateway": GatewaySettings,
}
# Services with metrics of their own: the five, and the gateway (which has no
# internal gRPC port, so is not in DEFAULT_PORTS).
METRIC_SERVICES = (*DEFAULT_PORTS, "gateway")
BLOCK = re.compile(
    r"(<!-- generated:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /generated:(?P=name) -->)", re.S
)


def ports_table() -> str:
    """Each service's default gRPC and ``/metrics`` ports."""
    lines = ["| service | gRPC (`PORT`) | `/metrics` (`METRICS_PORT`) |", "| --- | --- | --- |"]
    lines += [f"| {name} | {grpc} | {metrics} |" for name, (grpc, metrics) in DEFAULT_PORTS.items()]
    lines.append(
        f"| gateway | none (public `PUBLIC_PORT` {DEFAULT_GATEWAY_PORT}) | {GATEWAY_METRICS_PORT} |"
    )
    return "\n".join(lines) + "\n"


def metrics_table(prefix: str) -> str:
    """The metric families whose names start with ``prefix`` (a service's own, or
    ``grpc_server`` for the ones every service has), as ``/metrics`` names them."""
    for service in METRIC_SERVICES:
        importlib.import_module(f"services.{service}.metrics")
    rows: dict[str, str] = {}
    # Label names come from the collectors: a family's samples have none until used.
    for collector, names in list(REGISTRY._collector_to_names.items()):
        labels = tuple(getattr(collector, "_labelnames", ()))
        for family in collector.describe() if hasattr(collector, "describe") else ():
            if not family.name.startswith(prefix) or family.name not in names:
                continue
            shown = f"{family.name}_total" if family.type == "counter" else family.name
            label_text = ", ".join(f"`{label}`" for label in labels)
            rows[shown] = f"| `{shown}` | {family.type} | {label_text} | {family.documentation} |"
    lines = ["| metric | type | labels | meaning |", "| --- | --- | --- | --- |"]
    return "\n".join([*lines, *(rows[name] for name in sorted(rows))]) + "\n"


def tables() -> dict[str, str]:
    """Every generated table of docs/services.md, by block name."""
    found = {"ports": ports_table(), "metrics-grpc": metrics_table("grpc_server_")}
    found |= {f"settings-{name}": settings_table(cls) for name, cls in SETTINGS.items()}
    found |= {f"metrics-{name}": metrics_table(f"{name}_") for name in METRIC_SERVICES}
    return found


def render(text: str) -> str:
    """``text`` with every generated block rewritten; a block this module does not
    know, or one it knows missing from the text, is an error."""
    wanted = tables()
    seen: set[str] = set()

    def fill(match: re.Match[str]) -> str:
        name = match["name"]
        if name not in wanted:
            raise KeyError(f"docs/services.md: unknown generated block {name!r}")
        seen.add(name)
        return f"{match[1]}{wanted[name]}{match[4]}"

    out = BLOCK.sub(fill, text)
    if missing := sorted(set(wanted) - seen):
        raise KeyError(f"docs/services.md: generated blocks missing: {', '.join(missing)}")
    return out


def main(argv: list[str] | None = None) -> int:
    """Rewrite docs/services.md, or with ``--check`` report whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if the tables differ")
    args = parser.parse_args(argv)
    text = DOC.read_text(encoding="utf-8")
    new = render(text)
    if args.check:
        if new != text:
            print("docs/services.md is out of date: run python -m deploy.service_docs")
            return 1
        return 0
    if new != text:
        DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
