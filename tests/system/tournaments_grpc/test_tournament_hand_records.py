"""ListHands lists a tournament table's hands as a ring table's (issue 19: hand
histories stored once, ring and tournament alike): newest first, how each ended
(finished, voided by the table with its reason, voided at a takeover or by a
lobby restart), the stacks dealt in, the same pages; and each hand's history,
sent with its result, is stored with it (GetHandHistories)."""

from __future__ import annotations

from pathlib import Path

import grpc

from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import refused
from tests.support.tournaments import Driver, Lobby, lobby_process, players, request, started


def listed(lobby: Lobby, table_id: str, limit: int = 500, token: str = "") -> pb.ListHandsResponse:
    reply: pb.ListHandsResponse = lobby.lobby.ListHands(
        pb.ListHandsRequest(table_id=table_id, limit=limit, page_token=token)
    )
    return reply


def report(
    lobby: Lobby, table_id: str, plan: pb.NextHandResponse, history: bytes, **fields: object
) -> None:
    lobby.lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=plan.hand_id,
            final_stacks=[
                pb.SeatInfo(seat=s.seat, player_id=s.player_id, stack=s.stack)
                for s in plan.dealt_in
            ],
            history=history,
            **fields,  # type: ignore[arg-type]
        )
    )


def test_list_hands_lists_a_tournament_tables_hands(lobby: Lobby) -> None:
    field = players(lobby, 3)
    tid = started(lobby, request(), field)
    d = Driver(lobby, tid)
    table_id = d.open_tables()[0].table_id
    assert list(listed(lobby, table_id).hands) == []

    first = d.next_hand(table_id)
    report(lobby, table_id, first, b"first")
    second = d.next_hand(table_id)
    report(lobby, table_id, second, b"second", voided=True, void_reason="betting: UNAVAILABLE")
    third = d.next_hand(table_id)
    lobby.lobby.VoidPendingHand(pb.VoidPendingHandRequest(table_id=table_id))
    pending = d.next_hand(table_id)

    hands = listed(lobby, table_id).hands
    assert [h.hand_id for h in hands] == [
        pending.hand_id,
        third.hand_id,
        second.hand_id,
        first.hand_id,
    ]
    assert [h.status for h in hands] == [
        pb.HAND_STATUS_PENDING,
        pb.HAND_STATUS_VOIDED,
        pb.HAND_STATUS_VOIDED,
        pb.HAND_STATUS_FINISHED,
    ]
    assert hands[1].void_reason == "voided when a table service took the table over"
    assert hands[2].void_reason == "voided by the table service: betting: UNAVAILABLE"
    assert hands[3].void_reason == ""
    assert all(h.table_id == table_id for h in hands)
    assert list(hands[3].dealt_in) == list(first.dealt_in)
    assert hands[0].ended_at_unix_ms == 0
    assert all(h.ended_at_unix_ms >= h.planned_at_unix_ms > 0 for h in hands[1:])

    # The same pages as a ring table's.
    page = listed(lobby, table_id, limit=3)
    assert [h.hand_id for h in page.hands] == [h.hand_id for h in hands[:3]]
    rest = listed(lobby, table_id, limit=3, token=page.next_page_token)
    assert [h.hand_id for h in rest.hands] == [first.hand_id] and not rest.next_page_token

    # The histories sent with the results, the voided one's included, and the one
    # the table sends for a hand the lobby voided itself (StoreVoidedHistory).
    lobby.lobby.StoreVoidedHistory(
        pb.StoreVoidedHistoryRequest(table_id=table_id, hand_id=third.hand_id, history=b"third")
    )
    code, _ = refused(
        lambda: lobby.lobby.StoreVoidedHistory(
            pb.StoreVoidedHistoryRequest(table_id=table_id, hand_id=first.hand_id, history=b"x")
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION  # played: its history came with it
    stored = lobby.lobby.GetHandHistories(pb.GetHandHistoriesRequest(table_id=table_id, limit=9))
    assert [(h.hand_id, h.history) for h in stored.histories] == [
        (first.hand_id, b"first"),
        (second.hand_id, b"second"),
        (third.hand_id, b"third"),
    ]

    code, message = refused(
        lambda: lobby.lobby.ListHands(pb.ListHandsRequest(table_id=table_id, limit=501))
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "limit" in message


def test_a_lobby_restart_voids_the_pending_tournament_hand_in_the_listing(tmp_path: Path) -> None:
    env = {"LOBBY_DB": str(tmp_path / "lobby.sqlite3")}
    with lobby_process(env) as lobby:
        tid = started(lobby, request(), players(lobby, 2))
        d = Driver(lobby, tid)
        table_id = d.open_tables()[0].table_id
        done = d.play(table_id)
        pending = d.next_hand(table_id)
    with lobby_process(env) as lobby:
        hands = listed(lobby, table_id).hands
        assert [(h.hand_id, h.status, h.void_reason) for h in hands] == [
            (pending.hand_id, pb.HAND_STATUS_VOIDED, "voided by the lobby restart"),
            (done.hand_id, pb.HAND_STATUS_FINISHED, ""),
        ]
