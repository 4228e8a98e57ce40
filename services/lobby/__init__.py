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
``servicer.py``.

Tournaments (T1-T6) are served by the same process (``tournaments.py``, the
``Tournaments`` gRPC service; state and events in SQLite through
``tournament_store.py``, in the same transactions as their ledger rows): their
tables are lobby tables the table service runs, and the Lobby servicer hands
their NextHand / FinishHand / VoidPendingHand to the tournament book.

Settings (besides the common ones of ``service_kit.settings``):

===================== ========== ==============================================
variable              default    meaning
===================== ========== ==============================================
LOBBY_DB              :memory:   SQLite database file (``:memory:`` keeps nothing
                                 after the process exits), or a PostgreSQL URL
                                 ``postgresql://user@host:5432/db``
LOBBY_DB_PASSWORD     (none)     PostgreSQL's password; or LOBBY_DB_PASSWORD_FILE,
                                 a file holding it (a mounted Secret)
LOBBY_DEFAULT_BALANCE 100000     play money granted by RegisterPlayer when it
                                 asks for 0
LOBBY_MAX_BALANCE     1000000000 largest initial_balance RegisterPlayer accepts
LOBBY_MAX_ORBITS_AWAY 3          B5: orbits a player may sit out before the
                                 seat is lost (the chips go back to the balance),
                                 for tables whose CreateTable leaves it unset
===================== ========== ==============================================
"""
