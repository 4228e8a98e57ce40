"""Test-session guards."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.postgres import PostgresServer

PACKAGE = Path(__file__).resolve().parent.parent / "libs" / "poker_rules"


def pytest_configure(config: pytest.Config) -> None:
    """Refuse to test a stale mypyc build: a compiled module shadows its source, so
    an edit to the ``.py`` would silently not be tested.  ``make test`` recompiles;
    ``make purepython`` removes the compiled modules."""
    for so in PACKAGE.glob("*.so"):
        source = PACKAGE / (so.name.split(".", 1)[0] + ".py")
        if source.exists() and source.stat().st_mtime > so.stat().st_mtime:
            pytest.exit(
                f"{so.name} is older than {source.name}: run `make compile` "
                "(or `make purepython` to test the plain Python modules)",
                returncode=2,
            )


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server of this pytest process's own (started on first use)."""
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()
