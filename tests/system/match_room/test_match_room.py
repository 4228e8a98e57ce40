# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __G5)
"""The duplicate match's room backend (issue 18): planned hands through the real
services on preset decks.

Each hand of a plan is dealt at a room table from the deal's deck, the bots in
the plan's seating, each starting with the match's stack; the bots play through
the room's door.  Checked for every hand (``hands.check_played``): the room dealt
the bots in the plan's order (G5: stud from position 0; D4: draw from the first
player left of the button), every card each bot received is what the rules
library deals that position from the same deck with the same actions (the first
round straight from the deck, S4/D4; the later streets, burns and draws, S4/D6,
through the library's replay), the result is the library's, the nets sum to 0,
and the PHH holds every player's cards.  The same plan through the in-process
backend (``poker_bots.local.LocalBackend``) with the same bots wins and loses
the same chips hand by hand.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Mapping

import pytest

from poker.common.v1 import common_pb2 as common
from poker_bots import Bot, RandomBot, passive
from poker_bots.local import LocalBackend
from poker_bots.match_room import RoomAccess, RoomBackend
from poker_bots.match_room_local import local_room
from poker_bots.match_types import HandPlayed
from poker_bots.sdk import AGGRESSIVE, DISCARD, legal_kinds
from poker_bots.view import TableView

from .hands import Plan, check_played, duplicate_plan

# One worker runs this module: its room (a module fixture) is started once.
pytestmark = pytest.mark.xdist_group("match_room")

STUD_HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=5, bring_in=10, small_bet=20, big_bet=40
)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=20, big_bet=40
)
STACK = 1_000
PACE_HANDS = 100
PACE_FLOOR = 5.0  # hands a second: 10 to 25 measured on a shared 2-core machine


def random_bots(names: tuple[str, ...]) -> dict[str, Bot]:
    return {name: RandomBot(seed=k + 1) for k, name in enumerate(names)}


class Shover:
    """All in whenever it may bet or raise, else stays in; draws a random subset."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, view: TableView, legal: common.LegalActions) -> common.Action:
        kinds = legal_kinds(legal)
        if DISCARD in kinds:
            mine = view.my_down_cards
            k = self.rng.randint(0, min(legal.max_discards, len(mine)))
            return common.Action(kind=DISCARD, cards=self.rng.sample(mine, k))
        if legal.raise_kind in AGGRESSIVE and legal.raise_kind in kinds:
            return common.Action(kind=legal.raise_kind, amount=legal.max_to)
        return passive(legal)


def shoving_bots() -> dict[str, Bot]:
    """A random bot against one that moves all in: busts in a third of the hands."""
    return {"x": RandomBot(seed=7), "y": Shover(seed=2)}


def play_both(
    room: RoomAccess,
    config: common.GameConfig,
    bots: Mapping[str, Bot],
    fresh: Mapping[str, Bot],
    plan: Plan,
) -> tuple[list[HandPlayed], RoomBackend]:
    """The plan through the room, and the same plan in process with ``fresh``
    bots (the same bots, unplayed): the same chips won and lost, hand by hand."""
    backend = RoomBackend(room)
    played = asyncio.run(backend.play(config, bots, plan, stack=STACK))
    local = asyncio.run(LocalBackend().play(config, fresh, plan, stack=STACK))
    assert [dict(h.net) for h in played] == [dict(h.net) for h in local]
    assert [(h.deal, h.seating) for h in played] == [(h.deal, h.seating) for h in local]
    return played, backend


def test_heads_up_stud_hilo_deals_each_bot_the_plan_s_cards__G5_S4_H1(room: RoomAccess) -> None:
    """20 hands, ten deals each played in both seatings, alternating."""
    names = ("x", "y")
    plan = duplicate_plan(STUD_HILO, 10, names, seed=1)
    played, backend = play_both(room, STUD_HILO, random_bots(names), random_bots(names), plan)
    assert backend.last is not None
    check_played(STUD_HILO, plan, played, backend.last, STACK)
    # The duplicate seatings: each deal's two hands are its cards in both seats.
    for first, second in zip(played[::2], played[1::2], strict=True):
        assert first.deal == second.deal and first.seating == second.seating[::-1]


def test_heads_up_no_limit_draw_stacks_reset_and_draws_follow_the_deck__D4_D6_B1(
    room: RoomAccess,
) -> None:
    """No limit: every hand starts at the stack again (all-ins and busts between),
    the dealing starts left of the moving button, and the draws take the stub."""
    plan = duplicate_plan(DRAW_NL, 8, ("x", "y"), seed=2)
    played, backend = play_both(room, DRAW_NL, shoving_bots(), shoving_bots(), plan)
    assert backend.last is not None
    check_played(DRAW_NL, plan, played, backend.last, STACK)
    draws = [
        e.draw_taken.received
        for hand in backend.last.hands
        for e in hand.events
        if e.HasField("draw_taken") and e.draw_taken.received
    ]
    assert draws, "no hand drew a card: the draw was not checked"
    busts = [k for k, h in enumerate(played[:-1]) if -STACK in h.net.values()]
    assert busts, "nobody lost the whole stack: the rebuy was not tested"


class Counting(RandomBot):
    """A random bot that counts the hands it is told of (the SDK's optional
    ``on_hand_start`` / ``on_hand_end``)."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.started: list[str] = []
        self.ended: list[str] = []

    def on_hand_start(self, view: TableView) -> None:
        self.started.append(view.hand_id)

    def on_hand_end(self, view: TableView, *result: object) -> None:
        self.ended.append(view.hand_id)


def test_three_handed_stud_rotations_deal_the_plan__G5_S4(room: RoomAccess) -> None:
    """Three bots, each deal in the three rotations: the warm-up hand seats the
    first hand's players while it plays (three players sitting down one by one at
    an idle table could be dealt in two at a time).  The bots are told of the
    match's hands, each once, never of the warm-up."""
    names = ("x", "y", "z")
    plan = duplicate_plan(STUD_HILO, 2, names, seed=3)
    bots = {name: Counting(k + 1) for k, name in enumerate(names)}
    played, backend = play_both(room, STUD_HILO, bots, random_bots(names), plan)
    assert backend.last is not None
    check_played(STUD_HILO, plan, played, backend.last, STACK)
    for bot in bots.values():
        assert bot.started == bot.ended == backend.last.hand_ids


def test_heads_up_pace_through_the_room(room: RoomAccess) -> None:
    """The pace a match gets through the services heads-up (reported, with a floor
    far below it so that a busy machine does not fail the test)."""
    names = ("x", "y")
    plan = duplicate_plan(STUD_HILO, PACE_HANDS // 2, names, seed=4)
    backend = RoomBackend(room)
    started = time.monotonic()
    played = asyncio.run(backend.play(STUD_HILO, random_bots(names), plan, stack=STACK))
    wall = time.monotonic() - started
    assert backend.last is not None
    assert len(played) == PACE_HANDS and all(sum(h.net.values()) == 0 for h in played)
    assert len(backend.last.hands) == PACE_HANDS and all(h.phh for h in played)
    pace = backend.last.hands_per_second
    print(f"\n{PACE_HANDS} hands heads-up: {pace:.1f} hands/s ({wall:.1f} s with the setup)")
    assert pace >= PACE_FLOOR


@pytest.mark.parametrize(
    ("config", "seating", "stack", "wrong"),
    [
        (DRAW_NL, ("x", "y", "z"), STACK, "two groups of up to 2 players"),
        (STUD_HILO, ("x", "y"), 15, "more than the forced bets"),
        (STUD_HILO, ("x", "x"), STACK, "once each"),
        (STUD_HILO, ("x", "nobody"), STACK, "no bot named"),
    ],
)
def test_plans_the_room_cannot_play_are_refused_before_anything_starts(
    config: common.GameConfig, seating: tuple[str, ...], stack: int, wrong: str
) -> None:
    nowhere = RoomAccess("127.0.0.1:9", "/nonexistent/ca.crt", "127.0.0.1:9", (), "/nonexistent")
    plan = duplicate_plan(config, 1, ("x", "y", "z"), seed=5)[:1]
    plan = [(plan[0][0], seating)]
    with pytest.raises(ValueError, match=wrong):
        asyncio.run(
            RoomBackend(nowhere).play(config, random_bots(("x", "y", "z")), plan, stack=stack)
        )


def test_a_deck_that_is_not_the_game_s_is_refused() -> None:
    nowhere = RoomAccess("127.0.0.1:9", "/nonexistent/ca.crt", "127.0.0.1:9", (), "/nonexistent")
    stud = duplicate_plan(STUD_HILO, 1, ("x", "y"), seed=6)[:1]
    with pytest.raises(ValueError, match="32-card deck"):
        asyncio.run(RoomBackend(nowhere).play(DRAW_NL, random_bots(("x", "y")), stud, stack=STACK))


def test_a_room_that_refuses_preset_decks_is_one_clear_error_and_no_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``poker match --mode room`` against a room whose table service does not
    allow preset decks: the match stops with the table's refusal, which says how
    to start it, and nothing is logged as a bot's failure (a traceback at ERROR
    came first once)."""
    plan = duplicate_plan(STUD_HILO, 1, ("x", "y"), seed=7)[:2]
    with (
        local_room(env={"table": {"TABLE_ALLOW_PRESET_DECKS": "0"}}) as access,
        caplog.at_level(logging.INFO),
        pytest.raises(Exception) as refused,
    ):
        asyncio.run(RoomBackend(access).play(STUD_HILO, random_bots(("x", "y")), plan, stack=STACK))
    assert "TABLE_ALLOW_PRESET_DECKS" in str(refused.value), refused.value
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]
