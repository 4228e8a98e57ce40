"""Enums on the wire (poker.common.v1) to the library's and back.

Zero is always *_UNSPECIFIED.  For a required enum it is refused; for a policy the
rule book gives a default for, it means that default.  A number the proto does not
define (a newer or broken client) is always refused.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from poker.common.v1 import common_pb2 as pb
from poker_rules.config import Game, RiverShortage, Structure, TimeoutPolicy

from .errors import WireError

_T = TypeVar("_T")

GAMES: Mapping[int, Game] = {
    pb.GAME_STUD: Game.STUD,
    pb.GAME_STUD_HILO: Game.STUD_HILO,
    pb.GAME_DRAW_7A: Game.DRAW_7A,
}
GAME_VALUES: Mapping[Game, int] = {v: k for k, v in GAMES.items()}

STRUCTURES: Mapping[int, Structure] = {
    pb.STRUCTURE_UNSPECIFIED: Structure.FIXED_LIMIT,
    pb.STRUCTURE_FIXED_LIMIT: Structure.FIXED_LIMIT,
    pb.STRUCTURE_POT_LIMIT: Structure.POT_LIMIT,
    pb.STRUCTURE_NO_LIMIT: Structure.NO_LIMIT,
}

TIMEOUT_POLICIES: Mapping[int, TimeoutPolicy] = {
    pb.TIMEOUT_POLICY_UNSPECIFIED: TimeoutPolicy.ALL_IN_PROTECTION,
    pb.TIMEOUT_POLICY_ALL_IN_PROTECTION: TimeoutPolicy.ALL_IN_PROTECTION,
    pb.TIMEOUT_POLICY_CHECK_OR_FOLD: TimeoutPolicy.CHECK_OR_FOLD,
}

RIVER_SHORTAGES: Mapping[int, RiverShortage] = {
    pb.RIVER_SHORTAGE_UNSPECIFIED: RiverShortage.RESHUFFLE_BURNS,
    pb.RIVER_SHORTAGE_RESHUFFLE_BURNS: RiverShortage.RESHUFFLE_BURNS,
    pb.RIVER_SHORTAGE_STUB_FIRST: RiverShortage.STUB_FIRST,
}


def enum_value(value: int, table: Mapping[int, _T], field: str, names: Mapping[int, str]) -> _T:
    """Look ``value`` up, refusing unspecified-when-required and unknown numbers."""
    found = table.get(value)
    if found is None:
        allowed = ", ".join(names[k] for k in table if k in names)
        what = "is required" if value == 0 else f"has no value {value}"
        raise WireError(f"{field} {what}; expected one of {allowed}")
    return found


def _names(items: Iterable[tuple[str, int]]) -> Mapping[int, str]:
    return {number: name for name, number in items}


# Built once: the allowed names quoted in error messages.
GAME_NAMES = _names(pb.Game.items())
STRUCTURE_NAMES = _names(pb.Structure.items())
TIMEOUT_POLICY_NAMES = _names(pb.TimeoutPolicy.items())
RIVER_SHORTAGE_NAMES = _names(pb.RiverShortage.items())


def game_of(value: int, field: str = "game") -> Game:
    """A required game."""
    return enum_value(value, GAMES, field, GAME_NAMES)


def structure_of(value: int, field: str = "structure") -> Structure:
    return enum_value(value, STRUCTURES, field, STRUCTURE_NAMES)


def timeout_policy_of(value: int, field: str = "timeout_policy") -> TimeoutPolicy:
    return enum_value(value, TIMEOUT_POLICIES, field, TIMEOUT_POLICY_NAMES)


def river_shortage_of(value: int, field: str = "river_shortage") -> RiverShortage:
    return enum_value(value, RIVER_SHORTAGES, field, RIVER_SHORTAGE_NAMES)
