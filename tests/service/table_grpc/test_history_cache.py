# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs)
"""The table keeps a few hands; the lobby keeps them all (issue 19): GetHandHistory,
GetDeckProof and GetDeckReveal answer exactly the same for a hand whether it is
in the table's cache or read back from the lobby, for every viewer (S12: a
participant sees the called hands that were mucked, the public does not; G4a: a
proof opens only the cards that viewer's history shows), and a listing of the last
hands is the same across the cache's edge and after a restart (nothing cached).

The room is the in-process one (tests/support/phh_room.py): the table service's
own runtime against the real lobby servicer, so every hand's history goes to the
lobby with its FinishHand as in production.  The reference answers are taken with
every hand cached; then the table's cache is cut to its last five hands, then
emptied, and every answer is asked again."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from service_kit.errors import ServiceError
from services.table.history import History
from tests.support.phh_room import Room, TableRun

from .bots import quiet

STUD_HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=5, bring_in=10, small_bet=20, big_bet=40
)
DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=20, big_bet=40)
HANDS = 30
CACHED = 5
WAIT_S = 120.0  # a guard against hangs, never an assertion on speed


async def answer(call: Any) -> Any:
    """A reply, or the refusal's status code and message (compared as well)."""
    try:
        return await call
    except ServiceError as error:
        return (error.code, error.message)


async def answers(room: Room, run: TableRun) -> dict[Any, Any]:
    """Every history, proof and reveal of every hand the table played, for the
    public and each player of the hand, plus listings of the last hands."""
    runtime = room.manager.tables[run.table_id]
    out: dict[Any, Any] = {}
    for hand_id, players in run.players_of.items():
        for viewer in (None, *players):
            token = room.token(viewer) if viewer else ""
            history = tpb.GetHandHistoryRequest(
                table_id=run.table_id, hand_id=hand_id, player_id=viewer or "", token=token
            )
            proof = tpb.GetDeckProofRequest(
                table_id=run.table_id, hand_id=hand_id, player_id=viewer or "", token=token
            )
            # No gRPC context: these handlers never touch it.
            out["history", hand_id, viewer] = await answer(
                room.servicer.GetHandHistory(history, None)  # type: ignore[arg-type]
            )
            out["proof", hand_id, viewer] = await answer(
                room.servicer.GetDeckProof(proof, None)  # type: ignore[arg-type]
            )
        out["reveal", hand_id] = await answer(runtime.reveal(hand_id))
    someone = next(iter(run.players_of.values()))[0]
    for limit in (1, CACHED - 1, CACHED, CACHED + 1, 20, 100):
        for viewer in (None, someone):
            out["last", limit, viewer] = await answer(runtime.histories(viewer, "", limit))
    return out


async def play(config: common.GameConfig, seats: int, seed: int) -> None:
    room = Room(seed=seed, timeout_p=0.03)
    run = await room.create_table(config, seats=seats, target=HANDS)
    await room.play(WAIT_S)
    runtime = room.manager.tables[run.table_id]
    played = [h.hand_id for h in runtime.history]
    assert len(played) >= HANDS and set(run.players_of) <= set(played)

    everything_cached = await answers(room, run)
    assert len(everything_cached["last", 100, None]) == len(played)

    # The table keeps its last CACHED hands; the rest are the lobby's.
    edge = History(run.table_id, CACHED, room.ds)  # type: ignore[arg-type]
    edge._hands.extend(list(runtime.history)[-CACHED:])  # as the loop left them
    runtime.history = edge
    assert await answers(room, run) == everything_cached

    # A restarted table service: nothing cached, every hand from the lobby.
    runtime.history = History(run.table_id, CACHED, room.ds)  # type: ignore[arg-type]
    assert await answers(room, run) == everything_cached

    # An unknown hand is NOT_FOUND either way.
    missing = await answer(runtime.histories(None, "h-none", 1))
    assert missing[0] == grpc.StatusCode.NOT_FOUND


def test_histories_are_the_same_from_the_cache_and_from_the_lobby__S12_G4a() -> None:
    """Stud hi-lo, six seats (mucked and shown hands, split pots), with clock
    timeouts and voids."""
    with quiet():
        asyncio.run(play(STUD_HILO, 6, seed=19))


def test_draw_histories_are_the_same_from_the_cache_and_from_the_lobby__S12_G4a() -> None:
    """Draw (discards and replacements, the D6 reshuffle in the proof)."""
    with quiet():
        asyncio.run(play(DRAW, 5, seed=23))


async def play_with_a_hand_the_lobby_voided() -> None:
    """The lobby voids the third hand before its report arrives (as its restart
    does): the report is refused, the table records the hand voided (a second
    HandFinished, voided, every stack as at its start) and sends that history to
    the lobby (StoreVoidedHistory), so once out of the cache it reads the same."""
    room = Room(seed=29, timeout_p=0.0)
    run = await room.create_table(STUD_HILO, seats=3, target=12)
    inner = room.ds.call
    reports: list[str] = []

    async def lobby_voids_the_third(service: str, method: str, request: Any, **options: Any) -> Any:
        if method == "FinishHand" and not request.voided:
            reports.append(request.hand_id)
            if len(reports) == 3:
                await inner(
                    "lobby",
                    "VoidPendingHand",
                    lpb.VoidPendingHandRequest(table_id=run.table_id, reason="a lobby restart"),
                )
        return await inner(service, method, request, **options)

    room.ds.call = lobby_voids_the_third  # type: ignore[method-assign]
    await room.play(WAIT_S)
    runtime = room.manager.tables[run.table_id]
    await runtime.history.stored_voids()
    voided = reports[2]
    everything_cached = await answers(room, run)
    public = everything_cached["history", voided, None].hands[0]
    finishes = [e.hand_finished for e in public.events if e.WhichOneof("event") == "hand_finished"]
    assert [f.voided for f in finishes] == [False, True]
    assert public.phh  # still written from the viewer's events

    runtime.history = History(run.table_id, CACHED, room.ds)  # type: ignore[arg-type]
    assert voided not in [h.hand_id for h in runtime.history]
    assert await answers(room, run) == everything_cached
    listed = await room.lobby("ListHands", lpb.ListHandsRequest(table_id=run.table_id, limit=500))
    (record,) = [h for h in listed.hands if h.hand_id == voided]
    assert record.status == lpb.HAND_STATUS_VOIDED and record.void_reason == "a lobby restart"


def test_a_hand_the_lobby_voided_reads_voided_from_the_lobby_too() -> None:
    with quiet():
        asyncio.run(play_with_a_hand_the_lobby_voided())
