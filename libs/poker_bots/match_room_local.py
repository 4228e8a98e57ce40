"""A room of one's own for :class:`~poker_bots.match_room.RoomBackend`: the whole
card room started on this machine (``devroom.stack.Stack``, every service its own
process on free ports, behind its door), with preset decks allowed, for
``poker match --mode room`` and the tests.

Why a separate module: the room launcher lives in the repository's ``devroom``
package, not in the installed libraries, so it is imported only here, when a
room is started (from a checkout; see :func:`_stack_class`).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from poker.common.v1 import common_pb2

from .match_room import RoomAccess, RoomBackend, RoomRun
from .match_types import Deal, HandPlayed
from .sdk import Bot

__all__ = ["ROOM_ENV", "LocalRoomBackend", "local_room", "room_access"]

ROOM_ENV: Mapping[str, Mapping[str, str]] = {
    # Certification mode: the next hand's deck may be preset by the operator.
    "dealer": {"DEALER_ALLOW_PRESET_DECKS": "1"},
    "table": {
        "TABLE_ALLOW_PRESET_DECKS": "1",
        # Only the warm-up hand waits for a poll (the match's hands follow each
        # other with no wait, see poker_bots.match_room).
        "TABLE_IDLE_POLL_S": "0.05",
    },
}
"""The settings a local match room needs, as ``Stack(env=...)`` takes them."""


def _stack_class() -> Any:
    """``devroom.stack.Stack``, from the checkout these libraries are installed from
    (an editable install: ``libs/`` is next to ``devroom/``)."""
    try:
        module = importlib.import_module("devroom.stack")
    except ImportError:
        root = Path(__file__).resolve().parents[2]
        if not (root / "devroom" / "stack.py").is_file():
            raise RuntimeError(
                "a local room needs the card room's checkout (devroom/); run from the "
                "repository, or start a room and give its RoomAccess to RoomBackend"
            ) from None
        sys.path.insert(0, str(root))
        module = importlib.import_module("devroom.stack")
    return module.Stack


def room_access(stack: Any) -> RoomAccess:
    """How to reach a running ``devroom.stack.Stack`` (with its gateway and TLS):
    its door, the CA, the lobby's and every table shard's internal port, and the
    operator's certificate directory."""
    pki = stack.pki
    if pki is None or not stack.gateway:
        raise ValueError("a match room needs the room's door and TLS (not a plaintext stack)")
    return RoomAccess(
        door=stack.gateway_target,
        ca_file=pki.ca_file,
        lobby=stack["lobby"].target,
        tables=tuple(stack[name].target for name in stack.table_names),
        operator_dir=pki.dir("operator"),
    )


def _env(extra: Mapping[str, Mapping[str, str]] | None) -> dict[str, dict[str, str]]:
    env = {name: dict(values) for name, values in ROOM_ENV.items()}
    for name, values in (extra or {}).items():
        env.setdefault(name, {}).update(values)
    return env


@contextlib.contextmanager
def local_room(
    *, env: Mapping[str, Mapping[str, str]] | None = None, **options: Any
) -> Iterator[RoomAccess]:
    """A local room (``ports="free"``, preset decks allowed: ``ROOM_ENV`` plus
    ``env``) for the block; ``options`` go to ``Stack`` (``table_shards``...).
    Starting takes a few seconds and blocks."""
    stack = _stack_class()(ports="free", env=_env(env), **options)
    with stack:
        yield room_access(stack)


class LocalRoomBackend:
    """A :class:`~poker_bots.match_types.HandsBackend` that starts its own local
    room on its first ``play`` (blocking for the few seconds the services take to
    start) and stops it on ``close`` (or at the end of an ``async with``).
    ``options`` go to :class:`~poker_bots.match_room.RoomBackend`."""

    def __init__(self, *, env: Mapping[str, Mapping[str, str]] | None = None, **options: Any):
        self.env = env
        self.options = options
        self._stack: Any = None
        self.backend: RoomBackend | None = None

    @property
    def last(self) -> RoomRun | None:
        return self.backend.last if self.backend is not None else None

    def start(self) -> RoomBackend:
        """The room, started now if it is not yet."""
        if self.backend is None:
            stack = _stack_class()(ports="free", env=_env(self.env))
            stack.start()
            self._stack = stack
            self.backend = RoomBackend(room_access(stack), **self.options)
        return self.backend

    async def play(
        self,
        config: common_pb2.GameConfig,
        bots: Mapping[str, Bot],
        plan: Sequence[tuple[Deal, tuple[str, ...]]],
        *,
        stack: int,
    ) -> list[HandPlayed]:
        return await self.start().play(config, bots, plan, stack=stack)

    def close(self) -> None:
        """Stop the room's services (if started)."""
        stack, self._stack, self.backend = self._stack, None, None
        if stack is not None:
            stack.stop()

    async def __aenter__(self) -> LocalRoomBackend:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.close()
