"""The real scrape: the room playing (tests/ops/monitoring/live.py), Debian's
``prometheus`` scraping the five services and the gateway every second with the
rules loaded, and
every dashboard expression, every recording rule and every alert's operands (see
promql.py: the expression split at its threshold) returning at least one series
through ``/api/v1/query``.

Series are not enough: an overview panel can return a series that shows the room
idle while it plays (0 calls/s for the services whose calls ride the batched
streams, a NaN error ratio) or label values nobody reads.  So under load the
overview's calls/s must be above 0 for every service, no overview expression may
return NaN, the timeout policy must be named (not "unspecified") and the betting
rounds' streets must be named (not 0-4)."""

from __future__ import annotations

import json
import math
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from tests.support.ports import free_port

from .live import playing_room
from .promql import (
    LOCAL_CONFIG,
    RULES,
    PanelExpr,
    alerts,
    binary,
    dashboard_exprs,
    operands,
    rules,
)

# The jobs of prometheus.local.yml: the five services and the gateway.
SERVICES = ("dealer", "betting", "showdown", "lobby", "table", "gateway")
READY_S = 20.0
SERIES_S = 40.0  # scrapes and rule evaluations until every expression has series
OVERVIEW = "cardroom-overview.json"
CALLS_PANEL = "Calls / s by service"  # the start of the overview panel's title
POLICIES = {"all_in_protection", "check_or_fold"}  # S10, as poker_rules names them
STREETS = {"third", "fourth", "fifth", "sixth", "seventh", "pre_draw", "post_draw"}


def _config(ports: dict[str, int]) -> dict[str, Any]:
    """deploy/monitoring/prometheus.local.yml with the test stack's metrics ports,
    a 1 s scrape and evaluation interval, and the rules file by absolute path."""
    config: dict[str, Any] = yaml.safe_load(LOCAL_CONFIG.read_text())
    config["global"] = {"scrape_interval": "1s", "evaluation_interval": "1s"}
    config["rule_files"] = [str(RULES)]
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    assert set(jobs) == set(SERVICES)
    for name, port in ports.items():
        jobs[name]["static_configs"] = [{"targets": [f"127.0.0.1:{port}"]}]
    return config


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=5) as reply:
        return json.loads(reply.read())


def _results(base: str, expr: str) -> list[tuple[dict[str, str], float]]:
    """Each series ``expr`` returns now: its labels and value."""
    reply = _get(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
    assert reply["status"] == "success", (expr, reply)
    return [(r["metric"], float(r["value"][1])) for r in reply["data"]["result"]]


def _series(base: str, expr: str) -> int:
    return len(_results(base, expr))


def _overview() -> list[PanelExpr]:
    return [e for e in dashboard_exprs() if e.dashboard == OVERVIEW]


def _overview_problems(base: str) -> list[str]:
    """What the overview shows wrong while the room plays (the module docstring)."""
    problems = []
    (calls,) = [e for e in _overview() if e.panel.startswith(CALLS_PANEL)]
    rates = {labels.get("job"): value for labels, value in _results(base, calls.expr)}
    for job in SERVICES:
        if not rates.get(job, 0.0) > 0:
            problems.append(f"{calls}: {job} shows {rates.get(job)} calls/s under load")
    for e in _overview():
        nan = [labels for labels, value in _results(base, e.expr) if math.isnan(value)]
        if nan:
            problems.append(f"{e}: NaN for {nan}")
    policies = {labels["policy"] for labels, _ in _results(base, "table_timeouts_total")}
    if not policies or not policies <= POLICIES:
        problems.append(f"table_timeouts_total policies {policies}, not within {POLICIES}")
    kinds = {labels["kind"] for labels, _ in _results(base, "table_actions_total")}
    if not kinds or "unspecified" in kinds:
        problems.append(f"table_actions_total kinds {kinds}: each one named")
    streets = {labels["street"] for labels, _ in _results(base, "betting_rounds_started_total")}
    if not streets or not streets <= STREETS:
        problems.append(f"betting_rounds_started_total streets {streets}, not within {STREETS}")
    return problems


def _wait_ready(base: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        assert process.poll() is None, f"prometheus exited: {log.read_text()[-3000:]}"
        try:
            with urllib.request.urlopen(f"{base}/-/ready", timeout=2) as reply:
                if reply.status == 200:
                    return
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"prometheus not ready in {READY_S} s: {log.read_text()[-3000:]}")


def _queries() -> dict[str, str]:
    """Expression -> where it comes from."""
    wanted: dict[str, str] = {}
    for e in dashboard_exprs():
        wanted.setdefault(e.expr, f"dashboard {e.dashboard} / {e.panel}")
    for rule in rules():
        if "record" in rule:
            wanted.setdefault(rule["record"], "recording rule")
    for alert in alerts():
        for operand in operands(alert["expr"]):
            wanted.setdefault(operand, f"alert {alert['alert']}")
    return wanted


def test_prometheus_scrapes_the_room_and_every_expression_has_series(tmp_path: Path) -> None:
    prometheus = binary("prometheus")
    queries = _queries()
    with playing_room() as stack:
        ports = {name: stack[name].metrics_port for name in SERVICES}
        config = tmp_path / "prometheus.yml"
        config.write_text(yaml.safe_dump(_config(ports)))
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        log = tmp_path / "prometheus.log"
        with log.open("wb") as out:
            process = subprocess.Popen(
                [
                    prometheus,
                    f"--config.file={config}",
                    f"--storage.tsdb.path={tmp_path / 'data'}",
                    f"--web.listen-address=127.0.0.1:{port}",
                    "--storage.tsdb.retention.time=1h",
                    "--log.level=warn",
                ],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        try:
            _wait_ready(base, process, log)
            deadline = time.monotonic() + SERIES_S
            missing = dict(queries)
            wrong = ["not checked yet"]
            while (missing or wrong) and time.monotonic() < deadline:
                assert process.poll() is None, f"prometheus exited: {log.read_text()[-3000:]}"
                missing = {q: w for q, w in missing.items() if _series(base, q) == 0}
                wrong = _overview_problems(base)
                if missing or wrong:
                    time.sleep(1)
            up = _get(f"{base}/api/v1/query?query=up")["data"]["result"]
        finally:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
    assert {r["metric"]["job"]: r["value"][1] for r in up} == dict.fromkeys(SERVICES, "1")
    listing = "\n".join(f"  {w}: {q}" for q, w in missing.items())
    assert not missing, f"no series after {SERIES_S:.0f} s for:\n{listing}"
    problems = "\n  ".join(wrong)
    assert not wrong, f"the overview under load, after {SERIES_S:.0f} s:\n  {problems}"
