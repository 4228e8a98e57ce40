"""No deck id, salt, seed, token or card in any log line (docs/services.md: "never a
card, deck id, salt or token").

A deck id lets whoever holds it close the deck and read the live order, so it is
as secret as the cards.  Two checks: the dealer driven in process through a whole
hand of each kind with structlog captured (its logs, and its error messages, which
the table logs when a call voids a hand); and every log call in the services and
``service_kit`` read from the source, so a new ``deck_id=`` field fails here first.
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
import re
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
import structlog
from structlog.testing import capture_logs

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as pb
from service_kit import ServiceError
from services.dealer import servicer as dealer_servicer
from services.dealer.decks import DeckStore
from services.dealer.servicer import DealerServicer

T = TypeVar("T")
ROOT = Path(__file__).resolve().parents[3]
LOGGED_SOURCES = [ROOT / "services", ROOT / "libs" / "service_kit"]
# A card as the wire writes it, standing alone ("As", "Td", "7c").
CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")
SECRET_FIELDS = frozenset(
    {
        "card",
        "cards",
        "community_card",
        "deck_id",
        "discards",
        "hole_cards",
        "order",
        "password",
        "preset_order",
        "reshuffle_seed",
        "salt",
        "secret",
        "secrets",
        "token",
    }
)
LOG_FUNCTIONS = frozenset({"get_logger", "bound_contextvars", "bind_contextvars"})
LOG_METHODS = frozenset(
    {"debug", "info", "msg", "warning", "warn", "error", "exception", "critical", "bind"}
)


class TableContext:
    def auth_context(self) -> dict[str, list[bytes]]:
        return {"peer_spiffe_id": [b"spiffe://cardroom.local/table"]}


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


class Recorder:
    """The secrets a hand produced: every deck id, salt, seed and card served."""

    def __init__(self) -> None:
        self.deck_ids: set[str] = set()
        self.secrets: set[str] = set()
        self.cards: set[str] = set()
        self.errors: list[str] = []

    def revealed(self, reveal: pb.CloseDeckResponse) -> None:
        self.deck_ids.add(reveal.deck_id)
        for blob in (reveal.salt, reveal.reshuffle_seed):
            self.secrets.update({blob.hex(), repr(blob), blob.decode("latin-1")})
        self.cards.update(reveal.order)

    def refused(self, coroutine: Coroutine[Any, Any, Any]) -> None:
        with pytest.raises(ServiceError) as error:
            run(coroutine)
        self.errors.append(error.value.message)


def drive_the_dealer(recorder: Recorder) -> None:
    """Stud to the river and a 7-A draw, with first deals, burns, a returned
    street, a draw, refused calls and the reveals."""
    servicer = DealerServicer(DeckStore(max_decks=10, ttl=300.0), allow_presets=False)
    table: Any = TableContext()
    first = pb.DealRequest(burn_first=True, count=6)  # S4: 2 down, 1 up each
    stud = run(
        servicer.OpenDeck(
            pb.OpenDeckRequest(
                game=common.GAME_STUD,
                players=2,
                hand_id="hand-1",
                table_id="table-1",
                first_deal=first,
            ),
            table,
        )
    )
    recorder.deck_ids.add(stud.deck_id)
    deck = stud.deck_id
    run(servicer.Deal(pb.DealRequest(deck_id=deck, burn_first=True, count=2), table))
    run(servicer.Deal(pb.DealRequest(deck_id=deck, burn_first=True, count=2), table))
    run(servicer.Deal(pb.DealRequest(deck_id=deck, return_unused=1, count=2), table))
    run(servicer.Deal(pb.DealRequest(deck_id=deck, burn_first=True, count=2), table))
    run(servicer.DealRiver(pb.DealRiverRequest(deck_id=deck, players=2), table))
    recorder.refused(servicer.Deal(pb.DealRequest(deck_id=deck, count=52), table))
    recorder.revealed(run(servicer.CloseDeck(pb.CloseDeckRequest(deck_id=deck), table)))
    recorder.refused(servicer.Deal(pb.DealRequest(deck_id=deck, count=1), table))  # closed

    draw = run(
        servicer.OpenDeck(
            pb.OpenDeckRequest(
                game=common.GAME_DRAW_7A, players=3, hand_id="hand-2", table_id="table-2"
            ),
            table,
        )
    )
    deck = draw.deck_id
    recorder.deck_ids.add(deck)
    dealt = run(servicer.Deal(pb.DealRequest(deck_id=deck, count=15), table))
    discards = pb.DrawRequest(deck_id=deck, discards=dealt.cards[:2], burn_first=True)
    run(servicer.Draw(discards, table))
    # Discarded already, so in no player's hand: refused, and the error names no card.
    recorder.refused(servicer.Draw(pb.DrawRequest(deck_id=deck, discards=dealt.cards[:2]), table))
    recorder.revealed(run(servicer.CloseDeck(pb.CloseDeckRequest(deck_id=deck), table)))


@pytest.fixture
def records(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[list[str], Recorder]]:
    """The dealer's log lines as JSON (with the bound hand and table ids), and the
    secrets of the hands behind them."""
    recorder = Recorder()
    # An in-process server that an earlier test ran on this worker configured
    # structlog for itself: its level filter (a wrapper class that drops info
    # lines before any processor, so before the capture) and loggers cached on
    # first use.  Here: every level, and a fresh logger for the dealer's module.
    saved = structlog.get_config()
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG),
        cache_logger_on_first_use=False,
    )
    monkeypatch.setattr(dealer_servicer, "log", structlog.get_logger())
    try:
        with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as entries:
            drive_the_dealer(recorder)
    finally:
        structlog.configure(**saved)
    yield [json.dumps(entry, default=repr, sort_keys=True) for entry in entries], recorder


def test_dealer_logs_name_the_hand_never_a_deck_id_salt_or_card(
    records: tuple[list[str], Recorder],
) -> None:
    lines, recorder = records
    events = [json.loads(line)["event"] for line in lines]
    # The capture worked: the hands' lines are there, with their hand ids.
    assert events.count("deck opened") == 2 and events.count("deck closed") == 2
    assert "river dealt" in events
    opened = [json.loads(line) for line in lines if '"deck opened"' in line]
    assert [r["hand_id"] for r in opened] == ["hand-1", "hand-2"]
    for line in lines:
        for deck_id in recorder.deck_ids:
            assert deck_id not in line, line
        for secret in recorder.secrets:
            assert secret not in line, line
        assert not CARD.findall(line), line
        assert not SECRET_FIELDS & set(json.loads(line)), line


def test_dealer_errors_name_no_deck_id_or_card_since_the_table_logs_them(
    records: tuple[list[str], Recorder],
) -> None:
    """A failed call voids the hand and the table logs its error ("hand voided",
    reason=...): the dealer's messages name neither the deck nor a card."""
    _, recorder = records
    assert len(recorder.errors) == 3
    for message in recorder.errors:
        assert not any(deck_id in message for deck_id in recorder.deck_ids), message
        assert not CARD.findall(message), message


def _log_calls(tree: ast.AST) -> Iterator[ast.Call]:
    """Calls that write or bind log fields: ``<...log...>.info(...)``,
    ``get_logger(...)``, ``bound_contextvars(...)``, ``bind_contextvars(...)``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        named = isinstance(func, ast.Name) and func.id in LOG_FUNCTIONS
        logged = (
            isinstance(func, ast.Attribute)
            and func.attr in LOG_METHODS
            and "log" in ast.unparse(func.value).lower()
        )
        if named or logged:
            yield node


def test_no_log_call_in_the_services_has_a_secret_field() -> None:
    """Every log call in services/ and service_kit, read from the source: no field
    named like a deck id, salt, seed, token or card."""
    found = []
    checked = 0
    for source in LOGGED_SOURCES:
        for path in sorted(source.rglob("*.py")):
            for node in _log_calls(ast.parse(path.read_text(), str(path))):
                checked += 1
                for keyword in node.keywords:
                    if keyword.arg in SECRET_FIELDS:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {keyword.arg}=")
    assert checked > 50, "the scan found the log calls"
    assert found == []
