"""Finished hands as the table keeps them (services/table/archive.py): every fact
comes back equal, and a kept hand is a handful of objects for the garbage
collector instead of some 150 (whose full collections stalled every table)."""

from __future__ import annotations

import gc
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from services.table import facts as f
from services.table.archive import ArchivedHand, pack, unpack
from services.table.hand import HandResult

CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def a_hand(rng: random.Random, seats: int) -> list[f.Fact]:
    """A hand's facts with every kind of fact, every nested type and every
    protobuf message the runner puts in them."""
    deck = rng.sample(CARDS, len(CARDS))
    out: list[f.Fact] = [
        f.HandStarted(
            seats=tuple(
                f.SeatInfo(s, f"p{s}", f"name {s}", rng.randrange(1, 10**9))
                for s in range(1, seats + 1)
            ),
            button_seat=rng.randrange(0, seats + 1),
            button_dead=rng.random() < 0.5,
            posts=tuple(f.Post(s, 5, "ante") for s in range(1, seats + 1)),
            commitment=rng.randbytes(32),
        ),
        f.StreetStarted(0, "third"),
    ]
    for s in range(1, seats + 1):
        out.append(f.Dealt(s, (deck.pop(), deck.pop()), up=False))
        out.append(f.Dealt(s, (deck.pop(),), up=True))
    out.append(f.Dealt(0, (), up=True, community_card=deck.pop()))
    for seq in range(1, rng.randrange(2, 30)):
        seat = rng.randrange(1, seats + 1)
        legal = common.LegalActions(
            seat=seat,
            can_fold=True,
            call_amount=rng.randrange(0, 100),
            raise_kind=common.ACTION_KIND_RAISE,
            to_choices=[40],
            kinds=[common.ACTION_KIND_FOLD, common.ACTION_KIND_CALL, common.ACTION_KIND_RAISE],
            description="fold, call, raise to 40",
        )
        out.append(f.Turn(seat, seq, legal, rng.randrange(10**12, 10**13)))
        out.append(
            f.ActionTaken(
                seat,
                common.Action(kind=common.ACTION_KIND_CALL, amount=rng.randrange(0, 10**6)),
                timeout=rng.random() < 0.1,
                stack=rng.randrange(0, 10**9),
                pots=tuple(
                    common.Pot(amount=rng.randrange(1, 10**6)) for _ in range(rng.randrange(0, 3))
                ),
            )
        )
    out.append(f.DrawTaken(1, (deck.pop(),), (deck.pop(),)))
    out.append(
        f.Showdown(
            tuple(f.Shown(s, (deck.pop(),), "a pair", "", rng.random() < 0.3) for s in (1, 2))
        )
    )
    out.append(
        f.HandFinished(
            awards=(common.Award(seat=1, amount=rng.randrange(1, 10**6)),),
            seats=tuple(
                f.FinalSeat(s, f"p{s}", rng.randrange(0, 10**9)) for s in range(1, seats + 1)
            ),
            uncalled_seat=rng.choice([None, 2]),
            uncalled_amount=rng.randrange(0, 100),
            voided=False,
        )
    )
    return out


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 8))
def test_every_fact_comes_back_equal(seed: int, seats: int) -> None:
    facts = a_hand(random.Random(seed), seats)
    back = unpack(pack(facts))
    assert back == facts
    assert [type(x) for x in back] == [type(x) for x in facts]


def test_every_fact_class_of_the_module_is_covered() -> None:
    """A fact class added to facts.py without a reducer would still round-trip
    (pickle's default), only slower: the archive's table names them all."""
    from services.table import archive

    kept = {
        obj
        for obj in vars(f).values()
        if isinstance(obj, type)
        and obj.__module__ == f.__name__
        and hasattr(obj, "__dataclass_fields__")
    } - {f.Viewer, f.PlayerCards}
    assert kept == set(archive._REDUCERS) - set(archive._MESSAGE_CLASSES)


def tracked_reachable(root: object) -> int:
    """GC-tracked objects reachable from ``root`` (``root`` included), classes
    not followed (they are the program's, not the hand's)."""
    seen: set[int] = set()
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or not gc.is_tracked(obj) or isinstance(obj, type):
            continue
        seen.add(id(obj))
        todo.extend(gc.get_referents(obj))
    return len(seen)


def test_an_archived_hand_is_a_handful_of_objects_for_the_gc() -> None:
    facts = a_hand(random.Random(7), 8)
    archived = ArchivedHand.of(
        HandResult(
            hand_id="h-1",
            config=common.GameConfig(game=common.GAME_STUD),
            facts=facts,
            seats=list(range(1, 9)),
            players=[f"p{s}" for s in range(1, 9)],
            final_stacks=[100] * 8,
            voided=False,
            reveal=dpb.CloseDeckResponse(order=["Ah", "Kd"]),
            rpc_calls=12,
            outcome="showdown",
        )
    )
    gc.collect()  # tuples of plain values stop being tracked at their first collection
    as_objects = tracked_reachable(facts)
    kept = tracked_reachable(archived)
    assert as_objects > 100, as_objects
    assert kept <= 4, kept  # the record, its two protobuf messages, at most one more
    assert archived.facts() == facts
    assert archived.seats == tuple(range(1, 9)) and archived.final_stacks == (100,) * 8
