"""The lobby service over real gRPC: reflection and metrics, a restart on a store on
disk, and ListHands' pages on both stores.

The ledger's invariant after every step and the two stores: ``lobby_support.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.health import reflected_services
from tests.support.lobby import LobbyClient, lobby_client
from tests.support.metrics import scrape
from tests.support.postgres import PostgresServer

from . import lobby_support as support
from .process import ServiceProcess

# ---------------------------------------------------------------- service plumbing


def test_lobby_is_listed_by_reflection_and_counts_in_metrics(
    lobby: LobbyClient, lobby_process: ServiceProcess
) -> None:
    assert "poker.lobby.v1.Lobby" in reflected_services(lobby_process)
    table = support.create(lobby, support.DRAW)
    for name in ("a", "b"):
        support.Player(lobby, name).sit(table.table_id, 1000)
    support.finish(lobby, table.table_id, support.next_hand(lobby, table.table_id))
    samples = scrape(lobby_process)
    assert samples[("lobby_players_registered_total", ())] >= 2
    assert samples[("lobby_hands_finished_total", (("game", "draw_7a"),))] >= 1
    assert samples[("lobby_seated_players", (("game", "draw_7a"),))] >= 2
    assert samples[("lobby_buy_in_chips_total", (("game", "draw_7a"),))] >= 2000


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_restart_keeps_players_tables_and_seats(
    tmp_path: Path, store: str, request: pytest.FixtureRequest
) -> None:
    """LOBBY_DB on disk (a SQLite file, or a PostgreSQL database): players, tokens,
    tables and stacks survive; a hand in progress is forgotten and pending
    stand-ups are completed."""
    if store == "sqlite":
        env = {"LOBBY_DB": str(tmp_path / "lobby.db")}
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        env = {"LOBBY_DB": server.database()}
    with ServiceProcess("lobby", env) as first, lobby_client(first) as lobby:
        table = support.create(lobby, support.STUD, name="durable")
        tid = table.table_id
        alice, bob, carol = support.players(lobby, "alice", "bob", "carol")
        for p in (alice, bob, carol):
            p.sit(tid, 1000)
        first_hand = support.next_hand(lobby, tid)
        support.finish(
            lobby, tid, first_hand, support.moved(first_hand, winner=1, loser=2, chips=200)
        )
        hand = support.next_hand(lobby, tid)
        assert carol.stand(tid).pending
        totals = support.assert_invariant(lobby)
    with ServiceProcess("lobby", env) as second, lobby_client(second) as lobby:
        alice.lobby = bob.lobby = carol.lobby = lobby
        assert support.assert_invariant(lobby).granted == totals.granted
        assert (alice.get().balance, alice.get().at_tables) == (99_000, 1200)
        assert carol.get().balance == 100_000  # the pending stand-up completed
        restored = support.table_of(lobby, tid)
        assert (restored.name, restored.config, restored.hands_played) == (
            "durable",
            support.STUD,
            1,
        )
        assert support.stacks(lobby, tid) == {1: 1200, 2: 800}
        stale = pb.FinishHandRequest(table_id=tid, hand_id=hand.hand_id, voided=True)
        assert support.code_of(lambda: lobby.FinishHand(stale)) == support.FAILED
        fresh = support.next_hand(lobby, tid)
        assert fresh.play and fresh.hand_id != hand.hand_id
        support.finish(lobby, tid, fresh)


def test_list_hands_pages_on_both_stores(lobby: LobbyClient) -> None:
    """ListHands' keyset pages (planned_at, hand_id) run the same SQL on SQLite and
    PostgreSQL: together they are the table's hands once each, newest first."""
    tid = support.create(lobby, support.STUD, name="pages").table_id
    for name in ("pa", "pb", "pc"):
        support.Player(lobby, name).sit(tid, 1000)
    for _ in range(10):
        support.finish(lobby, tid, support.next_hand(lobby, tid))
    everything = [
        h.hand_id
        for h in lobby.ListHands(pb.ListHandsRequest(table_id=tid, limit=500), timeout=5).hands
    ]
    assert len(set(everything)) == 10
    listed: list[str] = []
    token = ""
    while True:
        reply = lobby.ListHands(
            pb.ListHandsRequest(table_id=tid, limit=3, page_token=token), timeout=5
        )
        listed.extend(h.hand_id for h in reply.hands)
        token = reply.next_page_token
        if not token:
            break
    assert listed == everything
    bad = pb.ListHandsRequest(table_id=tid, page_token="not a token")
    assert support.code_of(lambda: lobby.ListHands(bad, timeout=5)) == support.INVALID
