"""The structures, action kinds and scripted deals that several Five Card Draw 7-A
scenario files share (tests/unit/rules/test_draw_*.py).

Players are indexes clockwise from the first player left of the button, so the
button is the last index (heads-up: index 1 is the button and posts the small
blind).  Decks are preset: the deal runs five rounds of one card from index 0; then
the burn (when the table burns); then the draws in draw order.
"""

from __future__ import annotations

from poker_rules import Action, ActionKind, DrawConfig, DrawHand, Phase, Structure

from .draw_helpers import cards, draw_deck, play

FL = DrawConfig()  # fixed limit 100/200: blinds 50/100
PL = DrawConfig(structure=Structure.POT_LIMIT)  # blinds 50/100
NL = DrawConfig(structure=Structure.NO_LIMIT)  # blinds 50/100

FOLD, CHECK, CALL, BET, RAISE, DISCARD = (
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.CALL,
    ActionKind.BET,
    ActionKind.RAISE,
    ActionKind.DISCARD,
)

# A four-handed scripted deal (32 cards): twenty dealt, then the burn, then the
# eleven cards of the stub in the order they are served.
HANDS4 = ("7c 7d 7h 8c 8d", "9c 9d 9h Tc Td", "Jc Jd Jh Qc Qd", "Kc Kd Kh Ac Ad")
BURN = "7s"
STUB = "8h 8s 9s Th Ts Js Qh Qs Ks Ah As"


def four_handed(config: DrawConfig = FL, *, fold_utg: bool = False) -> DrawHand:
    """The scripted four-handed deal, played to the draw: everyone limps and the big
    blind checks (or the UTG player, index 2, folds)."""
    hand = DrawHand(config, [1000] * 4, deck=draw_deck(HANDS4, f"{BURN} {STUB}"))
    play(
        hand,
        (2, Action.fold() if fold_utg else Action.call()),
        (3, Action.call()),
        (0, Action.call()),
        (1, Action.check()),
    )
    assert hand.phase is Phase.DRAWING
    return hand


def discard(text: str) -> Action:
    return Action.discard(cards(text))
