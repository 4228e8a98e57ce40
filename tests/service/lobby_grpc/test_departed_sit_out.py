# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""FinishHand's ``sit_out_player_ids``: the players the table saw leave (the
action clock took their every decision for some hands in a row) are sat out in
the same transaction as the hand's result (docs/rule-decisions.md#departed-players).

The test plays the table service, as the other seating scenarios do: NextHand,
then FinishHand naming the departed player; GetTable shows the seat away, the
next hands treat it as SitOut's (B3: the big blind passing marks ML; B5: the seat
is lost after max_orbits_away), and SitIn brings the player back.  A tournament
marks the entry away instead (T6).
"""

from __future__ import annotations

import grpc

from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import tournament_pb2 as tpb
from tests.support.lobby import LobbyClient, refused
from tests.support.tournaments import lobby_process, players, request, started

from .client import (
    BUY_IN,
    STUD,
    Player,
    create_table,
    dealt,
    get_table,
    next_hand,
    play,
    seat_info,
)


def report(
    lobby: LobbyClient,
    table_id: str,
    hand: pb.NextHandResponse,
    sit_out: list[str],
    moved: int = 0,
) -> pb.FinishHandResponse:
    """FinishHand naming ``sit_out``; ``moved`` chips go from the first seat dealt
    in to the second (a result, so the stacks and the sit-out land together)."""
    stacks = {s.seat: s.stack for s in hand.dealt_in}
    first, second = list(stacks)[:2]
    stacks[first] -= moved
    stacks[second] += moved
    reply: pb.FinishHandResponse = lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=hand.hand_id,
            final_stacks=[pb.SeatInfo(seat=s, stack=c) for s, c in stacks.items()],
            sit_out_player_ids=sit_out,
        ),
        timeout=5,
    )
    return reply


def three_at_a_draw_table(
    lobby: LobbyClient, max_orbits_away: int | None = None
) -> tuple[str, dict[int, Player]]:
    if max_orbits_away is None:
        table_id = create_table(lobby, seats=3).table_id
    else:
        table_id = create_table(lobby, seats=3, max_orbits_away=max_orbits_away).table_id
    seated = {}
    for s in (1, 2, 3):
        seated[s] = Player(lobby, f"p{s}")
        seated[s].sit(table_id, s)
    return table_id, seated


def test_B3_a_player_the_table_saw_leave_is_sat_out_with_the_hand_result(
    lobby: LobbyClient,
) -> None:
    table_id, seated = three_at_a_draw_table(lobby)
    hand = next_hand(lobby, table_id)
    assert dealt(hand) == [2, 3, 1]  # button 1: small blind 2, big blind 3
    report(lobby, table_id, hand, [seated[1].id], moved=100)
    gone = seat_info(lobby, table_id, 1)
    assert gone.away and gone.sitting_out  # as SitOut leaves it (B3-B6)
    stacks = {s.seat: s.stack for s in get_table(lobby, table_id).occupied}
    assert stacks == {1: BUY_IN, 2: BUY_IN - 100, 3: BUY_IN + 100}  # the same transaction
    # The next hands go on without seat 1; the big blind passing it marks ML (B3).
    following = play(lobby, table_id)
    assert 1 not in dealt(following)
    for _ in range(2):
        play(lobby, table_id)
    assert seat_info(lobby, table_id, 1).missed_big_blind
    back = seated[1].sit_in()  # the player comes back as from any SitOut
    assert not back.away


def test_B5_a_departed_player_loses_the_seat_after_max_orbits_away(lobby: LobbyClient) -> None:
    table_id, seated = three_at_a_draw_table(lobby, max_orbits_away=1)
    before = seated[3].get().balance
    report(lobby, table_id, next_hand(lobby, table_id), [seated[3].id])
    for _ in range(8):
        if all(s.seat != 3 for s in get_table(lobby, table_id).occupied):
            break
        hand = next_hand(lobby, table_id)
        if not hand.play:
            break
        report(lobby, table_id, hand, [])
    assert all(s.seat != 3 for s in get_table(lobby, table_id).occupied)
    assert seated[3].get().balance == before + BUY_IN  # the chips back (B5)


def test_B6_a_departed_stud_player_is_not_dealt_in_and_owes_nothing(lobby: LobbyClient) -> None:
    table_id = create_table(lobby, STUD, seats=3).table_id
    seated = {s: Player(lobby, f"s{s}") for s in (1, 2, 3)}
    for s, player in seated.items():
        player.sit(table_id, s)
    report(lobby, table_id, next_hand(lobby, table_id), [seated[2].id])
    following = next_hand(lobby, table_id)
    assert dealt(following) == [1, 3]
    info = seat_info(lobby, table_id, 2)
    assert info.away and not info.missed_big_blind and not info.missed_small_blind


def test_B3_the_sit_outs_are_checked_before_anything_changes(lobby: LobbyClient) -> None:
    table_id, seated = three_at_a_draw_table(lobby)
    stranger = Player(lobby, "stranger")
    hand = next_hand(lobby, table_id)
    refusals = {
        "not dealt in": ([stranger.id], grpc.StatusCode.FAILED_PRECONDITION),
        "twice": ([seated[2].id, seated[2].id], grpc.StatusCode.INVALID_ARGUMENT),
        "empty id": ([""], grpc.StatusCode.INVALID_ARGUMENT),
    }
    for what, (ids, code) in refusals.items():

        def call(ids: list[str] = ids) -> pb.FinishHandResponse:
            return report(lobby, table_id, hand, ids, moved=100)

        got, message = refused(call)
        assert got == code, (what, message)
        assert "sit_out_player_ids" in message, (what, message)
    # Nothing changed: the hand is still the one in progress, nobody is away.
    assert next_hand(lobby, table_id).hand_id == hand.hand_id
    assert not any(s.away for s in get_table(lobby, table_id).occupied)
    first = report(lobby, table_id, hand, [seated[2].id], moved=100)
    again = report(lobby, table_id, hand, [seated[2].id], moved=100)  # a retried report
    assert again.hands_played == first.hands_played == 1
    assert seat_info(lobby, table_id, 2).away


def test_B3_a_voided_hand_sits_out_its_departed_player_too(lobby: LobbyClient) -> None:
    table_id, seated = three_at_a_draw_table(lobby)
    hand = next_hand(lobby, table_id)
    lobby.FinishHand(
        pb.FinishHandRequest(
            table_id=table_id,
            hand_id=hand.hand_id,
            voided=True,
            void_reason="betting.ApplyTimeout: UNAVAILABLE",
            sit_out_player_ids=[seated[3].id],
        ),
        timeout=5,
    )
    info = seat_info(lobby, table_id, 3)
    assert info.away and info.stack == BUY_IN


def test_T6_a_departed_tournament_player_is_marked_away() -> None:
    with lobby_process() as lobby:
        field = players(lobby, 3)
        tid = started(lobby, request(), field)
        (table,) = lobby.tournaments.GetTournament(
            tpb.GetTournamentRequest(tournament_id=tid)
        ).tables
        hand = lobby.lobby.NextHand(pb.NextHandRequest(table_id=table.table_id))
        gone = hand.dealt_in[0].player_id
        lobby.lobby.FinishHand(
            pb.FinishHandRequest(
                table_id=table.table_id,
                hand_id=hand.hand_id,
                final_stacks=[pb.SeatInfo(seat=s.seat, stack=s.stack) for s in hand.dealt_in],
                sit_out_player_ids=[gone],
            )
        )
        player = next(p for p in field if p.player_id == gone)
        seat = lobby.tournaments.GetMySeat(
            tpb.GetMySeatRequest(tournament_id=tid, player_id=gone, token=player.token)
        )
        assert seat.away
        following = lobby.lobby.NextHand(pb.NextHandRequest(table_id=table.table_id))
        folded = {s.player_id for s in following.dealt_in if s.fold_on_turn}
        assert folded == {gone}  # T6: still dealt in, folded at each turn
