"""Test-session guards, and the marks that say what a test needs from the machine.

``make check`` (the inner loop) runs ``-m "not needs_docker and not needs_system"``:
every test but those needing Docker or a program only root can install.
``make test`` runs them all after installing what they need
(``deploy/docker/system-setup.sh``); there a missing program fails its tests, it
never skips them.  The marks are given here, in one place, rather than in each
test: by place (a folder, a module or one test), and for the lobby's PostgreSQL
store by parameter.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _pytest.nodeid import NodeId

from tests.support.postgres import PostgresServer

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "libs" / "poker_rules"

NEEDS_DOCKER = "needs_docker"
NEEDS_SYSTEM = "needs_system"
MARKS = {
    NEEDS_DOCKER: "runs the service images as containers (Docker; make check leaves it out)",
    NEEDS_SYSTEM: "runs a program only root installs: prometheus/promtool, PostgreSQL's "
    "server or Chromium (make check leaves it out)",
}
# Every test under a folder or in a module (relative to the repository), or one
# test ("module::function", each of its parameters), gets the mark.
MARKED: dict[str, str] = {
    "tests/system/containers": NEEDS_DOCKER,  # the five images, under testcontainers
    # Debian's Chromium, driven by Playwright; the tests also rewrite docs/screenshots.
    "tests/system/web": NEEDS_SYSTEM,
    "tests/ops/monitoring/test_scrape.py": NEEDS_SYSTEM,  # a real prometheus scraping the room
    "tests/ops/monitoring/test_rules.py::test_promtool_check_rules": NEEDS_SYSTEM,
    "tests/ops/monitoring/test_rules.py::test_promtool_test_rules": NEEDS_SYSTEM,
    "tests/ops/monitoring/test_rules.py::test_local_scrape_config_is_valid": NEEDS_SYSTEM,
    "tests/ops/monitoring/test_dashboards.py::test_every_dashboard_expr_parses": NEEDS_SYSTEM,
}
# A test with this parameter value runs the lobby on PostgreSQL (tests/support/postgres.py
# starts a server from Debian's postgresql package): needs_system.
POSTGRESQL_PARAM = "postgresql"


class _XdistGroups:
    """``--dist loadgroup`` for pytest 9: xdist (3.8) names a grouped test's
    group by appending ``@<group>`` to ``item._nodeid``, which pytest 9 no longer
    reads (its ``nodeid`` comes from ``item._id``), so the groups were ignored and
    every worker started its own module fixtures: two sets of containers at once.
    Runs after xdist's hook and carries the suffix over."""

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> Iterator[None]:
        yield  # every other implementation, xdist's included, first
        for item in items:
            named = item.__dict__.get("_nodeid")
            if isinstance(named, str) and "@" in named and item.nodeid != named:
                item._id = NodeId.parse(named)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marks; refuse to test a stale mypyc build: a compiled module
    shadows its source, so an edit to the ``.py`` would silently not be tested.
    ``make test`` recompiles; ``make purepython`` removes the compiled modules."""
    config.pluginmanager.register(_XdistGroups(), "cardroom-xdist-groups")
    for name, what in MARKS.items():
        config.addinivalue_line("markers", f"{name}: {what}")
    for place in MARKED:
        if not (ROOT / place.split("::")[0]).exists():
            # A moved test would otherwise lose its mark and fail make check.
            pytest.exit(f"tests/conftest.py marks {place}, which does not exist", returncode=2)
    for so in PACKAGE.glob("*.so"):
        source = PACKAGE / (so.name.split(".", 1)[0] + ".py")
        if source.exists() and source.stat().st_mtime > so.stat().st_mtime:
            pytest.exit(
                f"{so.name} is older than {source.name}: run `make compile` "
                "(or `make purepython` to test the plain Python modules)",
                returncode=2,
            )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests that need Docker or a root-installed program (see above)."""
    places: list[tuple[Path, str, str]] = []
    for place, mark in MARKED.items():
        path, _, function = place.partition("::")
        places.append((ROOT / path, function, mark))
    for item in items:
        name = getattr(item, "originalname", item.name)
        for under, function, mark in places:
            if item.path.is_relative_to(under) and function in ("", name):
                item.add_marker(mark)
        callspec = getattr(item, "callspec", None)
        if "postgres_server" in getattr(item, "fixturenames", ()) or (
            callspec is not None and POSTGRESQL_PARAM in callspec.params.values()
        ):
            item.add_marker(NEEDS_SYSTEM)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this pytest process's own (started on first use)."""
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()
