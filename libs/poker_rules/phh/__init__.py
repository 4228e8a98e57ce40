"""Hand histories in the PHH format (Poker Hand History, the TOML format PokerKit reads).

Why PHH: it is the one open, machine-readable hand-history standard, and PokerKit
(``pokerkit.notation.HandHistory``) can step through a PHH file with its own rules
engine.  That gives us an independent cross-check of our stud engines (the
``tests/unit/test_phh_pokerkit.py`` suite) and a format auditors and players' tools can
read without knowing our internals.

What is written, from a finished (or partial) ``StudHand``/``DrawHand``:

- the standard fields: ``variant``, ``ante_trimming_status``, ``antes``,
  ``bring_in``/``small_bet``/``big_bet`` (stud) or ``blinds_or_straddles`` and
  ``small_bet``/``big_bet`` or ``min_bet`` (draw, by structure), ``starting_stacks``,
  ``actions``, and when the hand is over ``finishing_stacks`` and ``winnings``;
- ``actions`` in PHH notation: ``d dh pN CARDS`` (cards dealt to a player, grouped
  per street), ``d db CARD`` (the stud community river card, S11), ``pN pb``
  (bring-in), ``pN cbr TO`` (complete/bet/raise *to*), ``pN cc`` (check/call),
  ``pN f``, ``pN sd CARDS`` (draw discards), ``pN sm CARDS`` (show) and ``pN sm``
  (muck).  As PHH requires, the hands are shown as soon as betting is closed by
  all-ins (before the rest is dealt) and again, seven cards, at the showdown.
  Timeouts (S10) and reshuffles (S11, D6) have no PHH verb: they are written as
  commentaries (``... # timeout (S10)``) or commentary-only no-ops;
- what PHH cannot express, in user-defined fields (keys starting with ``_``, which
  PHH readers must ignore): ``_game``, ``_deck``, ``_structure``, the configurable
  rules in force, timeouts, the river procedure, dead blinds.

``replay_phh`` reads such a file back: configuration, stacks and actions from the
text, the deck from the seed, through ``poker_rules.replay``.

This is the **house record**: every card dealt is written at face value, including
folded players' cards (PHH writes ``??`` only for cards nobody knows, and the house
knows them all).  Burned cards are left out unless ``include_burns=True`` (G4:
burns are never shown to players).  A view for players must be derived separately.

Players are ``p1``..``pN`` in our index order: for stud ``p1`` is the first seat
left of the dealer (G5), as in PHH; for draw ``p1`` is the first player left of the
button, which is PHH's order for button games (``p1`` small blind; heads-up PHH
reverses the blinds, so ``p1`` posts the big blind, as in D3).

The 7-A draw game has no PHH variant, and no PHH variant's rules would pay the
right hand: the one single-draw variant, ``N2L1D``, is deuce-to-seven lowball, so a
reader of a 7-A hand written that way pays the *low* hand.  It is written under
variant codes of its own, as the PHH specification says variants it does not list
are added: ``F7A1D``, ``P7A1D`` and ``N7A1D`` (fixed-, pot- and no-limit
seven-to-ace single draw, ``DRAW_VARIANTS``), with the standard betting fields of
the structure (``small_bet``/``big_bet`` in fixed limit, ``min_bet`` otherwise).  A
PHH reader that does not know the code refuses the file instead of paying someone
else (PokerKit 0.7.7: ``KeyError: 'N7A1D'``, an unknown variant);
``_game = "draw_7a"``, ``_deck``, ``_hand_ranking`` and ``_structure`` say what was
played, and ``finishing_stacks`` and ``winnings`` what the table paid, for a reader
that implements the game to check its own result against.  ``replay_phh`` is such a
reader (it also reads the old ``N2L1D`` files, by their ``_game``).

The package: ``variants`` (the variant codes, shared with the players' histories of
``poker_wire.phh_view``), ``writer`` (the fields and the text), ``actions`` (the
event log as PHH actions), ``toml_text`` (the TOML encoding), ``reader``
(``config_from_phh``, ``replay_phh``).
"""

from .reader import config_from_phh, replay_phh
from .variants import (
    DRAW_VARIANTS,
    LEGACY_DRAW_VARIANT,
    STUD_HILO_VARIANT,
    STUD_VARIANT,
    PhhValue,
)
from .writer import draw_bet_fields, to_phh, to_phh_dict, write_phh

__all__ = [
    "DRAW_VARIANTS",
    "LEGACY_DRAW_VARIANT",
    "STUD_HILO_VARIANT",
    "STUD_VARIANT",
    "PhhValue",
    "config_from_phh",
    "draw_bet_fields",
    "replay_phh",
    "to_phh",
    "to_phh_dict",
    "write_phh",
]
