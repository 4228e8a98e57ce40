"""The lobby service: players, balances, ring tables, seats, and each hand's plan.

``python -m services.lobby`` runs it.  It owns the card room's durable state in
SQLite (``store.py``, behind a small class so another database can replace it):
players with a play-money balance and the SHA-256 of their secret token, table
definitions (the ``GameConfig`` as serialized bytes), seats with their chips,
every hand planned with how it ended (finished, or voided and why), and a ledger
of every balance movement (grants, buy-ins, cash-outs, hand results), so that at
every moment ``sum(balances) + sum(stacks at tables) == sum(grants)``.
Every RPC that writes does so in one transaction.

Seating rules (B1-B6: dead button, blinds, new players, missed blinds, sit-out
limits) are the rules library's ``poker_rules.seating.SeatingTable``, one per
table, held in memory and stored with every change (the ``seating`` table: the
markers, the button history and the table's B5 setting as JSON, in the same
transaction as the change).  At start each table is rebuilt from its seats and
stacks and that snapshot, so the next hand is planned exactly as it would have
been without the restart; a hand in progress (its plan is stored when planned) is
voided and the void recorded: the seats still hold its starting stacks, a void
changes no marker, and the table's late report of it is refused saying so.
Pending stand-ups are completed, their chips back to the balances; a seat with a
stack of 0 stays seated, as it would have.  A table service taking a table over
voids the hand its predecessor left pending (``VoidPendingHand``); see
``ring/``.

Tournaments (T1-T6) are served by the same process (``tournament/``, the
``Tournaments`` gRPC service; state and events in SQLite through
``tournament_store.py``, in the same transactions as their ledger rows): their
tables are lobby tables the table service runs.

Both kinds of table answer one interface, ``books.TableBook`` (the table's view,
a player's seat, the seating switches, NextHand, FinishHand, VoidPendingHand,
ListHands); the Lobby servicer picks a table's book once by its id and calls it:

======================  =========================================================
``servicer.py``         the Lobby servicer: players, and each table call to its book
``books.py``            ``TableBook``, the interface of both kinds of table
``ring/``               ring tables: seats, switches (B1-B6, S3), hands, voids
``tournament/``         tournaments (T1-T6) and the Tournaments servicer
``store.py``            the database: players, tables, seats, hands, the ledger
``tournament_store.py`` tournaments' state and events in the same database
``postgres.py``         the same SQL on PostgreSQL
``auth.py``             players' tokens, for both servicers
``checks.py``           limits both kinds of table share (S1, D1, S10)
======================  =========================================================

Its settings are ``settings.LobbySettings`` (besides the common
``service_kit.settings.ServerSettings``); docs/services.md lists them.
"""
