"""What the monitoring tests share: the files, the promtool/prometheus binaries, the
expressions of the dashboards and rules, and how an alert is split for the
real-scrape check.

"Returns series" for an alert: its expression is split at its top-level comparison
and set operators (``> 0.05``, ``!=``, ``and``, ...; not inside parentheses, braces,
brackets or strings), numeric literals are dropped, and every remaining operand is
queried on its own: each must return at least one series.  So
``table_hands_in_progress > 0 and (time() - table_oldest_hand_started_timestamp_seconds)
> 600`` queries ``table_hands_in_progress`` and ``(time() - table_oldest_...)``.  An
alert that does not fire on a healthy room returns nothing as a whole, which proves
nothing; its operands returning series proves the metrics and recording rules it
reads exist with the labels it matches on.  Recording rules are queried by name.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
MONITORING = ROOT / "deploy" / "monitoring"
RULES = MONITORING / "rules" / "cardroom.rules.yml"
RULE_TESTS = MONITORING / "rules" / "cardroom.rules.test.yml"
DASHBOARDS = MONITORING / "dashboards"
LOCAL_CONFIG = MONITORING / "prometheus.local.yml"

# Grafana's variables, as a query at a 1 s scrape interval would see them.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "5m"}


def binary(name: str) -> str:
    """``promtool`` or ``prometheus`` from PATH (Debian's ``prometheus`` package,
    installed by .ci/run).  Missing is a failure, never a skip."""
    path = shutil.which(name) or (f"/usr/bin/{name}" if Path(f"/usr/bin/{name}").exists() else None)
    if path is None:
        pytest.fail(
            f"`{name}` not found on PATH: install Debian's prometheus package "
            "(apt-get install -y prometheus), as .ci/run does before `make test`"
        )
    return path


def promtool(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [binary("promtool"), *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def rules() -> list[dict[str, Any]]:
    """Every rule of the rules file (recording and alerting)."""
    doc = yaml.safe_load(RULES.read_text())
    return [rule for group in doc["groups"] for rule in group["rules"]]


def alerts() -> list[dict[str, Any]]:
    return [r for r in rules() if "alert" in r]


@dataclass(frozen=True)
class PanelExpr:
    dashboard: str
    panel: str
    expr: str  # Grafana variables substituted

    def __str__(self) -> str:
        return f"{self.dashboard} / {self.panel}: {self.expr}"


def dashboard_files() -> list[Path]:
    return sorted(DASHBOARDS.glob("*.json"))


def dashboard_exprs() -> list[PanelExpr]:
    found = []
    for path in dashboard_files():
        board = json.loads(path.read_text())
        for panel in board["panels"]:
            for target in panel.get("targets", []):
                expr = target["expr"]
                for var, value in GRAFANA_VARIABLES.items():
                    expr = expr.replace(var, value)
                found.append(PanelExpr(path.name, panel["title"], expr))
    return found


_OPERATOR = re.compile(r"==|!=|>=|<=|>|<|\b(?:and|or|unless)\b")
_MODIFIERS = re.compile(
    r"\s*(?:bool\b)?\s*(?:(?:on|ignoring)\s*\([^)]*\))?"
    r"\s*(?:(?:group_left|group_right)\b\s*(?:\([^)]*\))?)?"
)
_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")


def operands(expr: str) -> list[str]:
    """The operands of ``expr``'s top-level comparison and set operators, numeric
    literals left out (see the module docstring)."""
    parts: list[str] = []
    depth = start = i = 0
    quote = ""
    while i < len(expr):
        c = expr[i]
        if quote:
            if c == "\\":
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and (m := _OPERATOR.match(expr, i)):
            parts.append(expr[start:i])
            modifiers = _MODIFIERS.match(expr, m.end())
            assert modifiers is not None  # every part of it is optional
            i = modifiers.end()
            start = i
            continue
        i += 1
    parts.append(expr[start:])
    return [p.strip() for p in parts if p.strip() and not _NUMBER.match(p.strip())]
