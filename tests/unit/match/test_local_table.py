# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs)
"""The in-process table (``poker_bots.local``): chips, replays, the bots' side.

- chips are conserved in every hand, whatever the game, the number of players,
  the stacks (all-ins from the forced bets included, S3, D3) and the bots; each
  hand's PHH says the same stacks;
- a hand is its deck order, stacks and bots: played again, it is the same hand;
- the bots' side is the SDK's: errors and illegal actions fall back to the safest
  action and are counted, ``on_hand_start`` / ``on_hand_end`` are called (awaited
  when async), a seat change is a new Snapshot (a join);
- a match is reproducible: the same seed and bots give the same hands and numbers.
"""

from __future__ import annotations

import asyncio
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_bots import Bot, CallingStation, HandResult, HandStrengthBot, RandomBot, TableView
from poker_bots.local import LocalBackend, LocalPlayer, LocalTable
from poker_bots.match import BotFactory, deals, rotations, run_match
from poker_bots.sdk import RAISE

from .test_local_views import CONFIGS, bots_of, deck_of

HILO = CONFIGS["stud_hilo"]


@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)
@given(
    game=st.sampled_from(sorted(CONFIGS)),
    data=st.data(),
    seed=st.integers(0, 2**31),
)
def test_every_hand_conserves_chips_S3_D3_G6(game: str, data: st.DataObject, seed: int) -> None:
    config = CONFIGS[game]
    most = 5 if config.game == common.GAME_DRAW_7A else 8
    players = data.draw(st.integers(2, most), label="players")
    kinds = data.draw(st.lists(st.integers(0, 2), min_size=players, max_size=players))
    stacks = data.draw(st.lists(st.integers(1, 4000), min_size=players, max_size=players))
    order = deck_of(config, players, random.Random(seed))
    table = LocalTable(config)
    seated = [LocalPlayer(bot, f"p{k}") for k, bot in enumerate(bots_of(kinds, seed))]
    hand = table.play_hand(seated, order, stacks)
    assert sum(hand.net) == 0
    assert hand.start_stacks == tuple(stacks)
    assert all(s >= 0 for s in hand.final_stacks)
    for player, final in zip(seated, hand.final_stacks, strict=True):
        assert player.view.my_stack == final  # what the bot was told at the end
        assert player.stats.hands == 1
        assert player.stats.bot_errors == 0
    phh = tomllib.loads(hand.phh)
    assert phh["starting_stacks"] == list(stacks)
    assert phh["finishing_stacks"] == list(hand.final_stacks)
    assert phh["players"] == [p.name for p in seated]


def test_a_hand_is_its_deck_stacks_and_bots() -> None:
    order = deck_of(HILO, 3, random.Random(5))

    def once() -> tuple[Any, ...]:
        table = LocalTable(HILO)
        seated = [LocalPlayer(b, f"p{k}") for k, b in enumerate(bots_of([0, 2, 1], 5))]
        hand = table.play_hand(seated, order, [900, 2000, 2000], hand_id="same")
        return hand.final_stacks, hand.phh

    assert once() == once()


class Recorder:
    """A calling station that keeps what its callbacks were given."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.results: list[HandResult] = []

    def act(self, view: TableView, legal: common.LegalActions) -> common.Action:
        return CallingStation().act(view, legal)

    def on_hand_start(self, view: TableView) -> None:
        assert view.hand_id and not view.hand_over
        self.started.append(view.hand_id)

    def on_hand_end(self, view: TableView, result: HandResult) -> None:
        assert view.hand_over
        self.results.append(result)


def test_the_optional_callbacks_are_called_with_the_hands_result() -> None:
    recorder = Recorder()
    table = LocalTable(HILO)
    seated = [LocalPlayer(recorder, "me"), LocalPlayer(HandStrengthBot(), "strength")]
    nets = []
    for k in range(20):
        order = deck_of(HILO, 2, random.Random(k))
        hand = table.play_hand(seated, order, [3000, 3000], hand_id=f"h{k}")
        nets.append(hand.net[0])
    assert recorder.started == [f"h{k}" for k in range(20)]
    assert [r.hand_id for r in recorder.results] == recorder.started
    assert [r.net for r in recorder.results] == nets
    assert all(r.seat == 1 and r.start_stack == 3000 for r in recorder.results)
    assert any(r.showed_down for r in recorder.results)


class AsyncRecorder:
    """A bot whose decision and callbacks are coroutines."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def act(self, view: TableView, legal: common.LegalActions) -> common.Action:
        await asyncio.sleep(0)
        self.calls.append("act")
        return CallingStation().act(view, legal)

    async def on_hand_start(self, view: TableView) -> None:
        self.calls.append("start")

    async def on_hand_end(self, view: TableView, result: HandResult) -> None:
        self.calls.append("end")


def test_async_bots_play_in_process_and_sync_play_refuses_them() -> None:
    bot = AsyncRecorder()
    table = LocalTable(HILO)
    seated = [LocalPlayer(bot, "async"), LocalPlayer(CallingStation(), "station")]
    order = deck_of(HILO, 2, random.Random(1))
    hand = asyncio.run(table.play_hand_async(seated, order, [2000, 2000]))
    assert sum(hand.net) == 0
    assert bot.calls[0] == "start" and bot.calls[-1] == "end" and "act" in bot.calls
    assert seated[0].stats.bot_errors == 0
    with pytest.raises(TypeError, match="play_hand_async"):
        table.play_hand(seated, order, [2000, 2000])


class Broken:
    """Raises on its first decision, then answers an illegal raise."""

    def __init__(self) -> None:
        self.turns = 0

    def act(self, view: TableView, legal: common.LegalActions) -> common.Action:
        self.turns += 1
        if self.turns == 1:
            raise RuntimeError("a bug in the bot")
        return common.Action(kind=RAISE, amount=123_456)


def test_a_broken_bot_falls_back_to_the_safest_action_as_in_the_sdk() -> None:
    table = LocalTable(HILO)
    seated = [LocalPlayer(Broken(), "broken"), LocalPlayer(CallingStation(), "station")]
    for k in range(5):
        hand = table.play_hand(seated, deck_of(HILO, 2, random.Random(k)), [2000, 2000])
        assert sum(hand.net) == 0
    stats = seated[0].stats
    assert stats.bot_errors >= 2 and stats.fallbacks == stats.bot_errors
    assert stats.rejected == 0  # nothing illegal reached the table
    assert seated[1].stats.bot_errors == 0


def test_a_seat_change_is_a_new_snapshot() -> None:
    snapshots: dict[str, list[int]] = {"a": [], "b": []}

    def record(player: LocalPlayer, event: tpb.TableEvent) -> None:
        if event.HasField("snapshot"):
            snapshots[player.name].append(event.snapshot.your_seat)

    table = LocalTable(HILO, on_event=record)
    a, b = LocalPlayer(CallingStation(), "a"), LocalPlayer(CallingStation(), "b")
    order = deck_of(HILO, 2, random.Random(3))
    for seating in ([a, b], [a, b], [b, a], [b, a], [a, b]):
        table.play_hand(seating, order, [1000, 1000])
    assert snapshots == {"a": [1, 2, 1], "b": [2, 1, 2]}
    assert a.view.config == HILO and a.view.is_hilo
    assert a.stats.hands == 5 and a.stats.events > 5 * 20


def _plan(players: int, count: int, seed: int) -> list[Any]:
    names = [f"b{k}" for k in range(players)]
    return [(d, s) for s in rotations(names) for d in deals(HILO, players, count, seed)]


def test_the_backend_plays_the_plan_in_order() -> None:
    plan = _plan(3, 10, seed=4)
    backend = LocalBackend()
    bots: dict[str, Bot] = {"b0": CallingStation(), "b1": HandStrengthBot(), "b2": RandomBot(3)}
    played = asyncio.run(backend.play(HILO, bots, plan, stack=5000))
    assert [(h.deal, h.seating) for h in played] == [(d.number, s) for d, s in plan]
    for hand in played:
        assert sum(hand.net.values()) == 0
        assert set(hand.net) == {"b0", "b1", "b2"}
        assert tomllib.loads(hand.phh)["players"] == list(hand.seating)
    assert backend.players["b1"].stats.hands == 30


def _numbers(seed: int, bots: dict[str, Any]) -> tuple[Any, ...]:
    result = run_match([HILO, CONFIGS["draw_no"]], bots, 60, seed=seed)
    return tuple(
        (g.game, [(b.name, b.chips, b.duplicate, b.plain) for b in g.bots], g.played)
        for g in result.games
    )


def test_a_match_is_reproducible() -> None:
    """Bot factories with seeds: every rotation and every run gets the same bots."""

    def bots() -> dict[str, Any]:
        return {
            "random": lambda: RandomBot(11),
            "strength": HandStrengthBot,
            "station": CallingStation,
        }

    first = _numbers(7, bots())
    assert first == _numbers(7, bots())
    assert first != _numbers(8, bots())


def test_each_rotation_gets_fresh_bots_from_factories() -> None:
    made: list[Recorder] = []

    def factory() -> Recorder:
        made.append(Recorder())
        return made[-1]

    result = run_match([HILO], {"me": factory, "station": CallingStation}, 40, seed=1)
    assert len(made) == 2  # one per seating
    assert [len(r.started) for r in made] == [20, 20]
    me = result.games[0].bot("me")
    assert me.hands == 40 and me.deals == 20
    assert me.chips == sum(r.net or 0 for bot in made for r in bot.results)


@pytest.mark.pokerkit
def test_pokerkit_reads_a_matchs_phh_file(tmp_path: Path) -> None:
    """The ``.phhs`` file of a match is what PokerKit reads as many hands
    (``HandHistory.loads_all``): every hand, with our stacks and players.  (Whether
    PokerKit's rules pay as ours do is tests/unit/test_phh_pokerkit.py's question.)"""
    from pokerkit import notation  # in the lock file: a missing PokerKit must fail, not skip

    bots: dict[str, BotFactory] = {
        "strength": HandStrengthBot,
        "station": CallingStation,
        "random": lambda: RandomBot(2),
    }
    result = run_match(
        [HILO, CONFIGS["draw_fixed"]], bots, 90, seed=3, stack=3000, phh_dir=tmp_path
    )
    for game, path in zip(result.games, result.phh_files, strict=True):
        assert path == tmp_path / f"{game.game}.phhs"
        hands = list(notation.HandHistory.loads_all(path.read_text()))
        assert len(hands) == game.hands == 90
        for history, played in zip(hands, game.played, strict=True):
            assert list(history.players or ()) == list(played.seating)
            start, final = history.starting_stacks, history.finishing_stacks or ()
            assert [f - s for f, s in zip(final, start, strict=True)] == [
                played.net[name] for name in played.seating
            ]


def test_a_hand_needs_the_games_whole_deck_and_one_seat_per_player_G1() -> None:
    table = LocalTable(HILO)
    a, b = LocalPlayer(CallingStation(), "a"), LocalPlayer(CallingStation(), "b")
    order = deck_of(HILO, 2, random.Random(1))
    with pytest.raises(ValueError, match="whole deck"):
        table.play_hand([a, b], order[:-1], [1000, 1000])
    with pytest.raises(ValueError, match="whole deck"):
        table.play_hand([a, b], [*order[:-1], order[0]], [1000, 1000])
    with pytest.raises(ValueError, match="one seat"):
        table.play_hand([a, a], order, [1000, 1000])
    draw = LocalTable(CONFIGS["draw_no"])
    with pytest.raises(ValueError, match="36 cards"):  # five players: the sixes are in
        draw.play_hand(
            [LocalPlayer(CallingStation(), f"p{k}") for k in range(5)],
            deck_of(CONFIGS["draw_no"], 4, random.Random(1)),
            [1000] * 5,
        )
