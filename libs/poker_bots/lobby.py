"""The lobby for a bot's program: register, find a table, sit, stand, rebuy, the balance.

Everything a player does outside the hands goes through the room's one public door,
``poker.room.v1.Room`` (protos/poker/room/v1/room.proto) at ``POKER_ROOM``, else
127.0.0.1:50050, over TLS trusting the room's CA (``POKER_CA_FILE``, else the local
room's, see :func:`poker_wire.channels.player_channel`).  :class:`Lobby` wraps it so
that a bot's program needs no generated stub::

    async with Lobby() as lobby:
        me = await lobby.register("alice")            # the lobby now acts for alice
        table = (await lobby.tables())[0]
        await lobby.sit(table.table_id, buy_in=table.min_buy_in)
        stats = await lobby.play(table.table_id, MyBot(), hands=100)
        await lobby.stand(table.table_id)

A refusal is a typed :class:`LobbyError` (one class per kind of refusal, the status
code in ``.code``, the room's own words in ``.message``), never a bare
``grpc.aio.AioRpcError``.  Reads (``tables``, ``table``, ``me``) are retried a few
times when the door is UNAVAILABLE (a restart): asking again changes nothing.
Writes (``register``, ``sit``, ``stand``...) are sent once: a write whose answer was
lost may have happened, so retrying it blindly could register twice or sit at a
table the player already left; the caller looks (``table``, ``me``) and decides.
The exception is RESOURCE_EXHAUSTED, which the room answers before doing anything
(a rate limit, a burst past a queue's limit): every call is retried on it, a few
times, with jittered backoff.

Creating a table is the room's staff's job, not a player's: the Room API has no
CreateTable.  :class:`Operator` (and :func:`create_table`) call the lobby's staff
plane on its internal port (``POKER_LOBBY_INTERNAL``, else 127.0.0.1:50054) with the
operator's certificate (``POKER_OPERATOR_DIR``, else ``~/.cardroom/pki/operator``),
as ``poker create-table`` does.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import grpc
from grpc import aio

from poker.common.v1 import common_pb2
from poker.lobby.v1 import lobby_pb2
from poker.room.v1 import room_pb2, room_pb2_grpc
from poker_wire.channels import LOCAL_ROOM_PKI, player_channel, service_channel, staff_lobby

if TYPE_CHECKING:
    from .sdk import AsyncBot, Bot, PlayStats

__all__ = [
    "DEFAULT_LOBBY_INTERNAL",
    "DEFAULT_ROOM",
    "Credential",
    "ExhaustedError",
    "InvalidRequestError",
    "Lobby",
    "LobbyError",
    "NotFoundError",
    "Operator",
    "PermissionDeniedError",
    "Rebought",
    "RefusedError",
    "UnauthenticatedError",
    "UnavailableError",
    "create_table",
    "lobby_error",
    "room_address",
]

DEFAULT_ROOM = "127.0.0.1:50050"
"""The room's door when ``POKER_ROOM`` is not set (``make run``'s gateway)."""
DEFAULT_LOBBY_INTERNAL = "127.0.0.1:50054"
"""The lobby's internal port, for the operator, when ``POKER_LOBBY_INTERNAL`` is not set."""
ROOM_ENV = "POKER_ROOM"
CREDENTIAL_ENV = "POKER_CREDENTIAL"
LOBBY_INTERNAL_ENV = "POKER_LOBBY_INTERNAL"
OPERATOR_DIR_ENV = "POKER_OPERATOR_DIR"

Req = TypeVar("Req")
Resp = TypeVar("Resp")


def room_address() -> str:
    """``POKER_ROOM``, else the local room's door."""
    return os.environ.get(ROOM_ENV, "").strip() or DEFAULT_ROOM


# ---------------------------------------------------------------------- errors


class LobbyError(Exception):
    """The room refused a lobby call: ``code`` (a ``grpc.StatusCode``) says what kind
    of refusal, ``message`` the room's own words (what was wrong, what is allowed)."""

    def __init__(self, code: grpc.StatusCode, message: str, call: str = "") -> None:
        self.code = code
        self.message = message
        self.call = call
        where = f"{call}: " if call else ""
        super().__init__(f"{where}{code.name}: {message}")


class NotFoundError(LobbyError):
    """NOT_FOUND: no such table (or player)."""


class RefusedError(LobbyError):
    """FAILED_PRECONDITION: not now (the seat is taken, the balance is short, not
    seated there, a stand-up that still waits for the hand in progress)."""


class InvalidRequestError(LobbyError):
    """INVALID_ARGUMENT (or OUT_OF_RANGE): a malformed request, e.g. a buy-in
    outside the table's range (S2)."""


class UnauthenticatedError(LobbyError):
    """UNAUTHENTICATED: no credential, or one the room does not accept."""


class PermissionDeniedError(LobbyError):
    """PERMISSION_DENIED: not yours to do (another player's seat, a staff call)."""


class ExhaustedError(LobbyError):
    """RESOURCE_EXHAUSTED: a limit (calls a second, registrations a minute); retry later."""


class UnavailableError(LobbyError):
    """UNAVAILABLE or DEADLINE_EXCEEDED: the door did not answer (reads were retried)."""


_KINDS: dict[grpc.StatusCode, type[LobbyError]] = {
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.FAILED_PRECONDITION: RefusedError,
    grpc.StatusCode.INVALID_ARGUMENT: InvalidRequestError,
    grpc.StatusCode.OUT_OF_RANGE: InvalidRequestError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
    grpc.StatusCode.PERMISSION_DENIED: PermissionDeniedError,
    grpc.StatusCode.RESOURCE_EXHAUSTED: ExhaustedError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: UnavailableError,
}


def lobby_error(error: aio.AioRpcError, call: str = "") -> LobbyError:
    """The typed error of a failed call (any other code: a plain ``LobbyError``)."""
    code = error.code()
    kind = _KINDS.get(code, LobbyError)
    return kind(code, error.details() or code.name.lower().replace("_", " "), call)


# ---------------------------------------------------------------------- who


@dataclass(frozen=True, slots=True)
class Credential:
    """A player's identity at the room: their id and secret token.  ``credential``
    (``<player_id>.<token>``) is what ``register`` printed once and what every call
    carries as ``authorization: Bearer <credential>``.  The token never shows in a
    ``repr`` (logs)."""

    player_id: str
    token: str = field(repr=False)
    name: str = ""

    @property
    def credential(self) -> str:
        return f"{self.player_id}.{self.token}"

    @property
    def metadata(self) -> tuple[tuple[str, str], ...]:
        """The call metadata that says who calls."""
        return (("authorization", f"Bearer {self.credential}"),)

    @classmethod
    def parse(cls, credential: str) -> Credential:
        """``<player_id>.<token>`` -> Credential (``ValueError`` when it is not one)."""
        player_id, dot, token = credential.strip().rpartition(".")
        if not dot or not player_id or not token:
            raise ValueError("not a credential: it is <player_id>.<token>, as Register returned it")
        return cls(player_id, token)

    @classmethod
    def from_env(cls) -> Credential | None:
        """``POKER_CREDENTIAL`` (as the CLI reads it), or None when it is not set."""
        text = os.environ.get(CREDENTIAL_ENV, "").strip()
        return cls.parse(text) if text else None


@dataclass(frozen=True, slots=True)
class Rebought:
    """A rebuy: the StandUp's and the SitDown's answers.  ``pending`` says the
    stand-up had to wait for the hand in progress (``waited_s`` seconds)."""

    stood: lobby_pb2.StandUpResponse
    sat: lobby_pb2.SitDownResponse
    waited_s: float = 0.0

    @property
    def pending(self) -> bool:
        return self.stood.pending


# ---------------------------------------------------------------------- the lobby


class Lobby:
    """The Room API's lobby calls for one player (see the module).

    ``target``: the door's address (default ``POKER_ROOM``, else 127.0.0.1:50050; the
    channel is opened here and closed by ``close``/``async with``), or an open
    ``grpc.aio.Channel`` to it (shared, left open).  ``credential``: who calls (a
    :class:`Credential` or its string); ``register`` sets it.  ``timeout`` is each
    call's deadline; a read is retried ``read_retries`` times on UNAVAILABLE.
    Make it inside the coroutine that uses it (``async with Lobby() as lobby``): a
    grpc.aio channel belongs to the event loop it was made on.
    """

    def __init__(
        self,
        target: str | aio.Channel | None = None,
        credential: Credential | str | None = None,
        *,
        ca_file: str | Path | None = None,
        timeout: float = 10.0,
        read_retries: int = 3,
        retry_backoff: float = 0.2,
    ) -> None:
        if target is None:
            target = room_address()
        self._own = isinstance(target, str)
        self.target = target if isinstance(target, str) else ""
        self.channel: aio.Channel = (
            player_channel(target, ca_file) if isinstance(target, str) else target
        )
        self._room = room_pb2_grpc.RoomStub(self.channel)
        self.credential = (
            Credential.parse(credential) if isinstance(credential, str) else credential
        )
        self.timeout = timeout
        self.read_retries = read_retries
        self.retry_backoff = retry_backoff

    def with_credential(self, credential: Credential | str) -> Lobby:
        """Another player's lobby on the same channel (left open by both)."""
        lobby = Lobby(
            self.channel,
            credential,
            timeout=self.timeout,
            read_retries=self.read_retries,
            retry_backoff=self.retry_backoff,
        )
        lobby.target = self.target
        return lobby

    async def close(self) -> None:
        if self._own:
            await self.channel.close()

    async def __aenter__(self) -> Lobby:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ------------------------------------------------------------ calls

    def _me(self) -> Credential:
        if self.credential is None:
            raise UnauthenticatedError(
                grpc.StatusCode.UNAUTHENTICATED,
                "no credential: register first, or give Lobby(credential=...) the "
                "credential Register returned",
            )
        return self.credential

    async def _call(
        self,
        method: aio.UnaryUnaryMultiCallable[Req, Resp],
        request: Req,
        name: str,
        *,
        read: bool = False,
        auth: bool = True,
    ) -> Resp:
        """One call; a failure is a LobbyError.  Retried, ``read_retries`` times at
        most with jittered backoff: a read on UNAVAILABLE (asking again changes
        nothing), and any call on RESOURCE_EXHAUSTED (the room refuses with it
        before doing anything: a rate limit, a burst past a queue's limit)."""
        metadata = self._me().metadata if auth else ()
        attempt = 0
        while True:
            try:
                return await method(request, metadata=metadata, timeout=self.timeout)
            except aio.AioRpcError as error:
                code = error.code()
                retry = code == grpc.StatusCode.RESOURCE_EXHAUSTED or (
                    read and code == grpc.StatusCode.UNAVAILABLE
                )
                if retry and attempt < self.read_retries:
                    attempt += 1
                    delay = self.retry_backoff * 2 ** (attempt - 1)
                    await asyncio.sleep(delay * (0.5 + random.random()))
                    continue
                raise lobby_error(error, name) from error

    async def register(self, name: str) -> Credential:
        """A new player with the room's play-money grant; the lobby acts for them from
        now on.  The credential is shown once: keep it (``Credential.credential``)."""
        made = await self._call(
            self._room.Register, room_pb2.RegisterRequest(name=name), "Register", auth=False
        )
        credential = Credential.parse(made.credential)
        self.credential = Credential(credential.player_id, credential.token, made.player.name)
        return self.credential

    async def me(self) -> lobby_pb2.Player:
        """The player: name, balance, chips at tables."""
        return await self._call(self._room.GetMe, room_pb2.GetMeRequest(), "GetMe", read=True)

    async def balance(self) -> int:
        """Play money not at a table."""
        return (await self.me()).balance

    async def tables(
        self, game: common_pb2.Game.ValueType = common_pb2.GAME_UNSPECIFIED
    ) -> list[lobby_pb2.Table]:
        """The ring tables (of ``game``), with their stakes and seats."""
        listed = await self._call(
            self._room.ListTables,
            room_pb2.ListTablesRequest(game=game),
            "ListTables",
            read=True,
            auth=self.credential is not None,
        )
        return list(listed.tables)

    async def table(self, table_id: str) -> lobby_pb2.Table:
        """One table (NotFoundError when there is none)."""
        return await self._call(
            self._room.GetTable,
            room_pb2.GetTableRequest(table_id=table_id),
            "GetTable",
            read=True,
            auth=self.credential is not None,
        )

    async def seat_at(self, table_id: str) -> lobby_pb2.SeatInfo | None:
        """The player's seat at ``table_id``, or None when they do not sit there."""
        me = self._me().player_id
        table = await self.table(table_id)
        return next((s for s in table.occupied if s.player_id == me), None)

    async def sit(
        self,
        table_id: str,
        buy_in: int,
        *,
        seat: int = 0,
        entry: lobby_pb2.Entry.ValueType = lobby_pb2.ENTRY_UNSPECIFIED,
        wait_for_big_blind: bool = False,
    ) -> lobby_pb2.SitDownResponse:
        """Buy in at ``table_id`` (S2): ``seat`` 0 = the lowest free seat; ``entry``
        (draw, B2) how a new player comes in.  RefusedError when the seat is taken, the
        player sits there already or the balance is short; InvalidRequestError when the
        buy-in is outside the table's range."""
        request = room_pb2.SitDownRequest(
            table_id=table_id,
            seat=seat,
            buy_in=buy_in,
            entry=entry,
            wait_for_big_blind=wait_for_big_blind,
        )
        return await self._call(self._room.SitDown, request, "SitDown")

    async def stand(self, table_id: str) -> lobby_pb2.StandUpResponse:
        """Leave the table; the chips go back to the balance.  Dealt into the hand in
        progress, the player leaves when it ends (``pending``)."""
        request = room_pb2.StandUpRequest(table_id=table_id)
        return await self._call(self._room.StandUp, request, "StandUp")

    async def rebuy(
        self,
        table_id: str,
        buy_in: int,
        *,
        seat: int = 0,
        entry: lobby_pb2.Entry.ValueType = lobby_pb2.ENTRY_UNSPECIFIED,
        settle_timeout: float = 10.0,
        poll_s: float = 0.05,
    ) -> Rebought:
        """Stand up and sit down again with a fresh ``buy_in`` (a busted seat stays
        seated at 0 chips until its player stands up, B5).

        A stand-up the lobby answers ``pending`` (the player is in a hand it has not
        recorded as finished yet) is waited for, reading the table every ``poll_s``
        for at most ``settle_timeout`` seconds (then RefusedError); ``Rebought`` says
        whether it was pending and how long it took.

        A player the room already stood up (B5 takes a seat left away too long, and
        a bust noticed late, behind a slow decision, is such a seat) has nothing to
        stand up from: the StandUp's FAILED_PRECONDITION is checked against the
        table, and when the player is not seated there the rebuy just sits down."""
        try:
            stood = await self.stand(table_id)
        except RefusedError:
            if await self.seat_at(table_id) is not None:
                raise
            stood = lobby_pb2.StandUpResponse()  # nothing stood up, nothing pending
        waited = 0.0
        if stood.pending:
            started = time.monotonic()
            while await self.seat_at(table_id) is not None:
                waited = time.monotonic() - started
                if waited >= settle_timeout:
                    raise RefusedError(
                        grpc.StatusCode.FAILED_PRECONDITION,
                        f"still seated at {table_id} {waited:.1f}s after standing up: "
                        "the stand-up waits for the hand in progress to end",
                        "StandUp",
                    )
                await asyncio.sleep(poll_s)
            waited = time.monotonic() - started
        sat = await self.sit(table_id, buy_in, seat=seat, entry=entry)
        return Rebought(stood, sat, waited)

    async def sit_out(self, table_id: str) -> lobby_pb2.SeatInfo:
        """Away from the next hand on (B3-B6); the seat and its markers."""
        request = room_pb2.SitOutRequest(table_id=table_id)
        return (await self._call(self._room.SitOut, request, "SitOut")).seat

    async def sit_in(
        self, table_id: str, *, wait_for_big_blind: bool = False
    ) -> lobby_pb2.SeatInfo:
        """Back from away (B3, B4): post what is owed now, or wait for the big blind."""
        choice = (
            lobby_pb2.RETURN_CHOICE_WAIT_FOR_BIG_BLIND
            if wait_for_big_blind
            else lobby_pb2.RETURN_CHOICE_POST
        )
        request = room_pb2.SitInRequest(table_id=table_id, return_choice=choice)
        return (await self._call(self._room.SitIn, request, "SitIn")).seat

    async def set_auto_post(self, table_id: str, auto_post: bool) -> lobby_pb2.SeatInfo:
        """Stud: the ante's auto-post, the "I'm in" switch (S3)."""
        request = room_pb2.SetAutoPostRequest(table_id=table_id, auto_post=auto_post)
        return (await self._call(self._room.SetAutoPost, request, "SetAutoPost")).seat

    async def im_in(self, table_id: str) -> lobby_pb2.SeatInfo:
        """Stud, auto-post off: post the ante for the next hand (S3)."""
        request = room_pb2.ImInRequest(table_id=table_id)
        return (await self._call(self._room.ImIn, request, "ImIn")).seat

    async def play(self, table_id: str, bot: Bot | AsyncBot, **options: Any) -> PlayStats:
        """:func:`poker_bots.play` for this player at ``table_id`` over this channel
        (``via="room"``; rebuys, if ``rebuy=`` is given, through this lobby)."""
        from .sdk import play

        me = self._me()
        options.setdefault("lobby", self)
        return await play(self.channel, table_id, me.player_id, me.token, bot, **options)


# ---------------------------------------------------------------------- the staff


_GAME_NAMES = {
    common_pb2.GAME_STUD: "stud",
    common_pb2.GAME_STUD_HILO: "stud-hilo",
    common_pb2.GAME_DRAW_7A: "draw",
}


def _with_defaults(config: common_pb2.GameConfig) -> common_pb2.GameConfig:
    """A copy of ``config`` with ``poker create-table``'s defaults filled in."""
    filled = common_pb2.GameConfig()
    filled.CopyFrom(config)
    if not filled.big_bet:
        filled.big_bet = 2 * filled.small_bet
    if filled.game != common_pb2.GAME_DRAW_7A and not filled.bring_in:
        filled.bring_in = max(1, filled.small_bet // 2)
    return filled


def _operator_dir() -> Path:
    configured = os.environ.get(OPERATOR_DIR_ENV, "").strip()
    return Path(configured) if configured else LOCAL_ROOM_PKI / "operator"


class Operator:
    """The room's staff calls: mutual TLS to the lobby's internal port with the
    operator's certificate (``tls_dir``: ``ca.crt``, ``tls.crt``, ``tls.key``).
    Defaults: ``POKER_LOBBY_INTERNAL`` else 127.0.0.1:50054; ``POKER_OPERATOR_DIR``
    else the local room's ``~/.cardroom/pki/operator``."""

    def __init__(
        self,
        target: str | None = None,
        tls_dir: str | Path | None = None,
        *,
        timeout: float = 10.0,
    ) -> None:
        self.target = target or os.environ.get(LOBBY_INTERNAL_ENV, "").strip()
        self.target = self.target or DEFAULT_LOBBY_INTERNAL
        self.channel = service_channel(self.target, tls_dir or _operator_dir())
        self._lobby: Any = staff_lobby(self.channel)
        self.timeout = timeout

    async def close(self) -> None:
        await self.channel.close()

    async def __aenter__(self) -> Operator:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def create_table(
        self,
        config: common_pb2.GameConfig,
        *,
        name: str = "",
        seats: int = 0,
        min_buy_in: int = 0,
        max_buy_in: int = 0,
        action_clock_ms: int = 0,
        max_orbits_away: int | None = None,
    ) -> lobby_pb2.Table:
        """A ring table.  Defaults as ``poker create-table``'s: a big bet of twice the
        small bet, a stud bring-in of half the small bet, 8 seats in stud and 5 in
        draw, a minimum buy-in of 20 small bets, no maximum, the rule book's clock
        (S10), the lobby's B5 absence."""
        config = _with_defaults(config)
        is_draw = config.game == common_pb2.GAME_DRAW_7A
        stakes = f"{config.small_bet}/{config.big_bet}"
        request = lobby_pb2.CreateTableRequest(
            name=name or f"{_GAME_NAMES.get(config.game, 'table')} {stakes}",
            config=config,
            seats=seats or (5 if is_draw else 8),
            min_buy_in=min_buy_in or 20 * config.small_bet,
            max_buy_in=max_buy_in,
            action_clock_ms=action_clock_ms,
        )
        if max_orbits_away is not None:
            request.max_orbits_away = max_orbits_away
        try:
            table: lobby_pb2.Table = await self._lobby.CreateTable(request, timeout=self.timeout)
        except aio.AioRpcError as error:
            raise lobby_error(error, "CreateTable") from error
        return table

    async def grant_chips(self, player_id: str, amount: int) -> lobby_pb2.Player:
        """Play money added to a player's balance (recorded in the ledger)."""
        request = lobby_pb2.GrantChipsRequest(player_id=player_id, amount=amount)
        try:
            player: lobby_pb2.Player = await self._lobby.GrantChips(request, timeout=self.timeout)
        except aio.AioRpcError as error:
            raise lobby_error(error, "GrantChips") from error
        return player


async def create_table(
    config: common_pb2.GameConfig,
    *,
    target: str | None = None,
    tls_dir: str | Path | None = None,
    **options: Any,
) -> lobby_pb2.Table:
    """One ring table, as the operator (:meth:`Operator.create_table`'s options)."""
    async with Operator(target, tls_dir) as operator:
        return await operator.create_table(config, **options)
