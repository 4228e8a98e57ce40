"""Writes ``prometheusrule.yaml`` (beside this file): the rules of
``rules/cardroom.rules.yml`` as a prometheus-operator ``PrometheusRule``.

    .venv/bin/python deploy/monitoring/prometheusrule.py

The rules file stays the one source (promtool checks and unit-tests it, the local
Prometheus loads it); this object is how an operator-managed Prometheus loads the
same groups.  tests/ops/deploy checks the committed object is what this script writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
RULES = HERE / "rules" / "cardroom.rules.yml"
OUT = HERE / "prometheusrule.yaml"
HEADER = (
    "# Written by deploy/monitoring/prometheusrule.py from rules/cardroom.rules.yml:\n"
    "# edit the rules file and re-run the script, never this file.\n"
)


class _Dumper(yaml.SafeDumper):
    """Multi-line expressions as block literals (``|``), as in the rules file."""


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _str)


def render() -> str:
    """The PrometheusRule's YAML text."""
    groups: list[dict[str, Any]] = yaml.safe_load(RULES.read_text())["groups"]
    rule = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "PrometheusRule",
        "metadata": {
            "name": "cardroom",
            "labels": {"app.kubernetes.io/component": "monitoring"},
        },
        "spec": {"groups": groups},
    }
    return HEADER + str(yaml.dump(rule, Dumper=_Dumper, sort_keys=False, width=100))


def main() -> None:
    OUT.write_text(render())


if __name__ == "__main__":
    main()
