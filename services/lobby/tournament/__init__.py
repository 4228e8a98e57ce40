"""Tournaments over the services (T1-T6): their state, their tables' hands, the
moves between tables, and the Tournaments gRPC service.

The rules are ``poker_rules.tournament``'s (structure and clock, the draw,
balancing and breaking, eliminations, payouts, standings); this package keeps the
state, translates, and decides only what the rule book leaves to the room.  A
tournament table is a lobby table that the table service runs like a ring table:
the Lobby servicer hands its calls to :class:`TournamentBook`, the ``TableBook``
of tournament tables.

==================  ============================================================
``models.py``       a tournament, its entries and tables, as stored (JSON)
``structure.py``    the structure and each level's stakes (T1)
``registry.py``     the tournaments in memory over the store; one transaction
                    per change, with its events
``lifecycle.py``    create, start (the seating draw, T2), the level clock, the
                    end and the prizes (T4, T5), the standings
``entries.py``      register, re-enter, unregister, away (T6)
``balancing.py``    balancing and breaking tables between hands (T3)
``hands.py``        a hand's plan and the check of its result
``book.py``         the ``TableBook``: the table's view and the hand protocol
``servicer.py``     the Tournaments gRPC servicer
==================  ============================================================

A lobby restart voids the hand each tournament table had in progress (stacks as
at its start), as it does at ring tables.  State and events are stored in the
lobby's database through ``services.lobby.tournament_store``, in the same
transactions as their ledger rows.
"""

from .book import TournamentBook
from .servicer import TournamentsServicer

__all__ = ["TournamentBook", "TournamentsServicer"]
