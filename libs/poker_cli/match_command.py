"""``poker match``: a duplicate match of bots, in process or through the room.

    poker match --game stud-hilo --hands 10000 --bots mybot.py:MyBot,station
    poker match --game stud,draw --bots strength,station,random --seed 7 --phh-dir out/
    poker match --mode room --start-room --hands 500 --bots mybot.py:MyBot,station

Bots are named by reference kind (``random``, ``station``, ``strength``: see
``poker_bots.make_bot``) or by ``FILE.py:CLASS`` (a class whose instances have
``act(view, legal)``; it is made afresh for each rotation of the seating);
``NAME=SPEC`` gives one a name of its own.  The match is
:func:`poker_bots.match.play_match`; the report is its ``MatchResult.report``,
and ``--json FILE`` writes the same numbers for scripts.

``--mode local`` (the default) plays against the rules library in this process;
``--mode room`` through a room's services in certification mode (preset decks,
``poker_bots.match_room``): the room at ``--room`` with the operator's
``--lobby-internal``, ``--table-shards`` and ``--operator-dir`` (started with
``TABLE_ALLOW_PRESET_DECKS=1`` and ``DEALER_ALLOW_PRESET_DECKS=1``), or with
``--start-room`` a room of the match's own on free ports (from a checkout).
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from poker.common.v1 import common_pb2 as c
from poker_bots.bot_files import BotFileError, load_bot_module
from poker_bots.bots import BOT_KINDS, make_bot
from poker_bots.match import MOST_PLAYERS, BotFactory, game_name, play_match
from poker_bots.match_types import HandsBackend

from .options import GAMES, STRUCTURES, RefusedError, UsageError

DEFAULT_TABLE_SHARDS = "127.0.0.1:50055"  # the table service's internal port (make run)


def add_match_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The ``match`` subcommand's options (``options.build_parser``)."""
    p = sub.add_parser(
        "match",
        parents=[common],
        help="a duplicate match of bots: bb/100 with 95 %% intervals",
        description="Bots against each other for N hands on duplicate deals (each deck "
        "replayed with the seats rotated, so card luck cancels), in process or through "
        "the room, seeded and reproducible.  Reports each bot's win rate in big bets per "
        "100 hands (big blinds in pot and no limit) with a 95 % interval over the "
        "duplicate deals, the plain interval of the same hands, and the variance "
        "duplication removed.  See docs/matches.md.",
    )
    p.add_argument(
        "--game",
        default="stud-hilo",
        help="stud, stud-hilo (hilo), draw; several comma-separated: one match each "
        "(default stud-hilo)",
    )
    p.add_argument("--structure", choices=sorted(STRUCTURES), default="fixed", help="draw only")
    p.add_argument(
        "--bots",
        required=True,
        help="comma-separated: random, station, strength or FILE.py:CLASS, each may be "
        "NAME=SPEC (2-8 bots in stud, 2-5 in draw)",
    )
    p.add_argument("--hands", type=int, default=1000, help="hands per game (whole deals)")
    p.add_argument("--seed", type=int, default=1, help="the deals' seed (default 1)")
    p.add_argument(
        "--stack", type=int, default=0, help="chips per bot at every hand's start (0 = 100 bb)"
    )
    p.add_argument("--small-bet", type=int, default=100, help="stud small bet; draw big blind")
    p.add_argument("--big-bet", type=int, default=0, help="default: twice the small bet")
    p.add_argument("--ante", type=int, default=None, help="default: stud a quarter small bet")
    p.add_argument("--bring-in", type=int, default=0, help="stud; default half the small bet")
    p.add_argument("--mode", choices=("local", "room"), default="local")
    p.add_argument("--phh-dir", default=None, help="write every hand's PHH here")
    p.add_argument("--json", default=None, metavar="FILE", help="also write the numbers as JSON")
    p.add_argument(
        "--table-shards",
        default=DEFAULT_TABLE_SHARDS,
        metavar="HOST:PORT,...",
        help=f"room mode: the table service's internal port(s) (default {DEFAULT_TABLE_SHARDS})",
    )
    p.add_argument(
        "--start-room",
        action="store_true",
        help="room mode: start a room of the match's own (free ports) instead of --room",
    )


def match_configs(args: argparse.Namespace) -> list[c.GameConfig]:
    """The GameConfig of each ``--game``, stakes filled in."""
    configs = []
    small = args.small_bet
    if small <= 0:
        raise UsageError("--small-bet must be a positive number of chips")
    for name in (g.strip() for g in args.game.split(",") if g.strip()):
        game = GAMES.get(name.lower().replace("_", "-"))
        if game is None:
            raise UsageError(f"unknown game {name!r}; known: {', '.join(sorted(GAMES))}")
        config = c.GameConfig(game=game, small_bet=small, big_bet=args.big_bet or 2 * small)
        if game == c.GAME_DRAW_7A:
            config.structure = STRUCTURES[args.structure]
            config.ante = args.ante or 0
        else:
            config.structure = c.STRUCTURE_FIXED_LIMIT
            config.ante = small // 4 if args.ante is None else args.ante
            config.bring_in = args.bring_in or max(1, small // 2)
        configs.append(config)
    if not configs:
        raise UsageError("--game names no game")
    names = [game_name(c) for c in configs]
    if len(set(names)) != len(names):
        raise UsageError(f"--game names a game twice: {', '.join(names)}")
    return configs


def load_bot_class(reference: str) -> type[Any]:
    """The class ``FILE.py:CLASS`` names, loaded from the file as its own module."""
    path_text, _, class_name = reference.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise UsageError(f"no bot file {path_text!r} (FILE.py:CLASS)")
    try:
        module = load_bot_module(path, "poker_match_bot")
    except BotFileError as error:
        raise RefusedError(str(error)) from None
    found = getattr(module, class_name, None)
    if not inspect.isclass(found) or not callable(getattr(found, "act", None)):
        bots = [n for n, v in vars(module).items() if inspect.isclass(v) and hasattr(v, "act")]
        raise UsageError(
            f"{path_text} has no bot class {class_name!r} (a class with act(view, legal)); "
            f"it has: {', '.join(bots) or 'none'}"
        )
    return found


def bot_factories(spec: str, seed: int) -> dict[str, BotFactory]:
    """``--bots``: name -> a factory making the bot afresh (see the module)."""
    factories: dict[str, BotFactory] = {}
    for k, item in enumerate(x.strip() for x in spec.split(",") if x.strip()):
        name, eq, reference = item.partition("=")
        if not eq:
            name, reference = "", item
        factory: BotFactory
        if reference in BOT_KINDS:
            factory = _reference(reference, seed * 1_000 + k)
            default = reference
        elif reference.partition(":")[0].endswith(".py") or ".py:" in reference:
            cls = load_bot_class(reference)
            factory = cls
            default = cls.__name__
        else:
            raise UsageError(
                f"unknown bot {reference!r}: one of {', '.join(BOT_KINDS)} or FILE.py:CLASS"
            )
        name = name or default
        unique, n = name, 2
        while unique in factories:
            unique, n = f"{name}-{n}", n + 1
        factories[unique] = factory
    if len(factories) < 2:
        raise UsageError("a match needs at least two bots (--bots A,B)")
    return factories


def _reference(kind: str, seed: int) -> BotFactory:
    """A reference bot, the same one (its seed) in every rotation."""

    def make() -> Any:
        return make_bot(kind, seed)

    return make


def room_backend(args: argparse.Namespace) -> tuple[HandsBackend, Callable[[], None]]:
    """The room's backend (``poker_bots.match_room``, imported only for this mode)
    and what closes it."""
    try:
        from poker_bots import match_room
    except ImportError as error:
        raise RefusedError(f"the room mode is not available here: {error}") from None
    if args.start_room:
        from poker_bots.match_room_local import LocalRoomBackend

        own = LocalRoomBackend()
        return own, own.close
    access = match_room.RoomAccess(
        door=args.room,
        ca_file=args.ca,
        lobby=args.lobby_internal,
        tables=tuple(t.strip() for t in args.table_shards.split(",") if t.strip()),
        operator_dir=args.operator_dir,
    )
    return match_room.RoomBackend(access), lambda: None


async def cmd_match(args: argparse.Namespace) -> int:
    configs = match_configs(args)
    if args.hands < 1:
        raise UsageError("--hands must be at least 1")
    if args.stack < 0:
        raise UsageError("--stack must not be negative")
    factories = bot_factories(args.bots, args.seed)
    for config in configs:
        most = MOST_PLAYERS[config.game]
        if len(factories) > most:
            raise UsageError(f"{game_name(config)} seats 2 to {most} bots, not {len(factories)}")
    backend: HandsBackend | None = None
    close: Callable[[], None] = lambda: None  # noqa: E731
    if args.mode == "room":
        backend, close = room_backend(args)
    try:
        result = await play_match(
            configs,
            factories,
            args.hands,
            seed=args.seed,
            stack=args.stack or None,
            backend=backend,
            mode=args.mode,
            phh_dir=args.phh_dir,
        )
    finally:
        close()
    print(result.report())
    if args.json:
        Path(args.json).write_text(json.dumps(result.to_dict(), indent=2) + "\n")
    return 0
