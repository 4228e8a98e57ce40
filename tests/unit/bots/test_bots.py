"""Reference bots: behaviour on hand-built views, and legality on any menu.

Two legality checks: hypothesis-made menus (every shape the proto allows), and the
real menus of random hands of every game played by the rules library, where each
bot's action is applied to the hand (an illegal one raises).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t
from poker_bots import Bot, CallingStation, HandStrengthBot, RandomBot, TableView, make_bot
from poker_bots.bots import draw_discards, strength
from poker_bots.sdk import check_action
from poker_rules import (
    DrawConfig,
    DrawHand,
    Structure,
    StudConfig,
    StudHand,
    card_str,
)
from poker_wire.betting import action_from_pb, legal_to_pb

from . import events as build

BOTS = [RandomBot(1), CallingStation(), HandStrengthBot()]


def view_with(
    config: c.GameConfig,
    own: list[str],
    up: Sequence[str] = (),
    pot: int = 150,
) -> TableView:
    view = TableView()
    view.apply(
        build.snapshot(
            config=config,
            your_seat=1,
            seats=[
                build.seat(1, own_cards=own, upcards=up, in_hand=True),
                build.seat(2, down_cards=2, upcards=["2c"], in_hand=True),
            ],
        )
    )
    view.pot_total = pot
    return view


# ------------------------------------------------------------------ behaviour


def test_strength_bot_stud() -> None:
    bot = HandStrengthBot()
    complete = build.fixed_menu(call=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])
    trips = view_with(build.STUD, ["As", "Ad"], ["Ah"])
    assert bot.act(trips, complete) == c.Action(kind=c.ACTION_KIND_COMPLETE, amount=100)
    junk = view_with(build.STUD, ["7c", "2d"], ["3h"], pot=1_000)
    raised = build.fixed_menu(call=200, raise_kind=c.ACTION_KIND_RAISE, to=[300])
    assert bot.act(junk, raised).kind == c.ACTION_KIND_FOLD
    assert bot.act(junk, build.fixed_menu(check=True, fold=False)).kind == c.ACTION_KIND_CHECK
    pair = view_with(build.STUD, ["Qs", "7d"], ["Qh"], pot=1_000)
    assert bot.act(pair, raised).kind == c.ACTION_KIND_CALL
    # the bring-in: strong hands complete, others bring in
    bring = build.fixed_menu(fold=False, bring_in=50, raise_kind=c.ACTION_KIND_COMPLETE, to=[100])
    assert bot.act(junk, bring).kind == c.ACTION_KIND_BRING_IN
    assert bot.act(trips, bring).kind == c.ACTION_KIND_COMPLETE


def test_strength_bot_values_low_in_hilo() -> None:
    cards = (["As", "2d"], ["3h"])
    assert strength(view_with(build.HILO, *cards)) > strength(view_with(build.STUD, *cards))
    bot = HandStrengthBot()
    raised = build.fixed_menu(call=200, raise_kind=c.ACTION_KIND_RAISE, to=[300])
    assert bot.act(view_with(build.HILO, *cards, pot=1_000), raised).kind != c.ACTION_KIND_FOLD
    # a made low with seven cards
    seven = view_with(build.HILO, ["As", "2d", "Kc"], ["3h", "4c", "7d", "Qs"])
    assert strength(seven) >= 0.7


def test_strength_bot_draw_discards() -> None:
    assert draw_discards(["As", "Ad", "7c", "9h", "Jd"]) == ["7c", "9h", "Jd"]
    assert draw_discards(["As", "Ad", "7c", "7h", "Jd"]) == ["Jd"]
    assert draw_discards(["As", "Ks", "7s", "9s", "Jd"]) == ["Jd"]  # four to a flush
    assert draw_discards(["8c", "9d", "Th", "Js", "Ad"]) == ["Ad"]  # four to a straight
    assert draw_discards(["Ac", "7d", "8h", "9s", "Kd"]) == ["Kd"]  # A-7-8-9: the low straight
    assert draw_discards(["7c", "8d", "9h", "Ts", "Jd"]) == []  # made straight
    assert draw_discards(["Ac", "7d", "9h", "Js", "Kd"]) == ["7d", "9h", "Js", "Kd"]
    assert draw_discards(["6c", "7d", "8h", "9s", "Kd"], with_sixes=True) == ["Kd"]
    bot = HandStrengthBot()
    view = view_with(build.DRAW_NL, ["As", "Ad", "7c", "9h", "Jd"])
    action = bot.act(view, build.discard_menu(most=2))
    assert action.kind == c.ACTION_KIND_DISCARD
    assert list(action.cards) == ["7c", "9h"]  # the lowest, cut to max_discards


def test_strength_bot_sizes_no_limit_bets() -> None:
    view = view_with(build.DRAW_NL, ["As", "Ad", "Ac", "9h", "9d"], pot=400)
    legal = c.LegalActions(
        seat=1,
        can_check=True,
        can_fold=True,
        raise_kind=c.ACTION_KIND_BET,
        min_to=100,
        max_to=900,
        kinds=[c.ACTION_KIND_FOLD, c.ACTION_KIND_CHECK, c.ACTION_KIND_BET],
    )
    action = HandStrengthBot().act(view, legal)
    assert action.kind == c.ACTION_KIND_BET and 300 <= action.amount <= 900


def test_calling_station() -> None:
    bot = CallingStation()
    view = view_with(build.STUD, ["As", "Ad"], ["Ah"])
    raised = build.fixed_menu(call=200, raise_kind=c.ACTION_KIND_RAISE, to=[300])
    assert bot.act(view, raised) == c.Action(kind=c.ACTION_KIND_CALL)
    assert bot.act(view, build.fixed_menu(check=True)).kind == c.ACTION_KIND_CHECK
    assert bot.act(view, build.discard_menu()) == c.Action(kind=c.ACTION_KIND_DISCARD)


def test_random_bot_is_seedable() -> None:
    view = view_with(build.DRAW_NL, ["As", "Ad", "7c", "9h", "Jd"])
    legal = build.discard_menu()
    a = [RandomBot(5).act(view, legal) for _ in range(3)]
    b = [RandomBot(5).act(view, legal) for _ in range(3)]
    assert a == b
    bot = RandomBot(3)
    seen = {len(bot.act(view, legal).cards) for _ in range(200)}
    assert seen == {0, 1, 2, 3, 4, 5}


def test_make_bot() -> None:
    assert isinstance(make_bot("random", 1), RandomBot)
    assert isinstance(make_bot("station"), CallingStation)
    assert isinstance(make_bot("strength"), HandStrengthBot)
    with pytest.raises(ValueError, match="unknown bot kind"):
        make_bot("shark")


# ------------------------------------------------------------------ any menu

KINDS_AGGR = [c.ACTION_KIND_COMPLETE, c.ACTION_KIND_BET, c.ACTION_KIND_RAISE]


@st.composite
def menus(draw: st.DrawFn) -> tuple[c.LegalActions, TableView]:
    game = draw(st.sampled_from([build.STUD, build.HILO, build.DRAW_NL]))
    deck = [card_str(x) for x in range(20, 52)]  # sevens and up: valid in every deck
    cards = draw(st.permutations(deck))[:7]
    if game is build.DRAW_NL and draw(st.booleans()):
        legal = build.discard_menu(most=draw(st.integers(0, 5)))
        return legal, view_with(game, cards[:5])
    legal = c.LegalActions(seat=1)
    kinds: list[c.ActionKind.ValueType] = []
    if draw(st.booleans()):
        legal.can_fold = True
        kinds.append(c.ACTION_KIND_FOLD)
    if draw(st.booleans()):
        legal.can_check = True
        kinds.append(c.ACTION_KIND_CHECK)
    elif draw(st.booleans()):
        legal.call_amount = draw(st.integers(1, 5_000))
        kinds.append(c.ACTION_KIND_CALL)
    if draw(st.booleans()):
        legal.bring_in_amount = 50
        kinds.append(c.ACTION_KIND_BRING_IN)
    if draw(st.booleans()) or not kinds:
        kind = draw(st.sampled_from(KINDS_AGGR))
        legal.raise_kind = kind
        low = draw(st.integers(1, 10_000))
        high = low + draw(st.integers(0, 10_000))
        legal.min_to, legal.max_to = low, high
        if draw(st.booleans()):  # fixed limit: one or two exact choices
            legal.to_choices.extend(sorted({low, high}) if draw(st.booleans()) else [low])
        kinds.append(kind)
    legal.kinds.extend(kinds)
    n_own = 5 if game is build.DRAW_NL else draw(st.integers(2, 3))
    n_up = 0 if game is build.DRAW_NL else draw(st.integers(1, 4))
    view = view_with(game, cards[:n_own], cards[n_own : n_own + n_up], draw(st.integers(0, 9999)))
    return legal, view


@settings(max_examples=300, deadline=None)
@given(menus(), st.integers(0, 2**32))
def test_every_bot_is_legal_on_any_menu(menu: tuple[c.LegalActions, TableView], seed: int) -> None:
    legal, view = menu
    bots: list[Bot] = [RandomBot(seed), CallingStation(), HandStrengthBot()]
    for bot in bots:
        action = bot.act(view, legal)
        problem = check_action(legal, action, view.my_down_cards)
        assert problem is None, (bot, action, problem, legal)


# ------------------------------------------------------------------ real menus


def _view_of(hand: StudHand | DrawHand, i: int, config: c.GameConfig) -> TableView:
    if isinstance(hand, StudHand):
        own = [card_str(x) for x, up in zip(hand.cards[i], hand.up[i], strict=True) if not up]
        up_cards = [card_str(x) for x in hand.boards[i]]
    else:
        own, up_cards = [card_str(x) for x in hand.hands[i]], []
    view = TableView()
    view.apply(
        build.snapshot(
            config=config,
            your_seat=i + 1,
            seats=[
                t.SeatView(seat=j + 1, own_cards=own if j == i else [], in_hand=True)
                for j in range(hand.n)
            ],
        )
    )
    me = view.me
    assert me is not None
    me.upcards = up_cards
    view.dealt_in = hand.n
    view.pot_total = 300
    return view


GAMES: list[tuple[str, c.GameConfig]] = [
    ("stud", build.STUD),
    ("hilo", build.HILO),
    ("draw-fl", c.GameConfig(game=c.GAME_DRAW_7A, structure=c.STRUCTURE_FIXED_LIMIT)),
    ("draw-pl", c.GameConfig(game=c.GAME_DRAW_7A, structure=c.STRUCTURE_POT_LIMIT)),
    ("draw-nl", build.DRAW_NL),
]


def _new_hand(name: str, n: int, rng: random.Random) -> StudHand | DrawHand:
    stacks = [rng.choice([300, 1_000, 5_000]) for _ in range(n)]
    seed = rng.randrange(2**32)
    if name in ("stud", "hilo"):
        return StudHand(StudConfig(hi_lo=name == "hilo"), stacks, seed=seed)
    structure = {
        "draw-fl": Structure.FIXED_LIMIT,
        "draw-pl": Structure.POT_LIMIT,
        "draw-nl": Structure.NO_LIMIT,
    }[name]
    return DrawHand(DrawConfig(structure=structure), stacks[: min(n, 5)], seed=seed)


@pytest.mark.parametrize(("name", "config"), GAMES, ids=[g[0] for g in GAMES])
def test_bots_play_real_hands(name: str, config: c.GameConfig) -> None:
    rng = random.Random(name)
    decisions = 0
    for _ in range(25):
        hand = _new_hand(name, rng.randint(2, 5), rng)
        bots = [
            make_bot(rng.choice(["random", "station", "strength"]), rng.randrange(99))
            for _ in range(hand.n)
        ]
        while not hand.is_over:
            legal = hand.legal_actions()
            i = legal.player
            seats = list(range(1, hand.n + 1))
            view = _view_of(hand, i, config)
            action = bots[i].act(view, legal_to_pb(legal, seats))
            assert check_action(legal_to_pb(legal, seats), action, view.my_down_cards) is None
            hand.act(action_from_pb(action))  # raises IllegalActionError if not legal
            decisions += 1
    assert decisions > 100
