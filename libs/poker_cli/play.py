"""Playing from a terminal: the input parser and the human "bot" behind ``poker play``.

Commands (case-insensitive; the menu shows which apply)::

    f, fold              k, x, check          c, call (checks when checking is free)
    b, bring             bring in (stud: the forced opening bet)
    r N, bet N, raise N, complete N   to-amount N; r alone: the smallest
    a, allin             the largest legal raise (or a call when there is none)
    d As Kd, discard ..  discard those cards; d alone, p, pat: stand pat
    ?, h, help           q, quit (you stay seated: the clock acts for you)
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from poker.common.v1 import common_pb2 as c
from poker_bots.sdk import AGGRESSIVE, check_action, clamp_to, legal_kinds, safest
from poker_bots.view import TableView
from poker_rules.cards import card_str, parse_cards

from .format import KIND_NAMES, format_view, legal_text

__all__ = ["HELP", "KEYS", "HumanBot", "QuitRequestedError", "parse_command"]

HELP = __doc__.split("::", 1)[1].strip("\n") if __doc__ else ""
# The one-line reminder ``poker play`` prints first: every key, as in HELP.
KEYS = (
    "commands: f fold, k check, c call, b bring in, r N bet/raise/complete to N, "
    "a all in, d CARDS discard (d alone: stand pat), q quit, ? help"
)


class QuitRequestedError(Exception):
    """The player typed ``q``."""


def _amount(text: str) -> int:
    cleaned = text.replace(",", "").replace("_", "").lower()
    factor = 1
    if cleaned.endswith("k"):
        cleaned, factor = cleaned[:-1], 1000
    try:
        return int(float(cleaned) * factor) if factor != 1 else int(cleaned)
    except ValueError:
        raise ValueError(f"not an amount: {text!r}") from None


def _cards(words: Sequence[str]) -> list[str]:
    try:
        return [card_str(x) for x in parse_cards(" ".join(words))]
    except ValueError as exc:
        raise ValueError(f"cards are like 'As Kd 7c': {exc}") from None


def parse_command(
    text: str, legal: c.LegalActions, my_cards: Sequence[str] | None = None
) -> c.Action:
    """The action a typed command means on this menu; ``ValueError`` says what is wrong.

    ``QuitRequestedError`` for ``q``/``quit``.  Amounts are to-amounts and accept
    ``1,500`` and ``1.5k``.  The result is checked against the menu (and discards
    against ``my_cards``).
    """
    words = text.strip().split()
    if not words:
        raise ValueError("type a command (? for help)")
    word, rest = words[0].lower(), words[1:]
    kinds = legal_kinds(legal)
    action: c.Action
    if word in ("q", "quit", "exit"):
        raise QuitRequestedError
    if word in ("?", "h", "help"):
        raise ValueError(HELP)
    if word in ("f", "fold"):
        action = c.Action(kind=c.ACTION_KIND_FOLD)
    elif word in ("k", "x", "check"):
        action = c.Action(kind=c.ACTION_KIND_CHECK)
    elif word in ("c", "call"):
        if c.ACTION_KIND_CALL not in kinds and legal.can_check:
            action = c.Action(kind=c.ACTION_KIND_CHECK)
        else:
            action = c.Action(kind=c.ACTION_KIND_CALL)
    elif word in ("b", "bring", "bring-in", "bringin"):
        action = c.Action(kind=c.ACTION_KIND_BRING_IN)
    elif word in ("r", "raise", "bet", "complete", "a", "allin", "all-in"):
        if legal.raise_kind not in AGGRESSIVE or legal.raise_kind not in kinds:
            if word in ("a", "allin", "all-in") and c.ACTION_KIND_CALL in kinds:
                return c.Action(kind=c.ACTION_KIND_CALL)
            raise ValueError(f"no bet or raise now; you may: {legal_text(legal)}")
        if word in ("a", "allin", "all-in"):
            to = max(legal.to_choices) if legal.to_choices else legal.max_to
        elif rest:
            to = _amount(rest[0])
        else:
            to = clamp_to(legal, None)
        action = c.Action(kind=legal.raise_kind, amount=to)
    elif word in ("d", "discard", "draw", "p", "pat", "stand"):
        cards = _cards(rest) if word in ("d", "discard", "draw") and rest else []
        action = c.Action(kind=c.ACTION_KIND_DISCARD, cards=cards)
    else:
        raise ValueError(f"unknown command {word!r} (? for help)")
    if action.kind not in kinds:
        # Said here in words: the SDK's check names the kind by its enum.
        name = KIND_NAMES.get(action.kind, "that")
        raise ValueError(f"{name} is not allowed here; you may: {legal_text(legal)}")
    problem = check_action(legal, action, my_cards)
    if problem is not None:
        raise ValueError(f"{problem}; you may: {legal_text(legal)}")
    return action


InputFn = Callable[[str], str]
OutputFn = Callable[[str], None]


def _read_line(prompt: str) -> str:
    return input(prompt)  # looked up at each call: tests replace builtins.input


def _print_line(line: str) -> None:
    print(line, flush=True)


class HumanBot:
    """Asks a person at the terminal: shows the table and the menu, reads a command.

    ``input`` runs in a thread so the event loop (and the stream) stays alive.  ``q``
    or end of input sets ``quit`` and answers with the safest action.
    """

    def __init__(
        self,
        input_fn: InputFn | None = None,
        output_fn: OutputFn | None = None,
        quit_event: asyncio.Event | None = None,
    ) -> None:
        self.input_fn = input_fn or _read_line
        self.output_fn = output_fn or _print_line
        self.quit = quit_event or asyncio.Event()

    def __repr__(self) -> str:
        return "HumanBot()"

    async def act(self, view: TableView, legal: c.LegalActions) -> c.Action:
        out = self.output_fn
        for line in format_view(view):
            out(line)
        out(f"your cards: {' '.join(view.my_cards) or '-'}")
        out(f"you may: {legal_text(legal)}")
        while True:
            try:
                text = await asyncio.to_thread(self.input_fn, "> ")
            except EOFError:
                self.quit.set()
                return safest(legal)
            try:
                return parse_command(text, legal, view.my_down_cards or None)
            except QuitRequestedError:
                self.quit.set()
                return safest(legal)
            except ValueError as exc:
                out(str(exc))
