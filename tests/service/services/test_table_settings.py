"""The table service's audit-token settings: from the environment or from a mounted
Secret file (the Kubernetes manifests use the file), never both."""

from __future__ import annotations

from pathlib import Path

import pytest

from service_kit import ConfigError
from services.table.settings import TableSettings


def _audit_token() -> str:
    """What the service reads as its audit token."""
    return TableSettings.from_env().audit_token


@pytest.fixture(autouse=True)
def _clean(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABLE_AUDIT_TOKEN", raising=False)
    monkeypatch.delenv("TABLE_AUDIT_TOKEN_FILE", raising=False)


def test_token_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_AUDIT_TOKEN", "s3cret")
    assert _audit_token() == "s3cret"


def test_no_token_means_reveals_disabled() -> None:
    assert _audit_token() == ""


def test_token_from_a_file_first_line_stripped(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    token = tmp_path / "token"
    token.write_text("from-a-secret\nignored\n")
    monkeypatch.setenv("TABLE_AUDIT_TOKEN_FILE", str(token))
    assert _audit_token() == "from-a-secret"


def test_missing_file_is_no_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # The Secret is optional: without it Kubernetes mounts no file.
    monkeypatch.setenv("TABLE_AUDIT_TOKEN_FILE", str(tmp_path / "absent"))
    assert _audit_token() == ""


def test_both_is_a_configuration_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("a\n")
    monkeypatch.setenv("TABLE_AUDIT_TOKEN", "b")
    monkeypatch.setenv("TABLE_AUDIT_TOKEN_FILE", str(token))
    with pytest.raises(ConfigError, match="not both"):
        _audit_token()


def test_unreadable_file_is_a_configuration_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TABLE_AUDIT_TOKEN_FILE", str(tmp_path))  # a directory
    with pytest.raises(ConfigError, match="TABLE_AUDIT_TOKEN_FILE"):
        _audit_token()
