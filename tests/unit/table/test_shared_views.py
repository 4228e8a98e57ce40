# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __G4)
"""Events serialized once and shared (services/table/viewers.py, ``Audience.emit``).

Each fact is built and serialized once per view, and every seat that sees the
same view gets the very same bytes (PlayMany's ``wire`` subscribers and the
spectators alike).  What these tests hold: the bytes each seat gets are exactly
``facts.view`` for that seat; the bytes shared by several seats are the
spectator's view, so they never carry a down card, a draw's cards or a mucked
hand (G4, S12); and a seat's private view (its own down cards, its YourTurn)
reaches that seat only.
"""

from __future__ import annotations

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as pb
from services.table import facts as f
from services.table.hand import Hand
from services.table.viewers import Audience, Subscriber

PLAYERS = ["p1", "p2", "p3"]
DOWN = {1: ("As", "Kd"), 2: ("2c", "3c"), 3: ("Th", "9h")}


def _hand() -> Hand:
    return Hand(
        table_id="t1",
        hand_id="h1",
        config=common.GameConfig(game=common.GAME_STUD_HILO),
        seats=[1, 2, 3],
        players=list(PLAYERS),
        names=list(PLAYERS),
        start_stacks=[1000, 1000, 1000],
    )


def _facts() -> list[f.Fact]:
    return [
        *(f.Dealt(seat, cards, up=False) for seat, cards in DOWN.items()),
        f.Dealt(2, ("Qs",), up=True),
        f.Turn(2, 1, common.LegalActions(), 123),
        f.DrawTaken(3, ("Th",), ("Jc",)),
        f.Showdown(
            (
                f.Shown(1, ("As", "Kd", "Qs"), "pair", "", mucked=False),
                f.Shown(3, ("Th", "9h", "Jc"), "", "", mucked=True),
            )
        ),
    ]


class Room:
    """An audience of three wire seats, one seat on the object path, a player not
    dealt in and a spectator; every delivery recorded."""

    def __init__(self) -> None:
        self.audience = Audience("t1")
        self.hand = _hand()
        self.got: dict[str, list[bytes]] = {}
        self.objects: list[pb.TableEvent] = []
        for player in [*PLAYERS, "railbird"]:
            self.got[player] = []
            self.audience.join(player, pb.DELIVERY_EVERY_EVENT, self._sink(player), None, wire=True)
        self.audience.join("p1-object", pb.DELIVERY_EVERY_EVENT, self._objects, None)
        self.hand.players.append("p1-object")  # a second viewer of seat 4 (object path)
        self.hand.seats.append(4)
        self.watcher = self.audience.watch()

    def _sink(self, player: str):  # type: ignore[no-untyped-def]
        def sink(sub: Subscriber, event: object) -> None:
            if event is None:  # replaced by a newer stream of the player
                return
            assert isinstance(event, bytes), "a wire subscriber's sink gets bytes"
            self.got[player].append(event)

        return sink

    def _objects(self, sub: Subscriber, event: object) -> None:
        assert isinstance(event, pb.TableEvent)
        self.objects.append(event)

    def emit(self, fact: f.Fact) -> None:
        self.hand.facts.append(fact)
        self.audience.emit(self.hand, fact)


def test_each_seat_gets_exactly_its_own_view__G4() -> None:
    room = Room()
    for fact in _facts():
        room.emit(fact)
    for player, seat in [("p1", 1), ("p2", 2), ("p3", 3), ("railbird", 0)]:
        expected = [
            f.view(fact, f.Viewer(seat), seq=k, table_id="t1", hand_id="h1").SerializeToString()
            for k, fact in enumerate(_facts(), 1)
        ]
        assert room.got[player] == expected, player
    spectator = [
        f.view(fact, f.Viewer(f.SPECTATOR), seq=k, table_id="t1", hand_id="h1")
        for k, fact in enumerate(_facts(), 1)
    ]
    assert [pb.TableEvent.FromString(w) for w in room.watcher.pending] == spectator
    # the object path (Play streams, in-process sinks) gets the same views as objects
    assert room.objects == [
        f.view(fact, f.Viewer(4), seq=k, table_id="t1", hand_id="h1")
        for k, fact in enumerate(_facts(), 1)
    ]


def test_shared_bytes_are_one_object_and_carry_no_hidden_card__G4() -> None:
    """The bytes several viewers share are the same object, and parse to an event
    with no down card, no draw's cards, no mucked hand's cards."""
    room = Room()
    hidden = {card for cards in DOWN.values() for card in cards} | {"Jc"}
    for n, fact in enumerate(_facts()):
        room.emit(fact)
        copies = [room.got[p][n] for p in [*PLAYERS, "railbird"]] + [room.watcher.pending[n]]
        shared = [w for w in copies if sum(other is w for other in copies) > 1]
        assert shared, f"fact {n}: the public view is shared"
        for data in shared:
            event = pb.TableEvent.FromString(data)
            assert not event.HasField("your_turn")
            cards: set[str] = set(event.cards_dealt.cards) | set(event.draw_taken.received)
            cards |= set(event.draw_taken.discarded)
            for shown in event.showdown.hands:
                if shown.mucked:
                    assert not shown.cards, "a mucked hand in shared bytes"
                elif shown.seat != 1:
                    cards |= set(shown.cards)
            assert not cards & hidden, f"fact {n}: a hidden card in shared bytes"


def test_a_seats_private_view_reaches_that_seat_only__G4() -> None:
    room = Room()
    for fact in _facts():
        room.emit(fact)
    own = pb.TableEvent.FromString(room.got["p1"][0]).cards_dealt
    assert tuple(own.cards) == DOWN[1]
    for player in ["p2", "p3", "railbird"]:
        other = pb.TableEvent.FromString(room.got[player][0]).cards_dealt
        assert not other.cards and other.hidden_count == 2
    turns = {p: pb.TableEvent.FromString(room.got[p][4]) for p in [*PLAYERS, "railbird"]}
    assert turns["p2"].HasField("your_turn")
    assert all(turns[p].HasField("to_act") for p in ["p1", "p3", "railbird"])


def test_on_turn_batches_are_the_seats_events_framed__G4() -> None:
    """DELIVERY_ON_TURN over the wire path: the batch at the seat's turn holds the
    same events, in order, as its own views."""
    room = Room()
    got: list[object] = []
    room.audience.join(
        "p2", pb.DELIVERY_ON_TURN, lambda sub, event: got.append(event), None, wire=True
    )  # replaces p2's every-event stream
    for fact in _facts()[:5]:
        room.emit(fact)
    assert len(got) == 1 and isinstance(got[0], bytes)
    batch = pb.TableEvent.FromString(got[0]).batch.events
    assert list(batch) == [
        f.view(fact, f.Viewer(2), seq=k, table_id="t1", hand_id="h1")
        for k, fact in enumerate(_facts()[:5], 1)
    ]
