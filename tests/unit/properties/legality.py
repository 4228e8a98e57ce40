"""Property 5: every action on the menu is accepted (tried on a replayed copy of the
hand), everything else is rejected with ``IllegalActionError`` and leaves the hand
exactly as it was.
"""

from __future__ import annotations

import contextlib
import random
from collections.abc import Callable
from typing import Any

from poker_rules import (
    Action,
    ActionKind,
    BettingHand,
    DrawHand,
    IllegalActionError,
    LegalActions,
    NotYourTurnError,
    StudHand,
)

from .checks import check_applied, check_result, check_state, chips_put, hand_cards
from .setups import AGGRESSIVE, DISCARD, STYLES, Stats, choose


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
