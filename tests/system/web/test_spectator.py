"""A spectator in a browser (``#/watch/<id>``): the page shows the table as
``Room.Watch`` sends it and never holds a card a spectator may not see.

The evidence is the auditor's reveal of each hand watched (the whole deck order,
``TableAudit.GetDeckReveal``) against two records of the page: the cards in its
DOM, each attributed to the hand of its nearest ``data-hand-id`` holder, and every
byte it received from the room (its fetch bodies, streams included), attributed to
the hand whose ``handId`` precedes them.  The cards a spectator may see are the
public hand history's (``Room.GetHandHistory`` for a player who was not in the
hand): upcards and the hands shown at the showdown.  Every other card of the deck
must appear in neither record for that hand.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from typing import Any

from playwright.sync_api import expect

from .conftest import Person
from .room import WebRoom
from .test_table import SCREENSHOTS, register

HANDS = 20
# A card in the page's traffic: a JSON string of exactly a card ("As"); the
# hand it belongs to: the last "handId" before it.
TOKEN = re.compile(r'"handId":\s*"([^"]+)"|"([2-9TJQKA][cdhs])"')

DOM = """
() => {
  const cards = [];
  for (const e of document.querySelectorAll('[data-card], [data-own-card]')) {
    const holder = e.closest('[data-hand-id]');
    cards.push([holder ? holder.dataset.handId : '', e.dataset.card || e.dataset.ownCard]);
  }
  const q = (s) => document.querySelector(s);
  return {
    cards,
    hand: q('#hand-id')?.dataset.handId ?? '',
    result: q('#result')?.dataset.handId ?? '',
    seen: Number(q('#hands-seen')?.dataset.count ?? 0),
    backs: document.querySelectorAll('.seats .downcards .card.back').length,
    low: [...document.querySelectorAll('#showdown li[data-seat] .low')]
      .some((e) => e.textContent.trim() !== ''),
    controls: document.querySelectorAll('#actions button, button[data-own-card]').length,
  };
}
"""


def traffic_by_hand(received: str) -> dict[str, set[str]]:
    """Every card token of the page's traffic, by the hand whose id precedes it."""
    hand = ""
    cards: dict[str, set[str]] = defaultdict(set)
    for match in TOKEN.finditer(received):
        if match.group(1):
            hand = match.group(1)
        else:
            cards[hand].add(match.group(2))
    return cards


def test_spectator_sees_only_public_cards(room: WebRoom, person: Person) -> None:
    """Twenty hands of Stud Hi-Lo watched through the page: no console error; for
    every hand, no card the spectator could not see (a down card before the
    showdown, a mucked or folded hand, a burned card, the stub: G4, S12 and
    table.proto's visibility) is in the page's DOM or in anything it received;
    others' down cards are backs, counted; a hi-lo showdown shows the high and
    the low hand's names (H1, H2) and who won which half."""
    table_id = room.tables["hilo"]
    credential, _ = register(room, "Web spectator")
    page = person.page
    page.evaluate(
        "(c) => { localStorage.setItem('cardroom.credential', c);"
        " localStorage.setItem('cardroom.name', 'Web spectator'); }",
        credential,
    )
    page.goto(f"{room.url}#/watch/{table_id}")
    expect(page.locator("#connection")).to_have_attribute("data-state", "open", timeout=20_000)

    in_dom: dict[str, set[str]] = defaultdict(set)
    hands: set[str] = set()
    backs = 0
    shot = False
    deadline = time.monotonic() + 600
    while True:
        now: dict[str, Any] = page.evaluate(DOM)
        for hand, card in now["cards"]:
            in_dom[hand].add(card)
        hands.update(h for h in (now["hand"], now["result"]) if h)
        backs = max(backs, now["backs"])
        assert now["controls"] == 0, "a spectator has no controls and no own cards"
        if now["low"] and not shot:
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "hilo-showdown.png"), full_page=True)
            shot = True
        if now["seen"] >= HANDS and shot:
            break
        assert time.monotonic() < deadline, (
            f"{now['seen']} hands seen in 600 s, a showdown with a low: {shot}"
        )
        time.sleep(0.15)
    assert backs > 0, "others' down cards are drawn as backs"
    # One stream all along: no event went missing (a gap makes the page reconnect).
    expect(page.locator("#connection")).to_have_attribute("data-connects", "1")
    assert not person.recorded.errors, person.recorded.errors

    received = traffic_by_hand(person.received())
    assert "" not in in_dom or not in_dom[""], f"cards outside any hand: {in_dom['']}"
    checked = 0
    for hand in sorted(hands):
        try:
            reveal = room.deck_reveal(table_id, hand)
        except Exception:  # the hand still in progress: not in the history yet
            continue
        public = room.public_cards(table_id, hand, credential)
        hidden = set(reveal.order) - public
        assert public and hidden, (hand, public)
        assert not (in_dom[hand] & hidden), f"hand {hand}: hidden cards in the DOM"
        assert not (received[hand] & hidden), f"hand {hand}: hidden cards in the traffic"
        assert received[hand] & public, f"hand {hand}: its public cards reached the page"
        checked += 1
    assert checked >= HANDS, f"only {checked} hands checked"
