"""Fixtures of the bot SDK tests: the SDK trusts this process's test PKI
(``devroom.launcher.shared_pki``), whose certificates the fake tables serve
(``fake_table.tls_credentials``).  The CLI's tests are in tests/unit/cli."""

from __future__ import annotations

import pytest

from devroom.launcher import shared_pki


@pytest.fixture(autouse=True)
def room_pki(monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK trusts the test PKI's CA."""
    monkeypatch.setenv("POKER_CA_FILE", str(shared_pki().ca_file))
