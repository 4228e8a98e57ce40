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
history request, which is rare, unpickles the hands it shows.

The lobby keeps every hand's history (the table keeps only a few, ``history``):
``stored`` turns an archived hand into the bytes sent with FinishHand, and
``from_stored`` reads them back from GetHandHistories.  Those bytes come from
outside the process, so every unpickling here goes through ``_FactUnpickler``,
whose ``find_class`` knows only the fact classes, the protobuf messages they hold
and ``_from_bytes``: a tampered blob can build facts with odd fields (the read
then fails), never call anything else.  Why pickle and not a protobuf form of the
facts: the facts are the table's internal record (every card, every menu), twelve
classes that ``facts.view`` alone interprets; a protobuf schema of them would be a
second copy of ``facts.py`` to keep in step, for bytes only this service reads.
The stored form starts with a format tag (``STORED_FORMAT``), so a table service
that no longer reads an old form says so rather than guessing, and is zlib-packed
(a six-handed stud hi-lo hand: about 1.8 KB, 3.2 KB pickled; the lobby writes it
once per hand).  A format change (a fact's fields) needs a new tag and a reader of
the old one for the hands the lobby already keeps.

Pickling goes through reducers that pass a fact's fields positionally and a
protobuf message as its serialized bytes: about twice as fast as the dataclasses'
default ``__getstate__`` (some 2 us a fact, a hand in well under a millisecond).
"""

from __future__ import annotations

import dataclasses
import io
import operator
import pickle
import zlib
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
    if not (isinstance(cls, type) and issubclass(cls, Message)):
        raise pickle.UnpicklingError(f"{cls!r} is not a protobuf message")
    return cls.FromString(data)


# The protobuf messages facts hold (any other would pickle too, by protobuf's own
# slower ``__reduce__``).
_MESSAGE_CLASSES: tuple[type[Message], ...] = (
    common.LegalActions,
    common.Action,
    common.Pot,
    common.Award,
    common.GameConfig,
    dpb.CloseDeckResponse,
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


# What an archived pickle may name, and nothing else (module doc).
_ALLOWED_OBJECTS: tuple[Any, ...] = (*_FACT_CLASSES, *_MESSAGE_CLASSES, _from_bytes)
_ALLOWED: dict[tuple[str, str], Any] = {
    (obj.__module__, obj.__qualname__): obj for obj in _ALLOWED_OBJECTS
}


class _FactUnpickler(pickle.Unpickler):
    """Facts and their messages only: any other global is refused."""

    def find_class(self, module: str, name: str) -> Any:
        found = _ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a hand's archive")
        return found


def _dump(value: object) -> bytes:
    buffer = io.BytesIO()
    _FactPickler(buffer).dump(value)
    return buffer.getvalue()


def _load(data: bytes) -> Any:
    return _FactUnpickler(io.BytesIO(data)).load()


def pack(facts: Sequence[f.Fact]) -> bytes:
    """A hand's facts as one bytes object (``unpack`` gives them back, equal)."""
    return _dump(tuple(facts))


def unpack(packed: bytes) -> list[f.Fact]:
    facts: tuple[f.Fact, ...] = _load(packed)
    return list(facts)


STORED_FORMAT = b"th1:"  # the tag of ``stored``'s form (module doc)


class StoredFormatError(ValueError):
    """Bytes from the lobby this table service cannot read as a hand."""


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

    def stored(self) -> bytes:
        """The hand as the lobby stores it (FinishHandRequest.history)."""
        fields = tuple(getattr(self, field.name) for field in dataclasses.fields(self))
        return STORED_FORMAT + zlib.compress(_dump(fields), 6)

    @classmethod
    def from_stored(cls, data: bytes) -> ArchivedHand:
        """``stored``'s bytes read back; StoredFormatError when they are not."""
        if not data.startswith(STORED_FORMAT):
            raise StoredFormatError(f"not a stored hand of format {STORED_FORMAT!r}")
        try:
            fields = _load(zlib.decompress(data[len(STORED_FORMAT) :]))
            hand = cls(*fields)
            if not isinstance(hand.packed_facts, bytes) or not isinstance(hand.hand_id, str):
                raise TypeError("a field of the wrong type")
        except Exception as error:  # any malformed blob: one error, said plainly
            raise StoredFormatError(f"a stored hand that does not read: {error}") from None
        return hand


__all__ = ["STORED_FORMAT", "ArchivedHand", "StoredFormatError", "pack", "unpack"]
