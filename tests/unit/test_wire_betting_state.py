"""``poker_wire.betting.state_from_pb``: the combined fast checks accept exactly
what the field-by-field checks accept.

Every betting call parses a whole state, so ``state_from_pb`` tests the usual
(valid) case in a few combined conditions and hands anything else to
``_checked_state_from_pb``.  Over states from random stud, stud hi-lo and draw
hands, each with random fields set to random (often out-of-range) values, both
must give the same state or refuse with the same message.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.betting.v1 import betting_pb2 as pb
from poker_rules import Action, ActionKind, DrawConfig, StudConfig
from poker_rules.betting import apply_action, new_state, start_round
from poker_rules.cards import standard_deck
from poker_rules.config import Structure
from poker_wire.betting import _checked_state_from_pb, state_from_pb, state_to_pb
from poker_wire.errors import WireError

PLAYER_FIELDS = ("seat", "stack", "bet", "total", "acted_at")
PLAYER_FLAGS = ("folded", "all_in", "protected", "voluntary", "pending")
STATE_INTS = (
    "phase",
    "street",
    "to_act",
    "current_bet",
    "raise_size",
    "bet_unit",
    "bet_count",
    "last_aggressor",
    "round_opener",
    "dead",
    "bring_in_player",
    "version",
)
STATE_FLAGS = ("capped", "bring_in_due", "open_pair")
AWKWARD = (-2, -1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1_000, 1_001, 10**12, 10**12 + 1)


def _random_action(rng: random.Random, legal) -> Action:  # type: ignore[no-untyped-def]
    kind = rng.choice(list(legal.kinds))
    if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
        to = rng.choice(list(legal.to_choices)) if legal.to_choices else legal.min_to
        return Action(kind, to)
    if kind is ActionKind.DISCARD:
        return Action(kind, 0, ())
    return Action(kind)


def _states(seed: int) -> list[pb.BettingState]:
    """Every state of one random hand, as the wire carries them."""
    rng = random.Random(seed)
    game = seed % 3
    config = (
        StudConfig(hi_lo=game == 1)
        if game < 2
        else DrawConfig(structure=rng.choice(list(Structure)), small_bet=10, big_bet=20)
    )
    n = rng.randint(2, 5)
    seats = sorted(rng.sample(range(1, 11), n))
    stacks = [rng.choice([30, 120, 2_000]) for _ in range(n)]
    deck = standard_deck()
    rng.shuffle(deck)
    upcards = [[c] for c in deck[:n]] if game < 2 else []
    outcome = start_round(new_state(config, stacks), 0, upcards)
    found = [state_to_pb(outcome.state, seats)]
    for _ in range(40):
        if outcome.legal is None or outcome.hand_complete:
            break
        try:
            outcome = apply_action(outcome.state, _random_action(rng, outcome.legal))
        except Exception:  # a discard the engine refuses: this hand has given enough
            break
        found.append(state_to_pb(outcome.state, seats))
    return found


def _same(msg: pb.BettingState) -> None:
    try:
        expected = _checked_state_from_pb(msg)
    except WireError as error:
        with pytest.raises(WireError) as fast:
            state_from_pb(msg)
        assert str(fast.value) == str(error)
        return
    assert state_from_pb(msg) == expected


@settings(max_examples=600, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    pick=st.integers(0, 10_000),
    changes=st.lists(
        st.tuples(st.integers(0, 10_000), st.sampled_from(AWKWARD), st.booleans()), max_size=3
    ),
)
def test_fast_checks_accept_exactly_what_the_field_checks_accept(
    seed: int, pick: int, changes: list[tuple[int, int, bool]]
) -> None:
    states = _states(seed)
    msg = pb.BettingState()
    msg.CopyFrom(states[pick % len(states)])
    _same(msg)  # unchanged: valid, both must agree on the state
    for where, value, flag in changes:
        try:
            _change(msg, where, value, flag)
        except ValueError:  # an int32 field cannot hold it: the wire cannot carry it
            continue
        _same(msg)


def _change(msg: pb.BettingState, where: int, value: int, flag: bool) -> None:
    target = where % (len(STATE_INTS) + len(STATE_FLAGS) + 2 * len(msg.players) + 2)
    if target < len(STATE_INTS):
        name = STATE_INTS[target]
        if name == "phase":
            msg.phase = value % 4  # type: ignore[assignment]
        else:
            setattr(msg, name, value)
    elif target < len(STATE_INTS) + len(STATE_FLAGS):
        setattr(msg, STATE_FLAGS[target - len(STATE_INTS)], flag)
    elif target < len(STATE_INTS) + len(STATE_FLAGS) + 2 * len(msg.players):
        k = target - len(STATE_INTS) - len(STATE_FLAGS)
        player = msg.players[k // 2]
        if k % 2:
            setattr(player, PLAYER_FLAGS[value % len(PLAYER_FLAGS)], flag)
        else:
            setattr(player, PLAYER_FIELDS[where % len(PLAYER_FIELDS)], value)
    elif target % 2:
        msg.ClearField("to_act" if flag else "last_aggressor")
    else:
        del msg.players[-1]


def test_a_missing_config_is_refused_by_name() -> None:
    with pytest.raises(WireError, match=r"state\.config is required"):
        state_from_pb(pb.BettingState())
