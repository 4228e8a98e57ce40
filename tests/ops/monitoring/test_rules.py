"""The alerting and recording rules: promtool checks them and runs their unit tests;
every alert carries its annotations and is tested firing and not firing."""

from __future__ import annotations

import yaml

from .promql import LOCAL_CONFIG, RULE_TESTS, RULES, alerts, operands, promtool, rules


def test_promtool_check_rules() -> None:
    result = promtool("check", "rules", RULES)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(rules())} rules found" in result.stdout


def test_promtool_test_rules() -> None:
    result = promtool("test", "rules", RULE_TESTS.name, cwd=RULE_TESTS.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_local_scrape_config_is_valid() -> None:
    result = promtool("check", "config", LOCAL_CONFIG)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_alert_has_its_annotations_and_severity() -> None:
    found = alerts()
    assert {a["alert"] for a in found} >= {
        "CardroomServiceDown",
        "CardroomGrpcErrorRate",
        "CardroomGrpcLatencyHigh",
        "CardroomDownstreamErrors",
        "CardroomTableHandStuck",
        "CardroomTableLoopErrors",
        "CardroomTimeoutsSpike",
        "CardroomRiverCommunityCards",
        "CardroomChipLedgerMismatch",
    }
    for alert in found:
        annotations = alert.get("annotations", {})
        assert annotations.get("summary"), alert["alert"]
        assert annotations.get("description"), alert["alert"]
        assert annotations.get("runbook") == "docs/operations.md#alerts", alert["alert"]
        assert alert["labels"]["severity"] in {"critical", "warning", "info"}, alert["alert"]


def test_every_alert_is_tested_firing_and_not_firing() -> None:
    doc = yaml.safe_load(RULE_TESTS.read_text())
    fires: set[str] = set()
    quiet: set[str] = set()
    for case in doc["tests"]:
        for check in case.get("alert_rule_test", []):
            (fires if check.get("exp_alerts") else quiet).add(check["alertname"])
    names = {a["alert"] for a in alerts()}
    assert names - fires == set(), "alerts never tested firing"
    assert names - quiet == set(), "alerts never tested not firing"


def test_operands_split_at_top_level_operators() -> None:
    assert operands("job:x:ratio > 0.05") == ["job:x:ratio"]
    assert operands('up{job=~"a|b"} == 0') == ['up{job=~"a|b"}']
    assert operands("a > 0\nand\n(time() - b) > 600") == ["a", "(time() - b)"]
    assert operands('a != (b{c!="x"} + c)') == ["a", '(b{c!="x"} + c)']
    assert operands("x_and_y > bool on (job) z") == ["x_and_y", "z"]
    assert operands("sum by (job) (rate(a[5m])) or vector(0)") == [
        "sum by (job) (rate(a[5m]))",
        "vector(0)",
    ]
