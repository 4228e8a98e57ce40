"""The betting service: legal actions, applying an action or a timeout, rounds.

``python -m services.betting`` runs it.  Stateless: every call carries the hand's
betting state (``poker.betting.v1.BettingState``) and the answer carries the next
one, computed by ``poker_rules.betting`` (the library hands' own betting code).
No settings beyond the common ones of ``service_kit.settings``.
"""
