# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __G4)
"""PlayMany: many seats over one stream (services/table/many.py, poker_bots.Multiplexer).

The same guarantees as Play, per session: each seat's events carry only what
that seat may see (the leak scan, against the auditor's reveal of every hand),
a wrong token ends that session with PERMISSION_DENIED and changes nothing for
the others, a session must start with a Join, and the bots play whole hands.
Each test runs on the table service's own port (``direct``) and through the
room's door (``door``: the gateway's Room.PlayMany, which routes each session to
its table's shard).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest
from grpc import aio

from poker.room.v1.room_pb2_grpc import RoomStub
from poker.table.v1 import table_pb2 as pb
from poker.table.v1.table_pb2_grpc import TableServiceStub
from poker_bots import Multiplexer, RandomBot, TableView, play
from poker_bots.many import Via as SdkVia

from .leaks import Scan, hand_truth
from .room import STUD_HILO, VIAS, WAIT_S, Room, Via

HANDS = 6
SDK_VIA: dict[Via, SdkVia] = {"direct": "table", "door": "room"}  # as poker_bots says


def channel_of(room: Room, via: Via) -> aio.Channel:
    """A player's channel: the table's public port, or the door."""
    return room.door_channel() if via == "door" else room.stack["table"].player_channel()


@pytest.mark.parametrize("via", VIAS)
def test_play_many_sessions_see_only_their_own_cards__G4(room: Room, via: Via) -> None:
    """Four bots over one PlayMany stream play six hands; every event each session
    received is scanned against the reveal of its hand."""
    table_id = room.create_table(f"many hi-lo {via}", STUD_HILO, 4, min_buy_in=400, clock_ms=5_000)
    players = [room.register(f"many{k}") for k in range(4)]
    seen: dict[str, list[pb.TableEvent]] = {p.player_id: [] for p in players}

    def recorder(player_id: str):  # type: ignore[no-untyped-def]
        def on_event(event: pb.TableEvent, view: TableView) -> None:
            seen[player_id].append(event)

        return on_event

    async def run() -> list[object]:
        async with (
            channel_of(room, via) as channel,
            Multiplexer(channel, via=SDK_VIA[via]) as mux,
        ):
            tasks = [
                asyncio.create_task(
                    play(
                        mux,
                        table_id,
                        p.player_id,
                        p.token,
                        RandomBot(k),
                        hands=HANDS,
                        on_event=recorder(p.player_id),
                        max_reconnects=0,
                    )
                )
                for k, p in enumerate(players)
            ]
            await asyncio.sleep(0.2)  # connected before seated: whole hands only
            for p in players:
                # Deeper than six capped hands can cost (fixed limit 100/200: at most
                # 25 + 4 x 100 x 2 + 4 x 200 x 3 = 3,225 a hand): nobody busts before
                # HANDS (a bust ends play(), issue 18), so every session plays them.
                await asyncio.to_thread(room.sit, p, table_id, 50_000)
            return await asyncio.wait_for(asyncio.gather(*tasks), WAIT_S)

    stats = asyncio.run(run())
    assert all(s.hands >= HANDS for s in stats), stats  # type: ignore[attr-defined]
    assert all(s.rejected == 0 and s.bot_errors == 0 for s in stats), stats  # type: ignore[attr-defined]
    for p in players:
        room.stand(p, table_id)
    public = {h.hand_id: h for h in room.history(table_id)}
    hand_ids = {e.hand_id for events in seen.values() for e in events if e.hand_id}
    assert len(hand_ids & set(public)) >= HANDS
    truths = {h: hand_truth(room.reveal(table_id, h), public[h]) for h in hand_ids & set(public)}
    scan = Scan(truths)
    for p in players:
        events = [e for e in seen[p.player_id] if not e.hand_id or e.hand_id in truths]
        scan.stream(f"PlayMany session of {p.name}", p.player_id, events)
    assert not scan.violations, "\n".join(map(str, scan.violations[:20]))
    assert scan.cards > 0


def _session(number: int, message: pb.PlayerMessage) -> pb.PlayManyRequest:
    return pb.PlayManyRequest(messages=[pb.SessionMessage(session=number, message=message)])


@pytest.mark.parametrize("via", VIAS)
def test_play_many_refuses_a_session_without_changing_the_others(room: Room, via: Via) -> None:
    """A wrong token ends only its session (PERMISSION_DENIED; UNAUTHENTICATED
    through the door); a session that does
    not start with a Join, is numbered 0, or names a table id no table could have
    (empty, past 64 characters) is INVALID_ARGUMENT; a good one gets its
    Snapshot; and a Multiplexer seat sees the refusal as Play's error."""
    table_id = room.create_table(f"many errors {via}", STUD_HILO, 4, min_buy_in=400, clock_ms=5_000)
    good, other = room.register("many good"), room.register("many other")

    async def run() -> dict[int, list[pb.SessionEvent]]:
        async with channel_of(room, via) as channel:
            stub: Any = RoomStub(channel) if via == "door" else TableServiceStub(channel)
            requests: asyncio.Queue[pb.PlayManyRequest | None] = asyncio.Queue()

            async def feed() -> AsyncIterator[pb.PlayManyRequest]:
                while (item := await requests.get()) is not None:
                    yield item

            call = stub.PlayMany(feed())
            join = pb.Join(table_id=table_id, player_id=good.player_id, token=good.token)
            wrong = pb.Join(table_id=table_id, player_id=other.player_id, token="not-the-token")
            ping = pb.PlayerMessage(ping=pb.Ping(nonce=7))
            for request in (
                _session(1, pb.PlayerMessage(join=wrong)),
                _session(2, ping),
                _session(0, pb.PlayerMessage(join=join)),
                _session(
                    4, pb.PlayerMessage(join=pb.Join(player_id=good.player_id, token=good.token))
                ),
                _session(
                    5,
                    pb.PlayerMessage(
                        join=pb.Join(table_id="t" * 65, player_id=good.player_id, token=good.token)
                    ),
                ),
                _session(3, pb.PlayerMessage(join=join)),
                _session(3, ping),
            ):
                requests.put_nowait(request)
            got: dict[int, list[pb.SessionEvent]] = {}
            while not (
                {1, 2, 0, 4, 5} <= got.keys()
                and any(e.event.HasField("pong") for e in got.get(3, []))
            ):
                batch = await asyncio.wait_for(call.read(), WAIT_S)
                assert batch is not aio.EOF
                assert isinstance(batch, pb.PlayManyEvents), batch  # read() is typed object
                for tagged in batch.events:
                    got.setdefault(tagged.session, []).append(tagged)
            requests.put_nowait(None)
            call.cancel()
            return got

    # The door answers a wrong token as a bearer's (UNAUTHENTICATED, one answer for
    # a wrong token and an unknown player); the table's own port, PERMISSION_DENIED.
    refused = (
        grpc.StatusCode.UNAUTHENTICATED if via == "door" else grpc.StatusCode.PERMISSION_DENIED
    )
    got = asyncio.run(run())
    assert got[1][-1].ended.code == refused.value[0]
    assert got[2][-1].ended.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "first message must be" in got[2][-1].ended.message  # "a Join", "its Join"
    assert "Join" in got[2][-1].ended.message
    assert got[0][-1].ended.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    for bad_table in (4, 5):  # the door once ended the whole stream OK here
        assert got[bad_table][-1].ended.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        assert "table_id" in got[bad_table][-1].ended.message
    first = got[3][0].event
    assert first.HasField("snapshot") and first.snapshot.table_id == table_id
    assert not any(e.HasField("ended") for e in got[3])

    async def seat_with_wrong_token() -> None:
        async with (
            channel_of(room, via) as channel,
            Multiplexer(channel, via=SDK_VIA[via]) as mux,
        ):
            await play(mux, table_id, other.player_id, "not-the-token", RandomBot(1))

    with pytest.raises(aio.AioRpcError) as error:
        asyncio.run(seat_with_wrong_token())
    assert error.value.code() == refused
