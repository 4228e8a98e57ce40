"""No log line of any service, over a room's play, holds a deck id, a salt, a
token or a card.

The room is the main job's (``devroom.room``: a table of every game, reference
bots, rebuys) on the five service processes, run for a few dozen hands a table.
Then every line each service wrote (JSON from structlog, and anything else, such
as gRPC core's own lines) is checked against what must never be logged:

* the players' tokens (all of them are known: the test registered the players);
* every finished hand's salt and reshuffle seed, raw, hex or base64 (read back
  through the auditor's GetDeckReveal);
* a card: no string in a JSON line that reads as a card ("As", "Td") or a list of
  them, and no field named after a secret (deck_id, salt, token, cards...);
* a deck id: no string shaped like one (22 URL-safe characters, the dealer's
  ``token_urlsafe(16)``).
"""

from __future__ import annotations

import asyncio
import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from devroom.busy_room import busy_room, play_until
from devroom.stack import Stack
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc

pytestmark = pytest.mark.xdist_group("log_secrets")

AUDIT_TOKEN = "log-scan-audit-token"
HANDS = 25  # a table
CARD = re.compile(r"^(?:[2-9TJQKA][shdc])(?:[ ,]+[2-9TJQKA][shdc])*$")
DECK_ID = re.compile(r"^[A-Za-z0-9_-]{22}$")
SECRET_FIELDS = {"deck_id", "salt", "token", "cards", "card", "order", "reshuffle_seed"}


def strings(value: Any, key: str = "") -> Iterator[tuple[str, str]]:
    """(field, string) for every string in a JSON value, lists included."""
    if isinstance(value, dict):
        for k, v in value.items():
            yield from strings(v, k)
    elif isinstance(value, list):
        if value and all(isinstance(v, str) for v in value):
            yield key, " ".join(value)
        for v in value:
            yield from strings(v, key)
    elif isinstance(value, str):
        yield key, value


def forms(secret: bytes) -> set[str]:
    """How a secret could appear in text: hex, base64 (both alphabets)."""
    return {
        secret.hex(),
        base64.b64encode(secret).decode().rstrip("="),
        base64.urlsafe_b64encode(secret).decode().rstrip("="),
    }


async def play_room(stack: Stack) -> tuple[list[str], set[str]]:
    """Play the room; return the tokens and the secrets of every finished hand."""
    async with busy_room(stack) as playing:
        room = playing.room
        await play_until(playing, HANDS)
    secrets: set[str] = set()
    revealed = 0
    async with (
        stack["lobby"].aio_channel("operator") as lobby_channel,
        stack["table"].aio_channel("auditor") as audit_channel,
    ):
        lobby = lobby_pb2_grpc.LobbyOperatorStub(lobby_channel)
        audit = table_pb2_grpc.TableAuditStub(audit_channel)
        for t in room.tables:
            listed = await lobby.ListHands(lpb.ListHandsRequest(table_id=t.table_id, limit=500))
            for hand in listed.hands:
                if hand.status != lpb.HAND_STATUS_FINISHED:
                    continue
                reveal = await audit.GetDeckReveal(
                    tpb.GetDeckRevealRequest(
                        table_id=t.table_id, hand_id=hand.hand_id, audit_token=AUDIT_TOKEN
                    )
                )
                secrets |= forms(reveal.salt)
                if reveal.reshuffle_seed:
                    secrets |= forms(reveal.reshuffle_seed)
                revealed += 1
    assert revealed >= HANDS * len(room.tables)
    tokens = [seat.token for t in room.tables for seat in t.seats]
    return tokens, secrets


def test_no_log_line_of_any_service_holds_a_deck_id_salt_token_or_card() -> None:
    env = {"table": {"TABLE_AUDIT_TOKEN": AUDIT_TOKEN}}
    with Stack(ports="free", env=env) as stack:
        tokens, secrets = asyncio.run(play_room(stack))
        logs = {name: list(process.lines) for name, process in stack.processes.items()}
    found: list[str] = []
    lines = 0
    for name, service_lines in logs.items():
        for line in service_lines:
            lines += 1
            for token in tokens:
                if token in line:
                    found.append(f"{name}: a player's token: {line[:200]}")
            for secret in secrets:
                if secret in line:
                    found.append(f"{name}: a deck salt or seed: {line[:200]}")
            try:
                record = json.loads(line)
            except ValueError:
                continue
            for field, text in strings(record):
                if field in SECRET_FIELDS:
                    found.append(f"{name}: a field named {field!r}: {line[:200]}")
                elif CARD.match(text):
                    found.append(f"{name}: a card in {field!r}: {line[:200]}")
                elif DECK_ID.match(text):
                    found.append(f"{name}: a deck id's shape in {field!r}: {line[:200]}")
    assert lines > 100, "the services logged nothing to check"
    assert found == [], "\n".join(found[:20])
