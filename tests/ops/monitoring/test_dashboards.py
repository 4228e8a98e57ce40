"""The Grafana dashboards: valid JSON, unique panel ids, the datasource variable,
every expression parses (promtool), and the JSON is what generate.py writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from deploy.monitoring.dashboards import generate

from .promql import DASHBOARDS, dashboard_exprs, dashboard_files, promtool

# The five services and the gateway (the room's public door): a dashboard each.
SERVICES = ("dealer", "betting", "showdown", "lobby", "table", "gateway")


def test_there_is_an_overview_and_one_dashboard_per_service() -> None:
    names = {p.name for p in dashboard_files()}
    assert names == {"cardroom-overview.json"} | {f"cardroom-{s}.json" for s in SERVICES}


@pytest.mark.parametrize("path", dashboard_files(), ids=lambda p: p.name)
def test_dashboard_is_standard_grafana_json(path: Path) -> None:
    board = json.loads(path.read_text())
    assert isinstance(board["schemaVersion"], int)
    assert board["uid"] and board["title"]
    variables = {v["name"]: v for v in board["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"
    ids = [p["id"] for p in board["panels"]]
    assert len(ids) == len(set(ids)), f"duplicate panel ids in {path.name}"
    assert board["panels"], path.name
    for panel in board["panels"]:
        assert panel["datasource"]["uid"] == "${datasource}", panel["title"]
        assert panel["targets"], panel["title"]
        ref_ids = [t["refId"] for t in panel["targets"]]
        assert len(ref_ids) == len(set(ref_ids)), panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip(), panel["title"]
        grid = panel["gridPos"]
        assert grid["x"] >= 0 and grid["x"] + grid["w"] <= 24, panel["title"]


def test_service_dashboards_show_grpc_of_their_own_job() -> None:
    for service in SERVICES:
        board = json.loads((DASHBOARDS / f"cardroom-{service}.json").read_text())
        exprs = [t["expr"] for p in board["panels"] for t in p["targets"]]
        grpc = [e for e in exprs if "grpc_server_" in e]
        assert grpc, service
        assert all(f'job="{service}"' in e for e in grpc), service


def test_every_dashboard_expr_parses(tmp_path: Path) -> None:
    """Each expression as a recording rule of a scratch rules file: promtool parses it."""
    exprs = dashboard_exprs()
    doc = {
        "groups": [
            {
                "name": "dashboards",
                "rules": [
                    {"record": f"dashboard_expr_{i}", "expr": e.expr} for i, e in enumerate(exprs)
                ],
            }
        ]
    }
    scratch = tmp_path / "dashboards.rules.yml"
    scratch.write_text(yaml.safe_dump(doc))
    result = promtool("check", "rules", scratch)
    assert result.returncode == 0, (
        result.stdout
        + result.stderr
        + "\n"
        + "\n".join(f"dashboard_expr_{i}: {e}" for i, e in enumerate(exprs))
    )
    assert f"SUCCESS: {len(exprs)} rules found" in result.stdout


def test_dashboards_are_what_generate_py_writes() -> None:
    for name, text in generate.render().items():
        assert (DASHBOARDS / name).read_text() == text, (
            f"{name} is stale: run .venv/bin/python -m deploy.monitoring.dashboards.generate"
        )
