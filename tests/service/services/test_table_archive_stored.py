"""A finished hand as the lobby stores it (``ArchivedHand.stored``, sent with
FinishHand, read back from GetHandHistories): it comes back equal, and bytes that
are not the table's own form are refused without running anything they name (the
restricted unpickler of services/table/archive.py)."""

from __future__ import annotations

import dataclasses
import pickle
import random
import zlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from services.table import archive
from services.table import facts as f
from services.table.archive import STORED_FORMAT, ArchivedHand, StoredFormatError
from services.table.hand import HandResult
from tests.service.services.test_table_archive import a_hand

CALLED: list[str] = []


def tripwire(what: str) -> str:
    """What a hostile pickle would call: recorded, so a test sees it ran."""
    CALLED.append(what)
    return what


class Hostile:
    """Pickles as a call of ``tripwire``, as a hostile blob would name ``os.system``."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (tripwire, ("ran",))


def archived(seed: int, seats: int, *, voided: bool = False) -> ArchivedHand:
    rng = random.Random(seed)
    return ArchivedHand.of(
        HandResult(
            hand_id=f"h-{seed}",
            config=common.GameConfig(game=common.GAME_STUD_HILO, ante=5, small_bet=10),
            facts=a_hand(rng, seats),
            seats=list(range(1, seats + 1)),
            players=[f"p{s}" for s in range(1, seats + 1)],
            final_stacks=[rng.randrange(0, 10**6) for _ in range(seats)],
            voided=voided,
            reveal=None if voided else dpb.CloseDeckResponse(order=["Ah", "Kd"], salt=b"s" * 32),
            rpc_calls=12,
            outcome="voided" if voided else "showdown",
        )
    )


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 8), voided=st.booleans())
def test_a_stored_hand_comes_back_equal(seed: int, seats: int, voided: bool) -> None:
    hand = archived(seed, seats, voided=voided)
    data = hand.stored()
    assert data.startswith(STORED_FORMAT)
    back = ArchivedHand.from_stored(data)
    assert back == hand
    assert back.facts() == hand.facts()


def _tagged(value: object) -> bytes:
    return STORED_FORMAT + zlib.compress(pickle.dumps(value))


def test_a_stored_blob_naming_anything_else_is_refused_and_nothing_runs() -> None:
    CALLED.clear()
    with pytest.raises(StoredFormatError, match="not part of a hand's archive"):
        ArchivedHand.from_stored(_tagged(Hostile()))
    # Inside the facts too: their bytes are unpickled through the same gate.
    hand = archived(1, 2)
    bad = dataclasses.replace(hand, packed_facts=pickle.dumps((Hostile(),)))
    with pytest.raises(pickle.UnpicklingError):
        bad.facts()
    assert CALLED == []


def test_bytes_that_are_not_a_stored_hand_are_refused() -> None:
    good = archived(2, 3).stored()
    for bad in (b"", b"th0:" + good[4:], good[:-10], STORED_FORMAT + b"not zlib", _tagged((1, 2))):
        with pytest.raises(StoredFormatError):
            ArchivedHand.from_stored(bad)


def test_only_protobuf_messages_are_made_from_bytes() -> None:
    """``_from_bytes`` is allowed by name; given a class that is not a message
    (a tampered blob could pair it with one), it refuses."""
    with pytest.raises(pickle.UnpicklingError):
        archive._from_bytes(f.SeatInfo, b"")  # type: ignore[arg-type]
    assert archive._from_bytes(common.Award, common.Award(seat=2).SerializeToString()) == (
        common.Award(seat=2)
    )
