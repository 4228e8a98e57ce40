"""Playing a tournament: follow the player's seat from table to table until they bust.

A tournament moves players between tables (T3 balancing, broken tables, the final
redraw), so a bot cannot just join one table.  :func:`play_tournament` watches the
lobby's tournament events for its player (``WatchTournament`` with ``player_id``,
resuming from the last sequence number after a dropped stream) and runs
:func:`poker_bots.sdk.play` at the seat of the latest SEATED or MOVED event; on a
move it stops playing at the old table and joins the new one.  It returns when the
player is eliminated or the tournament ends.

A move takes effect between two hands of both tables, so the old table never deals
the player again; the new table may deal them before the bot has joined, in which
case the action clock folds that hand as it would for any player away (T6).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field

import grpc
from grpc import aio

from poker.lobby.v1 import tournament_pb2 as tpb
from poker.lobby.v1 import tournament_pb2_grpc as tpb_grpc

from .sdk import AsyncBot, Bot, play

log = logging.getLogger(__name__)
K = tpb.TournamentEventKind


@dataclass(slots=True)
class TournamentStats:
    """What one player's :func:`play_tournament` saw."""

    tables: list[str] = field(default_factory=list)  # every table joined, in order
    moves: int = 0
    hands: int = 0
    place: int = 0  # 0 while unknown (the stream ended early)
    prize: int = 0
    play_errors: int = 0


async def play_tournament(
    lobby: aio.Channel,
    table: aio.Channel,
    tournament_id: str,
    player_id: str,
    token: str,
    bot: Bot | AsyncBot,
    *,
    max_reconnects: int = 20,
) -> TournamentStats:
    """Play ``player_id``'s tournament with ``bot`` on shared channels to the lobby and
    the table service; returns when the player is out or the tournament is over."""
    stub = tpb_grpc.TournamentsStub(lobby)
    stats = TournamentStats()
    current: tuple[str, asyncio.Task[object], asyncio.Event] | None = None
    next_seq = 1
    failures = 0

    async def stop_current() -> None:
        nonlocal current
        if current is None:
            return
        _table_id, task, stop = current
        current = None
        stop.set()
        try:
            result = await asyncio.wait_for(task, 5)
        except (TimeoutError, asyncio.CancelledError):
            task.cancel()
            return
        except Exception as error:  # a broken table ends its streams: not a failure
            log.debug("play ended: %s", error)
            stats.play_errors += 1
            return
        stats.hands += getattr(result, "hands", 0)

    def join(table_id: str) -> None:
        nonlocal current
        stop = asyncio.Event()
        task: asyncio.Task[object] = asyncio.create_task(
            play(table, table_id, player_id, token, bot, stop=stop, max_reconnects=3, via="table")
        )
        current = (table_id, task, stop)
        stats.tables.append(table_id)

    try:
        while True:
            request = tpb.WatchTournamentRequest(
                tournament_id=tournament_id, from_seq=next_seq, player_id=player_id
            )
            try:
                async for event in stub.WatchTournament(request):
                    failures = 0
                    next_seq = event.seq + 1
                    if event.kind in (
                        K.TOURNAMENT_EVENT_KIND_SEATED,
                        K.TOURNAMENT_EVENT_KIND_MOVED,
                    ):
                        if current is not None and current[0] == event.table_id:
                            continue  # redrawn at the same table: the stream still serves
                        if event.kind == K.TOURNAMENT_EVENT_KIND_MOVED:
                            stats.moves += 1
                        await stop_current()
                        join(event.table_id)
                    elif event.kind == K.TOURNAMENT_EVENT_KIND_ELIMINATED:
                        stats.place = event.place
                        return stats
                    elif event.kind == K.TOURNAMENT_EVENT_KIND_FINISHED:
                        if event.player_id == player_id:
                            stats.place = 1
                            stats.prize = event.prize
                        return stats
                return stats  # the tournament was already over
            except aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.UNAVAILABLE or failures >= max_reconnects:
                    raise
                failures += 1
                await asyncio.sleep(min(5.0, 0.2 * 2**failures))
    finally:
        with contextlib.suppress(Exception):
            await stop_current()


__all__ = ["TournamentStats", "play_tournament"]
