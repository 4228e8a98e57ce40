"""The driver of the property tests: one random hand played with every check after
every action, many hands under Hypothesis, and the coverage counters that show the
random hands went everywhere the rules go.
"""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from poker_rules import BettingHand, DrawHand, Phase, StudHand, new_hand, replay
from poker_rules.events import Act, Reshuffle

from .checks import (
    RoundCount,
    check_applied,
    check_cards,
    check_menu,
    check_over,
    check_result,
    check_state,
    chips_put,
    expected_opener,
    expected_timeout,
    hand_cards,
)
from .legality import check_menu_accepted, check_rejections
from .setups import (
    FORK_EVERY,
    HANDS_PER_GAME,
    PROPERTY_SETTINGS,
    VOLUNTARY,
    Setup,
    Stats,
    choose,
    make_stacks,
)

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
    count = RoundCount(hand)
    while not hand.is_over:
        steps += 1
        assert steps < 400, "the hand does not end"
        if (hand.street, hand.phase) != round_key and hand.phase is Phase.BETTING:
            assert hand.to_act == expected_opener(hand), "wrong player opens the round"
            stats[f"opener street {hand.street}"] += 1
            count = RoundCount(hand)
        round_key = (hand.street, hand.phase)
        legal = hand.legal_actions()
        check_menu(hand, legal)
        betting = hand.phase is Phase.BETTING
        if betting:
            count.offered(hand, legal)
        check_rejections(hand, legal, rng, stats)
        if rng.randrange(FORK_EVERY) == 0:
            check_menu_accepted(hand, legal, rng, rebuild=rebuild, total=total, stats=stats)
        i = hand.to_act
        assert i is not None
        totals, stack = list(hand.totals), hand.stacks[i]
        if rng.random() < style.timeout:
            expected = expected_timeout(hand, legal, voluntary[i])
            full = count.full_size(hand, expected, legal) if betting else False
            forced = hand.timeout()
            if betting:
                count.applied(hand, i, forced, full)
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
            full = count.full_size(hand, action, legal) if betting else False
            hand.act(action, i)
            if betting:
                count.applied(hand, i, action, full)
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
    if any(isinstance(e, Reshuffle) for e in hand.events):
        stats["reshuffle"] += 1
    if isinstance(hand, StudHand):
        stats[f"river {hand.river_outcome}"] += 1
        if any(isinstance(e, Act) and e.street == 0 for e in hand.events):
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
