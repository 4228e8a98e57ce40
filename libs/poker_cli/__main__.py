"""``poker``: the card room from a terminal (``python -m poker_cli ...``).

    poker register NAME                        a new player: prints the credential
    poker tables [--game G] [--from lobby|table]
    poker sit TABLE --buy-in N [--seat N]      poker stand TABLE
    poker watch TABLE [--hands N]              every public event, one line each
    poker state TABLE                          the table now, as your seat sees it
    poker play TABLE                           play your seat from the terminal
    poker bot TABLE --kind random|station|strength [--hands N] [--seed N]
    poker history TABLE [HAND] [--limit N]     the table's last hands; one hand in full
    poker balance                              your balance and the seats your chips are in
    poker match --bots A,B [--game G] [--hands N] [--mode local|room]   a duplicate match
    poker create-table --game G [--structure S] --small-bet N [...]   (staff)
    poker register NAME --balance N                                   (staff)

Every player command goes through the room's one public door, the gateway, and
its public API (poker.room.v1.Room): --room (default 127.0.0.1:50050, or
POKER_ROOM), TLS trusting the room's CA (--ca, POKER_CA_FILE; default the local
room's, ~/.cardroom/pki/ca.crt).  Who you are: the credential ``register`` prints
(``<player_id>.<token>``), given as --credential or POKER_CREDENTIAL, or as
--player and --token (POKER_PLAYER_ID / POKER_TOKEN); it travels as
``authorization: Bearer``.  Any value may begin with ``-`` (``--token -abc`` is
read as the token, not as an option).  create-table and register --balance are the
operator's: mutual TLS to the lobby's internal port (--lobby-internal, default
127.0.0.1:50054) with the operator's certificate (--operator-dir).  Every call but
the streams has a deadline (--timeout, seconds).  A refusal is one line, the
room's status and message, and exit status 1; a usage error exit status 2.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import signal
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
from .match_command import cmd_match
from .options import RefusedError, UsageError, build_parser, glue_values, refuse_direct_ports
from .table_commands import cmd_bot, cmd_history, cmd_play, cmd_state, cmd_watch

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
    "state": cmd_state,
    "play": cmd_play,
    "bot": cmd_bot,
    "history": cmd_history,
    "balance": cmd_balance,
    "match": cmd_match,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(glue_values(sys.argv[1:] if argv is None else argv, parser))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        refuse_direct_ports(args)
        result: int = asyncio.run(COMMANDS[args.command](args))
    except UsageError as exc:
        print(f"poker {args.command}: {exc}", file=sys.stderr)
        return 2
    except RefusedError as exc:
        print(f"poker {args.command}: {exc}", file=sys.stderr)
        return 1
    except aio.AioRpcError as exc:
        print(f"poker {args.command}: {refusal_text(exc, args)}", file=sys.stderr)
        return 1
    except FileNotFoundError as exc:  # the room's CA, the operator's certificate
        print(f"poker {args.command}: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return reader_went_away()
    return result


def reader_went_away() -> int:
    """``poker history | head``: the reader closed the pipe; stop quietly, as ``cat``
    does, with the shell's status for SIGPIPE.

    stdout is pointed at /dev/null first, or the interpreter's last flush of the
    buffered lines would raise BrokenPipeError again at exit (the traceback a user saw).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 128 + signal.SIGPIPE


def refusal_text(error: aio.AioRpcError, args: argparse.Namespace) -> str:
    """One line: the status, the room's message, and what to do where the CLI
    knows better than the room (which cannot know the options' names)."""
    code = error.code()
    name = code.name if isinstance(code, grpc.StatusCode) else str(code)
    details = " ".join((error.details() or "").split()) or name
    text = f"{name}: {details}"
    staff = args.command == "create-table" or (args.command == "register" and args.balance)
    if code == grpc.StatusCode.UNAUTHENTICATED:
        text += (
            " (your credential: --credential or POKER_CREDENTIAL, as poker register NAME "
            "printed it)"
        )
    elif code == grpc.StatusCode.UNAVAILABLE and "connect" in details.lower():
        if "handshake" in details.lower() or "certificate" in details.lower():
            text += f" (is {args.ca} the room's CA? --ca or POKER_CA_FILE)"
        elif staff:
            text += f" (is the lobby's internal port at {args.lobby_internal}? --lobby-internal)"
        else:
            text += f" (is the room running at {args.room}? --room HOST:PORT or POKER_ROOM)"
    return text


if __name__ == "__main__":
    sys.exit(main())
