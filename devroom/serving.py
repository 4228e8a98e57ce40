"""What ``python -m devroom.room --serve`` prints once the room is open.

Everything a person needs to join from another terminal, exactly: the room's
door and the CA to trust it by, every table (its id, game, stakes, free seats,
buy-in range), and the command lines that register a player, sit them at a
table with a free seat and play there, or run a bot in that seat.  The lines
name the door and the CA through ``POKER_ROOM`` and ``POKER_CA_FILE``, so that
they hold for a room on free ports as well as on the documented ones.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb

if TYPE_CHECKING:
    from .room import Room


def stakes_text(config: common.GameConfig) -> str:
    """``fixed limit 20/40, ante 5, bring-in 10``; a draw table's blinds."""
    if config.game == common.GAME_DRAW_7A:
        blinds = f"blinds {config.small_bet // 2}/{config.small_bet}"
        if config.structure == common.STRUCTURE_FIXED_LIMIT:
            return f"{blinds}, bets {config.small_bet}/{config.big_bet}"
        return blinds
    return (
        f"fixed limit {config.small_bet}/{config.big_bet}, ante {config.ante}, "
        f"bring-in {config.bring_in}"
    )


def cli_command() -> str:
    """How to run the ``poker`` CLI of this interpreter: ``.venv/bin/poker`` (as
    typed from the repository), else ``python -m poker_cli``."""
    script = Path(sys.executable).with_name("poker")
    if not script.exists():
        return f"{shlex.quote(sys.executable)} -m poker_cli"
    try:
        shown = os.path.relpath(script)
    except ValueError:
        shown = str(script)
    return shlex.quote(shown if not shown.startswith("..") else str(script))


def open_text(room: Room, door: str, ca_file: Path | None, tables: Mapping[str, lpb.Table]) -> str:
    """The whole message; ``tables`` is the lobby's view of each table now."""
    poker = cli_command()
    ca = shlex.quote(str(ca_file)) if ca_file is not None else ""
    kept = room.keep_free
    lines = [
        "",
        "the room is open: it plays until SIGTERM or Ctrl-C, then prints the summary and "
        "the chip checks (exit 0 when they hold)",
        f"  door: {door}  (gRPC, gRPC-Web and Connect over TLS; the CLI's --room)",
    ]
    if ca_file is not None:
        lines.append(
            f"  CA:   {ca_file}  (trust it: --ca or POKER_CA_FILE for the CLI and "
            "poker_bots; a browser: see the web client's lines above)"
        )
    lines.append(
        f"tables: {kept} seat kept free at each for a person or a bot (when someone "
        "takes it, a reference bot makes room after the hand):"
    )
    for t in room.tables:
        info = tables.get(t.table_id)
        seats = info.seats if info is not None else t.spec.seats
        free = seats - len(info.occupied) if info is not None else t.free
        lines.append(
            f"  {t.table_id}  {t.spec.key:<10} {t.spec.label:<21} "
            f"{stakes_text(t.spec.config):<40} {free} of {seats} seats free"
        )
    for t in room.tables:
        yours = [s.bot.label for s in t.seats if s.bot is not None]
        if yours:
            lines.append(f"  yours at {t.table_id}: {', '.join(yours)}")
    example = room.tables[0].table_id if room.tables else "TABLE"
    first = tables.get(example)
    buy_ins = (
        f"buy-in {first.min_buy_in}..{first.max_buy_in}, from your balance"
        if first is not None
        else "from your balance"
    )
    lines += [
        "a person at a table, from another terminal (any table id above):",
        f"  export POKER_ROOM={door}" + (f" POKER_CA_FILE={ca}" if ca else ""),
        f"  {poker} register alice          # prints your credential and the line "
        "to export it: run that line",
        f"  {poker} sit {example} --buy-in {room.buy_in}          # {buy_ins}",
        f"  {poker} play {example}          # f, k, c, r AMOUNT, d As Kd: "
        "each turn says what you may",
        "a bot in that seat instead (after register and sit):",
        f"  {poker} bot {example} --kind strength",
        "or your own bot, seated by the room among the reference bots (restart with it):",
        '  make run ARGS="--serve --bot path/to/mybot.py:MyBot"   (@stud, @draw-no...: '
        "only those tables)",
    ]
    return "\n".join(lines)
