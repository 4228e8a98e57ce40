"""T6: a player away from a tournament table is blinded off, not sat out.

Unlike a ring game (B3, B4, B6), a tournament never skips an absent player: their
chips keep playing so the field is not frozen by someone who walked away.  They
are dealt in, post every blind, ante and bring-in, and their hand is folded when
they must act — even when checking would be free, as T6 says "folded", and a
player who is not at the table cannot act on a hand.
"""

from __future__ import annotations

from ..actions import Action, ActionKind, LegalActions


def dealt_in(stack: int, away: bool) -> bool:
    """True when the player is dealt the next hand: anyone with chips, away or not (T6)."""
    del away  # deliberately ignored: being away never keeps a tournament player out
    return stack > 0


def posts_forced_bets(away: bool) -> bool:
    """True: an away player posts blinds and antes like everyone else (T6)."""
    del away
    return True


def away_action(legal: LegalActions) -> Action:
    """The action taken for an away player whose turn it is.

    - Fold whenever the player has a decision (T6), including when a check is free:
      the table kills the hand (the engine's menu may not list FOLD when a check is
      free, so the table applies it as a dead hand, not as a menu choice).
    - The stud bring-in (S5) is a forced bet that cannot be folded: it is posted,
      like an ante, and the hand is folded at the player's next turn.
    - During the draw (D6) there is no fold: the player stands pat, and the hand is
      folded at the next betting turn.
    """
    kinds = legal.kinds
    if ActionKind.FOLD not in kinds:
        if ActionKind.BRING_IN in kinds:
            return Action.bring_in()
        if ActionKind.DISCARD in kinds:
            return Action.discard()
    return Action.fold()
