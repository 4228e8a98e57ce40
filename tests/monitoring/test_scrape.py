"""The real scrape: the room playing (tests/monitoring/live.py), Debian's
``prometheus`` scraping the five services every second with the rules loaded, and
every dashboard expression, every recording rule and every alert's operands (see
promql.py: the expression split at its threshold) returning at least one series
through ``/api/v1/query``."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import yaml

from .live import playing_room
from .promql import LOCAL_CONFIG, RULES, alerts, binary, dashboard_exprs, operands, rules

SERVICES = ("dealer", "betting", "showdown", "lobby", "table")
READY_S = 20.0
SERIES_S = 40.0  # scrapes and rule evaluations until every expression has series


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


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


def _series(base: str, expr: str) -> int:
    reply = _get(f"{base}/api/v1/query?" + urllib.parse.urlencode({"query": expr}))
    assert reply["status"] == "success", (expr, reply)
    return len(reply["data"]["result"])


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
        port = _free_port()
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
            while missing and time.monotonic() < deadline:
                assert process.poll() is None, f"prometheus exited: {log.read_text()[-3000:]}"
                missing = {q: w for q, w in missing.items() if _series(base, q) == 0}
                if missing:
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
