"""The page works through the gateway only, with the browser's CORS rules on
(issue 17, acceptance 3).

* Every request the page makes goes to the door's own origin (the page, its
  script, the Room API): no other host, no direct call to a service.
* Chromium's web security is on: a page from another origin calling the Room API
  is refused by the browser, because the door allows no other origin unless
  ``GATEWAY_CORS_ORIGINS`` names it.  (The page itself needs no CORS: it is
  served by the door.)
"""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Browser

from .conftest import Person
from .room import WebRoom


def test_every_request_of_the_page_goes_to_the_door(browser: Browser, room: WebRoom) -> None:
    context = browser.new_context()
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(room.url)
    page.wait_for_selector("form#register, #player-name", timeout=15_000)
    page.fill("input#name", "origin check")
    page.press("input#name", "Enter")
    page.wait_for_selector("[data-table-id]", timeout=15_000)
    context.close()
    door = urlsplit(room.url).netloc
    assert requests and all(urlsplit(u).netloc == door for u in requests), requests
    assert any("/poker.room.v1.Room/" in u for u in requests), requests


class _Page(http.server.BaseHTTPRequestHandler):
    """A page on another origin whose script calls the Room API at the door."""

    door = ""

    def do_GET(self) -> None:
        body = f"""<!doctype html><title>elsewhere</title><script>
          fetch("{self.door}poker.room.v1.Room/ListTables", {{
            method: "POST", headers: {{"content-type": "application/json"}}, body: "{{}}"
          }}).then(r => r.text()).then(t => {{ document.title = "answered " + t.length; }},
                   e => {{ document.title = "refused: " + e.name; }});
        </script>""".encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        return


@pytest.fixture
def elsewhere(room: WebRoom) -> Iterator[str]:
    _Page.door = room.url
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()


def test_another_origin_is_refused_by_the_browser(person: Person, elsewhere: str) -> None:
    page = person.page
    page.goto(elsewhere)
    page.wait_for_function(
        "document.title.startsWith('refused') || document.title.startsWith('answered')",
        timeout=15_000,
    )
    assert page.title() == "refused: TypeError"  # the browser's CORS check, not the room
