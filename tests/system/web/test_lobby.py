"""The lobby page in a browser (issue 17): register, the balance, the tables
with their game, stakes, seats and pace, tournaments, sitting down with a
buy-in, and the page at a phone's width.

Every check compares the page with the lobby's own records (GetPlayer and
GetTable on the lobby's operator port) or with what the room answers the same
call over gRPC, never with numbers the test makes up.  The ``stud`` table
is the one people sit at here (6 seats, 2 bots); whoever sits stands up again.
"""

from __future__ import annotations

import re
from pathlib import Path

import grpc
import pytest
from playwright.sync_api import Locator, Page, expect

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import tournament_pb2 as tpb
from poker.lobby.v1 import tournament_pb2_grpc as tpb_grpc
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc
from poker_wire.channels import player_channel_sync

from .conftest import Person
from .room import MIN_BUY_IN, WebRoom, off_the_loop

SCREENSHOT = Path(__file__).resolve().parents[3] / "docs" / "screenshots" / "lobby.png"
WAIT_MS = 15_000

GAME_NAMES = {
    common.GAME_STUD: "Seven Card Stud",
    common.GAME_STUD_HILO: "Stud Hi-Lo",
    common.GAME_DRAW_7A: "7-A Draw",
}
STRUCTURES = {
    common.STRUCTURE_UNSPECIFIED: "fixed limit",
    common.STRUCTURE_FIXED_LIMIT: "fixed limit",
    common.STRUCTURE_POT_LIMIT: "pot limit",
    common.STRUCTURE_NO_LIMIT: "no limit",
}


# ---- helpers


def lobby_player(room: WebRoom, page: Page) -> lpb.Player:
    """The lobby's own record of the page's player (the lobby asks for the
    player's token even from the operator: the one the browser keeps)."""
    who, _, token = credential(page).rpartition(".")
    return room.lobby_player(who, token)


def lobby_table(room: WebRoom, table_id: str) -> lpb.Table:
    return room.lobby_table(table_id)


def register(page: Page, name: str) -> str:
    """Register through the page's form; the player id the browser keeps."""
    page.wait_for_selector("form#register", timeout=WAIT_MS)
    page.fill("input#name", name)
    page.click("form#register button[type=submit]")
    expect(page.locator("#player-name")).to_have_text(name, timeout=WAIT_MS)
    expect(page.locator("#balance")).to_have_attribute("data-chips", re.compile(r"^\d+$"))
    return player_id(page)


def credential(page: Page) -> str:
    kept = page.evaluate("localStorage.getItem('cardroom.credential')")
    assert isinstance(kept, str) and "." in kept, kept
    return kept


def player_id(page: Page) -> str:
    return credential(page).rpartition(".")[0]


def row(page: Page, table_id: str) -> Locator:
    return page.locator(f'tr[data-table-id="{table_id}"]')


def balance_shown(page: Page) -> int:
    chips = page.get_attribute("#balance", "data-chips")
    assert chips is not None
    return int(chips)


def room_api(room: WebRoom) -> tuple[grpc.Channel, rpb_grpc.RoomStub]:
    channel = player_channel_sync(room.target, room.ca_file)
    return channel, rpb_grpc.RoomStub(channel)


def bearer(kept: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {kept}"),)


def expected_game(table: lpb.Table) -> str:
    config = table.config
    name = GAME_NAMES[config.game]
    if config.game == common.GAME_DRAW_7A:
        return f"{name}, {STRUCTURES[config.structure]}"
    return name


def create_tournament(room: WebRoom, name: str) -> tpb.Tournament:
    """A stud tournament open for registration (the room's staff call)."""

    async def make() -> tpb.Tournament:
        async with room.stack["lobby"].aio_channel("operator") as channel:
            made: tpb.Tournament = await tpb_grpc.TournamentOperatorStub(channel).CreateTournament(
                tpb.CreateTournamentRequest(
                    name=name,
                    config=common.GameConfig(game=common.GAME_STUD),
                    seats_per_table=6,
                    schedule=[
                        tpb.TournamentLevel(
                            ante=5 * 2**i,
                            bring_in=10 * 2**i,
                            small_bet=20 * 2**i,
                            big_bet=40 * 2**i,
                            duration=10,
                        )
                        for i in range(4)
                    ],
                    clock=tpb.LEVEL_CLOCK_HANDS,
                    starting_stack=1_000,
                    buy_in=100,
                    fee=10,
                )
            )
            return made

    return off_the_loop(make)


def seated(room: WebRoom, table_id: str, who: str) -> bool:
    return any(s.player_id == who for s in lobby_table(room, table_id).occupied)


# ---- tests


def test_a_person_registers_and_sees_the_balance_the_lobby_keeps(
    person: Person, room: WebRoom
) -> None:
    page = person.page
    who = register(page, "Ada Lovelace")
    player = lobby_player(room, page)
    assert (player.player_id, player.name) == (who, "Ada Lovelace")
    assert balance_shown(page) == player.balance > 0
    assert page.text_content("#balance") == f"{player.balance:,}"
    expect(page.locator("#at-tables")).to_have_attribute("data-chips", str(player.at_tables))
    expect(page.locator("#me")).to_have_text("Signed in as Ada Lovelace")
    assert person.recorded.errors == []


def test_the_three_tables_are_listed_with_game_stakes_seats_and_links(
    person: Person, room: WebRoom
) -> None:
    page = person.page
    # The tables are listed before anyone signs in (watching needs no account).
    for table_id in room.tables.values():
        table = lobby_table(room, table_id)
        line = row(page, table_id)
        expect(line.locator(".game")).to_have_text(expected_game(table), timeout=WAIT_MS)
        expect(line.locator(".seats")).to_have_text(f"{len(table.occupied)}/{table.seats}")
        expect(line.locator("th[scope=row]")).to_have_text(table.name)
        expect(line.locator('a[data-action="watch"]')).to_have_attribute(
            "href", f"#/watch/{table_id}"
        )
        expect(line.locator('a[data-action="play"]')).to_be_hidden()
        stakes = line.locator(".stakes")
        config = table.config
        if config.game == common.GAME_DRAW_7A:
            expect(stakes).to_have_text(f"blinds {config.small_bet // 2}/{config.small_bet}")
        else:
            expect(stakes).to_have_text(
                f"ante {config.ante} · bring-in {config.bring_in} · "
                f"bets {config.small_bet}/{config.big_bet}"
            )
        # Not signed in: no sit form, a note instead.
        expect(line.locator('input[name="buy-in"]')).to_have_count(0)
        expect(line).to_contain_text("Register above to sit down.")
    assert page.locator("tr[data-table-id]").count() == len(room.tables)
    assert person.recorded.errors == []


def test_tournaments_are_listed_with_their_state_or_an_empty_state(
    person: Person, room: WebRoom
) -> None:
    page = person.page
    tournaments = page.locator("#tournaments")
    # This module's room starts with none: the empty state says so.
    expect(tournaments).to_contain_text("No tournaments right now", timeout=WAIT_MS)
    made = create_tournament(room, "Web Sunday Stud")
    line = tournaments.locator(f'tr[data-tournament-id="{made.tournament_id}"]')
    expect(line).to_be_visible(timeout=WAIT_MS)  # the next refresh lists it
    expect(line.locator("th[scope=row]")).to_have_text("Web Sunday Stud")
    expect(line.locator(".game")).to_have_text("Seven Card Stud")
    expect(line.locator(".state")).to_have_text("Registering")
    expect(line.locator(".entries")).to_have_text("0 entered")
    expect(line.locator(".buy-in")).to_contain_text(f"{made.buy_in} + {made.fee} fee")
    expect(line.locator(".stakes")).to_have_text("ante 5 · bring-in 10 · bets 20/40")
    expect(tournaments).not_to_contain_text("No tournaments right now")
    assert person.recorded.errors == []


def test_hands_per_hour_are_measured_on_the_page(person: Person, room: WebRoom) -> None:
    page = person.page
    pace = row(page, room.tables["hilo"]).locator(".hands-per-hour")
    expect(pace).to_have_text("—", timeout=WAIT_MS)  # one look is no pace yet
    # The bots' table deals all the time: after a refresh or two, a number.
    expect(pace).to_have_text(re.compile(r"^[1-9]\d*$"), timeout=30_000)
    rate = int(pace.text_content() or "0")
    assert 0 < rate < 100_000
    assert "measured over the last" in (pace.get_attribute("title") or "")
    assert person.recorded.errors == []


def test_a_screenshot_of_the_lobby(person: Person, room: WebRoom) -> None:
    page = person.page
    register(page, "Grace Hopper")
    for table_id in room.tables.values():  # every pace measured
        pace = row(page, table_id).locator(".hands-per-hour")
        expect(pace).to_have_text(re.compile(r"^\d+$"), timeout=30_000)
    page.evaluate("document.activeElement?.blur()")
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000
    assert person.recorded.errors == []


def test_the_sit_form_shows_the_minimum_and_the_balance(person: Person, room: WebRoom) -> None:
    page = person.page
    register(page, "Bounds")
    balance = lobby_player(room, page).balance
    table = lobby_table(room, room.tables["stud"])
    line = row(page, room.tables["stud"])
    buy_in = line.locator('input[name="buy-in"]')
    expect(buy_in).to_have_attribute("min", str(table.min_buy_in))
    expect(buy_in).to_have_attribute("max", str(balance))  # no table maximum here
    assert table.max_buy_in == 0
    expect(line.locator("form.sit .hint")).to_have_text(
        f"Minimum {table.min_buy_in:,} · your balance {balance:,}"
    )
    # The input has a label a screen reader reads with the table's name.
    expect(page.get_by_label(f"Buy-in at {table.name}")).to_have_count(1)
    assert person.recorded.errors == []


def test_a_buy_in_under_the_minimum_is_refused_with_the_rooms_message(
    person: Person, room: WebRoom
) -> None:
    page = person.page
    table_id = room.tables["stud"]
    who = register(page, "Short Buy")
    before = lobby_player(room, page)
    line = row(page, table_id)
    line.locator('input[name="buy-in"]').fill(str(MIN_BUY_IN // 4))
    line.locator('button[data-action="sit"]').click()
    alert = line.locator("[role=alert]")
    expect(alert).to_contain_text("minimum", timeout=WAIT_MS)
    # The words are the room's: the same call over gRPC says the same.
    channel, api = room_api(room)
    with channel, pytest.raises(grpc.RpcError) as refused:
        api.SitDown(
            rpb.SitDownRequest(table_id=table_id, buy_in=MIN_BUY_IN // 4),
            metadata=bearer(credential(page)),
        )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    said = refused.value.details()
    assert said and said in (alert.text_content() or "")
    expect(line.locator('input[name="buy-in"]')).to_have_attribute("aria-invalid", "true")
    # Nothing changed: the balance, the table, the page.
    after = lobby_player(room, page)
    assert (after.balance, after.at_tables) == (before.balance, before.at_tables)
    assert not seated(room, table_id, who)
    assert balance_shown(page) == before.balance
    assert page.url.endswith("/") or page.url.endswith("#/")
    # The browser logs the HTTP status of the refused call (Connect answers a
    # refusal with 400); nothing else may be logged.
    assert [e for e in person.recorded.errors if "status of 400" not in e] == []


def test_a_valid_sit_down_lands_at_the_table_and_the_lobby_seats_the_person(
    person: Person, room: WebRoom
) -> None:
    page = person.page
    table_id = room.tables["stud"]
    who = register(page, "Sits Down")
    before = lobby_player(room, page)
    seats_before = len(lobby_table(room, table_id).occupied)
    buy_in = MIN_BUY_IN * 2
    line = row(page, table_id)
    line.locator('input[name="buy-in"]').fill(str(buy_in))
    line.locator('button[data-action="sit"]').click()
    page.wait_for_url(f"**#/table/{table_id}", timeout=WAIT_MS)
    try:
        table = lobby_table(room, table_id)
        mine = [s for s in table.occupied if s.player_id == who]
        assert len(mine) == 1 and mine[0].name == "Sits Down"
        assert len(table.occupied) == seats_before + 1
        after = lobby_player(room, page)
        assert after.balance == before.balance - buy_in
        # Back in the lobby: the seat, a Play link, the balance after the buy-in.
        page.click("a.brand")
        line = row(page, table_id)
        expect(line.locator('a[data-action="play"]')).to_be_visible(timeout=WAIT_MS)
        expect(line.locator('a[data-action="play"]')).to_have_attribute(
            "href", f"#/table/{table_id}"
        )
        expect(line.locator(".seats")).to_have_text(
            re.compile(rf"^{seats_before + 1}/{table.seats}$")
        )
        expect(page.locator("#balance")).to_have_attribute("data-chips", str(after.balance))
        expect(line.locator('input[name="buy-in"]')).to_have_count(0)
        # Stand up through the page: at once, or when the hand in progress ends.
        line.locator('button[data-action="stand"]').click()
        expect(line.locator("[role=status]")).to_contain_text("You l", timeout=WAIT_MS)
    finally:
        if seated(room, table_id, who):  # the page did not get to stand up: the API does
            channel, api = room_api(room)
            with channel:
                api.StandUp(
                    rpb.StandUpRequest(table_id=table_id), metadata=bearer(credential(page))
                )
    assert person.recorded.errors == []


def test_a_reload_keeps_the_person_signed_in_and_sign_out_forgets(
    person: Person, room: WebRoom
) -> None:
    page = person.page
    who = register(page, "Returns")
    page.reload()
    expect(page.locator("#player-name")).to_have_text("Returns", timeout=WAIT_MS)
    expect(page.locator("#balance")).to_have_attribute(
        "data-chips", str(lobby_player(room, page).balance)
    )
    expect(page.locator("form#register")).to_have_count(0)
    assert player_id(page) == who
    page.click('button[data-action="sign-out"]')
    expect(page.locator("form#register")).to_be_visible()
    expect(page.locator("input#name")).to_be_focused()
    assert page.evaluate("localStorage.getItem('cardroom.credential')") is None
    expect(page.locator("#me")).to_have_text("")
    page.reload()
    expect(page.locator("form#register")).to_be_visible(timeout=WAIT_MS)
    assert person.recorded.errors == []


def test_keyboard_only_registers_and_opens_a_table_to_watch(person: Person, room: WebRoom) -> None:
    page = person.page
    page.wait_for_selector("form#register", timeout=WAIT_MS)

    def tab_to(selector: str, most: int = 80) -> None:
        for _ in range(most):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement?.matches({selector!r}) ?? false"):
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("input#name")
    page.keyboard.type("Keys Only")
    page.keyboard.press("Enter")
    expect(page.locator("#player-name")).to_have_text("Keys Only", timeout=WAIT_MS)
    hilo = room.tables["hilo"]
    tab_to(f'tr[data-table-id="{hilo}"] a[data-action="watch"]')
    page.keyboard.press("Enter")
    page.wait_for_url(f"**#/watch/{hilo}", timeout=WAIT_MS)
    assert person.recorded.errors == []


def test_the_lobby_fits_a_375_pixel_screen(person: Person, room: WebRoom) -> None:
    page = person.page
    page.set_viewport_size({"width": 375, "height": 812})
    register(page, "Narrow Screen Person")
    for table_id in room.tables.values():
        line = row(page, table_id)
        expect(line).to_be_visible(timeout=WAIT_MS)
        expect(line.locator('input[name="buy-in"]')).to_be_visible()
        box = line.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 375, box
    overflow = page.evaluate(
        "[document.documentElement.scrollWidth, document.body.scrollWidth, window.innerWidth]"
    )
    assert overflow[0] <= overflow[2] and overflow[1] <= overflow[2], overflow
    assert person.recorded.errors == []
