# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __G4)
"""Spectators fan out once, bounded (services/table/viewers.py).

Random bots play real hands in this process (``tests.support.phh_room``: the
table's manager, runtime and servicer over the real lobby, dealer, betting and
showdown servicers), and spectators are ``TableServicer.Watch`` streams, called
as grpc calls them (an async generator of the bytes it sends) with a stand-in
context, so a test decides exactly when each spectator reads:

- each public event is serialized once for every spectator of the table: the
  same bytes object in every stream;
- what spectators receive is the public view, unchanged: each hand's events are
  the public hand history's, and a down card is never in them (G4);
- a spectator that stops reading is dropped when TABLE_WATCH_BUFFER events wait
  for it (RESOURCE_EXHAUSTED "too slow"), its place given up at once, while the
  table keeps dealing and the other spectators keep receiving every event.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from prometheus_client import REGISTRY

from poker.table.v1 import table_pb2 as tpb
from service_kit.identity import spiffe_id
from services.table import viewers
from services.table.viewers import WatchLimits
from tests.support.phh_room import Room, TableRun

from .bots import quiet, table_with_bots
from .inroom import WAIT_S


class AbortedError(Exception):
    """What ``context.abort`` raises (grpc's AbortError ends the handler too)."""

    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        super().__init__(f"{code.name}: {details}")
        self.code = code
        self.details = details


class Context:
    """The parts of a grpc.aio ServicerContext that Watch reads."""

    def __init__(self, identity: str | None = None, peer: str = "ipv4:127.0.0.1:40000") -> None:
        self.identity = identity
        self._peer = peer

    def peer(self) -> str:
        return self._peer

    def auth_context(self) -> dict[str, list[bytes]]:
        if self.identity is None:
            return {}
        return {"peer_spiffe_id": [spiffe_id(self.identity).encode()]}

    def invocation_metadata(self) -> tuple[()]:
        return ()

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise AbortedError(code, details)


class Spectator:
    """One Watch stream read by a task (``reading``) or not at all."""

    def __init__(self, room: Room, table_id: str, *, reading: bool = True) -> None:
        request = tpb.WatchRequest(table_id=table_id)
        context: Any = Context("gateway")
        self.stream: AsyncIterator[bytes] = room.servicer.Watch(request, context)
        self.received: list[bytes] = []
        self.ended: AbortedError | None = None
        self.task: asyncio.Task[None] | None = None
        self.reading = reading

    async def open(self) -> None:
        """Take the first message (the Snapshot): the watcher is at the table."""
        self.received.append(await anext(self.stream))
        if self.reading:
            self.task = asyncio.create_task(self.read())

    async def read(self) -> None:
        try:
            async for wire in self.stream:
                self.received.append(wire)
        except AbortedError as error:
            self.ended = error

    def events(self) -> list[tpb.TableEvent]:
        return [tpb.TableEvent.FromString(wire) for wire in self.received]

    def by_hand(self) -> dict[str, list[tpb.TableEvent]]:
        hands: dict[str, list[tpb.TableEvent]] = {}
        for event in self.events()[1:]:
            hands.setdefault(event.hand_id, []).append(event)
        return hands


def spectators_connected() -> float:
    return REGISTRY.get_sample_value("table_connected_streams", {"kind": "spectator"}) or 0.0


def dropped(reason: str) -> float:
    value = REGISTRY.get_sample_value("table_watchers_dropped_total", {"reason": reason})
    return value or 0.0


def complete(events: list[tpb.TableEvent]) -> bool:
    """A whole hand: event_seq 1, 2, 3... up to its HandFinished."""
    return (
        bool(events)
        and [e.event_seq for e in events] == list(range(1, len(events) + 1))
        and events[-1].HasField("hand_finished")
    )


def test_each_public_event_is_serialized_once_for_all_spectators(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    serialized: list[bytes] = []
    real = viewers.serialize

    def counted(event: tpb.TableEvent) -> bytes:
        wire = real(event)
        serialized.append(wire)
        return wire

    monkeypatch.setattr(viewers, "serialize", counted)

    async def main() -> list[Spectator]:
        room, run = await table_with_bots(WatchLimits(), hands=4, seed=16)
        spectators = [Spectator(room, run.table_id) for _ in range(6)]
        for spectator in spectators:
            await spectator.open()
        await room.play(WAIT_S)
        await asyncio.gather(*(s.task for s in spectators if s.task is not None))
        return spectators

    with quiet():
        spectators = asyncio.run(main())
    first, *others = spectators
    # The first spectator was sent every event serialized since it came (after
    # its own Snapshot); the others every event since they came, moments later.
    events = first.received[1:]
    assert len(events) > 30, "four hands' events"
    # One serialization per event, not one per spectator: the very same bytes
    # object went into every spectator's stream.
    assert len(serialized) == len(events)
    assert all(a is b for a, b in zip(serialized, events, strict=True))
    for other in others:
        mine = other.received[1:]
        assert len(events) // 2 < len(mine) <= len(events)
        assert all(a is b for a, b in zip(mine, events[len(events) - len(mine) :], strict=True))
        assert other.received[0] is not first.received[0]  # the Snapshot is each one's
    for spectator in spectators:
        assert spectator.ended is not None
        assert spectator.ended.code == grpc.StatusCode.UNAVAILABLE  # the table stopped


def test_spectators_get_the_public_view_and_never_a_down_card__G4() -> None:
    async def main() -> tuple[Spectator, dict[str, tpb.HandHistory]]:
        room, run = await table_with_bots(WatchLimits(), hands=7, seed=5)
        spectator = Spectator(room, run.table_id)
        await spectator.open()
        await room.play(WAIT_S)
        assert spectator.task is not None
        await spectator.task
        public = await room.manager.tables[run.table_id].histories(None, "", 100)
        return spectator, {h.hand_id: h for h in public}

    with quiet():
        spectator, histories = asyncio.run(main())
    hands = spectator.by_hand()
    watched = [h for h in histories if complete(hands.get(h, []))]
    assert len(watched) >= 4, "the hands played after the spectator came"
    down = 0
    for hand_id in watched:
        # What the spectator was sent live is what the public history shows of
        # the hand: the one spectators' view (facts.view, viewer SPECTATOR).
        assert list(hands[hand_id]) == list(histories[hand_id].events), hand_id
        for event in hands[hand_id]:
            if event.HasField("cards_dealt") and not event.cards_dealt.up:
                assert not event.cards_dealt.cards, f"a down card went to a spectator: {event}"
                assert event.cards_dealt.hidden_count > 0
                down += 1
    assert down > 0, "down cards were dealt (and hidden)"


def test_a_spectator_that_stops_reading_is_dropped_and_the_table_deals_on() -> None:
    buffer = 32

    async def main() -> tuple[Spectator, list[Spectator], TableRun, float, str, float]:
        room, run = await table_with_bots(WatchLimits(buffer=buffer), hands=6, seed=9)
        connected = spectators_connected()
        too_slow = dropped("too_slow")
        slow = Spectator(room, run.table_id, reading=False)
        await slow.open()
        readers = [Spectator(room, run.table_id) for _ in range(2)]
        for reader in readers:
            await reader.open()
        runtime = room.manager.tables[run.table_id]
        assert len(runtime.viewers.spectators) == 3
        assert spectators_connected() == connected + 3

        playing = asyncio.create_task(room.play(WAIT_S))
        for _ in range(int(WAIT_S / 0.01)):
            if dropped("too_slow") > too_slow:
                break
            await asyncio.sleep(0.01)
        # Dropped: its place at the table is free at once, though its stream has
        # not run since (a client that stopped reading)...
        assert dropped("too_slow") == too_slow + 1
        assert len(runtime.viewers.spectators) == 2
        assert len(run.hands) < run.target, "dropped while the table was dealing"
        await playing  # ... and the table dealt on to its last hand
        for reader in readers:
            assert reader.task is not None
            await reader.task
        # The dropped stream, read again: nothing of what waited, then the status.
        with pytest.raises(AbortedError) as info:
            await anext(slow.stream)
        assert info.value.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        return slow, readers, run, connected, info.value.details, spectators_connected()

    with quiet():
        slow, readers, run, connected, details, after = asyncio.run(main())
    assert details.startswith("too slow:")
    assert f"{buffer} events" in details and "TABLE_WATCH_BUFFER" in details
    assert len(slow.received) == 1  # the Snapshot only: it never read again
    assert after == connected, "every stream closed is off the gauge"
    assert len(run.hands) >= run.target
    for reader in readers:
        hands = reader.by_hand()
        # The readers saw every hand the table finished, each whole.
        assert all(complete(hands.get(h, [])) for h in run.hands[1:]), reader.by_hand().keys()
        assert reader.ended is not None and reader.ended.code == grpc.StatusCode.UNAVAILABLE
