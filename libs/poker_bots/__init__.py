"""The bot SDK: a client of the table service for programs that play poker.

- :mod:`poker_bots.view`: :class:`TableView`, the table as one seat sees it, kept up
  to date from the seat's ``TableEvent`` stream.
- :mod:`poker_bots.sdk`: the :class:`Bot` protocol, :func:`play` (the whole
  connection: join, turns, rejections, keep-alive, reconnects) and the helpers that
  build legal actions (:func:`choose`, :func:`safest`, :func:`check_action`...).
- :mod:`poker_bots.bots`: reference bots (:class:`RandomBot`, :class:`CallingStation`,
  :class:`HandStrengthBot`).
- :mod:`poker_bots.lobby`: :class:`Lobby`, the room's lobby without generated stubs
  (register, tables, sit, stand, rebuy, the balance; typed :class:`LobbyError`
  refusals), and :class:`Operator` / :func:`create_table` for the room's staff.
- :mod:`poker_bots.local`: the in-process table (:class:`LocalTable`): the same bot
  against the rules library, no services, for fast development.
- :mod:`poker_bots.match`: duplicate matches (:func:`run_match`, :func:`play_match`):
  big bets per 100 hands with 95 % intervals, in process or through the room
  (:mod:`poker_bots.match_room`).

A bot is one method::

    class MyBot:
        def act(self, view: TableView, legal: common_pb2.LegalActions) -> common_pb2.Action:
            return choose(legal, CHECK) if legal.can_check else choose(legal, FOLD)
"""

from __future__ import annotations

from .bots import BOT_KINDS, CallingStation, HandStrengthBot, RandomBot, make_bot
from .lobby import (
    Credential,
    ExhaustedError,
    InvalidRequestError,
    Lobby,
    LobbyError,
    NotFoundError,
    Operator,
    PermissionDeniedError,
    Rebought,
    RefusedError,
    UnauthenticatedError,
    UnavailableError,
    create_table,
)
from .local import LocalBackend, LocalPlayer, LocalTable
from .many import Multiplexer
from .match import MatchResult, play_match, run_match
from .match_types import Deal, HandPlayed, HandsBackend
from .sdk import (
    AsyncBot,
    Bot,
    HandResult,
    PlayStats,
    Rebuy,
    RebuyPolicy,
    WhenBusted,
    check_action,
    choose,
    clamp_to,
    is_legal,
    legal_kinds,
    passive,
    play,
    safest,
)
from .view import HandAction, SeatView, TableView

__all__ = [
    "BOT_KINDS",
    "AsyncBot",
    "Bot",
    "CallingStation",
    "Credential",
    "Deal",
    "ExhaustedError",
    "HandAction",
    "HandPlayed",
    "HandResult",
    "HandStrengthBot",
    "HandsBackend",
    "InvalidRequestError",
    "Lobby",
    "LobbyError",
    "LocalBackend",
    "LocalPlayer",
    "LocalTable",
    "MatchResult",
    "Multiplexer",
    "NotFoundError",
    "Operator",
    "PermissionDeniedError",
    "PlayStats",
    "RandomBot",
    "Rebought",
    "Rebuy",
    "RebuyPolicy",
    "RefusedError",
    "SeatView",
    "TableView",
    "UnauthenticatedError",
    "UnavailableError",
    "WhenBusted",
    "check_action",
    "choose",
    "clamp_to",
    "create_table",
    "is_legal",
    "legal_kinds",
    "make_bot",
    "passive",
    "play",
    "play_match",
    "run_match",
    "safest",
]
