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
table, held in memory.  At start they are rebuilt from the seats table with fresh
markers: missed-blind debts, new-player status and the button history are not
stored yet (the first hand after a restart is a newly started game), a hand in
progress (its plan is stored when planned) is voided and the void recorded: the
seats still hold its starting stacks, and the table's late report of it is
refused saying so.  Pending stand-ups are completed and seats with no chips are
released, their chips (if any) back to the balances.  Full durability of the
seating markers is a later issue.  A table service taking a table over voids the
hand its predecessor left pending (``VoidPendingHand``); see ``servicer.py``.

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
                                 seat is lost (the chips go back to the balance)
===================== ========== ==============================================
"""
