"""The gateway: the room's one public door.

Everything a player, a bot, an app or a browser does goes through here, on one
TLS port: the public API ``poker.room.v1.Room`` (protos/poker/room/v1/room.proto)
over gRPC (HTTP/2), gRPC-Web and the Connect protocol (JSON or binary, HTTP/1.1
or HTTP/2), served by connectrpc on hypercorn.  The gateway

* authenticates players (the bearer credential, checked with the lobby and
  remembered for a short while: ``credentials``),
* limits each player's calls (``limits``),
* forwards to the lobby and to the table-service shard that runs the table, over
  the internal plane as the identity ``gateway`` (mutual TLS), from a shard map
  it learns from the shards themselves (``shards``): no client computes a shard,
* fans each table's spectator events out once for all its watchers, with bounded
  buffers and limits (``spectators``).

It keeps no state that matters: any replica can serve any call, so it scales
horizontally (docs/front-door.md).
"""
