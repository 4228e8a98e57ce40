"""The dealer service: per-hand decks, committed before the deal, revealed after.

``python -m services.dealer`` runs it.  Settings (besides the common ones of
``service_kit.settings``):

========================= ======= ==============================================
variable                  default meaning
========================= ======= ==============================================
DEALER_ALLOW_PRESET_DECKS 0       1 = accept preset deck orders (tests and
                                  certification only; never in production)
DEALER_MAX_DECKS          10000   open decks held at most (RESOURCE_EXHAUSTED past)
DEALER_DECK_TTL_S         3600    an open deck not closed by then is dropped
========================= ======= ==============================================
"""
