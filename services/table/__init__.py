"""The table service: runs hands and is what players connect to.

A table runs hands continuously while two or more players can be dealt in: it
asks the lobby who plays and what they post (``NextHand``), drives the hand
through the dealer (deck, streets, draws, the S11 river), the betting service
(every decision, the S10 clock) and the showdown service (S12 show order, every
pot's split), streams each seat only what that seat may see, and reports the
final stacks to the lobby (``FinishHand``).  A failed downstream call voids the
hand: the lobby keeps the stacks as they were before it, as card rooms do.

Modules, one job each:

- ``facts``: what happened in a hand (internal, complete) and the *only* function
  that turns a fact into what one viewer may see (``view``), plus snapshots;
- ``hand``: the hand runner (one coroutine per hand) and the action clock;
- ``runtime``: one table: its hand loop, its viewers' streams, histories;
- ``clients``: the downstream stubs, with deadlines and an RPC count;
- ``servicer`` / ``server``: the gRPC surface and its settings.

Settings (environment variables, besides the common ones of ``service_kit``):

=========================  ===================  ======================================
variable                   default              meaning
=========================  ===================  ======================================
TABLE_LOBBY_ADDR           127.0.0.1:50054      the lobby service
TABLE_DEALER_ADDR          127.0.0.1:50051      the dealer service
TABLE_BETTING_ADDR         127.0.0.1:50052      the betting service
TABLE_SHOWDOWN_ADDR        127.0.0.1:50053      the showdown service
TABLE_DISCOVERY_S          1.0                  how often the lobby's tables are listed
TABLE_IDLE_POLL_S          0.25                 wait before asking again when a table
                                                has fewer than two players
TABLE_HAND_PAUSE_MS        0                    pause between hands (a room shows the
                                                result a few seconds; bots need none)
TABLE_HISTORY_HANDS        500                  finished hands kept per table
TABLE_SHARD                0/1                  "i/n": run only the tables whose id
                                                hashes to i mod n (replicas)
TABLE_ALLOW_PRESET_DECKS   0                    1 = tests/certification may set the
                                                next hand's deck (PresetNextDeck); the
                                                dealer must allow presets too
TABLE_AUDIT_TOKEN          (empty = disabled)   token for GetDeckReveal (the deck
                                                order and salt of a finished hand)
TABLE_AUDIT_TOKEN_FILE     (empty = none)       or: a file whose first line is that
                                                token (a mounted Secret); not both
TABLE_BETTING_SESSION      1                    1 = betting and dealer calls in
                                                batches on one stream each (betting
                                                SessionBatches, dealer Session);
                                                0 = unary calls
CALL_DEADLINE_S            2                    deadline of every downstream call
=========================  ===================  ======================================
"""
