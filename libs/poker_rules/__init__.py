"""poker_rules: the card room's pure rules library (no I/O, no gRPC).

Cards and decks, hand evaluators, and exact hand state machines for Seven Card
Stud, Seven Card Stud Hi-Lo eight-or-better and Five Card Draw 7-A, following the
rule book ``docs/rules.md`` (rule IDs G*, S*, H*, D*).  Services translate protos to
this library and back; the same code runs in tests, locally and in containers.
"""

from .actions import Action, ActionKind, LegalActions
from .cards import Card, card_str, cards_str, parse_card, parse_cards, short_deck, standard_deck
from .config import DrawConfig, Game, RiverShortage, Structure, StudConfig, TimeoutPolicy
from .deck import Deck
from .draw import DrawHand, Post
from .engine import Award, BettingHand, HandResult, Phase
from .errors import (
    DeckExhaustedError,
    HandOverError,
    IllegalActionError,
    InvalidConfigError,
    NotYourTurnError,
    RulesError,
)
from .events import Event
from .pots import Pot
from .replay import apply_all, new_hand, replay
from .stud import StudHand

__all__ = [
    "Action",
    "ActionKind",
    "Award",
    "BettingHand",
    "Card",
    "Deck",
    "DeckExhaustedError",
    "DrawConfig",
    "DrawHand",
    "Event",
    "Game",
    "HandOverError",
    "HandResult",
    "IllegalActionError",
    "InvalidConfigError",
    "LegalActions",
    "NotYourTurnError",
    "Phase",
    "Post",
    "Pot",
    "RiverShortage",
    "RulesError",
    "Structure",
    "StudConfig",
    "StudHand",
    "TimeoutPolicy",
    "apply_all",
    "card_str",
    "cards_str",
    "new_hand",
    "parse_card",
    "parse_cards",
    "replay",
    "short_deck",
    "standard_deck",
]
