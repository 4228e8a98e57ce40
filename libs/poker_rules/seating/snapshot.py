"""The durable form of a table between hands: plain JSON-able data and back.

The lobby stores it with every change, so a restarted lobby plans the next hand as
it would have.  Money never comes from here: on restore the lobby's own seat rows
give each seat's player and chips, and only the markers and the button history
are taken from the snapshot.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields
from enum import StrEnum
from typing import Any

from ..errors import InvalidConfigError
from .model import Choice, SeatedPlayer
from .state import History, TableState

SNAPSHOT_VERSION = 1
_PLAYER_FIELDS = tuple(f.name for f in fields(SeatedPlayer))


def _plain(value: object) -> object:
    """A snapshot value: enums as their string value, the rest as is."""
    return value.value if isinstance(value, StrEnum) else value


class Snapshots(TableState):
    """Writing and reading the table's snapshot."""

    def snapshot(self) -> dict[str, Any]:
        """The table between hands as plain JSON-able data: every seat with its
        markers (ML, MS, new, choice, away, orbits away, the "I'm in" switch), the
        last hand's positions (the dead button moves from them) and the hand count.

        The lobby stores it with each change so that a restarted lobby plans the
        next hand exactly as it would have without the restart.  A hand in progress
        is not part of it: a restart voids that hand, and a voided hand changes no
        marker (``void_hand``), so the state before it is the state after it."""
        last = self._last
        seats = [
            {"seat": s, **{f: _plain(getattr(p, f)) for f in _PLAYER_FIELDS}}
            for s, p in sorted(self._seats.items())
        ]
        if self._pending is not None:  # as if voided: the plan's "I'm in" given back
            back = set(self._im_in_back(self._pending))
            for entry in seats:
                if entry["seat"] in back:
                    entry["im_in"] = True
        return {
            "version": SNAPSHOT_VERSION,
            "hands_played": self.hands_played,
            "last": None
            if last is None
            else {
                "big_blind": last.big_blind,
                "big_blind_player": last.big_blind_player,
                "small_blind_position": last.small_blind_position,
                "button": last.button,
                "button_player": last.button_player,
            },
            "seats": seats,
        }

    def _read_snapshot(self, data: Mapping[str, Any] | None) -> dict[int, SeatedPlayer]:
        """Take the button history from ``data`` and return its seated players by
        seat (markers included; chips are the snapshot's, to be replaced).  ``data``
        None, or from another version: no history and nobody known.  Raises
        ``InvalidConfigError`` when the snapshot is malformed."""
        known: dict[int, SeatedPlayer] = {}
        if data is not None and data.get("version") == SNAPSHOT_VERSION:
            try:
                last = data["last"]
                if last is not None:
                    self._last = History(
                        big_blind=int(last["big_blind"]),
                        big_blind_player=str(last["big_blind_player"]),
                        small_blind_position=int(last["small_blind_position"]),
                        button=int(last["button"]),
                        button_player=None
                        if last["button_player"] is None
                        else str(last["button_player"]),
                    )
                for entry in data["seats"]:
                    values = {f: entry[f] for f in _PLAYER_FIELDS}
                    values["choice"] = Choice(values["choice"])
                    known[int(entry["seat"])] = SeatedPlayer(**values)
            except (KeyError, TypeError, ValueError) as error:
                raise InvalidConfigError(f"malformed seating snapshot: {error!r}") from None
        return known
