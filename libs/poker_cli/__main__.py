"""``poker``: the card room from a terminal (``python -m poker_cli ...``).

    poker register NAME [--balance N]          a new player: prints player_id and token
    poker tables [--game G] [--from lobby|table]
    poker create-table --game G [--structure S] --small-bet N [...]
    poker sit TABLE --buy-in N [--seat N]      poker stand TABLE
    poker watch TABLE [--hands N]              every public event, one line each
    poker play TABLE                           play your seat from the terminal
    poker bot TABLE --kind random|station|strength [--hands N] [--seed N]
    poker history TABLE [HAND] [--limit N]     the table's last hands; one hand in full
    poker balance                              your balance and the seats your chips are in

Credentials: --player/--token, or POKER_PLAYER_ID/POKER_TOKEN.  Any value may begin
with ``-`` (``--token -abc`` is read as the token, not as an option).  Addresses:
--lobby (default 127.0.0.1:50064) and --table (default 127.0.0.1:50065), the
player plane's public ports, or POKER_LOBBY / POKER_TABLE; the connection is TLS
trusting the room's CA (--ca, POKER_CA_FILE; default the local room's,
~/.cardroom/pki/ca.crt).  create-table and register --balance are the operator's:
mutual TLS to the lobby's internal port (--lobby-internal, default
127.0.0.1:50054) with the operator's certificate (--operator-dir).  Every call
but the streams has a deadline (--timeout, seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

import grpc
from grpc import aio

from .lobby_commands import (
    cmd_balance,
    cmd_create_table,
    cmd_register,
    cmd_seating,
    cmd_sit,
    cmd_stand,
    cmd_tables,
)
from .options import RefusedError, UsageError, build_parser, glue_values
from .table_commands import cmd_bot, cmd_history, cmd_play, cmd_watch

COMMANDS: dict[str, Callable[[argparse.Namespace], Coroutine[Any, Any, int]]] = {
    "register": cmd_register,
    "tables": cmd_tables,
    "create-table": cmd_create_table,
    "sit": cmd_sit,
    "stand": cmd_stand,
    "sit-out": cmd_seating,
    "sit-in": cmd_seating,
    "auto-post": cmd_seating,
    "im-in": cmd_seating,
    "watch": cmd_watch,
    "play": cmd_play,
    "bot": cmd_bot,
    "history": cmd_history,
    "balance": cmd_balance,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(glue_values(sys.argv[1:] if argv is None else argv, parser))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        result: int = asyncio.run(COMMANDS[args.command](args))
    except UsageError as exc:
        print(f"poker {args.command}: {exc}", file=sys.stderr)
        return 2
    except RefusedError as exc:
        print(f"poker {args.command}: {exc}", file=sys.stderr)
        return 1
    except aio.AioRpcError as exc:
        code = exc.code()
        name = code.name if isinstance(code, grpc.StatusCode) else str(code)
        print(f"poker {args.command}: {name}: {exc.details()}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return result


if __name__ == "__main__":
    sys.exit(main())
