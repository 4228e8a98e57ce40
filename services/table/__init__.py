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
- ``runner``: one hand, street by street (the rule book's order), its decisions
  and its showdown;
- ``hand``: the hand in progress as viewers read it, and where answers come in;
- ``turns``: the seat's pending answer and the action clock (S10);
- ``betting_session``: the betting state and its name on the betting stream;
- ``streets``: the deck and the stud streets, dealt ahead (their invariant);
- ``calls``: one hand's downstream calls, counted; a failure voids the hand;
- ``runtime``: one table's hand loop: ask the lobby, run the hand, report it;
- ``viewers``: the table's open streams, and each fact fanned out to them;
- ``snapshot``: what a viewer may know about the table now (Join, GetState);
- ``history``: the finished hands, as each viewer may see them;
- ``clients``: the downstream stubs, with deadlines and an RPC count;
- ``servicer`` / ``server`` / ``settings``: the gRPC surface, its wiring and its settings.

Its settings are ``settings.TableSettings`` (besides the common
``service_kit.settings.ServerSettings``); docs/services.md lists them.
"""
