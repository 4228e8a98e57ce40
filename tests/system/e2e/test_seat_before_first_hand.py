# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __B2)
"""Issue 13, defect 8: a seated player who has not been dealt in yet sees their seat.

Before a table's first hand, and during a hand a player sat down too late for (B2:
a new player waits for the next hand), the Snapshot a player gets (the Join of a
``Play`` stream, a ``PlayMany`` session's Join, ``GetState``) names their seat in
``your_seat`` and lists every seat of the table with its player and the lobby's
stack; a spectator's ``Watch`` snapshot lists the seats too.  A seat not in the
hand carries no card, and the new player sees nothing of the hand in progress that
a spectator would not (no down card of anyone, no turn).
"""

from __future__ import annotations

import queue
from collections.abc import Iterator

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from tests.support.player import WAIT_S, Player
from tests.support.room import Room
from tests.support.wire import unpack

STUD = common.GameConfig(game=common.GAME_STUD, ante=5, bring_in=10, small_bet=20, big_bet=40)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=10, big_bet=20
)


def play_many_snapshot(room: Room, player: Player, table_id: str) -> tpb.Snapshot:
    """The Snapshot of a PlayMany session's Join (session 1 of a new stream)."""
    outbox: queue.Queue[tpb.PlayManyRequest | None] = queue.Queue()
    join = tpb.Join(table_id=table_id, player_id=player.id, token=player.token)
    outbox.put(
        tpb.PlayManyRequest(
            messages=[tpb.SessionMessage(session=1, message=tpb.PlayerMessage(join=join))]
        )
    )

    def requests() -> Iterator[tpb.PlayManyRequest]:
        while (item := outbox.get()) is not None:
            yield item

    call = room.table.PlayMany(requests(), timeout=WAIT_S)
    try:
        for batch in call:
            for tagged in batch.events:
                assert tagged.session == 1 and not tagged.HasField("ended"), tagged
                for event in unpack(tagged.event):
                    if event.HasField("snapshot"):
                        snapshot: tpb.Snapshot = event.snapshot
                        return snapshot
    finally:
        outbox.put(None)
        call.cancel()
    raise AssertionError("the PlayMany stream ended without a Snapshot")


def watch_snapshot(room: Room, table_id: str) -> tpb.Snapshot:
    """A spectator's first event: its Snapshot."""
    call = room.table.Watch(tpb.WatchRequest(table_id=table_id), timeout=WAIT_S)
    try:
        first = next(iter(call))
    finally:
        call.cancel()
    assert first.HasField("snapshot"), first
    snapshot: tpb.Snapshot = first.snapshot
    return snapshot


def snapshots(room: Room, player: Player, table_id: str) -> dict[str, tpb.Snapshot]:
    """The player's Snapshot by each way of getting one."""
    joined = player.connect(table_id)
    player.close()
    return {
        "Play Join": joined,
        "GetState": player.state(),
        "PlayMany Join": play_many_snapshot(room, player, table_id),
    }


def seats(snap: tpb.Snapshot) -> list[tuple[int, str, str, int, bool]]:
    return [(s.seat, s.player_id, s.name, s.stack, s.in_hand) for s in snap.seats]


def no_cards(view: tpb.SeatView) -> bool:
    return not view.own_cards and not view.upcards and view.down_cards == 0


def test_a_seated_player_sees_their_seat_before_the_first_hand__B2(room: Room) -> None:
    """Alone at a draw table (no hand can start): their seat, every seat, no hand;
    a spectator and a player who is not seated see the seats too, with your_seat 0."""
    table_id = room.create_table(DRAW_NL, 5, min_buy_in=400)
    alice = room.register("alice waits")
    alice.sit(table_id, 1_000, seat=2)
    expected = [(2, alice.id, alice.name, 1_000, False)]
    for how, snap in snapshots(room, alice, table_id).items():
        assert (snap.table_id, snap.hand_id, snap.your_seat) == (table_id, "", 2), how
        assert seats(snap) == expected, how
        assert all(no_cards(s) for s in snap.seats), how
        assert not snap.HasField("your_turn") and not snap.HasField("to_act_seat"), how
    stranger = room.register("not seated")
    stranger.table_id = table_id
    for how, snap in (
        ("spectator", watch_snapshot(room, table_id)),
        ("stranger", stranger.state()),
    ):
        assert (snap.hand_id, snap.your_seat) == ("", 0), how
        assert seats(snap) == expected, how
    alice.stand_up()


def third_street_dealt(event: tpb.TableEvent) -> bool:
    """Third street's door cards (dealt after every down card) arrived, live or in
    a Snapshot that shows the player's own cards."""
    kind = event.WhichOneof("event")
    if kind == "snapshot":
        return any(len(s.own_cards) == 2 and s.upcards for s in event.snapshot.seats)
    return kind == "cards_dealt" and event.cards_dealt.up


def test_a_player_who_sits_down_during_a_hand_sees_their_seat_and_no_cards__B2(
    room: Room,
) -> None:
    """Carol sits down while a hand of two runs: her Snapshot (each way) has her seat
    and all three seats, hers out of the hand with her buy-in and no card, the
    others' down cards counted, never shown; the players in the hand and a
    spectator see her seat too.  After the hand she is seated, between hands."""
    hand = room.start_hand(STUD, order=None, buy_ins=[800, 1_000], seats=3, action_clock_ms=30_000)
    table_id = hand.table_id
    # The hand has an id before its first street is dealt: wait for third street
    # (S4), so that the snapshots below see the dealt cards, however loaded the host.
    for player in hand.players:
        player.wait_for(third_street_dealt, what="third street dealt (S4)")
    carol = room.register("carol sits late")
    carol.sit(table_id, 900, seat=3)
    dealt = {p.seat: p for p in hand.players}
    for how, snap in snapshots(room, carol, table_id).items():
        assert (snap.hand_id, snap.your_seat) == (hand.hand_id, 3), how
        assert [s.seat for s in snap.seats] == [1, 2, 3], how
        *others, mine = snap.seats
        assert (mine.player_id, mine.name, mine.stack, mine.in_hand) == (
            carol.id,
            carol.name,
            900,
            False,
        ), how
        assert no_cards(mine) and not mine.bet, how
        for view in others:
            assert view.player_id == dealt[view.seat].id and view.in_hand, how
            assert not view.own_cards and view.down_cards == 2 and len(view.upcards) == 1, how
        assert not snap.HasField("your_turn"), how
    for how, snap in (
        ("spectator", watch_snapshot(room, table_id)),
        ("seat 1", dealt[1].state()),
    ):
        assert [s.seat for s in snap.seats] == [1, 2, 3], how
        assert snap.seats[2].player_id == carol.id and no_cards(snap.seats[2]), how
        assert snap.your_seat == (1 if how == "seat 1" else 0), how
    assert len(dealt[1].state().seats[0].own_cards) == 2  # a dealt-in seat sees its own
    hand.play()
    hand.settle()
    after = carol.state()
    assert (after.hand_id, after.your_seat) == ("", 3)
    assert seats(after) == [(3, carol.id, carol.name, 900, False)]
    carol.stand_up()
