"""The newcomer's bot of issue 18's acceptance test: one file, written with only
what ``poker_bots`` exports (docs/bots.md, docs/matches.md).  The in-process test
(``test_newcomer_match``) and the room's (tests/system/match) write it to a file
and load it as ``poker match`` does (``FILE.py:CLASS``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from poker_cli.match_command import load_bot_class

NEWCOMER_BOT = '''\
"""My first bot: Stud Hi-Lo, chasing lows and pairs."""

from poker_bots import TableView, choose, passive, safest

LOW = set("A2345678")


class LowChaser:
    def act(self, view: TableView, legal):
        ranks = [card[0] for card in view.my_cards]
        lows = {rank for rank in ranks if rank in LOW}
        paired = len(set(ranks)) < len(ranks)
        strong = len(lows) >= 4 or (paired and len(ranks) >= 5)
        if strong and legal.raise_kind in legal.kinds:
            return choose(legal, legal.raise_kind)
        if len(lows) >= 3 or paired or legal.can_check:
            return passive(legal)
        return safest(legal)
'''


def newcomer_bot_class(directory: Path) -> type[Any]:
    """The bot's class, from its file written in ``directory``."""
    path = directory / "my_bot.py"
    path.write_text(NEWCOMER_BOT)
    return load_bot_class(f"{path}:LowChaser")
