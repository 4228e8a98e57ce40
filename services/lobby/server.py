"""The lobby's ServiceSpec: its settings (see the package docstring) and servicer."""

from __future__ import annotations

import grpc

from poker.lobby.v1 import lobby_pb2, lobby_pb2_grpc, tournament_pb2, tournament_pb2_grpc
from service_kit import ServiceSpec
from service_kit.logs import get_logger
from service_kit.settings import env_int, env_secret, env_str

from .servicer import ERROR_CODES, LobbyServicer, LobbySettings
from .store import LobbyStore
from .tournament_store import TournamentStore
from .tournaments import TournamentBook, TournamentsServicer

SERVICE_NAME = lobby_pb2.DESCRIPTOR.services_by_name["Lobby"].full_name
TOURNAMENTS_NAME = tournament_pb2.DESCRIPTOR.services_by_name["Tournaments"].full_name


def make_spec() -> ServiceSpec:
    """Read LOBBY_* settings, open the store and rebuild the tables from it."""
    default_balance = env_int("LOBBY_DEFAULT_BALANCE", 100_000, minimum=1, maximum=10**12)
    settings = LobbySettings(
        default_balance=default_balance,
        max_balance=env_int(
            "LOBBY_MAX_BALANCE",
            max(1_000_000_000, default_balance),
            minimum=default_balance,
            maximum=10**12,
        ),
        max_orbits_away=env_int("LOBBY_MAX_ORBITS_AWAY", 3, minimum=0, maximum=1000),
    )
    path = env_str("LOBBY_DB", ":memory:")
    if path == ":memory:":
        get_logger().warning("LOBBY_DB is :memory:, nothing survives a restart")
    # PostgreSQL's password, when LOBBY_DB is a URL: LOBBY_DB_PASSWORD or, in
    # Kubernetes, the mounted Secret LOBBY_DB_PASSWORD_FILE names (or libpq's own
    # PGPASSWORD/PGPASSFILE when both are empty).
    password = env_secret("LOBBY_DB_PASSWORD") or None
    store = LobbyStore(path, password=password)
    servicer = LobbyServicer(store, settings)
    # Tournaments share the store (one database, one transaction per call) and the
    # Lobby servicer hands their tables' NextHand/FinishHand to the book.
    book = TournamentBook(TournamentStore(store))
    servicer.tournaments = book
    tournaments = TournamentsServicer(book)

    def register(server: grpc.aio.Server) -> None:
        lobby_pb2_grpc.add_LobbyServicer_to_server(servicer, server)
        tournament_pb2_grpc.add_TournamentsServicer_to_server(tournaments, server)

    return ServiceSpec(
        name="lobby",
        service_names=(SERVICE_NAME, TOURNAMENTS_NAME),
        register=register,
        error_codes=ERROR_CODES,  # the servicer checks first: the library's last word
    )
