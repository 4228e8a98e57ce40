"""What the audit scenario files (tests/unit/rules/test_audit_*.py) share beyond the
stud and draw scenario modules: the pots of a finished hand in compact form.

The audit scenarios are the edge cases of docs/rules.md the per-rule suites do not
reach.  Each test plays one scripted hand (preset decks, see ``helpers.py`` and
``draw_helpers.py``) and asserts the exact outcome the rule book prescribes,
including the legal-action menu a bot would be offered at each decision.  Stud
stakes are the $1/$2 defaults (25 ante, 50 bring-in, 100/200) unless a test says
otherwise; draw is 100/200 with blinds 50/100.
"""

from __future__ import annotations

from poker_rules import DrawHand, StudHand


def pots_of(hand: StudHand | DrawHand) -> list[tuple[int, tuple[int, ...]]]:
    assert hand.result is not None
    return [(p.amount, p.eligible) for p in hand.result.pots]
