# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __G4a)
"""The fairness check in a browser (issue 17; docs/rules.md G4a).

A spectator watches the bots' Stud Hi-Lo table (``#/watch/<id>``, the page that
mounts the fairness panel of ``clients/web/src/fairness.ts``).  After each hand
the page fetches its proof (``Room.GetDeckProof``) and its own history of the
hand, and checks them with WebCrypto (``deckproof.ts``) against the per-card
commitment it got in ``HandStarted`` before the first card.

The page's traffic is intercepted (Playwright's ``page.route``) for one hand
only: one card the proof opens is changed in the JSON the room answered.  That
hand's check must say "failed", every other hand's "verified": the acceptance
wording, "the fairness check shows 'verified' for every hand and 'failed' for a
tampered reveal".  A proof never opens a card the spectator was not shown, so
the leak check of ``test_spectator.py`` holds for the proofs' bytes too; here the
cards each proof opened are compared with the public history of its hand.
"""

from __future__ import annotations

import json
import re
import ssl
import time
import urllib.request
from typing import Any

from playwright.sync_api import Route, expect

from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc
from poker_wire.channels import player_channel_sync

from .conftest import Person
from .room import WebRoom

HANDS = 4  # checked hands besides the tampered one
VERDICTS = "#fairness li[data-hand-id]"
VERIFIED = re.compile(r"verified: \d+ cards? you saw (was|were) fixed before the deal")


def _register(room: WebRoom, name: str) -> str:
    with player_channel_sync(room.target, room.ca_file) as channel:
        made = rpb_grpc.RoomStub(channel).Register(rpb.RegisterRequest(name=name), timeout=15)
    credential: str = made.credential
    return credential


class Tamper:
    """Answers the page's GetDeckProof calls with the room's proof, but for the
    first hand whose proof opens a card: that card is changed to another one
    (with the same nonce), as a dishonest dealer's reveal would.

    The room is asked from here, trusting its CA (Playwright's own fetch does
    not know it), with the page's request: its body and its credential."""

    def __init__(self, room: WebRoom) -> None:
        self.room = room
        self.hand_id = ""
        self.changed = ""
        self.opened: dict[str, set[str]] = {}  # hand id -> the cards its proof opened

    def _ask(self, route: Route) -> dict[str, Any]:
        request = route.request
        headers = {
            "content-type": "application/json",
            "connect-protocol-version": "1",
            "authorization": request.headers.get("authorization", ""),
        }
        asked = urllib.request.Request(
            request.url, data=request.post_data_buffer, headers=headers, method="POST"
        )
        context = ssl.create_default_context(cafile=self.room.ca_file)
        with urllib.request.urlopen(asked, context=context, timeout=15) as reply:
            answer: dict[str, Any] = json.loads(reply.read())
        return answer

    def __call__(self, route: Route) -> None:
        proof = self._ask(route)
        positions = proof.get("positions", [])
        opened = [p for p in positions if p.get("card")]
        hand_id = proof.get("handId", "")
        self.opened[hand_id] = {p["card"] for p in opened}
        if not self.hand_id and opened and hand_id:
            self.hand_id = hand_id
            target = opened[0]
            taken = {p["card"] for p in opened}
            other = next(
                f"{r}{s}" for r in "AKQJT98765432" for s in "shdc" if f"{r}{s}" not in taken
            )
            self.changed = f"{target['card']} -> {other} at position {target.get('position', 0)}"
            target["card"] = other
        route.fulfill(status=200, content_type="application/json", body=json.dumps(proof))


def test_the_fairness_check_shows_verified_for_every_hand_and_failed_for_a_tampered_reveal__G4a(
    room: WebRoom, person: Person
) -> None:
    table_id = room.tables["hilo"]
    credential = _register(room, "Fairness watcher")
    page = person.page
    page.evaluate(
        "(c) => { localStorage.setItem('cardroom.credential', c);"
        " localStorage.setItem('cardroom.name', 'Fairness watcher'); }",
        credential,
    )
    tamper = Tamper(room)
    page.route("**/poker.room.v1.Room/GetDeckProof", tamper)
    page.goto(f"{room.url}#/watch/{table_id}")
    expect(page.locator("#fairness")).to_be_attached(timeout=20_000)

    deadline = time.monotonic() + 300
    while True:
        verdicts: list[dict[str, str]] = page.eval_on_selector_all(
            VERDICTS,
            "(items) => items.map((li) => ({hand: li.dataset.handId,"
            " verdict: li.dataset.verdict, text: li.textContent}))",
        )
        done = [v for v in verdicts if v["verdict"] != "pending"]
        if tamper.hand_id and len([v for v in done if v["hand"] != tamper.hand_id]) >= HANDS:
            break
        assert time.monotonic() < deadline, f"checked so far: {verdicts}"
        page.wait_for_timeout(500)  # the route's handler runs meanwhile

    by_hand = {v["hand"]: v for v in done}
    tampered = by_hand.get(tamper.hand_id)
    assert tampered is not None, (tamper.hand_id, verdicts)
    assert tampered["verdict"] == "failed", (tamper.changed, tampered)
    assert "FAILED" in tampered["text"], tampered
    others = [v for v in done if v["hand"] != tamper.hand_id]
    assert [v for v in others if v["verdict"] != "verified"] == [], others
    for v in others:
        assert VERIFIED.search(v["text"]), v
        assert re.search(r"commitment [0-9a-f]{8}…", v["text"]), v
    # The proofs opened only cards of each hand's public history (G4).
    for hand_id, cards in tamper.opened.items():
        if cards:
            assert cards <= room.public_cards(table_id, hand_id), hand_id
    assert person.recorded.errors == []
