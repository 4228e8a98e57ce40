"""The ``poker`` command line: its options, and the requests they describe.

Kept apart from the commands so the parsing (and its one trick, ``glue_values``)
can be read and tested without a lobby or a table.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from poker.common.v1 import common_pb2 as c
from poker.lobby.v1 import lobby_pb2
from poker_bots.bots import BOT_KINDS
from poker_wire.channels import LOCAL_ROOM_PKI, default_ca_file

# The room's one public door, the gateway (service_kit/ports.py
# DEFAULT_GATEWAY_PORT: the CLI imports no server code), where every player
# command goes; and the lobby's internal port, for the staff's commands
# (create-table, register --balance) run with the operator's certificate.
DEFAULT_ROOM = "127.0.0.1:50050"
DEFAULT_LOBBY_INTERNAL = "127.0.0.1:50054"
ROOM_ENV = "POKER_ROOM"
CREDENTIAL_ENV = "POKER_CREDENTIAL"
PLAYER_ENV = "POKER_PLAYER_ID"
TOKEN_ENV = "POKER_TOKEN"

GAMES: dict[str, c.Game.ValueType] = {
    "stud": c.GAME_STUD,
    "stud-hilo": c.GAME_STUD_HILO,
    "hilo": c.GAME_STUD_HILO,
    "draw": c.GAME_DRAW_7A,
    "draw-7a": c.GAME_DRAW_7A,
}
STRUCTURES: dict[str, c.Structure.ValueType] = {
    "fixed": c.STRUCTURE_FIXED_LIMIT,
    "fixed-limit": c.STRUCTURE_FIXED_LIMIT,
    "pot": c.STRUCTURE_POT_LIMIT,
    "pot-limit": c.STRUCTURE_POT_LIMIT,
    "no": c.STRUCTURE_NO_LIMIT,
    "no-limit": c.STRUCTURE_NO_LIMIT,
}
ENTRIES: dict[str, lobby_pb2.Entry.ValueType] = {  # SitDown's B2 choice (draw tables)
    "post": lobby_pb2.ENTRY_POST_NOW,
    "wait-bb": lobby_pb2.ENTRY_WAIT_FOR_BIG_BLIND,
    "wait-button": lobby_pb2.ENTRY_WAIT_FOR_BUTTON,
}


class UsageError(Exception):
    """A missing or inconsistent option: printed, exit status 2."""


class RefusedError(Exception):
    """The command cannot do what was asked (e.g. play where you have no seat):
    printed, exit status 1."""


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    env = os.environ
    common.add_argument(
        "--room",
        default=env.get(ROOM_ENV) or DEFAULT_ROOM,
        metavar="HOST:PORT",
        help=f"the room's door, the gateway ({ROOM_ENV}; default {DEFAULT_ROOM})",
    )
    # The lobby's and the table's own public ports are no longer the CLI's: said
    # in one line (and never taken as an abbreviation of --lobby-internal).
    common.add_argument("--lobby", default=None, help=argparse.SUPPRESS)
    common.add_argument("--table", default=None, help=argparse.SUPPRESS)
    common.add_argument(
        "--ca",
        default=str(default_ca_file()),
        help="the room's CA certificate (POKER_CA_FILE; default: the local room's)",
    )
    common.add_argument(
        "--lobby-internal",
        default=env.get("POKER_LOBBY_INTERNAL", DEFAULT_LOBBY_INTERNAL),
        help="the lobby's internal port, for the operator's commands",
    )
    common.add_argument(
        "--operator-dir",
        default=env.get("POKER_OPERATOR_DIR", str(LOCAL_ROOM_PKI / "operator")),
        help="the operator's certificate directory (ca.crt, tls.crt, tls.key)",
    )
    common.add_argument(
        "--credential",
        default="",
        help=f"who you are: the credential `poker register` printed ({CREDENTIAL_ENV})",
    )
    common.add_argument(
        "--player",
        default="",
        help=f"player id, with --token: instead of --credential ({PLAYER_ENV})",
    )
    common.add_argument("--token", default="", help=f"player token ({TOKEN_ENV})")
    common.add_argument("--timeout", type=float, default=10.0, help="deadline of each call (s)")
    common.add_argument("-v", "--verbose", action="store_true", help="log the SDK's messages")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(
        prog="poker",
        description="The card room from a terminal.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="Run `poker COMMAND -h` for a command's options.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("register", parents=[common], help="register a player")
    p.add_argument("name")
    p.add_argument("--balance", type=int, default=0, help="play money (0 = lobby default)")

    p = sub.add_parser("tables", parents=[common], help="list tables")
    p.add_argument("--game", choices=sorted(GAMES), help="only this game")
    p.add_argument(
        "--from",
        dest="source",
        choices=("lobby", "table"),
        default="lobby",
        help="lobby: every table, its seats and stakes (default); table: the tables "
        "being played now, with their current hand",
    )

    p = sub.add_parser("create-table", parents=[common], help="create a ring table")
    p.add_argument("--name", default="", help="default: game and stakes")
    p.add_argument("--game", choices=sorted(GAMES), required=True)
    p.add_argument("--structure", choices=sorted(STRUCTURES), default="fixed", help="draw only")
    p.add_argument("--ante", type=int, default=0)
    p.add_argument("--bring-in", type=int, default=0, help="stud only")
    p.add_argument("--small-bet", type=int, required=True, help="stud small bet; draw big blind")
    p.add_argument("--big-bet", type=int, default=0, help="default: twice the small bet")
    p.add_argument("--max-raises", type=int, default=None)
    p.add_argument("--seats", type=int, default=0, help="default: 8 stud, 5 draw")
    p.add_argument("--min-buy-in", type=int, default=0, help="default: 20 small bets")
    p.add_argument("--max-buy-in", type=int, default=0, help="0 = no maximum")
    p.add_argument("--clock", type=float, default=0.0, help="action clock, seconds (0 = 10)")

    p = sub.add_parser("sit", parents=[common], help="take a seat with a buy-in")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--buy-in", type=int, required=True)
    p.add_argument("--seat", type=int, default=0, help="0 = any free seat")
    p.add_argument(
        "--entry",
        choices=sorted(ENTRIES),
        default="post",
        help="draw (B2): post a big blind now, wait for the big blind, or for the button",
    )

    p = sub.add_parser("stand", parents=[common], help="leave a table")
    p.add_argument("table_id", metavar="TABLE")

    p = sub.add_parser("sit-out", parents=[common], help="sit out from the next hand")
    p.add_argument("table_id", metavar="TABLE")
    p = sub.add_parser("sit-in", parents=[common], help="come back after sitting out")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument(
        "--wait", action="store_true", help="wait for the big blind instead of posting (B3, B4)"
    )
    p = sub.add_parser("auto-post", parents=[common], help="stud: the ante's auto-post (S3)")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("switch", choices=("on", "off"))
    p = sub.add_parser("im-in", parents=[common], help="stud, auto-post off: ante next hand")
    p.add_argument("table_id", metavar="TABLE")

    p = sub.add_parser("watch", parents=[common], help="watch a table as a spectator")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands")

    p = sub.add_parser(
        "state",
        parents=[common],
        help="the table now, as your seat sees it",
        description="The table now as your seat sees it (your cards, whose turn it "
        "is, and your menu when it is your turn); a spectator's view where you "
        "have no seat.",
    )
    p.add_argument("table_id", metavar="TABLE")

    p = sub.add_parser("play", parents=[common], help="play your seat from the terminal")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands")

    p = sub.add_parser("bot", parents=[common], help="run a reference bot in your seat")
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("--kind", choices=BOT_KINDS, default="strength")
    p.add_argument("--hands", type=int, default=None, help="stop after N hands")
    p.add_argument("--seed", type=int, default=None, help="random bot seed")
    p.add_argument("--quiet", action="store_true", help="print only the final summary")

    p = sub.add_parser(
        "history",
        parents=[common],
        help="a table's last hands, or one hand in full",
        description="Without HAND: one line per recent hand (who played, who won). "
        "With HAND: the hand event by event.  With your credential (--credential, "
        "or the environment) you see what a participant may: your cards, and the "
        "called hands that were mucked (S12).",
    )
    p.add_argument("table_id", metavar="TABLE")
    p.add_argument("hand_id", metavar="HAND", nargs="?", default="")
    p.add_argument("--limit", type=int, default=10, help="hands listed (1..100)")
    p.add_argument("--phh", action="store_true", help="print HAND as a PHH hand history")

    sub.add_parser("balance", parents=[common], help="your balance and the seats your chips are in")

    from .match_command import add_match_parser  # imports this module: here, not at the top

    add_match_parser(sub, common)
    return parser


def value_options(parser: argparse.ArgumentParser) -> set[str]:
    """The option strings of ``parser`` that take exactly one value (``--token X``)."""
    return {
        option
        for action in parser._actions
        if action.nargs is None and action.option_strings
        for option in action.option_strings
    }


def glue_values(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """``argv`` with every ``--option VALUE`` written ``--option=VALUE``.

    argparse reads a value that begins with ``-`` (``--token -abc``: about one
    ``token_urlsafe`` token in 64) as the next option and fails.  Glued to its option
    the value is taken whatever it looks like.  This is done for every option that
    takes a value (a token, an id, an amount, an address), including unambiguous
    abbreviations (``--tok``), in the subcommand's own options; after ``--``
    nothing is touched.
    """
    args = list(argv)
    subparsers = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    choices: dict[str, argparse.ArgumentParser] = dict(subparsers[0].choices) if subparsers else {}
    options = value_options(parser)
    all_long: set[str] = set()
    out: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            out += args[i:]
            break
        if arg in choices and not all_long:  # the subcommand: its options from here on
            sub = choices[arg]
            options = value_options(sub)
            all_long = {o for a in sub._actions for o in a.option_strings if o.startswith("--")}
        option = arg
        if arg.startswith("--") and "=" not in arg and arg not in all_long:
            matches = [o for o in all_long if o.startswith(arg)]
            option = matches[0] if len(matches) == 1 else arg
        if option in options and i + 1 < len(args):
            out.append(f"{option}={args[i + 1]}")
            i += 2
            continue
        out.append(arg)
        i += 1
    return out


def game_config(args: argparse.Namespace) -> c.GameConfig:
    """The GameConfig of ``create-table``'s options (defaults filled in)."""
    game = GAMES[args.game]
    small = args.small_bet
    config = c.GameConfig(
        game=game, ante=args.ante, small_bet=small, big_bet=args.big_bet or 2 * small
    )
    if game == c.GAME_DRAW_7A:
        config.structure = STRUCTURES[args.structure]
    else:
        if args.structure not in ("fixed", "fixed-limit"):
            raise UsageError("the stud games are fixed limit (S1)")
        config.bring_in = args.bring_in or max(1, small // 2)
    if args.max_raises is not None:
        config.max_raises = args.max_raises
    return config


def create_table_request(args: argparse.Namespace) -> lobby_pb2.CreateTableRequest:
    config = game_config(args)
    seats = args.seats or (5 if config.game == c.GAME_DRAW_7A else 8)
    name = args.name or f"{args.game} {config.small_bet}/{config.big_bet}"
    return lobby_pb2.CreateTableRequest(
        name=name,
        config=config,
        seats=seats,
        min_buy_in=args.min_buy_in or 20 * config.small_bet,
        max_buy_in=args.max_buy_in,
        action_clock_ms=round(args.clock * 1000),
    )


def _checked(credential: str, where: str) -> str:
    player_id, dot, token = credential.rpartition(".")
    if not dot or not player_id or not token:
        raise UsageError(
            f"{where} is not a credential: it is <player_id>.<token>, as "
            "`poker register NAME` printed it"
        )
    return credential


def _joined(player_id: str, token: str, where: str) -> str:
    if not player_id or not token:
        raise UsageError(f"give both a player id and a token ({where}), or --credential")
    if "." in token:
        raise UsageError(f"a token holds no dot ({where}): is that a credential? use --credential")
    return f"{player_id}.{token}"


def given_credential(args: argparse.Namespace) -> str:
    """The player's credential (``<player_id>.<token>``), "" when none is given.

    The command line first: ``--credential``, else ``--player`` and ``--token``
    (either may come from the environment); then the environment:
    POKER_CREDENTIAL, else POKER_PLAYER_ID and POKER_TOKEN."""
    env = os.environ
    if args.credential:
        return _checked(args.credential, "--credential")
    if args.player or args.token:
        player = args.player or env.get(PLAYER_ENV, "")
        token = args.token or env.get(TOKEN_ENV, "")
        return _joined(player, token, "--player and --token")
    if env.get(CREDENTIAL_ENV):
        return _checked(env[CREDENTIAL_ENV], CREDENTIAL_ENV)
    if env.get(PLAYER_ENV) or env.get(TOKEN_ENV):
        return _joined(
            env.get(PLAYER_ENV, ""), env.get(TOKEN_ENV, ""), f"{PLAYER_ENV}, {TOKEN_ENV}"
        )
    return ""


def credential(args: argparse.Namespace) -> str:
    """The player's credential; a UsageError saying how to give one when there is none."""
    given = given_credential(args)
    if not given:
        raise UsageError(
            f"who are you? give --credential (or set {CREDENTIAL_ENV}) with the credential "
            "`poker register NAME` printed; --player and --token also do"
        )
    return given


def split_credential(credential: str) -> tuple[str, str]:
    """(player_id, token) of a credential: a token never holds a dot, so the last
    dot splits them, as the room's door does."""
    player_id, _, token = credential.rpartition(".")
    return player_id, token


def refuse_direct_ports(args: argparse.Namespace) -> None:
    """``--lobby`` and ``--table`` named the services' own public ports; every
    player command goes through the room's door now."""
    given = [o for o, v in (("--lobby", args.lobby), ("--table", args.table)) if v is not None]
    if given:
        raise UsageError(
            f"{' and '.join(given)}: the CLI goes through the room's door now, the gateway: "
            f"--room HOST:PORT (or {ROOM_ENV}; default {DEFAULT_ROOM})"
        )
