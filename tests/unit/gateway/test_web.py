"""The door serves the built web client (issue 17): the page, its files, nothing else."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from services.gateway.http import Door
from services.gateway.server import web_root
from services.gateway.settings import GatewaySettings
from services.gateway.web import WebRoot

from .asgi_calls import call_app


async def _room(scope: Any, receive: Any, send: Any) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"room"})


def _get(door: Door, path: str, method: str = "GET") -> tuple[int, dict[bytes, bytes], bytes]:
    sent = asyncio.run(call_app(door, method, path, []))
    return sent[0]["status"], dict(sent[0]["headers"]), sent[1]["body"]


@pytest.fixture
def built(tmp_path: Path) -> Path:
    (tmp_path / "web").mkdir()
    (tmp_path / "index.html").write_text("<!doctype html><title>room</title>")
    (tmp_path / "web" / "app.js").write_text("console.log(1)")
    (tmp_path / "web" / "app.css").write_text("body{}")
    (tmp_path.parent / "secret.txt").write_text("not for the web")
    os.symlink(tmp_path.parent / "secret.txt", tmp_path / "web" / "link.txt")
    return tmp_path


def test_the_page_and_its_files_are_served_with_their_types_and_a_strict_csp(built: Path) -> None:
    door = Door(_room, (), lambda: True, WebRoot(built))
    status, headers, body = _get(door, "/")
    assert status == 200 and body.startswith(b"<!doctype html>")
    assert headers[b"content-type"] == b"text/html; charset=utf-8"
    csp = headers[b"content-security-policy"]
    assert b"script-src 'self'" in csp and b"connect-src 'self'" in csp
    assert b"default-src 'none'" in csp and b"frame-ancestors 'none'" in csp
    assert headers[b"x-content-type-options"] == b"nosniff"
    status, headers, body = _get(door, "/web/app.js")
    assert (status, body) == (200, b"console.log(1)")
    assert headers[b"content-type"].startswith(b"text/javascript")
    status, headers, body = _get(door, "/web/app.css", "HEAD")
    assert (status, body) == (200, b"") and headers[b"content-length"] == b"6"


def test_nothing_outside_the_build_is_served(built: Path) -> None:
    door = Door(_room, (), lambda: True, WebRoot(built))
    outside = ("/web/../../secret.txt", "/web/link.txt", "/web/", "/web/missing.js", "/web//x")
    for path in outside:
        assert _get(door, path)[0] == 404, path


def test_the_api_is_untouched_by_the_page(built: Path) -> None:
    door = Door(_room, (), lambda: True, WebRoot(built))
    assert _get(door, "/poker.room.v1.Room/ListTables", "POST")[2] == b"room"
    assert _get(door, "/poker.room.v1.Room/ListTables", "GET")[2] == b"room"  # Connect GET


def test_no_page_when_it_is_off_or_not_built(built: Path, tmp_path: Path) -> None:
    assert web_root(GatewaySettings.from_env({"GATEWAY_WEB_ROOT": "off"})) is None
    empty = tmp_path / "empty"
    empty.mkdir()
    assert web_root(GatewaySettings.from_env({"GATEWAY_WEB_ROOT": str(empty)})) is None
    served = web_root(GatewaySettings.from_env({"GATEWAY_WEB_ROOT": str(built)}))
    assert served is not None and "web/app.js" in served.files
    door = Door(_room, (), lambda: True, None)
    assert _get(door, "/")[2] == b"room"  # no page: the room's API answers as before
