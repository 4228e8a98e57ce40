"""Test-session guards."""

from __future__ import annotations

from pathlib import Path

import pytest

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
