"""The lobby's ServiceSpec: its settings (``settings.LobbySettings``) and servicer."""

from __future__ import annotations

import asyncio

import grpc

from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc, tournament_pb2, tournament_pb2_grpc
from service_kit import ServiceSpec
from service_kit.logs import get_logger

from .commits import DurableServicer, GroupCommitter
from .metrics import STORE_FSYNCS, STORE_GROUPS, STORE_TRANSACTIONS, reconcile_every
from .retention import Retention, retain_every
from .servicer import ERROR_CODES, LobbyServicer
from .settings import LobbySettings
from .store import LobbyStore
from .tournament import TournamentBook, TournamentsServicer
from .tournament_store import TournamentStore

# The player plane, the table's hand protocol and the staff's calls
# (poker/common/v1/access.proto says who may call which).
SERVICE_NAMES = tuple(
    lobby_pb2.DESCRIPTOR.services_by_name[name].full_name
    for name in ("Lobby", "LobbyHands", "LobbyOperator")
) + tuple(
    tournament_pb2.DESCRIPTOR.services_by_name[name].full_name
    for name in ("Tournaments", "TournamentOperator")
)


def make_spec() -> ServiceSpec:
    """Read LOBBY_* settings, open the store and rebuild the tables from it."""
    settings = LobbySettings.from_env()
    if settings.db == ":memory:":
        get_logger().warning("LOBBY_DB is :memory:, nothing survives a restart")
    # PostgreSQL's password, when LOBBY_DB is a URL: LOBBY_DB_PASSWORD or, in
    # Kubernetes, the mounted Secret LOBBY_DB_PASSWORD_FILE names (or libpq's own
    # PGPASSWORD/PGPASSFILE when both are empty).
    password = settings.db_password or None
    store = LobbyStore(settings.db, password=password)
    # Tournaments share the store (one database, one transaction per call); the
    # Lobby servicer hands their tables' calls to the tournament book.
    book = TournamentBook(TournamentStore(store))
    servicer = LobbyServicer(store, settings, book)
    lobby: object = servicer
    tournaments: object = TournamentsServicer(book)
    background: set[asyncio.Task[None]] = set()
    committer: GroupCommitter | None = None
    retention = Retention(
        store, settings.keep_hands_days, settings.keep_ledger_days, book.hand_rows
    )

    def register(server: grpc.aio.Server) -> None:
        nonlocal committer, lobby, tournaments
        # Called on the serving loop.  A SQLite file: group commit, every answer
        # sent once what it reports is durable (commits.py).
        if store.wal_path is not None and settings.group_commit:
            committer = GroupCommitter(
                store,
                window_s=settings.group_commit_ms / 1000,
                checkpoint_s=settings.checkpoint_s,
                on_sync=_count_sync,
                on_group=_count_group,
            )
            committer.start()
            servicer.answers_early = True  # FinishHand answered when applied
            lobby = DurableServicer(lobby, committer)
            tournaments = DurableServicer(tournaments, committer)
        # The ledger's full reconciliation, every LOBBY_RECONCILE_S, on a thread
        # (the gauges follow running totals); retention, if any is set.
        background.add(asyncio.create_task(reconcile_every(store, settings.reconcile_s)))
        if retention.enabled:
            background.add(asyncio.create_task(retain_every(retention, settings.retention_s)))
        lobby_pb2_grpc.add_LobbyServicer_to_server(lobby, server)  # type: ignore[arg-type]
        lobby_pb2_grpc.add_LobbyHandsServicer_to_server(lobby, server)  # type: ignore[arg-type]
        lobby_pb2_grpc.add_LobbyOperatorServicer_to_server(lobby, server)  # type: ignore[arg-type]
        tournament_pb2_grpc.add_TournamentsServicer_to_server(tournaments, server)  # type: ignore[arg-type]
        tournament_pb2_grpc.add_TournamentOperatorServicer_to_server(tournaments, server)  # type: ignore[arg-type]

    async def stop() -> None:
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)
        if committer is not None:  # the open group committed and synced
            await committer.stop()

    return ServiceSpec(
        name="lobby",
        service_names=SERVICE_NAMES,
        register=register,
        error_codes=ERROR_CODES,  # the servicer checks first: the library's last word
        on_shutdown=stop,
    )


def _count_sync(kind: str, n: int) -> None:
    STORE_FSYNCS.labels(kind).inc(n)


def _count_group(transactions: int) -> None:
    STORE_GROUPS.inc()
    STORE_TRANSACTIONS.inc(transactions)
