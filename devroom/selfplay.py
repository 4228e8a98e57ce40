"""Self-play with the rules library alone: every game, random-legal bots, chip totals.

``make selfplay`` (``python -m devroom.selfplay``) plays hands of each game in this
process, with no service: the same engine the services use, stacks carried from
hand to hand, and a check at the end that the chips on the table equal the chips
bought in, to the unit.  It is the quickest way to see the rules library at work,
and to tell a rules bug from a services one.  Options: ``--hands N`` per game,
``--seed S``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from poker_rules import DrawConfig, DrawHand, Structure, StudConfig, StudHand
from poker_rules.randomplay import random_action

BUY_IN = 10_000

MakeHand = Callable[[list[int], int], StudHand | DrawHand]
"""(stacks clockwise from the button's left, deck seed) -> a new hand."""


def draw_maker(config: DrawConfig) -> MakeHand:
    """A hand factory for one 7-A draw structure."""
    return lambda stacks, seed: DrawHand(config, stacks, seed=seed)


def play_table(name: str, make_hand: MakeHand, players: int, hands: int, rng: random.Random) -> int:
    """Play ``hands`` hands, rebuying busted players; return the chip total."""
    stacks = [BUY_IN] * players
    bought = BUY_IN * players
    button = 0
    for _ in range(hands):
        for i, s in enumerate(stacks):
            if s == 0:  # rebuy, so the table keeps going
                stacks[i] = BUY_IN
                bought += BUY_IN
        order = stacks[button + 1 :] + stacks[: button + 1]  # clockwise from the button
        hand = make_hand(order, rng.randrange(1 << 62))
        while not hand.is_over:
            legal = hand.legal_actions()  # legal.player is the player to act
            hand.act(random_action(legal, list(hand.hand_cards(legal.player)), rng))
        assert hand.result is not None  # the hand is over
        for k, chips in enumerate(hand.result.final_stacks):
            stacks[(button + 1 + k) % players] = chips
        button = (button + 1) % players
    total = sum(stacks)
    status = "ok" if total == bought else "MISMATCH"
    print(f"{name:<22} {hands:>6} hands  chips {total:>9} = bought in {bought:>9}  {status}")
    if total != bought:
        raise SystemExit(f"{name}: chips {total} != bought in {bought}")
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=500, help="hands per game (500)")
    parser.add_argument("--seed", type=int, default=None, help="seed for bots and decks")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    started = time.perf_counter()
    games: list[tuple[str, int, MakeHand]] = [
        ("stud", 6, lambda s, seed: StudHand(StudConfig(), s, seed=seed)),
        ("stud_hilo", 6, lambda s, seed: StudHand(StudConfig(hi_lo=True), s, seed=seed)),
    ]
    for structure in Structure:
        games.append((f"draw_7a {structure.value}", 5, draw_maker(DrawConfig(structure=structure))))
    for name, players, make in games:
        play_table(name, make, players, args.hands, rng)
    print(f"done in {time.perf_counter() - started:.1f}s")


if __name__ == "__main__":
    main()
