"""Issue 18's acceptance, both modes: the newcomer's bot in process and in the room.

The bot of ``tests.unit.match.newcomer`` (one file, only the documented API)
plays heads-up Stud Hi-Lo duplicate matches against the calling station: 10,000
hands in process, and 500 through the room's services in certification mode
(``poker_bots.match_room``: preset decks, the bots connected through the door as
any bot is).  Both report big bets per 100 hands with 95 % intervals; the two
modes agree within them; and duplication narrows the interval in both.

The room's 500 hands are the first 250 deals of the same seed in both seatings:
the in-process table plays those very hands with the same chips won and lost,
hand by hand, so the bot cannot tell the two apart.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from poker.common.v1 import common_pb2 as common
from poker_bots import CallingStation
from poker_bots.local import LocalBackend
from poker_bots.match import GameResult, MatchResult, play_match
from poker_bots.match_room import RoomAccess, RoomBackend
from tests.unit.match.newcomer import newcomer_bot_class

# One worker runs this module: its room (a module fixture) is started once.
pytestmark = pytest.mark.xdist_group("match_modes")

HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=25, bring_in=50, small_bet=100, big_bet=200
)
SEED = 18


def _match(bots: dict[str, Any], hands: int, **options: Any) -> MatchResult:
    started = time.perf_counter()
    result = asyncio.run(play_match([HILO], bots, hands, seed=SEED, **options))
    print(result.report(), f"\n({time.perf_counter() - started:.1f} s)")
    return result


@pytest.fixture(scope="module")
def bot_class(tmp_path_factory: pytest.TempPathFactory) -> type[Any]:
    return newcomer_bot_class(tmp_path_factory.mktemp("newcomer"))


@pytest.fixture(scope="module")
def in_process(bot_class: type[Any]) -> GameResult:
    """10,000 hands in process (no PHH: the unit test keeps and checks it)."""
    bots = {"LowChaser": bot_class, "station": CallingStation}
    return _match(bots, 10_000, backend=LocalBackend(keep_phh=False)).games[0]


@pytest.fixture(scope="module")
def in_room(
    room: RoomAccess, bot_class: type[Any], tmp_path_factory: pytest.TempPathFactory
) -> GameResult:
    """500 hands through the room, their PHH kept."""
    phh = tmp_path_factory.mktemp("phh")
    result = _match(
        {"LowChaser": bot_class, "station": CallingStation},
        500,
        backend=RoomBackend(room),
        mode="room",
        phh_dir=phh,
    )
    assert result.phh_files == (Path(phh) / "stud_hilo.phhs",)
    return result.games[0]


def test_the_room_reports_big_bets_per_100_with_intervals(in_room: GameResult) -> None:
    assert (in_room.hands, in_room.deals, in_room.seatings) == (500, 250, 2)
    for bot in in_room.bots:
        assert bot.duplicate is not None and bot.plain is not None
        assert bot.bb_per_100 in bot.duplicate and bot.bb_per_100 in bot.plain
        assert bot.duplicate.half_width < bot.plain.half_width, bot.name
        assert bot.hands == 500
    assert in_room.bot("LowChaser").chips == -in_room.bot("station").chips
    assert all(hand.phh for hand in in_room.played)


def test_the_two_modes_agree_within_their_intervals(
    in_process: GameResult, in_room: GameResult
) -> None:
    for name in ("LowChaser", "station"):
        local, room = in_process.bot(name), in_room.bot(name)
        assert local.duplicate is not None and room.duplicate is not None
        assert local.duplicate.half_width < local.plain.half_width  # type: ignore[union-attr]
        assert local.duplicate.overlaps(room.duplicate), (name, local, room)
        assert local.bb_per_100 in room.duplicate, (name, local.bb_per_100, room.duplicate)


def test_the_room_plays_the_same_hands_as_the_in_process_table(
    bot_class: type[Any], in_room: GameResult
) -> None:
    """The same 500 hands in process: the same chips, hand by hand (the bot sees
    the same events in both, poker_bots.local)."""
    same = _match({"LowChaser": bot_class, "station": CallingStation}, 500).games[0]
    assert [(h.deal, h.seating, dict(h.net)) for h in same.played] == [
        (h.deal, h.seating, dict(h.net)) for h in in_room.played
    ]
    assert [(b.name, b.chips, b.duplicate) for b in same.bots] == [
        (b.name, b.chips, b.duplicate) for b in in_room.bots
    ]
