"""Your bot in the main job's room: ``--bot FILE:CLASS[@TABLES]``.

``python -m devroom.room --bot path/to/mybot.py:MyBot`` loads the class ``MyBot``
from that file (the file is run as a module of its own; its directory is on the
import path, after everything else, so that it can import a helper beside it),
and the room seats one ``MyBot()`` at every table, among the reference bots, as
one player registered through the room's door.  ``@TABLES`` picks the tables:
one or more of the table names the room prints (``stud``, ``stud-hilo``,
``draw-fixed``, ``draw-pot``, ``draw-no``; ``draw`` is the three draw tables),
comma separated: ``mybot.py:MyBot@stud,draw-no``.

What cannot be loaded is said before the room starts, in one line (exit status
2): a missing file, a file that fails to import, no such class, a class with no
``act`` method or that cannot be made with no arguments, an unknown table name.

The bot plays through ``poker_bots.play`` as the reference bots do: an ``act``
that raises, or returns an illegal action, is answered by the SDK with the
safest legal action.  :class:`CountedBot` counts those, and the decisions, for
the room's report, without keeping anything per hand.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from poker.common.v1.common_pb2 import Action, LegalActions
from poker_bots import TableView, check_action
from poker_bots.bot_files import BotFileError, load_bot_module

# ``@draw`` stands for every draw table.
TABLE_GROUPS = {"draw": ("draw-fixed", "draw-pot", "draw-no")}
MOST_NAME = 32  # the lobby's longest player name
SDK_MESSAGES_SHOWN = 20  # the bot SDK's warnings printed in a run; the rest are counted


class BotOptionError(ValueError):
    """A ``--bot`` that cannot be used: one line, exit status 2."""


@dataclass(frozen=True)
class Guest:
    """One ``--bot``: the class to play and the tables (keys) it sits at."""

    option: str  # as given, for messages
    cls: type
    tables: frozenset[str]

    @property
    def name(self) -> str:
        """Its player's name: the class's (the lobby takes 1..32 characters)."""
        return self.cls.__name__[:MOST_NAME]

    def sits_at(self, key: str) -> bool:
        return key in self.tables

    def make(self) -> Any:
        """A fresh instance: one per table, so that no state crosses tables."""
        return self.cls()


def split_option(option: str) -> tuple[Path, str, tuple[str, ...]]:
    """``FILE:CLASS[@T1,T2]`` -> (file, class name, table names).  The last ``:``
    ends the file (a path may hold one), the first ``@`` after it starts the tables."""
    path, colon, rest = option.rpartition(":")
    if not colon or not path or not rest:
        raise BotOptionError(f"--bot {option}: expected FILE:CLASS[@TABLE,...]")
    name, at, tables = rest.partition("@")
    wanted = tuple(t.strip() for t in tables.split(",")) if at else ()
    if not name.isidentifier():
        raise BotOptionError(f"--bot {option}: {name!r} is not a class name")
    if at and not all(wanted):
        raise BotOptionError(f"--bot {option}: name the tables after @, comma separated")
    return Path(path).expanduser(), name, wanted


def chosen_tables(option: str, wanted: Sequence[str], keys: Sequence[str]) -> frozenset[str]:
    """The keys ``wanted`` names (every table when none)."""
    if not wanted:
        return frozenset(keys)
    chosen: set[str] = set()
    for name in wanted:
        group = TABLE_GROUPS.get(name, (name,))
        unknown = [k for k in group if k not in keys]
        if unknown:
            known = ", ".join([*keys, *TABLE_GROUPS])
            raise BotOptionError(f"--bot {option}: no table {name!r}; the tables are {known}")
        chosen.update(group)
    return frozenset(chosen)


def load_module(option: str, path: Path) -> Any:
    """Run the file as a module of its own (``poker_bots.bot_files``); any error in
    it is one line."""
    if not path.is_file():
        raise BotOptionError(f"--bot {option}: no file {path}")
    try:
        return load_bot_module(path, "devroom_guest")
    except BotFileError as error:
        raise BotOptionError(f"--bot {option}: {error}") from None


def load_guest(option: str, keys: Sequence[str]) -> Guest:
    """The ``--bot`` option's class, checked: it exists, has ``act`` and can be
    made with no arguments (one is made and dropped, so that a failing
    constructor is said now, not at the first table)."""
    path, name, wanted = split_option(option)
    tables = chosen_tables(option, wanted, keys)
    module = load_module(option, path)
    cls = getattr(module, name, None)
    if cls is None:
        classes = sorted(n for n, v in vars(module).items() if inspect.isclass(v))
        there = f"; it has {', '.join(classes)}" if classes else ""
        raise BotOptionError(f"--bot {option}: no class {name} in {path}{there}")
    if not inspect.isclass(cls):
        raise BotOptionError(f"--bot {option}: {name} in {path} is not a class")
    if not callable(getattr(cls, "act", None)):
        raise BotOptionError(
            f"--bot {option}: {name} has no act(view, legal) method (a bot is one method, "
            "see docs/bots.md)"
        )
    try:
        cls()
    except Exception as error:
        raise BotOptionError(
            f"--bot {option}: {name}() failed: {type(error).__name__}: {error} "
            "(the room makes it with no arguments)"
        ) from None
    return Guest(option, cls, tables)


def load_guests(options: Sequence[str], keys: Sequence[str]) -> list[Guest]:
    return [load_guest(option, keys) for option in options]


@dataclass
class GuestTally:
    """What one of your bots did at one table: a few counters, nothing per hand."""

    decisions: int = 0
    hands: int = 0  # hands it was asked to act in
    raised: int = 0  # act raised: the SDK played the safest action
    illegal: int = 0  # act returned an illegal action: the SDK played the safest
    _hand: str = field(default="", repr=False)

    def asked(self, hand_id: str) -> None:
        self.decisions += 1
        if hand_id != self._hand:
            self._hand = hand_id
            self.hands += 1

    def checked(self, view: TableView, legal: LegalActions, action: object) -> None:
        if not isinstance(action, Action) or check_action(
            legal, action, view.my_down_cards or None
        ):
            self.illegal += 1

    def text(self) -> str:
        handled = f", act raised {self.raised}" if self.raised else ""
        handled += f", {self.illegal} illegal" if self.illegal else ""
        fallback = " (the SDK played the safest action instead)" if handled else ""
        return f"acted in {self.hands} hands, {self.decisions} decisions{handled}{fallback}"


class CountedBot:
    """Your bot, counted: ``act`` is yours; what it raises goes on to the SDK."""

    def __init__(self, bot: Any, label: str) -> None:
        self.bot = bot
        self.label = label
        self.tally = GuestTally()

    def __repr__(self) -> str:
        return repr(self.bot)

    def act(self, view: TableView, legal: LegalActions) -> Action:
        self.tally.asked(view.hand_id)
        try:
            action: Action = self.bot.act(view, legal)  # the SDK checks its type
        except Exception:
            self.tally.raised += 1
            raise
        self.tally.checked(view, legal, action)
        return action


class CountedAsyncBot(CountedBot):
    """The same for a bot whose ``act`` is ``async def`` (``poker_bots.AsyncBot``)."""

    async def act(self, view: TableView, legal: LegalActions) -> Action:  # type: ignore[override]
        self.tally.asked(view.hand_id)
        try:
            action: Action = await self.bot.act(view, legal)
        except Exception:
            self.tally.raised += 1
            raise
        self.tally.checked(view, legal, action)
        return action


def counted(bot: Any, label: str) -> CountedBot:
    """The counting wrapper that matches ``bot.act`` (plain or ``async``: the SDK
    awaits the one and calls the other)."""
    if inspect.iscoroutinefunction(bot.act):
        return CountedAsyncBot(bot, label)
    return CountedBot(bot, label)


class FirstMessages(logging.Filter):
    """Lets the first ``shown`` records through, then one line saying the rest are
    not shown.  The SDK logs a traceback for every ``act`` that raises: a bot with
    a bug in a served room would otherwise fill the terminal (and spend the
    room's CPU formatting tracebacks) for as long as it runs; the first ones
    show the bug, the tallies count the rest."""

    def __init__(self, shown: int) -> None:
        super().__init__()
        self.shown = shown
        self.seen = 0

    def filter(self, record: logging.LogRecord) -> bool:
        self.seen += 1
        if self.seen <= self.shown:
            return True
        if self.seen == self.shown + 1:
            record.msg = (
                "%d messages of the bot SDK shown; the rest are not (your bots' errors "
                "are counted in the room's progress lines and summary)"
            )
            record.args = (self.shown,)
            record.exc_info = None
            record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            return True
        return False


def limit_sdk_messages(shown: int = SDK_MESSAGES_SHOWN) -> None:
    """Cap what the bot SDK (logger ``poker_bots``) prints in this process."""
    logging.getLogger("poker_bots").addFilter(FirstMessages(shown))
