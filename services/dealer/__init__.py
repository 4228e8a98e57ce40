"""The dealer service: per-hand decks, committed before the deal, revealed after.

``python -m services.dealer`` runs it.  Its settings are ``settings.DealerSettings``
(besides the common ``service_kit.settings.ServerSettings``); docs/services.md
lists them.
"""
