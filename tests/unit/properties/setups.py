"""What the property tests play: the random tables (configurations, player counts,
stack profiles, seeds) as Hypothesis strategies, and the random players' styles
and choices.  The stakes include odd ones on purpose, to shake out edge cases.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from dataclasses import dataclass

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from poker_rules import (
    Action,
    ActionKind,
    DrawConfig,
    LegalActions,
    RiverShortage,
    Structure,
    StudConfig,
    TimeoutPolicy,
)
from poker_rules.randomplay import random_action

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
