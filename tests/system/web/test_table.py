"""The table page in a browser: a person plays through the page (issue 17).

A person is registered and seated through the gateway's API (the lobby page has
its own tests), their credential put in the page's localStorage, and the page
opened at ``#/table/<id>``.  From there everything goes through the page: the
seat's events arrive on ``Room.Follow``, every action is a click on the page's
controls (``Room.Act`` with the turn's action_seq).

Every wait polls the page's hooks (``data-*`` attributes) and is bounded; a
decision takes the page well under the table's 30 s action clock.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest
from playwright.sync_api import Page, expect

from poker.common.v1 import common_pb2 as common
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc
from poker_wire.channels import player_channel_sync

from .conftest import Person
from .room import WebRoom

SCREENSHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
BUY_IN = 2_000
CALL_CAP = 300  # the test's person folds rather than call more (keeps their stack)
T = TypeVar("T")


# ---------------------------------------------------------------- the person's seat


@dataclass
class Seated:
    """A person registered and seated through the API (their credential for the page)."""

    room: WebRoom
    table_id: str
    credential: str
    player_id: str
    name: str
    seat: int

    def auth(self) -> tuple[tuple[str, str], ...]:
        return (("authorization", f"Bearer {self.credential}"),)

    def call(self, method: str, request: Any) -> Any:
        with player_channel_sync(self.room.target, self.room.ca_file) as channel:
            return getattr(rpb_grpc.RoomStub(channel), method)(
                request, metadata=self.auth(), timeout=15
            )


def register(room: WebRoom, name: str) -> tuple[str, str]:
    """A new player: (credential, player_id)."""
    with player_channel_sync(room.target, room.ca_file) as channel:
        made = rpb_grpc.RoomStub(channel).Register(rpb.RegisterRequest(name=name), timeout=15)
    return made.credential, made.player.player_id


def sit_down(room: WebRoom, key: str, name: str) -> Seated:
    credential, player_id = register(room, name)
    table_id = room.tables[key]
    seated = Seated(room, table_id, credential, player_id, name, 0)
    answer = seated.call("SitDown", rpb.SitDownRequest(table_id=table_id, buy_in=BUY_IN))
    seated.seat = answer.seat
    return seated


def leave(seated: Seated) -> None:
    """Stand up, and give up the hand in progress at once rather than on the clock."""
    seated.call("StandUp", rpb.StandUpRequest(table_id=seated.table_id))
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = seated.call("GetState", rpb.GetStateRequest(table_id=seated.table_id))
        if not state.hand_id or not any(
            s.seat == state.your_seat and s.in_hand for s in state.seats
        ):
            return
        if state.HasField("your_turn"):
            kinds = state.your_turn.legal.kinds
            # The cheapest way out (S5: the bring-in may neither check nor fold).
            kind = next(
                k
                for k in (
                    common.ACTION_KIND_DISCARD,
                    common.ACTION_KIND_CHECK,
                    common.ACTION_KIND_FOLD,
                    common.ACTION_KIND_BRING_IN,
                    common.ACTION_KIND_CALL,
                    *kinds,
                )
                if k in kinds
            )
            # A refusal means the clock or the hand's end came first: look again.
            with contextlib.suppress(grpc.RpcError):
                seated.call(
                    "Act",
                    rpb.ActRequest(
                        table_id=seated.table_id,
                        hand_id=state.hand_id,
                        action_seq=state.your_turn.action_seq,
                        action=common.Action(kind=kind),
                    ),
                )
        time.sleep(0.2)


def open_seat(person: Person, seated: Seated, *, width: int | None = None) -> Page:
    """The page at the person's table, signed in as them."""
    page = person.page
    page.evaluate(
        "([c, n]) => { localStorage.setItem('cardroom.credential', c);"
        " localStorage.setItem('cardroom.name', n); }",
        [seated.credential, seated.name],
    )
    if width is not None:
        page.set_viewport_size({"width": width, "height": 900})
    page.goto(f"{seated.room.url}#/table/{seated.table_id}")
    expect(page.locator(f'[data-seat="{seated.seat}"][data-me="true"]')).to_be_visible(
        timeout=20_000
    )
    return page


def sit_through_the_lobby(person: Person, room: WebRoom, key: str, name: str) -> Seated:
    """A person as a newcomer does it: register on the lobby page, sit down at the
    table with the lobby's buy-in form, land on the table page."""
    page = person.page
    table_id = room.tables[key]
    page.wait_for_selector("form#register", timeout=20_000)
    page.fill("input#name", name)
    page.click("form#register button[type=submit]")
    expect(page.locator("#player-name")).to_have_text(name, timeout=20_000)
    line = page.locator(f'[data-table-id="{table_id}"]').first
    line.locator('input[name="buy-in"]').fill(str(BUY_IN))
    line.locator('button[data-action="sit"]').click()
    page.wait_for_url(f"**#/table/{table_id}", timeout=20_000)
    me = page.locator('.seats [data-seat][data-me="true"]')
    expect(me).to_be_visible(timeout=20_000)
    credential = page.evaluate("localStorage.getItem('cardroom.credential')")
    assert isinstance(credential, str) and "." in credential
    player_id = credential.rpartition(".")[0]
    seat = int(me.get_attribute("data-seat") or 0)
    return Seated(room, table_id, credential, player_id, name, seat)


@pytest.fixture
def seats(room: WebRoom) -> Iterator[list[Seated]]:
    """The people a test seats; they leave the table when it ends."""
    made: list[Seated] = []
    yield made
    for seated in made:
        leave(seated)


# ---------------------------------------------------------------- reading the page

READ = """
() => {
  const turn = document.querySelector('#turn');
  const q = (s) => document.querySelector(s);
  const actions = [...document.querySelectorAll('#actions button[data-action]')]
    .filter((b) => !b.disabled).map((b) => b.dataset.action);
  const amount = q('#amount');
  const call = q('button[data-action="call"]');
  return {
    handId: q('#hand-id')?.dataset.handId ?? '',
    handsSeen: Number(q('#hands-seen')?.dataset.count ?? 0),
    street: q('#street')?.dataset.street ?? '',
    myTurn: turn?.dataset.myTurn === 'true',
    actionSeq: turn?.dataset.actionSeq ?? '',
    actions,
    minTo: amount ? amount.min : null,
    maxTo: amount ? amount.max : null,
    callAmount: call ? Number(call.dataset.amount) : null,
    ownCards: [...document.querySelectorAll('button[data-own-card]')].map((b) => b.dataset.ownCard),
    alert: q('[role=alert]')?.textContent ?? '',
  };
}
"""


def read(page: Page) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate(READ)
    return result


def poll(what: str, probe: Callable[[], T | None], timeout: float = 60, every: float = 0.1) -> T:
    """``probe()`` until it gives something (not None/False), at most ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while True:
        got = probe()
        if got is not None and got is not False:
            return got
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


def my_turn_or_finished(page: Page, seen: int) -> dict[str, Any]:
    """The page's state once it is the person's turn (with controls) or another
    hand has finished."""

    def probe() -> dict[str, Any] | None:
        state = read(page)
        if (state["myTurn"] and state["actions"]) or state["handsSeen"] > seen:
            return state
        return None

    return poll("the person's turn or the hand's end", probe, timeout=90)


def next_turn(page: Page, hands: int = 10) -> dict[str, Any]:
    """The page's state at the person's next turn, within ``hands`` hands."""
    state = read(page)
    for _ in range(hands):
        state = my_turn_or_finished(page, state["handsSeen"])
        if state["myTurn"] and state["actions"]:
            return state
    raise AssertionError(f"no turn for the person in {hands} hands")


def page_finals(page: Page) -> dict[int, int]:
    """The last hand's final stacks as #result shows them (seat: chips)."""
    got: dict[str, Any] = page.evaluate(
        """() => ({
          finals: [...document.querySelectorAll('#result [data-final-seat]')]
            .map((li) => [Number(li.dataset.finalSeat), Number(li.dataset.chips)]),
        })"""
    )
    return {seat: chips for seat, chips in got["finals"]}


def stacks_match_lobby(page: Page, room: WebRoom, table_id: str) -> None:
    """The page's final stacks of the last hand equal the lobby's once it recorded it."""

    def probe() -> bool:
        finals = page_finals(page)
        lobby = {s.seat: s.stack for s in room.lobby_table(table_id).occupied}
        return bool(finals) and all(lobby.get(seat) == chips for seat, chips in finals.items())

    poll("the page's stacks to equal the lobby's", probe, timeout=20, every=0.25)


def click(page: Page, action: str) -> None:
    page.locator(f'#actions button[data-action="{action}"]').click(timeout=10_000)


def passive(page: Page, state: dict[str, Any]) -> None:
    """Check, call (up to CALL_CAP), bring in, stand pat; else fold."""
    actions = state["actions"]
    if "discard" in actions:
        click(page, "discard")
    elif "check" in actions:
        click(page, "check")
    elif "call" in actions and (state["callAmount"] or 0) <= CALL_CAP:
        click(page, "call")
    elif "bring_in" in actions:
        click(page, "bring_in")
    elif "fold" in actions:
        click(page, "fold")
    else:
        click(page, actions[0])


def turn_over(page: Page, state: dict[str, Any]) -> None:
    """Wait until the turn the page showed is answered (its controls gone)."""
    seq, hand = state["actionSeq"], state["handId"]
    poll(
        "the turn to be answered",
        lambda: (s := read(page))["handId"] != hand or s["actionSeq"] != seq or not s["myTurn"],
        timeout=20,
    )


# ---------------------------------------------------------------- the tests


def test_draw_raise_and_discard_through_the_page(
    room: WebRoom, person: Person, seats: list[Seated]
) -> None:
    """7-A no limit (D2, D5-D7): a person registers and sits down through the lobby
    page, raises with the slider (moved by the keyboard inside the menu's
    min_to..max_to; the number input follows), draws two cards (D6: the discard
    count shows 2, two new cards replace them), plays the hand to its result, and
    the stacks the page shows equal the lobby's once the hand is recorded."""
    seated = sit_through_the_lobby(person, room, "draw_nl", "Web drawer")
    seats.append(seated)
    page = person.page
    raised = drew_two = False
    hands = 0
    seen = read(page)["handsSeen"]
    raised_in: str | None = None
    while not (raised and drew_two):
        assert hands < 15, f"after {hands} hands: raised={raised} drew two={drew_two}"
        state = my_turn_or_finished(page, seen)
        if state["handsSeen"] > seen:  # a hand ended: its result, the stacks
            seen = state["handsSeen"]
            hands += 1
            expect(page.locator("#result [data-final-seat]").first).to_be_visible()
            stacks_match_lobby(page, room, seated.table_id)
            if raised_in is not None:
                raised = True
            continue
        actions = state["actions"]
        aggressive = next((a for a in ("raise", "bet") if a in actions), None)
        if state["street"] == "pre_draw" and aggressive and raised_in is None:
            low, high = int(state["minTo"]), int(state["maxTo"])
            assert low < high, "no room to raise with a slider"
            slider = page.locator("#amount-slider")
            assert slider.get_attribute("min") == str(low)
            assert slider.get_attribute("max") == str(high)
            slider.focus()  # the slider itself, moved by the keyboard as a person would
            for _ in range(3):
                page.keyboard.press("ArrowRight")
            amount = int(slider.input_value())
            assert low < amount <= high, (low, amount, high)
            expect(page.locator("#amount")).to_have_value(str(amount))  # the number follows
            button = page.locator(f'#actions button[data-action="{aggressive}"]')
            expect(button).to_have_attribute("data-amount", str(amount))
            button.click()
            verb = "raises to" if aggressive == "raise" else "bets"
            last = page.locator(f'.seats [data-seat="{seated.seat}"] .last-action')
            expect(last).to_contain_text(f"{verb} {amount:,}", timeout=15_000)
            raised_in = state["handId"]
            continue
        if "discard" in actions and not drew_two:
            before = state["ownCards"]
            assert len(before) == 5
            first, second = (page.locator(f'button[data-own-card="{c}"]') for c in before[:2])
            first.click()  # a click selects a card...
            expect(first).to_have_attribute("aria-pressed", "true")
            second.focus()  # ...and so does the keyboard
            page.keyboard.press("Space")
            expect(second).to_have_attribute("aria-pressed", "true")
            expect(page.locator("#discard-count")).to_have_attribute("data-count", "2")
            page.keyboard.press("Enter")  # a second press puts it back
            expect(second).to_have_attribute("aria-pressed", "false")
            expect(page.locator("#discard-count")).to_have_attribute("data-count", "1")
            second.click()
            expect(page.locator("#discard-count")).to_have_attribute("data-count", "2")
            expect(page.locator("#discard-count")).to_contain_text("2 cards")
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(SCREENSHOTS / "draw-at-the-draw.png"), full_page=True)
            click(page, "discard")

            def redrawn(before: list[str] = before) -> list[str] | None:
                now: list[str] = read(page)["ownCards"]
                return now if len(now) == 5 and now != before else None

            after = poll("two new own cards", redrawn, timeout=15)
            assert len(set(after) - set(before)) == 2, (before, after)
            assert set(before[2:]) <= set(after)
            drew_two = True
            continue
        passive(page, state)
        turn_over(page, state)
    assert not person.recorded.errors, person.recorded.errors


def test_stud_hand_through_the_showdown(room: WebRoom, person: Person, seats: list[Seated]) -> None:
    """Seven Card Stud: the person brings in when the low card is theirs (S5),
    calls and checks down through the streets (S4, S7) to a showdown (S12) that
    the page shows with every shown hand's name; the person's own two down cards
    are theirs to see, the other players' down cards are backs."""
    seated = sit_down(room, "stud", "Web stud player")
    seats.append(seated)
    page = open_seat(person, seated)
    seen = read(page)["handsSeen"]
    shot = False
    hands = 0
    while True:
        assert hands < 12, "no showdown with the person in it after 12 hands"
        state = my_turn_or_finished(page, seen)
        if state["handsSeen"] > seen:
            seen = state["handsSeen"]
            hands += 1
            hand = page.locator("#result").get_attribute("data-hand-id")
            mine = page.locator(f'#showdown[data-hand-id="{hand}"] li[data-seat="{seated.seat}"]')
            if mine.count() and mine.locator(".high").inner_text().strip():
                break
            continue
        if state["street"] in ("fifth", "sixth", "seventh"):
            me = page.locator(f'.seats [data-seat="{seated.seat}"]')
            down = 3 if state["street"] == "seventh" else 2  # S4: seventh street's card is down
            expect(me.locator("button[data-own-card]")).to_have_count(down)
            assert me.locator(".upcards [data-card]").count() >= 3
            others = page.locator('.seats [data-seat][data-in-hand="true"][data-me="false"]')
            for k in range(others.count()):  # others' down cards: backs, never a value
                seat = others.nth(k)
                assert seat.locator(".downcards .card.back").count() >= 2
                assert seat.locator(".downcards [data-card]").count() == 0
            if not shot:
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(SCREENSHOTS / "stud-mid-hand.png"), full_page=True)
                shot = True
        passive(page, state)
        turn_over(page, state)
    shown = page.locator("#showdown li[data-seat]")
    assert shown.count() >= 2
    for k in range(shown.count()):
        entry = shown.nth(k)
        if entry.get_attribute("data-mucked") != "true":
            assert entry.locator(".high").inner_text().strip(), entry.inner_text()
            assert entry.locator("[data-card]").count() == 7
    expect(page.locator("#result li.award").first).to_be_visible()
    link = page.locator("a#history-download")
    expect(link).to_have_attribute("download", re.compile(r"\.phh$"))
    with page.expect_download(timeout=10_000) as download:
        link.click()
    phh = Path(download.value.path()).read_text()
    assert "variant = " in phh and "actions = " in phh, phh[:400]
    assert shot, "the hand never reached fifth street on the person's turn"
    assert not person.recorded.errors, person.recorded.errors


def test_refused_action_and_reload(room: WebRoom, person: Person, seats: list[Seated]) -> None:
    """A refused action (an Act whose action_seq is not the turn's: the table's
    rule that a late or repeated action is never applied) shows the room's own
    message in role=alert and changes nothing: same hand, same turn, same stack,
    the controls back.  A reload in the middle of a hand restores the seat from
    Follow's Snapshot: the person's own down cards and their turn (S10's clock)."""
    seated = sit_down(room, "stud", "Web reloader")
    seats.append(seated)
    page = open_seat(person, seated)

    # The refusal: the page's Act goes out with another action_seq.
    state = next_turn(page)
    me = page.locator(f'.seats [data-seat="{seated.seat}"]')
    stack = me.locator(".stack").get_attribute("data-chips")

    def stale(route: Any) -> None:
        body = json.loads(route.request.post_data or "{}")
        body["actionSeq"] = str(int(body.get("actionSeq", "0")) + 1000)
        route.continue_(post_data=json.dumps(body))

    page.route("**/poker.room.v1.Room/Act", stale)
    action = next(a for a in ("check", "call", "bring_in", "fold") if a in state["actions"])
    click(page, action)
    alert = page.locator("[role=alert]")
    expect(alert).to_contain_text("is not the current turn's", timeout=15_000)
    expect(alert).to_contain_text(f"({state['actionSeq']})")
    page.unroute("**/poker.room.v1.Room/Act")
    after = read(page)
    assert after["myTurn"] and after["handId"] == state["handId"]
    assert after["actionSeq"] == state["actionSeq"]
    assert action in after["actions"]  # the controls are back, enabled
    assert me.locator(".stack").get_attribute("data-chips") == stack
    table = seated.call("GetState", rpb.GetStateRequest(table_id=seated.table_id))
    assert table.hand_id == state["handId"]  # the table's side: the same turn waits
    assert table.your_turn.action_seq == int(state["actionSeq"])
    click(page, action)  # the same turn, answered properly this time
    turn_over(page, state)
    expect(alert).to_have_text("")

    # The reload: at the person's next turn in a hand.
    state = next_turn(page)
    own = state["ownCards"]
    ups = me.locator(".upcards [data-card]").evaluate_all("(cs) => cs.map((c) => c.dataset.card)")
    assert len(own) >= 2
    page.reload()
    expect(me).to_have_attribute("data-me", "true", timeout=20_000)
    restored = poll(
        "the turn restored after the reload",
        lambda: (s := read(page))["myTurn"] and s["actions"] and s,
        timeout=20,
    )
    assert restored["handId"] == state["handId"]
    assert restored["actionSeq"] == state["actionSeq"]
    assert restored["ownCards"] == own
    assert (
        me.locator(".upcards [data-card]").evaluate_all("(cs) => cs.map((c) => c.dataset.card)")
        == ups
    )
    expect(page.locator("#turn .clock")).to_contain_text(re.compile(r"\d+ s left"))
    passive(page, restored)
    turn_over(page, restored)

    # A dropped stream: the page retries (with backoff) and Follow's Snapshot
    # puts the table back.
    connection = page.locator("#connection")
    connects = int(connection.get_attribute("data-connects") or 0)
    assert connection.get_attribute("data-drops") is None
    page.evaluate("window.stop()")  # ends every fetch in flight, the stream's too
    expect(connection).to_have_attribute("data-drops", "1", timeout=20_000)
    expect(connection).to_have_attribute("data-connects", str(connects + 1), timeout=30_000)
    expect(connection).to_have_attribute("data-state", "open")
    expect(me).to_have_attribute("data-me", "true")

    def caught_up() -> bool:
        now = seated.call("GetState", rpb.GetStateRequest(table_id=seated.table_id))
        return bool(now.hand_id) and read(page)["handId"] == now.hand_id

    poll("the page to show the hand the table is playing", caught_up, timeout=30, every=0.25)

    # Readable at 375 px: nothing wider than the screen, the controls on it.
    page.set_viewport_size({"width": 375, "height": 800})
    state = my_turn_or_finished(page, read(page)["handsSeen"])
    assert page.evaluate("document.documentElement.scrollWidth") <= 375
    if state["myTurn"]:
        buttons = page.locator("#actions button[data-action]")
        for k in range(buttons.count()):
            box = buttons.nth(k).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375
        passive(page, state)
    # The one error the browser logs is the refused Act's (Connect answers
    # FAILED_PRECONDITION with HTTP 400): nothing else went wrong.
    refused = [e for e in person.recorded.errors if "status of 400" in e]
    assert len(refused) == 1, person.recorded.errors
    assert person.recorded.errors == refused, person.recorded.errors
