"""Finished hands as the table keeps them: few objects, so the GC never stalls play.

Why: a finished hand's facts are about 150 Python objects (a frozen dataclass per
fact, its tuples, the protobuf messages inside), all tracked by CPython's cyclic
garbage collector.  Kept as they are for ``TABLE_HISTORY_HANDS`` hands of every
table, they are most of the process's heap, and every full (generation 2)
collection walks all of them while every table waits: ``bench.stack`` saw pauses
of 83, 143 and 217 ms as twenty tables' histories grew in one 25 s run (each one
put every table's pending turn past the p99 at once), and with full histories
(500 hands x 20 tables) a pause would pass a second.

So a hand is archived when it ends: its facts pickled into one ``bytes`` object,
plus plain tuples (which the GC stops tracking) and two protobuf messages.  A
history request, which is rare, unpickles the hands it shows.  The pickles are
made here from the table's own facts and never leave the process, so unpickling
them trusts nothing from outside.

Pickling goes through reducers that pass a fact's fields positionally and a
protobuf message as its serialized bytes: about twice as fast as the dataclasses'
default ``__getstate__`` (some 2 us a fact, a hand in well under a millisecond).
"""

from __future__ import annotations

import dataclasses
import io
import operator
import pickle
from collections.abc import Callable, Sequence
from typing import Any

from google.protobuf.message import Message

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb

from . import facts as f
from .hand import HandResult

_FACT_CLASSES = (
    f.SeatInfo,
    f.Post,
    f.HandStarted,
    f.Dealt,
    f.StreetStarted,
    f.ActionTaken,
    f.DrawTaken,
    f.Turn,
    f.Shown,
    f.Showdown,
    f.FinalSeat,
    f.HandFinished,
)


def _fields_reducer(cls: type) -> Callable[[Any], tuple[Any, ...]]:
    names = [field.name for field in dataclasses.fields(cls)]
    get = operator.attrgetter(*names)
    if len(names) == 1:
        return lambda fact: (cls, (get(fact),))
    return lambda fact: (cls, get(fact))


def _from_bytes(cls: type[Message], data: bytes) -> Message:
    return cls.FromString(data)


# The protobuf messages facts hold (any other would pickle too, by protobuf's own
# slower ``__reduce__``).
_MESSAGE_CLASSES: tuple[type[Message], ...] = (
    common.LegalActions,
    common.Action,
    common.Pot,
    common.Award,
)


def _message_reducer(cls: type[Message]) -> Callable[[Any], tuple[Any, ...]]:
    return lambda message: (_from_bytes, (cls, message.SerializeToString()))


_REDUCERS: dict[type, Callable[[Any], tuple[Any, ...]]] = {
    **{cls: _fields_reducer(cls) for cls in _FACT_CLASSES},
    **{cls: _message_reducer(cls) for cls in _MESSAGE_CLASSES},
}


class _FactPickler(pickle.Pickler):
    """Facts by their fields, protobuf messages by their bytes."""

    def __init__(self, file: io.BytesIO) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.dispatch_table = _REDUCERS


def pack(facts: Sequence[f.Fact]) -> bytes:
    """A hand's facts as one bytes object (``unpack`` gives them back, equal)."""
    buffer = io.BytesIO()
    _FactPickler(buffer).dump(tuple(facts))
    return buffer.getvalue()


def unpack(packed: bytes) -> list[f.Fact]:
    facts: tuple[f.Fact, ...] = pickle.loads(packed)  # our own pickle (see above)
    return list(facts)


@dataclasses.dataclass(frozen=True, slots=True)
class ArchivedHand:
    """A finished hand in the table's history (``TableRuntime.history``)."""

    hand_id: str
    config: common.GameConfig
    packed_facts: bytes
    seats: tuple[int, ...]
    players: tuple[str, ...]
    final_stacks: tuple[int, ...]
    voided: bool
    reveal: dpb.CloseDeckResponse | None
    outcome: str  # "showdown", "uncontested", "voided"

    @classmethod
    def of(cls, result: HandResult) -> ArchivedHand:
        """The hand the runner returned, archived."""
        return cls(
            result.hand_id,
            result.config,
            pack(result.facts),
            tuple(result.seats),
            tuple(result.players),
            tuple(result.final_stacks),
            result.voided,
            result.reveal,
            result.outcome,
        )

    def facts(self) -> list[f.Fact]:
        return unpack(self.packed_facts)


__all__ = ["ArchivedHand", "pack", "unpack"]
