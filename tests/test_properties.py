# ruff: noqa: N802  (test names end with the RULES.md rule ID, e.g. __G6)
"""Property-based tests: many random hands of every game, checked after every action.

Hypothesis draws a seed and a few parameters per example (stakes, ante, cap, burns,
river-shortage procedure, timeout policy, player count, stack profile, playing
style); a ``random.Random(seed)`` then builds the stacks (sometimes so small that the
ante, blind or bring-in puts a player all-in) and drives the hand with random legal
actions, all-ins and timeouts.  One example is one hand, so every game (Stud, Stud
Hi-Lo, and 7-A draw in fixed limit, pot limit and no limit) plays ``HANDS_PER_GAME``
hands.

Checked after every action and at the end of every hand:

1. chips are conserved to the unit, every amount is a non-negative ``int``;
2. the pots hold exactly what was put in (uncalled bet returned, G6), the awards
   exactly the pots, and the pot layers are those an independent computation gives;
3. every live player who reached a pot's level is eligible for it, folded players
   never are;
4. exactly one player is to act until the hand ends, and nothing is accepted after;
5. every action on the menu is accepted (tried on a copy of the hand, replayed from
   its action list, at one state in ``FORK_EVERY``), everything else is rejected with
   ``IllegalActionError`` and leaves the hand exactly as it was;
6. the hand replays identically from (configuration, stacks, seed, actions).
"""

from __future__ import annotations

import contextlib
import os
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker_rules import (
    Action,
    ActionKind,
    BettingHand,
    DrawConfig,
    DrawHand,
    HandOverError,
    IllegalActionError,
    LegalActions,
    NotYourTurnError,
    Phase,
    RiverShortage,
    Structure,
    StudConfig,
    StudHand,
    TimeoutPolicy,
    new_hand,
    replay,
)
from poker_rules.evaluate import board_rank
from poker_rules.randomplay import random_action

pytestmark = pytest.mark.slow

# At least 10,000 hands per game in CI; POKER_PROPERTY_HANDS=200 for a quick local run.
HANDS_PER_GAME = int(os.environ.get("POKER_PROPERTY_HANDS", "10000"))
FORK_EVERY = 5  # the whole menu is tried on replayed copies at one state in this many

FOLD, CHECK, CALL, BRING_IN, COMPLETE, BET, RAISE, DISCARD = (
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.CALL,
    ActionKind.BRING_IN,
    ActionKind.COMPLETE,
    ActionKind.BET,
    ActionKind.RAISE,
    ActionKind.DISCARD,
)
AGGRESSIVE = (COMPLETE, BET, RAISE)
VOLUNTARY = (CALL, COMPLETE, BET, RAISE)

PROPERTY_SETTINGS = settings(
    max_examples=HANDS_PER_GAME,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)

Config = StudConfig | DrawConfig
Stats = Counter[str]

# ------------------------------------------------------------------ parameters

# (bring_in, small_bet, big_bet): the S1 games in cents and some odd ones (a bring-in
# equal to the small bet, small == big, one-chip stakes) to shake out edge cases.
STUD_STAKES = (
    (50, 100, 200),
    (100, 200, 400),
    (100, 300, 600),
    (1, 2, 4),
    (3, 5, 10),
    (2, 2, 4),
    (3, 10, 10),
    (1, 1, 1),
)
STUD_ANTES = (0, 1, 5, 25, 50)
# (small_bet, big_bet) of the draw game: the big blind is the small bet (D3).
DRAW_STAKES = ((100, 200), (2, 4), (3, 6), (1, 1), (25, 50), (10, 10), (5, 20))
DRAW_ANTES = (0, 0, 1, 5)
STACK_PROFILES = ("tiny", "short", "mixed", "deep", "equal")


@dataclass(frozen=True)
class Style:
    """How the random players play: kind weights, all-in rate, clock failures."""

    name: str
    fold: float
    passive: float  # check, call, bring in
    aggressive: float  # complete, bet, raise
    all_in: float  # chance of the maximum when a range of amounts is offered
    timeout: float  # chance the action clock runs out instead of an action


STYLES = (
    Style("uniform", 1.0, 1.0, 1.0, 0.15, 0.0),  # poker_rules.randomplay.random_action
    Style("station", 0.03, 3.0, 0.6, 0.3, 0.02),  # reaches the river: S11 shortages
    Style("maniac", 0.3, 1.0, 3.0, 0.5, 0.03),  # all-ins and side pots
    Style("sleepy", 1.0, 1.0, 1.0, 0.2, 0.3),  # the clock (S10)
)


@dataclass(frozen=True)
class Setup:
    config: Config
    players: int
    profile: str
    style: Style
    seed: int


def _stud_config(
    *,
    hi_lo: bool,
    stakes: tuple[int, int, int],
    ante: int,
    max_raises: int,
    burn: bool,
    shortage: RiverShortage,
    policy: TimeoutPolicy,
) -> StudConfig:
    bring_in, small, big = stakes
    return StudConfig(
        hi_lo=hi_lo,
        ante=ante,
        bring_in=bring_in,
        small_bet=small,
        big_bet=big,
        max_raises=max_raises,
        burn_before_third=burn,
        timeout_policy=policy,
        river_shortage=shortage,
    )


def stud_configs(hi_lo: st.SearchStrategy[bool]) -> st.SearchStrategy[StudConfig]:
    return st.builds(
        _stud_config,
        hi_lo=hi_lo,
        stakes=st.sampled_from(STUD_STAKES),
        ante=st.sampled_from(STUD_ANTES),
        max_raises=st.integers(1, 4),
        burn=st.booleans(),
        shortage=st.sampled_from(RiverShortage),
        policy=st.sampled_from(TimeoutPolicy),
    )


def stud_setups(hi_lo: bool) -> st.SearchStrategy[Setup]:
    config = stud_configs(st.just(hi_lo))
    return st.builds(
        Setup,
        config,
        st.sampled_from(range(2, 9)),
        st.sampled_from(STACK_PROFILES),
        st.sampled_from(STYLES),
        st.integers(0, 2**64 - 1),
    )


def _draw_config(
    *,
    structure: Structure,
    stakes: tuple[int, int],
    ante: int,
    max_raises: int,
    burn: bool,
    policy: TimeoutPolicy,
) -> DrawConfig:
    small, big = stakes
    return DrawConfig(
        structure=structure,
        small_bet=small,
        big_bet=big,
        ante=ante,
        max_raises=max_raises,
        burn_before_draw=burn,
        timeout_policy=policy,
    )


def draw_setups(structure: Structure) -> st.SearchStrategy[Setup]:
    config = st.builds(
        _draw_config,
        structure=st.just(structure),
        stakes=st.sampled_from(DRAW_STAKES),
        ante=st.sampled_from(DRAW_ANTES),
        max_raises=st.integers(1, 4),
        burn=st.booleans(),
        policy=st.sampled_from(TimeoutPolicy),
    )
    return st.builds(
        Setup,
        config,
        st.sampled_from(range(2, 6)),
        st.sampled_from(STACK_PROFILES),
        st.sampled_from(STYLES),
        st.integers(0, 2**64 - 1),
    )


def make_stacks(rng: random.Random, setup: Setup) -> list[int]:
    """Stacks of the profile; "tiny" ones cannot even cover the forced bets."""
    cfg = setup.config
    if isinstance(cfg, StudConfig):
        forced, big = cfg.ante + cfg.bring_in, cfg.big_bet
    else:
        forced, big = cfg.ante + cfg.big_blind, cfg.big_bet

    def one(kind: str) -> int:
        if kind == "tiny":
            return rng.randint(1, forced + 1)
        if kind == "short":
            return rng.randint(1, 6 * big + forced)
        return rng.randint(10 * big, 100 * big)

    kinds = ("tiny", "short", "deep")
    n = setup.players
    if setup.profile == "mixed":
        return [one(rng.choice(kinds)) for _ in range(n)]
    if setup.profile == "equal":
        return [one(rng.choice(kinds))] * n
    return [one(setup.profile) for _ in range(n)]


# ------------------------------------------------------------------ choosing actions


def choose(legal: LegalActions, cards: list[int], rng: random.Random, style: Style) -> Action:
    """A random legal action in the given style."""
    if style.name == "uniform":
        return random_action(legal, cards, rng)
    weights = [
        style.fold
        if k is FOLD
        else style.aggressive
        if k in AGGRESSIVE
        else 1.0
        if k is DISCARD
        else style.passive
        for k in legal.kinds
    ]
    kind = rng.choices(legal.kinds, weights)[0]
    if kind in AGGRESSIVE:
        assert legal.min_to is not None and legal.max_to is not None
        if legal.to_choices:
            return Action(kind, rng.choice(legal.to_choices))
        roll = rng.random()
        if roll < style.all_in:
            return Action(kind, legal.max_to)
        if roll < style.all_in + 0.3:
            return Action(kind, legal.min_to)
        return Action(kind, rng.randint(legal.min_to, legal.max_to))
    if kind is DISCARD:
        k = rng.randint(0, min(5, len(cards)))
        return Action.discard(rng.sample(cards, k))
    return Action(kind)


def menu_actions(legal: LegalActions, cards: list[int], rng: random.Random) -> list[Action]:
    """Several actions from the menu: each kind, min_to, max_to, every exact choice,
    a random amount in between, and several discards."""
    out: list[Action] = []
    for kind in legal.kinds:
        if kind in AGGRESSIVE:
            assert legal.min_to is not None and legal.max_to is not None
            if legal.to_choices:
                out.extend(Action(kind, to) for to in legal.to_choices)
            else:
                amounts = {legal.min_to, legal.max_to, rng.randint(legal.min_to, legal.max_to)}
                out.extend(Action(kind, to) for to in sorted(amounts))
        elif kind is DISCARD:
            assert legal.max_discards is not None
            out.append(Action.discard(()))
            out.append(Action.discard(cards[: legal.max_discards]))
            out.append(Action.discard(rng.sample(cards, rng.randint(1, len(cards)))))
        else:
            out.append(Action(kind))
    return out


def illegal_actions(hand: BettingHand, legal: LegalActions, rng: random.Random) -> list[Action]:
    """Actions that are not on the menu: wrong kinds, amounts just outside the
    bounds, and discards of cards not held, too many cards or the same card twice."""
    out: list[Action] = []
    fallback_to = legal.min_to if legal.min_to is not None else hand.current_bet + 1
    for kind in ActionKind:
        if kind in legal.kinds:
            continue
        if kind in AGGRESSIVE:
            out.append(Action(kind, fallback_to))
        elif kind is DISCARD:
            out.append(Action.discard(()))
        else:
            out.append(Action(kind))
    raise_kind = legal.raise_kind
    if raise_kind is not None:
        kind = raise_kind
        assert legal.min_to is not None and legal.max_to is not None
        out.append(Action(kind, legal.min_to - 1))
        out.append(Action(kind, legal.max_to + 1))
        out.append(Action(kind, 0))
        out.append(Action(kind, -legal.min_to))
        if legal.to_choices:
            between = [
                a for a in range(legal.min_to + 1, legal.max_to) if a not in legal.to_choices
            ]
            if between:
                out.append(Action(kind, rng.choice(between)))
    if DISCARD in legal.kinds and isinstance(hand, DrawHand):
        assert hand.to_act is not None
        held = list(hand.hands[hand.to_act])
        stranger = rng.choice([c for c in range(52) if c not in held])
        out.append(Action.discard((stranger,)))
        out.append(Action.discard((*held[:2], stranger)))
        out.append(Action.discard((held[0], held[0])))
        out.append(Action.discard((*held, held[-1])))  # six cards
        out.append(Action.discard((*held, stranger)))
    return out


def ill_typed_actions(hand: BettingHand, legal: LegalActions) -> list[Action]:
    """Actions with a float where whole chips or cards belong (money is never a float),
    even when the value equals a legal one.  The mypyc-compiled ``Action`` refuses a
    float amount itself (TypeError); whatever can be built must be refused by ``act``."""
    out: list[Action] = []
    fields: list[tuple[ActionKind, object, tuple[object, ...]]] = []
    if legal.raise_kind is not None:
        assert legal.min_to is not None
        fields.append((legal.raise_kind, float(legal.min_to), ()))
        fields.append((legal.raise_kind, legal.min_to + 0.5, ()))
    if DISCARD in legal.kinds and isinstance(hand, DrawHand):
        assert hand.to_act is not None
        fields.append((DISCARD, 0, (float(hand.hands[hand.to_act][0]),)))
    for kind, amount, cards in fields:
        with contextlib.suppress(TypeError):
            out.append(Action(kind, amount, cards))  # type: ignore[arg-type]
    return out


# ------------------------------------------------------------------ checks


def snapshot(hand: BettingHand) -> tuple[Any, ...]:
    """Everything a rejected action must leave unchanged."""
    extra: tuple[Any, ...] = ()
    if isinstance(hand, DrawHand):
        extra = (tuple(map(tuple, hand.hands)), tuple(hand.discards), hand.deck.remaining)
    elif isinstance(hand, StudHand):
        extra = (tuple(map(tuple, hand.cards)), hand.bring_in_due, hand.deck.remaining)
    return (
        tuple(hand.stacks),
        tuple(hand.bets),
        tuple(hand.totals),
        tuple(hand.folded),
        tuple(hand.all_in),
        tuple(hand.pending),
        hand.to_act,
        hand.phase,
        hand.street,
        hand.current_bet,
        hand.dead,
        len(hand.events),
        len(hand.actions),
        extra,
    )


def check_state(hand: BettingHand, total: int) -> None:
    """Properties 1 and 4 on any hand state."""
    n = hand.n
    for name in ("stacks", "bets", "totals"):
        values = getattr(hand, name)
        assert len(values) == n
        for v in values:
            assert type(v) is int, f"{name} holds {v!r}"
            assert v >= 0, f"{name} holds {v}"
    assert type(hand.dead) is int and hand.dead >= 0
    assert sum(hand.stacks) + hand.pot_total() == total, "chips created or destroyed"
    if hand.is_over:
        assert hand.to_act is None
        assert hand.result is not None
        assert hand.pot_total() == 0
        return
    assert hand.result is None
    i = hand.to_act
    assert i is not None, "hand not over, but nobody to act"
    assert type(i) is int and 0 <= i < n
    assert not hand.folded[i], "a folded player is to act"
    if hand.phase is Phase.BETTING:
        assert not hand.all_in[i], "an all-in player is to act"
        assert hand.stacks[i] > 0
    else:  # the draw: all-in players draw too (D6)
        assert hand.phase is Phase.DRAWING
    assert len(hand.in_hand()) >= 2, "one player left, yet the hand goes on"
    # The engine's running counts agree with the flags they summarise.
    assert hand.n_in == len(hand.in_hand())
    assert hand.n_live == sum(1 for j in range(n) if hand.can_act(j))
    for j in range(n):
        assert hand.bets[j] <= hand.totals[j]
        if not hand.folded[j] and hand.stacks[j] == 0:
            assert hand.all_in[j], f"player {j} has no chips but is not all-in"


def check_menu(hand: BettingHand, legal: LegalActions) -> None:
    """The menu is consistent with the state (D2, S5, S7)."""
    i = hand.to_act
    assert i is not None
    assert legal.player == i
    kinds = legal.kinds
    assert kinds and len(set(kinds)) == len(kinds)
    for value in (legal.call_amount, legal.bring_in_amount, legal.min_to, legal.max_to):
        assert value is None or (type(value) is int and value > 0)
    assert all(type(v) is int for v in legal.to_choices)
    if hand.phase is Phase.DRAWING:
        assert kinds == (DISCARD,)
        assert legal.max_discards == 5
        return
    assert DISCARD not in kinds and legal.max_discards is None
    stack, bet = hand.stacks[i], hand.bets[i]
    owe = hand.current_bet - bet
    assert (FOLD in kinds) == legal.can_fold
    assert (CHECK in kinds) == legal.can_check
    if isinstance(hand, StudHand) and hand.bring_in_due:
        assert BRING_IN in kinds and not legal.can_check
        assert set(kinds) <= {FOLD, BRING_IN, COMPLETE}
        assert legal.bring_in_amount == min(hand.config.bring_in, stack)
        assert legal.can_fold == (i != hand.bring_in_player)  # S5
    else:
        assert BRING_IN not in kinds and legal.bring_in_amount is None
        assert legal.can_check == (owe <= 0)
        if isinstance(hand, DrawHand) and hand.street == 1:
            assert legal.can_fold  # D7: fold, check or bet
        else:
            assert legal.can_fold == (owe > 0)
        assert (CALL in kinds) == (owe > 0)
        if owe > 0:
            assert legal.call_amount == min(owe, stack)
        else:  # S12: with nobody left to bet against, nothing is left to decide
            assert any(hand.can_act(j) for j in range(hand.n) if j != i), "pointless turn"
    aggressive = [k for k in kinds if k in AGGRESSIVE]
    if legal.raise_kind is None:
        assert not aggressive and legal.min_to is None and legal.max_to is None
        return
    assert aggressive == [legal.raise_kind]
    lo, hi = legal.min_to, legal.max_to
    assert lo is not None and hi is not None
    all_in_to = bet + stack
    assert hand.current_bet < lo <= hi <= all_in_to
    structure = hand.structure
    if structure is Structure.FIXED_LIMIT:
        choices = legal.to_choices
        assert choices and list(choices) == sorted(set(choices))
        assert (choices[0], choices[-1]) == (lo, hi)
        for to in choices:
            assert to == all_in_to or to - hand.current_bet in fixed_limit_sizes(hand)
        return
    assert not legal.to_choices
    assert isinstance(hand, DrawHand)
    assert lo == all_in_to or lo - hand.current_bet >= hand.config.big_blind  # D2
    if structure is Structure.NO_LIMIT:
        assert hi == all_in_to
    else:  # D2: a pot-limit raise is at most the pot after the call
        pot_raise_to = hand.current_bet + hand.pot_total() + owe
        assert hi == max(lo, min(pot_raise_to, all_in_to))


def fixed_limit_sizes(hand: BettingHand) -> set[int]:
    """Bet and raise sizes S7/S7a (stud) or D2 (draw) allow on this street."""
    if isinstance(hand, StudHand):
        cfg = hand.config
        if hand.street == 0 and hand.bet_count == 0:
            return {cfg.small_bet - hand.current_bet}  # the completion (S5)
        if hand.street == 0:
            return {cfg.small_bet}
        if hand.street == 1:
            return {cfg.small_bet, cfg.big_bet} if hand.open_pair else {cfg.small_bet}
        return {cfg.big_bet}
    assert isinstance(hand, DrawHand)
    draw = hand.config
    return {draw.small_bet if hand.street == 0 else draw.big_bet}


def expected_opener(hand: BettingHand) -> int:
    """Who opens a betting round: S5 (lowest door card), S6 (best board, ties to
    the dealer's left), D5 (left of the big blind), D7 (left of the button); a
    player who cannot act is skipped clockwise."""
    n = hand.n
    if isinstance(hand, StudHand):
        if hand.street == 0:
            start = min(range(n), key=lambda j: hand.cards[j][2])
            assert start == hand.bring_in_player
        else:
            start = max(hand.in_hand(), key=lambda j: (board_rank(hand.upcards(j)), -j))
    else:
        assert isinstance(hand, DrawHand)
        start = hand.big_blind_player + 1 if hand.street == 0 else 0
    return next(p for p in ((start + k) % n for k in range(n)) if hand.can_act(p))


def chips_put(legal: LegalActions, before: BettingHand, action: Action) -> int:
    """Chips ``action`` moves from the player's stack into the pot."""
    if action.kind is CALL:
        assert legal.call_amount is not None
        return legal.call_amount
    if action.kind is BRING_IN:
        assert legal.bring_in_amount is not None
        return legal.bring_in_amount
    if action.kind in AGGRESSIVE:
        assert before.to_act is not None
        return action.amount - before.bets[before.to_act]
    return 0


def check_applied(
    after: BettingHand,
    player: int,
    action: Action,
    *,
    before: tuple[list[int], int],
    put: int,
    total: int,
    timed_out: bool = False,
) -> None:
    """After an accepted action: logged, and exactly the right chips moved."""
    before_totals, before_stack = before
    check_state(after, total)
    assert after.actions[-1] == (player, None if timed_out else action)
    if not after.is_over:
        assert after.totals[player] - before_totals[player] == put
        assert after.stacks[player] == before_stack - put
        if action.kind is FOLD:
            assert after.folded[player]


Rebuild = Callable[[], BettingHand]


def fork(hand: BettingHand, rebuild: Rebuild) -> BettingHand:
    """An independent copy of ``hand``: replayed from (configuration, stacks, seed,
    actions).  ``copy.deepcopy`` cannot copy the engine's mypyc-compiled objects."""
    twin = rebuild()
    assert len(twin.events) == len(hand.events) and twin.stacks == hand.stacks
    assert twin.to_act == hand.to_act and twin.phase is hand.phase
    return twin


def check_menu_accepted(
    hand: BettingHand,
    legal: LegalActions,
    rng: random.Random,
    *,
    rebuild: Rebuild,
    total: int,
    stats: Stats,
) -> None:
    """Property 5a: every sampled action of the menu, and a timeout, is accepted."""
    i = hand.to_act
    assert i is not None
    cards = list(hand_cards(hand, i))
    for action in menu_actions(legal, cards, rng):
        copy_ = fork(hand, rebuild)
        copy_.act(action, i)
        put = chips_put(legal, hand, action)
        check_applied(copy_, i, action, before=(hand.totals, hand.stacks[i]), put=put, total=total)
        if copy_.is_over:
            check_result(copy_, total)
        stats[f"accepted {action.kind.value}"] += 1
    copy_ = fork(hand, rebuild)
    copy_.timeout()
    check_state(copy_, total)
    assert copy_.actions[-1] == (i, None)
    stats["accepted timeout"] += 1


def check_rejections(
    hand: BettingHand, legal: LegalActions, rng: random.Random, stats: Stats
) -> None:
    """Property 5b: off-menu actions and other players are refused, state unchanged."""
    i = hand.to_act
    assert i is not None
    before = snapshot(hand)
    for action in illegal_actions(hand, legal, rng):
        assert_refused(hand, action, i, IllegalActionError)
        assert snapshot(hand) == before, f"rejected {action} changed the hand"
        stats["rejected"] += 1
    for action in ill_typed_actions(hand, legal):
        assert_refused(hand, action, i, (IllegalActionError, TypeError))
        assert snapshot(hand) == before, f"rejected {action} changed the hand"
        stats["rejected ill-typed"] += 1
    other = rng.choice([j for j in range(hand.n) if j != i])
    action = choose(legal, list(hand_cards(hand, i)), rng, STYLES[0])
    assert_refused(hand, action, other, NotYourTurnError)
    assert snapshot(hand) == before
    assert hand.legal_actions() == legal
    stats["rejected"] += 1


def assert_refused(
    hand: BettingHand,
    action: Action,
    player: int,
    error: type[Exception] | tuple[type[Exception], ...],
) -> None:
    """``hand.act`` raises ``error`` (a cheaper ``pytest.raises`` for the hot loop)."""
    try:
        hand.act(action, player)
    except error as refused:
        assert str(refused), "a refusal must say why"
    else:
        raise AssertionError(f"{action} by player {player} was accepted: {hand.events[-1]}")


def hand_cards(hand: BettingHand, i: int) -> list[int]:
    if isinstance(hand, DrawHand):
        return hand.hands[i]
    assert isinstance(hand, StudHand)
    return hand.cards[i]


def expected_timeout(hand: BettingHand, legal: LegalActions, voluntary: bool) -> Action | None:
    """S10 (with S5's forced bring-in and D6's standing pat)."""
    i = hand.to_act
    if isinstance(hand, StudHand) and hand.bring_in_due and i == hand.bring_in_player:
        return Action.bring_in()
    if hand.phase is Phase.DRAWING:
        return Action.discard(())
    if hand.timeout_policy is TimeoutPolicy.ALL_IN_PROTECTION:
        return None if voluntary else Action.fold()
    return Action.check() if legal.can_check else Action.fold()


def check_result(hand: BettingHand, total: int) -> None:
    """Properties 1-3 on the result of a finished hand."""
    res = hand.result
    assert res is not None
    n = hand.n
    final = res.final_stacks
    assert final == hand.stacks
    assert all(type(s) is int and s >= 0 for s in final)
    assert sum(final) == total
    contributed = res.contributed
    assert len(contributed) == n
    assert all(type(c) is int and c >= 0 for c in contributed)
    assert type(res.dead) is int and res.dead >= 0
    returned = [0] * n
    if res.uncalled is not None:  # G6
        who, amount = res.uncalled
        assert type(amount) is int and amount > 0
        others = [c for j, c in enumerate(contributed) if j != who]
        assert contributed[who] - max(others) == amount
        returned[who] = amount
    else:
        top = max(contributed)
        assert top == 0 or contributed.count(top) >= 2
    live = [c - r for c, r in zip(contributed, returned, strict=True)]
    pots = res.pots
    assert all(type(p.amount) is int and p.amount > 0 for p in pots)
    # 2. the pots hold what was put in, less the uncalled bet
    assert sum(p.amount for p in pots) + sum(returned) == sum(contributed) + res.dead
    # 2. the awards are the pots
    won = [0] * n
    for k, pot in enumerate(pots):
        awards = [a for a in res.awards if a.pot == k]
        assert sum(a.amount for a in awards) == pot.amount
        for a in awards:
            assert type(a.amount) is int and a.amount > 0
            assert a.player in pot.eligible
            won[a.player] += a.amount
        for half in ("all", "high", "low"):
            shares = [a.amount for a in awards if a.half == half]
            if shares:  # S13/H5: equal shares, odd chips one each
                assert max(shares) - min(shares) <= 1
        high = sum(a.amount for a in awards if a.half == "high")
        low = sum(a.amount for a in awards if a.half == "low")
        if low:  # H1/H5: halved, the odd chip plays high
            assert isinstance(hand, StudHand) and hand.config.hi_lo
            assert high - low == pot.amount % 2
        else:
            assert high == 0
    assert all(0 <= a.pot < len(pots) for a in res.awards)
    for j in range(n):
        assert final[j] == hand.starting_stacks[j] - contributed[j] + returned[j] + won[j]
    # 3. eligibility, and the layers an independent computation gives
    folded = hand.folded
    alive = [j for j in range(n) if not folded[j]]
    assert alive
    live_levels = sorted({live[j] for j in alive if live[j] > 0})
    if not live_levels:
        assert len(pots) <= 1
    else:
        assert len(pots) == len(live_levels)
        previous = 0
        for k, (pot, level) in enumerate(zip(pots, live_levels, strict=True)):
            assert pot.eligible == tuple(j for j in alive if live[j] >= level)
            expected = sum(min(c, level) - min(c, previous) for c in live)
            if k == 0:
                expected += res.dead
            if k == len(pots) - 1:
                expected += sum(max(0, c - level) for c in live)
            assert pot.amount == expected
            previous = level
    for pot in pots:
        assert not any(folded[j] for j in pot.eligible), "a folded player is eligible"
    # G6, S12: who showed
    winners = {a.player for a in res.awards}
    if len(alive) == 1:
        assert winners <= {alive[0]}
        assert res.shown == [] and res.mucked == []
    else:
        assert sorted(res.shown + res.mucked) == alive
        assert winners <= set(res.shown), "a mucked hand won chips"
    for e in hand.events:
        assert type(e.amount) is int and e.amount >= 0


def check_cards(hand: BettingHand) -> None:
    """G1/G4: no card is held twice; folded cards never come back."""
    if isinstance(hand, StudHand):
        held = [c for cards in hand.cards for c in cards]
        if hand.community is not None:
            held.append(hand.community)
        assert len(held) == len(set(held))
        for j in hand.in_hand():
            assert len(hand.hand_cards(j)) == 7 or hand.street < 4
    else:
        assert isinstance(hand, DrawHand)
        held = [c for cards in hand.hands for c in cards]
        assert len(held) == len(set(held)) == 5 * hand.n
        low = 16 if hand.with_sixes else 20  # G1: 7..A, plus the sixes with five
        assert all(low <= c < 52 for c in held)


def check_over(hand: BettingHand) -> None:
    """Property 4: after the end nothing is accepted."""
    with pytest.raises(HandOverError):
        hand.legal_actions()
    with pytest.raises(HandOverError):
        hand.act(Action.fold())
    with pytest.raises(HandOverError):
        hand.act(Action.check(), 0)
    with pytest.raises(HandOverError):
        hand.timeout()


# ------------------------------------------------------------------ the driver


def play_and_check(setup: Setup, stats: Stats) -> None:
    """Play one random hand, checking every property after every action."""
    cfg, style = setup.config, setup.style
    rng = random.Random(setup.seed)
    stacks = make_stacks(rng, setup)
    total = sum(stacks)
    hand = new_hand(cfg, stacks, setup.seed)

    def rebuild() -> BettingHand:
        return replay(cfg, stacks, setup.seed, hand.actions)

    voluntary = [False] * hand.n
    check_state(hand, total)
    steps = 0
    round_key: tuple[int, Phase] | None = None
    while not hand.is_over:
        steps += 1
        assert steps < 400, "the hand does not end"
        if (hand.street, hand.phase) != round_key and hand.phase is Phase.BETTING:
            assert hand.to_act == expected_opener(hand), "wrong player opens the round"
            stats[f"opener street {hand.street}"] += 1
        round_key = (hand.street, hand.phase)
        legal = hand.legal_actions()
        check_menu(hand, legal)
        check_rejections(hand, legal, rng, stats)
        if rng.randrange(FORK_EVERY) == 0:
            check_menu_accepted(hand, legal, rng, rebuild=rebuild, total=total, stats=stats)
        i = hand.to_act
        assert i is not None
        totals, stack = list(hand.totals), hand.stacks[i]
        if rng.random() < style.timeout:
            expected = expected_timeout(hand, legal, voluntary[i])
            forced = hand.timeout()
            assert forced == expected, f"timeout of player {i} gave {forced}"
            assert hand.actions[-1] == (i, None)
            outcome = "None" if forced is None else forced.kind.value
            stats[f"timeout {hand.timeout_policy.value} {outcome}"] += 1
            if forced is None:  # S10: all-in for what is committed, stays in
                assert hand.all_in[i] and hand.protected[i] and not hand.folded[i]
                check_state(hand, total)
                if not hand.is_over:
                    assert hand.stacks[i] == stack
            else:
                put = chips_put(legal, hand, forced)
                check_applied(
                    hand, i, forced, before=(totals, stack), put=put, total=total, timed_out=True
                )
        else:
            action = choose(legal, list(hand_cards(hand, i)), rng, style)
            put = chips_put(legal, hand, action)
            hand.act(action, i)
            check_applied(hand, i, action, before=(totals, stack), put=put, total=total)
            if action.kind in VOLUNTARY:
                voluntary[i] = True
    check_result(hand, total)
    check_cards(hand)
    check_over(hand)
    again = replay(cfg, stacks, setup.seed, hand.actions)  # 6. replay determinism
    assert again.events == hand.events
    assert again.stacks == hand.stacks
    assert again.result == hand.result
    record(hand, stats)


def record(hand: BettingHand, stats: Stats) -> None:
    """Coverage counters: what the random hands went through."""
    res = hand.result
    assert res is not None
    stats["hands"] += 1
    stats[f"players {hand.n}"] += 1
    if len(res.pots) > 1:
        stats["side pots"] += 1
    if res.uncalled is not None:
        stats["uncalled bet returned"] += 1
    if any(hand.all_in):
        stats["all-in"] += 1
    if any(s == 0 for s in hand.stacks):
        stats["player busted"] += 1
    if len({a.player for a in res.awards if a.half != "low"}) > 1:
        stats["split pot"] += 1
    if any(a.half == "low" for a in res.awards):
        stats["hi-lo split"] += 1
    if len(hand.in_hand()) == 1:
        stats["uncontested"] += 1
    else:
        stats["showdown"] += 1
    if any(e.kind == "reshuffle" for e in hand.events):
        stats["reshuffle"] += 1
    if isinstance(hand, StudHand):
        stats[f"river {hand.river_outcome}"] += 1
        if any(e.kind == "action" and e.street == 0 for e in hand.events):
            stats["bring-in round played"] += 1
        if hand.open_pair:
            stats["open pair"] += 1
    elif isinstance(hand, DrawHand):
        if hand.street == 1:
            stats["drew"] += 1
        if hand.with_sixes:
            stats["with sixes"] += 1


def run_many(strategy: st.SearchStrategy[Setup], stats: Stats) -> None:
    @PROPERTY_SETTINGS
    @given(strategy)
    def run(setup: Setup) -> None:
        play_and_check(setup, stats)

    run()


def assert_covered(stats: Stats, keys: list[str]) -> None:
    assert stats["hands"] >= HANDS_PER_GAME, stats
    missing = [k for k in keys if stats[k] == 0]
    assert not missing, f"never exercised: {missing}; {dict(stats)}"


COMMON = [
    "side pots",
    "uncalled bet returned",
    "all-in",
    "split pot",
    "uncontested",
    "showdown",
    "rejected",
    "accepted fold",
    "accepted call",
    "accepted check",
    "accepted raise",
    "accepted timeout",
    "timeout all_in_protection None",
    "timeout all_in_protection fold",
    "timeout check_or_fold check",
    "timeout check_or_fold fold",
]
STUD_KEYS = [
    *COMMON,
    "accepted bring_in",
    "accepted complete",
    "accepted bet",
    "timeout all_in_protection bring_in",
    "river normal",
    "river reshuffled",
    "river stub_first",
    "river community",
    *(f"players {n}" for n in range(2, 9)),
]
DRAW_KEYS = [
    *COMMON,
    "accepted bet",
    "accepted discard",
    "timeout all_in_protection discard",
    "timeout check_or_fold discard",
    "drew",
    "with sixes",
    "reshuffle",
    *(f"players {n}" for n in range(2, 6)),
]

# ------------------------------------------------------------------ the tests


def test_chips_conserved_random_stud_hands__G6() -> None:
    """Seven Card Stud: every property over HANDS_PER_GAME random hands."""
    stats: Stats = Counter()
    run_many(stud_setups(hi_lo=False), stats)
    assert_covered(stats, [*STUD_KEYS, "open pair"])


def test_side_pot_eligibility_random_hilo_hands__H6() -> None:
    """Seven Card Stud Hi-Lo: every property over HANDS_PER_GAME random hands."""
    stats: Stats = Counter()
    run_many(stud_setups(hi_lo=True), stats)
    assert_covered(stats, [*STUD_KEYS, "hi-lo split"])


@pytest.mark.parametrize("structure", list(Structure))
def test_draw_legal_actions_accepted_and_others_rejected__D2(structure: Structure) -> None:
    """7-A draw in each structure: every property over HANDS_PER_GAME random hands."""
    stats: Stats = Counter()
    run_many(draw_setups(structure), stats)
    assert_covered(stats, DRAW_KEYS)


def full_table_stud_setups() -> st.SearchStrategy[Setup]:
    """Six to eight players who rarely fold: every street, board orders, shortages."""
    config = stud_configs(st.booleans())
    return st.builds(
        Setup,
        config,
        st.sampled_from(range(6, 9)),
        st.sampled_from(("deep", "mixed", "equal")),
        st.sampled_from(STYLES[1:]),
        st.integers(0, 2**64 - 1),
    )


def test_exactly_one_player_to_act_stud__S6() -> None:
    """Full stud tables: the best board opens each street, then one player at a time."""
    stats: Stats = Counter()

    @settings(PROPERTY_SETTINGS, max_examples=max(HANDS_PER_GAME // 10, 100))
    @given(full_table_stud_setups())
    def run(setup: Setup) -> None:
        play_and_check(setup, stats)

    run()
    missing = [k for k in range(5) if stats[f"opener street {k}"] == 0]
    assert not missing, f"no round opened on streets {missing}: {dict(stats)}"
    assert stats["river community"] and stats["river stub_first"], dict(stats)


# ------------------------------------------------------------------ regressions


def test_no_turn_with_nothing_to_decide_heads_up_draw__S12() -> None:
    """The small blind calls all-in for less: the big blind owes nothing and nobody
    can bet against it, so nobody is on the clock (it used to be asked to check, and
    a timeout under ALL_IN_PROTECTION folded its hand)."""
    hand = DrawHand(DrawConfig(), [1_000, 70], seed=7)
    hand.act(Action.call(), 1)
    assert hand.all_in[1]
    assert hand.phase is Phase.DRAWING  # straight to the draw, then the showdown
    while not hand.is_over:
        hand.timeout()  # stand pat
    assert hand.result is not None and not hand.folded[0]
    assert sorted(hand.result.shown) == [0, 1]
    assert sum(hand.result.final_stacks) == 1_070


def test_no_turn_after_all_in_protection_leaves_one_player__S10() -> None:
    """Heads-up stud, both players in voluntarily: the first to act on fourth street
    times out and is protected all-in (S10); the other owes nothing and has nobody
    to bet against, so the hand is dealt out to the showdown without them acting."""
    hand = StudHand(StudConfig(), [10_000, 10_000], seed=3)
    hand.act(Action.bring_in())
    hand.act(Action.complete(100))
    hand.act(Action.call())
    assert hand.street == 1
    first = hand.to_act
    assert first is not None
    assert hand.timeout() is None
    assert hand.protected[first]
    assert hand.is_over and hand.result is not None
    assert sorted(hand.result.shown) == [0, 1]
    assert sum(hand.result.final_stacks) == 20_000


@pytest.mark.parametrize("amount", [200.0, 250.5])
def test_float_amount_refused_money_is_whole_chips__D2(amount: float) -> None:
    hand = DrawHand(DrawConfig(structure=Structure.NO_LIMIT), [1_000] * 3, seed=1)
    before = snapshot(hand)
    with pytest.raises((IllegalActionError, TypeError), match="int"):
        hand.act(Action(RAISE, amount))  # type: ignore[arg-type]
    assert snapshot(hand) == before
