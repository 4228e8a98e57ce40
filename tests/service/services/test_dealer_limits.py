"""The dealer's trust boundary, in process: only the table identity deals, each
caller holds a bounded share of the open decks, and unused decks expire in
minutes.

The servicer is called directly with a fake gRPC context whose ``auth_context()``
carries the ``peer_spiffe_id`` mutual TLS would give (``service_kit.identity``);
errors are the ``service_kit`` error classes the server turns into statuses.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from typing import Any, TypeVar

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.common.v1.batch_pb2 import CallBatch
from poker.dealer.v1 import dealer_pb2 as pb
from poker_rules.cards import standard_deck
from poker_rules.commitment import open_deck
from poker_rules.config import Game
from service_kit import ConfigError, NotFoundError, ResourceExhaustedError
from service_kit.errors import PermissionDeniedError, status_of
from services.dealer.decks import ANONYMOUS, DeckStore
from services.dealer.servicer import ERROR_CODES, DealerServicer
from services.dealer.settings import DealerSettings
from tests.support.batching import call

T = TypeVar("T")


class FakeContext:
    """What the dealer reads of a grpc.aio ServicerContext: the auth context."""

    def __init__(self, *uris: str) -> None:
        self._auth = {"peer_spiffe_id": [uri.encode() for uri in uris]} if uris else {}

    def auth_context(self) -> dict[str, list[bytes]]:
        return self._auth


def as_(identity: str) -> Any:
    return FakeContext(f"spiffe://cardroom.local/{identity}")


TABLE = as_("table")
PLAINTEXT = FakeContext()  # a connection without a service certificate
NOT_THE_TABLE = ["operator", "auditor", "lobby", "betting", "showdown", "dealer"]


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def dealer(max_decks: int = 100, per_caller: int = 100, ttl: float = 300.0) -> DealerServicer:
    store = DeckStore(max_decks=max_decks, ttl=ttl, max_per_caller=per_caller)
    return DealerServicer(store, allow_presets=False)


def open_stud(servicer: DealerServicer, context: Any, hand: str = "h-1") -> pb.OpenDeckResponse:
    request = pb.OpenDeckRequest(game=common.GAME_STUD, players=2, hand_id=hand, table_id="t-1")
    return run(servicer.OpenDeck(request, context))


# ---------------------------------------------------------------- who may deal


@pytest.mark.parametrize("identity", NOT_THE_TABLE)
def test_only_the_table_identity_may_open_a_deck(identity: str) -> None:
    servicer = dealer()
    with pytest.raises(PermissionDeniedError) as refused:
        open_stud(servicer, as_(identity))
    assert "only the table service" in refused.value.message
    assert repr(identity) in refused.value.message
    assert status_of(refused.value, ERROR_CODES) == (
        grpc.StatusCode.PERMISSION_DENIED,
        refused.value.message,
    )


@pytest.mark.parametrize("identity", ["operator", "auditor", "lobby"])
def test_only_the_table_identity_may_deal_draw_river_or_close(identity: str) -> None:
    """Holding a deck id is not enough: a refused caller changes nothing and the
    table deals on from the same deck."""
    servicer = dealer()
    deck_id = open_stud(servicer, TABLE).deck_id
    other = as_(identity)
    calls = [
        servicer.Deal(pb.DealRequest(deck_id=deck_id, count=6), other),
        servicer.Draw(pb.DrawRequest(deck_id=deck_id), other),
        servicer.DealRiver(pb.DealRiverRequest(deck_id=deck_id, players=2), other),
        servicer.CloseDeck(pb.CloseDeckRequest(deck_id=deck_id), other),
    ]
    for refused_call in calls:
        with pytest.raises(PermissionDeniedError, match="only the table service"):
            run(refused_call)
    dealt = run(servicer.Deal(pb.DealRequest(deck_id=deck_id, count=6), TABLE))
    assert dealt.remaining == 46  # nothing was dealt by the refused calls
    reveal = run(servicer.CloseDeck(pb.CloseDeckRequest(deck_id=deck_id), TABLE))
    assert len(reveal.log) == 1


def test_a_denied_caller_is_denied_on_the_batch_stream_too() -> None:
    servicer = dealer()

    async def batches() -> AsyncIterator[CallBatch]:
        opened = pb.OpenDeckRequest(game=common.GAME_STUD, players=2)
        yield CallBatch(calls=[call(1, "OpenDeck", opened)])

    async def replies() -> list[Any]:
        return [r async for b in servicer.Batch(batches(), as_("operator")) for r in b.replies]

    (reply,) = run(replies())
    assert reply.error.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
    assert "only the table service" in reply.error.message


def test_callers_without_a_certificate_deal_for_now_the_mtls_layer_refuses_them() -> None:
    """No identity (plaintext, a certificate of another trust domain, or an
    in-process call with no context) is let through: refusing such connections is
    the mutual-TLS layer's job.  They share one owner, "anonymous"."""
    servicer = dealer()
    foreign = FakeContext("spiffe://elsewhere.example/table")
    contexts: list[Any] = [PLAINTEXT, foreign, None]
    for context in contexts:
        deck_id = open_stud(servicer, context).deck_id
        run(servicer.Deal(pb.DealRequest(deck_id=deck_id, count=4), context))
        run(servicer.CloseDeck(pb.CloseDeckRequest(deck_id=deck_id), context))


# ---------------------------------------------------------------- how many decks


def test_one_caller_exhausting_its_deck_limit_leaves_others_dealing() -> None:
    servicer = dealer(max_decks=10, per_caller=3)
    for hand in range(3):
        open_stud(servicer, PLAINTEXT, hand=f"h-{hand}")
    with pytest.raises(ResourceExhaustedError) as refused:
        open_stud(servicer, PLAINTEXT)
    message = refused.value.message
    assert "'anonymous'" in message and "limit of 3 open decks" in message
    assert "closed with its hand" in message
    assert status_of(refused.value, ERROR_CODES) == (grpc.StatusCode.RESOURCE_EXHAUSTED, message)
    # The table is another caller: it opens, deals and closes as before.
    deck_id = open_stud(servicer, TABLE).deck_id
    assert run(servicer.Deal(pb.DealRequest(deck_id=deck_id, count=6), TABLE)).remaining == 46
    run(servicer.CloseDeck(pb.CloseDeckRequest(deck_id=deck_id), TABLE))


def test_closing_a_deck_with_its_hand_frees_the_callers_room() -> None:
    servicer = dealer(max_decks=10, per_caller=2)
    first = open_stud(servicer, TABLE, hand="h-1").deck_id
    open_stud(servicer, TABLE, hand="h-2")
    with pytest.raises(ResourceExhaustedError):
        open_stud(servicer, TABLE, hand="h-3")
    run(servicer.CloseDeck(pb.CloseDeckRequest(deck_id=first), TABLE))
    open_stud(servicer, TABLE, hand="h-3")


def test_the_global_deck_limit_still_holds_across_callers() -> None:
    servicer = dealer(max_decks=4, per_caller=3)
    for hand in range(3):
        open_stud(servicer, TABLE, hand=f"h-{hand}")
    open_stud(servicer, PLAINTEXT)
    with pytest.raises(ResourceExhaustedError) as refused:
        open_stud(servicer, PLAINTEXT)
    assert "maximum of 4 open decks" in refused.value.message
    assert "closed with its hand" in refused.value.message


def test_a_refused_open_deck_counts_against_nobody() -> None:
    """A deck refused for permission or for a bad request takes no caller's room."""
    store = DeckStore(max_decks=10, ttl=300.0, max_per_caller=1)
    servicer = DealerServicer(store, allow_presets=False)
    with pytest.raises(PermissionDeniedError):
        open_stud(servicer, as_("operator"))
    assert store.held_by("operator") == 0 and len(store) == 0
    open_stud(servicer, TABLE)
    assert store.held_by("table") == 1 and store.held_by(ANONYMOUS) == 0


# ---------------------------------------------------------------- how long


def _add(store: DeckStore, owner: str = "table") -> str:
    deck, secrets = open_deck(standard_deck())
    entry = store.add(
        deck, secrets, game=Game.STUD, hand_id="h", table_id="t", preset=False, owner=owner
    )
    return entry.deck_id


def test_an_unused_deck_expires_after_the_ttl_and_every_use_pushes_it_back() -> None:
    clock = Clock()
    store = DeckStore(max_decks=10, ttl=300.0, clock=clock, max_per_caller=2)
    used, idle = _add(store), _add(store)
    clock.now = 200.0
    store.get(used)  # a street dealt: the hand is alive
    clock.now = 301.0
    with pytest.raises(NotFoundError):
        store.get(idle)
    store.get(used)
    clock.now = 600.0  # last used at 301
    store.get(used)
    clock.now = 901.0  # last used at 600
    with pytest.raises(NotFoundError):
        store.pop(used)
    # The expired decks gave the caller its room back.
    assert store.held_by("table") == 0
    _add(store), _add(store)


def test_an_expired_decks_error_does_not_repeat_its_id() -> None:
    """The table logs the errors of its calls: a NOT_FOUND names no deck id."""
    store = DeckStore(max_decks=10, ttl=300.0, clock=Clock())
    with pytest.raises(NotFoundError) as missing:
        store.get("some-deck-id")
    assert "some-deck-id" not in missing.value.message


def test_dealer_settings_defaults_keep_the_global_limit_and_expire_in_minutes() -> None:
    settings = DealerSettings.from_env({})
    assert settings.max_decks == 10_000
    assert settings.max_open_decks_per_caller == 4_000  # a table process of 1,000 tables
    assert settings.deck_ttl_s == 900.0  # 15 minutes: minutes, not an hour
    custom = DealerSettings.from_env(
        {"DEALER_MAX_OPEN_DECKS_PER_CALLER": "50", "DEALER_DECK_TTL_S": "120"}
    )
    assert custom.max_open_decks_per_caller == 50 and custom.deck_ttl_s == 120.0
    with pytest.raises(ConfigError, match="DEALER_MAX_OPEN_DECKS_PER_CALLER"):
        DealerSettings.from_env({"DEALER_MAX_OPEN_DECKS_PER_CALLER": "0"})
