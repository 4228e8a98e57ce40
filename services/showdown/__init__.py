"""The showdown service: evaluation, show order and the split of every pot.

``python -m services.showdown`` runs it.  Stateless, with no settings of its own
beyond the common ones of ``service_kit.settings``.
"""
