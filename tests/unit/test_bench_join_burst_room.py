"""The join burst's room, made with the lobby's own code in the calling process
(``bench.join_burst.build_room``): it leaves that process's logging as it found
it.  Its test runs in a pytest worker; the whole-process JSON set-up it once did
(``configure_logging``) stayed for every later test there, and sent an asyncio
error of one into the captured stdout of ``test_cli_door`` (CI, 2026-12-06)."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
import structlog

from bench.join_burst import build_room


def test_building_the_room_leaves_the_process_logging_as_it_was(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    handlers = list(logging.getLogger().handlers)
    config = structlog.get_config()

    bots = build_room(tmp_path / "lobby.db", tables=2, seats=3)

    assert len(bots) == 6 and len({bot["player_id"] for bot in bots}) == 6
    with sqlite3.connect(tmp_path / "lobby.db") as db:
        (seated,) = db.execute("SELECT COUNT(*) FROM seats").fetchone()
    assert seated == 6
    assert logging.getLogger().handlers == handlers
    assert structlog.get_config() == config
    # the lobby's info lines were off while it ran, and only then
    out = capsys.readouterr().out
    assert not [line for line in out.splitlines() if line.startswith("{")], out
    logging.getLogger("asyncio").error("a later test's error")
    assert not capsys.readouterr().out  # not on stdout as a JSON line
