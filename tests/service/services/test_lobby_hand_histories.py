"""The lobby keeps every hand's history (services/lobby/histories.py), on SQLite
and PostgreSQL: FinishHand's ``history`` is stored with the result, in the same
transaction (a refused report stores nothing), and GetHandHistories gives it back
to the table service, by hand or the newest before a hand, with NOT_FOUND and
INVALID_ARGUMENT saying what was wrong.  Only the ``table`` identity may call it."""

from __future__ import annotations

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import lobby_pb2_grpc
from tests.support.lobby import LobbyClient, refused

from . import lobby_support as support
from .process import ServiceProcess

NOT_FOUND = grpc.StatusCode.NOT_FOUND


def report(
    lobby: LobbyClient, table_id: str, hand: pb.NextHandResponse, history: bytes, **fields: object
) -> pb.FinishHandResponse:
    """FinishHand with the stacks unchanged and ``history``."""
    reply: pb.FinishHandResponse = lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=hand.hand_id,
            final_stacks=[pb.SeatInfo(seat=s.seat, stack=s.stack) for s in hand.dealt_in],
            history=history,
            **fields,  # type: ignore[arg-type]
        ),
        timeout=5,
    )
    support.assert_invariant(lobby)
    return reply


def histories(lobby: LobbyClient, table_id: str, **fields: object) -> list[tuple[str, bytes]]:
    reply = lobby.GetHandHistories(
        pb.GetHandHistoriesRequest(table_id=table_id, **fields),  # type: ignore[arg-type]
        timeout=5,
    )
    return [(h.hand_id, h.history) for h in reply.histories]


def table_with_players(lobby: LobbyClient, name: str) -> str:
    tid = support.create(lobby, support.STUD, name=name).table_id
    for n, player in enumerate(support.players(lobby, f"{name}1", f"{name}2"), 1):
        player.sit(tid, 2000, seat=n)
    return tid


def test_every_hand_history_is_stored_with_its_result_and_read_back(lobby: LobbyClient) -> None:
    tid = table_with_players(lobby, "hist")
    played: list[tuple[str, bytes]] = []
    for n in range(7):
        hand = support.next_hand(lobby, tid)
        blob = f"hand {n} ".encode() * (n + 1) + bytes(range(256))  # any bytes: opaque
        if n == 3:  # a voided hand keeps what it has
            report(lobby, tid, hand, blob, voided=True, void_reason="dealer.Deal: UNAVAILABLE")
        else:
            report(lobby, tid, hand, blob)
        played.append((hand.hand_id, blob))

    for hand_id, blob in played:
        assert histories(lobby, tid, hand_id=hand_id) == [(hand_id, blob)]
    assert histories(lobby, tid, limit=500) == played  # oldest first
    assert histories(lobby, tid, limit=3) == played[-3:]
    assert histories(lobby, tid, limit=2, before_hand_id=played[4][0]) == played[2:4]
    assert histories(lobby, tid, limit=9, before_hand_id=played[1][0]) == played[:1]
    assert histories(lobby, tid, limit=9, before_hand_id=played[0][0]) == []

    # A repeat of the report that finished a hand is OK again and stores nothing twice.
    last = support.next_hand(lobby, tid)
    report(lobby, tid, last, b"last")
    report(lobby, tid, last, b"last")
    assert histories(lobby, tid, limit=500) == [*played, (last.hand_id, b"last")]


def test_a_refused_report_stores_no_history(lobby: LobbyClient) -> None:
    """Recorded with its result or not at all: a FinishHand the lobby refuses
    (not the hand in progress; stacks that do not add up) leaves no history."""
    tid = table_with_players(lobby, "refused")
    hand = support.next_hand(lobby, tid)
    stacks = [pb.SeatInfo(seat=s.seat, stack=s.stack + 1) for s in hand.dealt_in]
    code, _ = refused(
        lambda: lobby.FinishHand(
            pb.FinishHandRequest(
                table_id=tid, hand_id=hand.hand_id, final_stacks=stacks, history=b"made up"
            ),
            timeout=5,
        )
    )
    assert code in (grpc.StatusCode.FAILED_PRECONDITION, grpc.StatusCode.INVALID_ARGUMENT)
    code, _ = refused(
        lambda: lobby.FinishHand(
            pb.FinishHandRequest(table_id=tid, hand_id="h-not-this-one", history=b"other"),
            timeout=5,
        )
    )
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert histories(lobby, tid, limit=500) == []
    # A hand reported without a history (an older table service) has none.
    support.finish(lobby, tid, hand)
    code, message = refused(lambda: histories(lobby, tid, hand_id=hand.hand_id))
    assert code == NOT_FOUND and hand.hand_id in message


@pytest.mark.parametrize(
    ("fields", "code", "words"),
    [
        ({"limit": 0}, grpc.StatusCode.INVALID_ARGUMENT, ("limit must be 1..500", "got 0")),
        ({"limit": 501}, grpc.StatusCode.INVALID_ARGUMENT, ("limit must be 1..500",)),
        ({"limit": -1}, grpc.StatusCode.INVALID_ARGUMENT, ("limit must be 1..500",)),
        (
            {"hand_id": "h-1", "limit": 3},
            grpc.StatusCode.INVALID_ARGUMENT,
            ("leave limit and before_hand_id unset",),
        ),
        ({"hand_id": "h-unknown"}, NOT_FOUND, ("no stored history of hand h-unknown",)),
        ({"limit": 5, "before_hand_id": "h-unknown"}, NOT_FOUND, ("h-unknown",)),
        ({"hand_id": "x" * 300}, grpc.StatusCode.INVALID_ARGUMENT, ("hand_id",)),
    ],
)
def test_bad_requests_say_what_is_wrong(
    lobby: LobbyClient, fields: dict[str, object], code: grpc.StatusCode, words: tuple[str, ...]
) -> None:
    tid = table_with_players(lobby, "bad")
    got, message = refused(lambda: histories(lobby, tid, **fields))
    assert got == code, message
    for word in words:
        assert word in message, message


def test_another_tables_hand_is_not_found(lobby: LobbyClient) -> None:
    mine, other = table_with_players(lobby, "mine"), table_with_players(lobby, "other")
    hand = support.next_hand(lobby, other)
    report(lobby, other, hand, b"theirs")
    code, _ = refused(lambda: histories(lobby, mine, hand_id=hand.hand_id))
    assert code == NOT_FOUND
    code, _ = refused(lambda: histories(lobby, mine, limit=5, before_hand_id=hand.hand_id))
    assert code == NOT_FOUND
    assert histories(lobby, mine, limit=5) == []


def test_only_the_table_service_reads_histories(lobby_process: ServiceProcess) -> None:
    """The LobbyHands access option: the histories hold every card of every hand."""
    with lobby_process.channel("operator") as staff:
        stub = lobby_pb2_grpc.LobbyHandsStub(staff)
        code, _ = refused(
            lambda: stub.GetHandHistories(
                pb.GetHandHistoriesRequest(table_id="t-1", limit=1), timeout=5
            )
        )
    assert code == grpc.StatusCode.PERMISSION_DENIED


def test_a_hand_the_lobby_voided_takes_its_voided_history_once(lobby: LobbyClient) -> None:
    """StoreVoidedHistory: the table's voided history of a hand whose report the
    lobby refused because it had voided the hand itself (here at a takeover)."""
    tid = table_with_players(lobby, "void")

    def store(hand_id: str, history: bytes) -> None:
        lobby.StoreVoidedHistory(
            pb.StoreVoidedHistoryRequest(table_id=tid, hand_id=hand_id, history=history),
            timeout=5,
        )

    hand = support.next_hand(lobby, tid)
    code, message = refused(lambda: store(hand.hand_id, b"early"))  # still pending
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "not recorded voided" in message
    lobby.VoidPendingHand(pb.VoidPendingHandRequest(table_id=tid), timeout=5)
    code, _ = refused(lambda: report(lobby, tid, hand, b"as played"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    code, message = refused(lambda: store(hand.hand_id, b""))
    assert code == grpc.StatusCode.INVALID_ARGUMENT and "history is required" in message

    store(hand.hand_id, b"as voided")
    store(hand.hand_id, b"as voided")  # a retry
    code, message = refused(lambda: store(hand.hand_id, b"something else"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION and "stored already" in message
    assert histories(lobby, tid, hand_id=hand.hand_id) == [(hand.hand_id, b"as voided")]

    played = support.next_hand(lobby, tid)
    report(lobby, tid, played, b"played")
    code, _ = refused(lambda: store(played.hand_id, b"rewritten"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    code, _ = refused(lambda: store("h-unknown", b"x"))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert histories(lobby, tid, limit=5) == [
        (hand.hand_id, b"as voided"),
        (played.hand_id, b"played"),
    ]
