"""The bot SDK: a client of the table service for programs that play poker.

- :mod:`poker_bots.view`: :class:`TableView`, the table as one seat sees it, kept up
  to date from the seat's ``TableEvent`` stream.
- :mod:`poker_bots.sdk`: the :class:`Bot` protocol, :func:`play` (the whole
  connection: join, turns, rejections, keep-alive, reconnects) and the helpers that
  build legal actions (:func:`choose`, :func:`safest`, :func:`check_action`...).
- :mod:`poker_bots.bots`: reference bots (:class:`RandomBot`, :class:`CallingStation`,
  :class:`HandStrengthBot`).

A bot is one method::

    class MyBot:
        def act(self, view: TableView, legal: common_pb2.LegalActions) -> common_pb2.Action:
            return choose(legal, CHECK) if legal.can_check else choose(legal, FOLD)
"""

from __future__ import annotations

from .bots import BOT_KINDS, CallingStation, HandStrengthBot, RandomBot, make_bot
from .many import Multiplexer
from .sdk import (
    AsyncBot,
    Bot,
    PlayStats,
    check_action,
    choose,
    clamp_to,
    is_legal,
    legal_kinds,
    passive,
    play,
    safest,
)
from .view import SeatView, TableView

__all__ = [
    "BOT_KINDS",
    "AsyncBot",
    "Bot",
    "CallingStation",
    "HandStrengthBot",
    "Multiplexer",
    "PlayStats",
    "RandomBot",
    "SeatView",
    "TableView",
    "check_action",
    "choose",
    "clamp_to",
    "is_legal",
    "legal_kinds",
    "make_bot",
    "passive",
    "play",
    "safest",
]
