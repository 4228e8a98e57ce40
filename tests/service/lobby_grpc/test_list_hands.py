"""ListHands pages (a bot lab downloading every hand of a table): newest first,
``limit`` at a time, each page's ``next_page_token`` naming where the next one
starts; the pages together are the table's hands exactly once, in order, even when
hands are played between two pages; a token ListHands did not hand out is
INVALID_ARGUMENT and changes nothing."""

from __future__ import annotations

import base64

import grpc
import pytest

from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient, refused

from .client import Player, create_table, next_hand, play


def table_with_hands(lobby: LobbyClient, name: str, hands: int) -> str:
    """A draw table where ``hands`` hands were played, then one more planned (pending)."""
    table = create_table(lobby, seats=3)
    for seat in (1, 2, 3):
        Player(lobby, f"{name}-{seat}").sit(table.table_id, seat)
    for _ in range(hands):
        play(lobby, table.table_id)
    assert next_hand(lobby, table.table_id).play
    return table.table_id


def pages(lobby: LobbyClient, table_id: str, limit: int) -> list[list[str]]:
    out: list[list[str]] = []
    token = ""
    while True:
        reply = lobby.ListHands(
            pb.ListHandsRequest(table_id=table_id, limit=limit, page_token=token), timeout=5
        )
        out.append([h.hand_id for h in reply.hands])
        token = reply.next_page_token
        if not token:
            return out
        assert len(reply.hands) == limit  # only a full page has a next one


def newest_first(lobby: LobbyClient, table_id: str) -> list[str]:
    reply = lobby.ListHands(pb.ListHandsRequest(table_id=table_id, limit=500), timeout=5)
    assert not reply.next_page_token
    return [h.hand_id for h in reply.hands]


@pytest.mark.parametrize("limit", [1, 7, 13, 26, 500])
def test_the_pages_are_every_hand_once_newest_first(lobby: LobbyClient, limit: int) -> None:
    table_id = table_with_hands(lobby, f"pages{limit}", 25)  # 26 hands, one pending
    everything = newest_first(lobby, table_id)
    assert len(everything) == 26 and len(set(everything)) == 26
    got = pages(lobby, table_id, limit)
    assert [h for page in got for h in page] == everything
    assert len(got) == -(-26 // limit)  # 13 and 26 end on a full page: no empty page after


def test_hands_played_between_two_pages_do_not_shift_the_next(lobby: LobbyClient) -> None:
    table_id = table_with_hands(lobby, "drift", 9)  # 10 hands, the newest pending
    before = newest_first(lobby, table_id)
    first = lobby.ListHands(pb.ListHandsRequest(table_id=table_id, limit=4), timeout=5)
    assert [h.hand_id for h in first.hands] == before[:4]
    # The pending hand is finished and three more are played meanwhile.
    pending = first.hands[0]
    assert pending.status == pb.HAND_STATUS_PENDING
    lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=pending.hand_id,
            final_stacks=[pb.SeatInfo(seat=s.seat, stack=s.stack) for s in pending.dealt_in],
        ),
        timeout=5,
    )
    for _ in range(3):
        play(lobby, table_id)
    rest: list[str] = []
    token = first.next_page_token
    while token:
        reply = lobby.ListHands(
            pb.ListHandsRequest(table_id=table_id, limit=4, page_token=token), timeout=5
        )
        rest.extend(h.hand_id for h in reply.hands)
        token = reply.next_page_token
    assert rest == before[4:]


def test_a_table_without_hands_has_one_empty_page(lobby: LobbyClient) -> None:
    table = create_table(lobby)
    reply = lobby.ListHands(pb.ListHandsRequest(table_id=table.table_id), timeout=5)
    assert list(reply.hands) == [] and reply.next_page_token == ""


def b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode()


@pytest.mark.parametrize(
    "token",
    [
        "not a token!",  # not base64
        b64("1700000000.5"),  # no hand id
        b64("soon/h-1"),  # not a time
        b64("nan/h-1"),
        b64("inf/h-1"),
        b64("1700000000.5/"),
        base64.urlsafe_b64encode(b"\xff\xfe/h").decode(),  # not text
        "A" * 401,  # oversized
    ],
)
def test_a_token_listhands_did_not_hand_out_is_invalid_and_changes_nothing(
    lobby: LobbyClient, token: str
) -> None:
    table_id = table_with_hands(lobby, "badtoken", 2)
    before = newest_first(lobby, table_id)
    code, message = refused(
        lambda: lobby.ListHands(
            pb.ListHandsRequest(table_id=table_id, limit=2, page_token=token), timeout=5
        )
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "page_token" in message and "next_page_token" in message
    assert newest_first(lobby, table_id) == before
