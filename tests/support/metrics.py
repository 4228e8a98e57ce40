"""A service's Prometheus /metrics, scraped once, as plain samples."""

from __future__ import annotations

import urllib.request
from typing import Protocol

from prometheus_client.parser import text_string_to_metric_families

# (sample name, its labels sorted) -> value
Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


class Scraped(Protocol):
    """Anything that serves /metrics on 127.0.0.1 (a started service process)."""

    @property
    def metrics_port(self) -> int: ...


def scrape(process: Scraped, timeout: float = 10.0) -> Samples:
    """Every sample of the process's /metrics: (name, sorted labels) -> value."""
    url = f"http://127.0.0.1:{process.metrics_port}/metrics"
    with urllib.request.urlopen(url, timeout=timeout) as response:
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
