"""A room for the web client's browser tests: the gateway serving the page,
tables of the three games with reference bots playing through the door, and
free seats for the person in the browser.

The bots think ``THINK_S`` a decision so a hand moves at a pace a test can follow;
the tables' action clock is long enough for a test to read the page and click.
The auditor's reveal of each hand (``TableAudit.GetDeckReveal``, never a
player's) is what the leak checks compare the page and its traffic against.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from google.protobuf.json_format import MessageToDict

from devroom.busy_room import Thinking
from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.room.v1 import room_pb2 as rpb
from poker.room.v1 import room_pb2_grpc as rpb_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc as tpb_grpc
from poker_bots import PlayStats, Rebuy, make_bot, play
from poker_wire.channels import player_channel, player_channel_sync, staff_lobby
from service_kit.pki import spki_pin

T = TypeVar("T")
CARD = re.compile(r"^[2-9TJQKA][cdhs]$")
THINK_S = 0.15
CLOCK_MS = 30_000  # a person's turn: long enough for a test to read and click
MIN_BUY_IN = 400
AUDIT_TOKEN = "web-tests-auditor"

STUD = common.GameConfig(game=common.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
HILO = common.GameConfig(game=common.GAME_STUD_HILO, ante=5, bring_in=10, small_bet=20, big_bet=40)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=20, big_bet=40
)


def off_the_loop(ask: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run ``ask()`` to its end on a thread of its own: Playwright's sync API keeps
    an event loop running on the test's thread, where ``asyncio.run`` may not."""
    with ThreadPoolExecutor(1) as worker:
        return worker.submit(asyncio.run, ask()).result()


@dataclass(frozen=True)
class TableSpec:
    key: str  # the tests' name for it
    name: str
    config: common.GameConfig
    seats: int
    bots: int
    clock_ms: int
    bot: str = "strength"  # the reference bot (poker_bots.make_bot)


SPECS = (
    # Calling stations: two no-limit strength bots bust each other within minutes,
    # and a table with one stack left deals no more (issue 18's busted seat).
    TableSpec("draw_nl", "Web 7-A no limit", DRAW_NL, 5, 2, CLOCK_MS, "station"),
    TableSpec("stud", "Web Seven Card Stud", STUD, 6, 2, CLOCK_MS),
    # Only bots: a spectator's table, at the bots' pace.
    TableSpec("hilo", "Web Stud Hi-Lo", HILO, 6, 4, 4_000),
)


@dataclass
class WebRoom:
    """The room as the browser tests see it."""

    stack: Stack
    url: str  # https://127.0.0.1:<port>/, the gateway, which serves the page
    target: str  # the gateway's host:port, for the tests' own API calls
    ca_file: str
    spki: str  # base64 SHA-256 of the gateway certificate's public key (Chromium trusts it)
    tables: dict[str, str]  # key -> table id
    bot_errors: list[BaseException] = field(default_factory=list)

    def lobby_player(self, player_id: str, token: str) -> lpb.Player:
        """The lobby's own record of a player (internal port; the lobby asks for the
        player's token even from the operator)."""

        async def ask() -> lpb.Player:
            async with self.stack["lobby"].aio_channel("operator") as channel:
                lobby = staff_lobby(channel)
                asked = lpb.GetPlayerRequest(player_id=player_id, token=token)
                player: lpb.Player = await lobby.GetPlayer(asked)
                return player

        return off_the_loop(ask)

    def lobby_table(self, table_id: str) -> lpb.Table:
        async def ask() -> lpb.Table:
            async with self.stack["lobby"].aio_channel("operator") as channel:
                lobby = staff_lobby(channel)
                table: lpb.Table = await lobby.GetTable(lpb.GetTableRequest(table_id=table_id))
                return table

        return off_the_loop(ask)

    def public_cards(self, table_id: str, hand_id: str, credential: str = "") -> set[str]:
        """Every card in a hand's public history (through the door, as a viewer who
        was not in the hand, or as nobody): all a spectator may have seen of it."""
        auth = (("authorization", f"Bearer {credential}"),) if credential else ()
        with player_channel_sync(self.target, self.ca_file) as channel:
            answer = rpb_grpc.RoomStub(channel).GetHandHistory(
                rpb.GetHandHistoryRequest(table_id=table_id, hand_id=hand_id, limit=1),
                metadata=auth,
                timeout=15,
            )
        cards: set[str] = set()

        def walk(value: Any) -> None:
            if isinstance(value, str) and CARD.match(value):
                cards.add(value)
            elif isinstance(value, dict):
                for inner in value.values():
                    walk(inner)
            elif isinstance(value, list):
                for inner in value:
                    walk(inner)

        for hand in answer.hands:
            walk([MessageToDict(event) for event in hand.events])
        return cards

    def deck_reveal(self, table_id: str, hand_id: str) -> tpb.DeckReveal:
        """The auditor's reveal of a finished hand: the whole deck order."""

        async def ask() -> tpb.DeckReveal:
            process = self.stack.table_process(table_id)
            async with process.aio_channel("auditor") as channel:
                return await tpb_grpc.TableAuditStub(channel).GetDeckReveal(
                    tpb.GetDeckRevealRequest(
                        table_id=table_id, hand_id=hand_id, audit_token=AUDIT_TOKEN
                    )
                )

        return off_the_loop(ask)


async def _tables(stack: Stack) -> dict[str, str]:
    tables = {}
    async with stack["lobby"].aio_channel("operator") as channel:
        lobby = staff_lobby(channel)
        for spec in SPECS:
            made = await lobby.CreateTable(
                lpb.CreateTableRequest(
                    name=spec.name,
                    config=spec.config,
                    seats=spec.seats,
                    min_buy_in=MIN_BUY_IN,
                    action_clock_ms=spec.clock_ms,
                )
            )
            tables[spec.key] = made.table_id
    return tables


async def _bots(room: WebRoom, stop: asyncio.Event, ready: threading.Event) -> None:
    async with player_channel(room.target, room.ca_file) as channel:
        stub = rpb_grpc.RoomStub(channel)
        tasks: list[asyncio.Task[PlayStats]] = []
        for spec in SPECS:
            table_id = room.tables[spec.key]
            for n in range(spec.bots):
                made = await stub.Register(rpb.RegisterRequest(name=f"bot {spec.key} {n + 1}"))
                auth = (("authorization", f"Bearer {made.credential}"),)
                await stub.SitDown(
                    rpb.SitDownRequest(table_id=table_id, buy_in=MIN_BUY_IN * 5), metadata=auth
                )
                player_id, _, token = made.credential.rpartition(".")
                bot = Thinking(make_bot(spec.bot, seed=len(tasks) + 1), THINK_S)
                tasks.append(
                    asyncio.create_task(
                        # A busted bot buys in again: a table left with one
                        # player would stop dealing for the page under test.
                        play(
                            channel,
                            table_id,
                            player_id,
                            token,
                            bot,
                            stop=stop,
                            via="room",
                            rebuy=Rebuy(MIN_BUY_IN * 5),
                        )
                    )
                )
        ready.set()
        results: list[Any] = await asyncio.gather(*tasks, return_exceptions=True)
        room.bot_errors.extend(r for r in results if isinstance(r, BaseException))


@contextmanager
def web_room() -> Iterator[WebRoom]:
    """The room with its page and bots playing, until the block ends."""
    env = {"table": {"TABLE_AUDIT_TOKEN": AUDIT_TOKEN}}
    with Stack(ports="free", env=env) as stack:
        assert stack.pki is not None
        target = stack.gateway_target
        room = WebRoom(
            stack=stack,
            url=f"https://{target}/",
            target=target,
            ca_file=str(stack.pki.ca_file),
            spki=spki_pin(stack.pki.dir("gateway") / "tls.crt"),
            tables=asyncio.run(_tables(stack)),
        )
        ready = threading.Event()
        loop = asyncio.new_event_loop()
        stop = asyncio.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.run_until_complete(_bots(room, stop, ready))

        thread = threading.Thread(target=run, name="web bots", daemon=True)
        thread.start()
        if not ready.wait(60):
            raise RuntimeError("the web room's bots did not sit down")
        try:
            yield room
        finally:
            loop.call_soon_threadsafe(stop.set)
            thread.join(30)
