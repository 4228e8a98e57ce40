"""The web client's browser tests: one room (room.py) and Debian's Chromium,
driven by Playwright from PyPI (``executable_path``: nothing is downloaded).

Every page a test opens records, from the page's start (an init script the test
adds, not the app):

* every console error and uncaught exception (``page_errors``), which the tests
  assert empty;
* every byte the page received from the room (``window.__received``): the
  script tees the body of each ``fetch`` response, streams included, so a leak
  check reads exactly what crossed the network into the page.

Chromium keeps its web security (CORS, mixed content, certificate checks): the
gateway's certificate is trusted by pinning its public key
(``--ignore-certificate-errors-spki-list``), not by ignoring errors.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

from .room import WebRoom, web_room

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"

# The page's received bytes, decoded as text (Connect JSON), kept in the page.
TEE_FETCH = """
(() => {
  window.__received = [];
  const original = window.fetch.bind(window);
  window.fetch = async (...args) => {
    const response = await original(...args);
    if (!response.body) return response;
    const [mine, theirs] = response.body.tee();
    (async () => {
      const reader = mine.getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        window.__received.push(decoder.decode(value, { stream: true }));
      }
    })().catch(() => {});
    return new Response(theirs, {
      status: response.status, statusText: response.statusText, headers: response.headers,
    });
  };
})();
"""


@dataclass
class Recorded:
    """What a page showed that a test asserts on besides its content."""

    errors: list[str] = field(default_factory=list)

    def watch(self, page: Page) -> None:
        page.on(
            "console",
            lambda message: (
                self.errors.append(f"console: {message.text}") if message.type == "error" else None
            ),
        )
        page.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))


@pytest.fixture(scope="module")
def room() -> Iterator[WebRoom]:
    with web_room() as made:
        yield made


@pytest.fixture(scope="module")
def browser(room: WebRoom) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                f"--ignore-certificate-errors-spki-list={room.spki}",
                "--no-sandbox",  # CI runs as root
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Person:
    """One person's browser: their own context (cookies, localStorage), a page."""

    context: BrowserContext
    page: Page
    recorded: Recorded

    def received(self) -> str:
        """Every byte the page received from the room so far, as text."""
        return "".join(self.page.evaluate("window.__received"))


@pytest.fixture
def person(browser: Browser, room: WebRoom) -> Iterator[Person]:
    """A new person (an empty browser profile) on the room's page."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(TEE_FETCH)
    page = context.new_page()
    recorded = Recorded()
    recorded.watch(page)
    page.goto(room.url)
    try:
        yield Person(context, page, recorded)
    finally:
        context.close()
