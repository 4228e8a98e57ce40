"""The lobby's ServiceSpec: its settings (``settings.LobbySettings``) and servicer."""

from __future__ import annotations

import asyncio

import grpc

from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc, tournament_pb2, tournament_pb2_grpc
from service_kit import ServiceSpec
from service_kit.logs import get_logger

from .metrics import reconcile_every
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
    tournaments = TournamentsServicer(book)
    background: set[asyncio.Task[None]] = set()

    def register(server: grpc.aio.Server) -> None:
        # Called on the serving loop: the ledger's full reconciliation, every
        # LOBBY_RECONCILE_S, on a thread (the gauges follow running totals).
        background.add(asyncio.create_task(reconcile_every(store, settings.reconcile_s)))
        lobby_pb2_grpc.add_LobbyServicer_to_server(servicer, server)
        lobby_pb2_grpc.add_LobbyHandsServicer_to_server(servicer, server)
        lobby_pb2_grpc.add_LobbyOperatorServicer_to_server(servicer, server)
        tournament_pb2_grpc.add_TournamentsServicer_to_server(tournaments, server)
        tournament_pb2_grpc.add_TournamentOperatorServicer_to_server(tournaments, server)

    async def stop() -> None:
        for task in background:
            task.cancel()
        await asyncio.gather(*background, return_exceptions=True)

    return ServiceSpec(
        name="lobby",
        service_names=SERVICE_NAMES,
        register=register,
        error_codes=ERROR_CODES,  # the servicer checks first: the library's last word
        on_shutdown=stop,
    )
