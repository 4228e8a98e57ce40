# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S6)
"""``poker_rules.betting.round_closers``: the passive kinds that end a stud round.

The table service deals the next street beside the action when betting says the
action closes the round, so the answer must be exactly the engine's: over many
random stud and stud hi-lo hands (random legal actions, random stacks so that
all-ins happen), at every turn each check, call and fold on the menu is tried on
the state, and it is in ``closes_round`` exactly when it ends the round with two
or more players in, before seventh street.
"""

from __future__ import annotations

import random

from poker_rules import Action, ActionKind, StudConfig
from poker_rules.betting import apply_action, new_state, start_round
from poker_rules.cards import standard_deck
from poker_rules.stud import SEVENTH

PASSIVE = (ActionKind.CHECK, ActionKind.CALL, ActionKind.FOLD)


def _random_action(rng: random.Random, legal) -> Action:  # type: ignore[no-untyped-def]
    kind = rng.choice(list(legal.kinds))
    if kind in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
        to = rng.choice(list(legal.to_choices)) if legal.to_choices else legal.min_to
        return Action(kind, to)
    return Action(kind)


def test_closes_round_is_exactly_the_engines_answer__S5_S6_S12() -> None:
    checked = closers = 0
    for seed in range(600):
        rng = random.Random(seed)
        config = StudConfig(hi_lo=seed % 2 == 0)
        n = rng.randint(2, 7)
        stacks = [rng.choice([120, 400, 2_000, 10_000]) for _ in range(n)]
        deck = standard_deck()
        rng.shuffle(deck)
        boards = [[c] for c in deck[:n]]
        outcome = start_round(new_state(config, stacks), 0, [[c] for c in deck[:n]])
        del deck[:n]
        while True:
            state = outcome.state
            if outcome.legal is not None:
                legal = outcome.legal
                for kind in PASSIVE:
                    if kind not in legal.kinds:
                        continue
                    tried = apply_action(state, Action(kind))
                    ends = (
                        tried.round_complete and not tried.hand_complete and state.street < SEVENTH
                    )
                    assert (kind in outcome.closes_round) == ends, (seed, state, kind)
                    checked += 1
                    closers += ends
                outcome = apply_action(state, _random_action(rng, legal))
                if outcome.hand_complete:
                    break
                continue
            if state.street >= SEVENTH:
                break
            street = state.street + 1
            for i, p in enumerate(state.players):
                if not p.folded and street < SEVENTH:
                    boards[i].append(deck.pop())
            outcome = start_round(state, street, boards)
    assert checked > 5_000 and closers > 500, (checked, closers)
