"""The Lobby gRPC servicer: players, and the tables of both kinds through one
interface.

Each RPC checks its request, picks the table's book once by the table id
(``_book``: a tournament's table, else a ring table; see ``books.py``), calls it
and answers.  Every request is checked in full (``poker_wire`` for ids, amounts
and the game configuration) before anything changes, and the writes of one RPC
are one transaction.  Handlers never await, so on the one asyncio loop each RPC
runs alone.

Tokens: ``auth.new_token`` (``secrets.token_urlsafe``, never beginning with
``-``) shown once; only the SHA-256 is stored and it is compared with
``hmac.compare_digest``.  Unknown player: NOT_FOUND; wrong token:
PERMISSION_DENIED.  SitDown, StandUp and CreateTable are the ring tables' (a
tournament seats its own players: ``Tournaments.Register``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from typing import Any

import grpc

from poker.common.v1.batch_pb2 import CallBatch, ReplyBatch
from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import lobby_pb2_grpc as pb_grpc
from poker_rules.errors import InvalidConfigError
from poker_rules.seating import SeatingError
from poker_wire import check_id, game_of
from service_kit.batches import BatchServer, Early
from service_kit.errors import (
    ErrorCodes,
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    PermissionDeniedError,
)
from service_kit.identity import OPERATOR, caller_identity, player_token
from service_kit.logs import get_logger

from .auth import authenticate, new_token, token_hash
from .books import SeatSwitches, TableBook
from .commits import answered_early
from .histories import MOST_HISTORIES
from .listing import ViewedRingBook
from .metrics import BATCH_SIZE, BATCHED_CALLS, CHIPS_GRANTED, PLAYERS_REGISTERED
from .ring import RingBook
from .ring.seats import sit_down, stand_up
from .ring.wire import return_choice
from .settings import LobbySettings
from .store import LobbyStore, PlayerRow
from .tournament import TournamentBook

Context = grpc.aio.ServicerContext[Any, Any]

# The library's exceptions the servicer does not turn into a status itself (its
# own checks come first): the unary calls' ErrorInterceptor and the Batch
# stream's replies map them the same way.
ERROR_CODES: ErrorCodes = {
    SeatingError: grpc.StatusCode.FAILED_PRECONDITION,
    InvalidConfigError: grpc.StatusCode.INVALID_ARGUMENT,
}
MAX_PLAYER_NAME = 32
MAX_TABLE_NAME = 64

log = get_logger()


def check_name(value: str, field: str, most: int) -> str:
    """A display name: 1..most printable characters, kept without the spaces
    around it (" bob " is shown as "bob", as every other seat's name is).

    >>> check_name("  ann  ", "name", 32)
    'ann'
    """
    value = value.strip()
    if not value:
        raise InvalidArgumentError(f"{field} is required: 1..{most} characters")
    if len(value) > most:
        raise InvalidArgumentError(
            f"{field} is {len(value)} characters long; at most {most} are allowed"
        )
    if not value.isprintable():
        raise InvalidArgumentError(f"{field} must be printable characters")
    return value


class LobbyServicer(
    pb_grpc.LobbyServicer, pb_grpc.LobbyHandsServicer, pb_grpc.LobbyOperatorServicer
):
    """Players over a ``LobbyStore``, tables through their books; see the proto.

    One object serves the lobby's three gRPC services (the player plane, the
    table's hand protocol, the staff's calls); who may call which is the protos'
    ``access`` option, checked before a call gets here (``service_kit.authz``)."""

    def __init__(
        self,
        store: LobbyStore,
        settings: LobbySettings,
        tournaments: TournamentBook | None = None,
    ) -> None:
        self._store = store
        self._settings = settings
        # Each ring table's view built once per change (ListTables every second,
        # GetTable at every Join: listing.py).
        self._ring: RingBook = ViewedRingBook(store, settings.max_orbits_away)
        self._tournaments = tournaments
        self._books: tuple[TableBook, ...] = (self._ring,) + (
            (tournaments,) if tournaments is not None else ()
        )
        # Set by the server when a GroupCommitter makes the answers wait
        # (commits.py): a FinishHand that applies a result is then answered at
        # once with ``recorded`` false.
        self.answers_early = False
        self._totals_lock = asyncio.Lock()  # GetLedgerTotals: one full read at a time
        self._batch = BatchServer(
            pb.DESCRIPTOR.services_by_name["LobbyHands"],
            self,
            ERROR_CODES,
            BATCHED_CALLS,
            BATCH_SIZE,
        )

    def _book(self, table_id: str) -> TableBook:
        """The book that keeps ``table_id``: a tournament's table, else a ring
        table (whose book answers a malformed or unknown id)."""
        if self._tournaments is not None and self._tournaments.owns(table_id):
            return self._tournaments
        return self._ring

    def _authenticate(
        self, player_id: str, token: str, context: Context | None = None
    ) -> PlayerRow:
        """The player, by the request's token or the call's bearer token."""
        return authenticate(self._store, player_id, player_token(token, context))

    def _player_pb(self, row: PlayerRow) -> pb.Player:
        return pb.Player(
            player_id=row.player_id,
            name=row.name,
            balance=row.balance,
            at_tables=self._store.at_tables(row.player_id),
        )

    # ------------------------------------------------------------ players

    async def RegisterPlayer(
        self, request: pb.RegisterPlayerRequest, context: Context
    ) -> pb.RegisterPlayerResponse:
        name = check_name(request.name, "name", MAX_PLAYER_NAME)
        settings = self._settings
        if not 0 <= request.initial_balance <= settings.max_balance:
            raise InvalidArgumentError(
                f"initial_balance must be 0..{settings.max_balance} "
                f"(0 = the default {settings.default_balance}), got {request.initial_balance}"
            )
        if request.initial_balance and caller_identity(context) != OPERATOR:
            raise PermissionDeniedError(
                f"initial_balance {request.initial_balance}: a player cannot grant themselves "
                f"chips; registration grants {settings.default_balance} "
                "(initial_balance 0), and only an operator grants more (GrantChips)"
            )
        grant = request.initial_balance or settings.default_balance
        player_id = f"p-{uuid.uuid4().hex}"
        token = new_token()
        with self._store.transaction():
            self._store.add_player(player_id, name, token_hash(token), grant)
        PLAYERS_REGISTERED.inc()
        CHIPS_GRANTED.inc(grant)
        log.info("player registered", player_id=player_id, granted=grant)
        player = pb.Player(player_id=player_id, name=name, balance=grant, at_tables=0)
        return pb.RegisterPlayerResponse(player=player, token=token)

    async def GrantChips(self, request: pb.GrantChipsRequest, context: Context) -> pb.Player:
        pid = check_id(request.player_id, "player_id")
        most = self._settings.max_balance
        if not 1 <= request.amount <= most:
            raise InvalidArgumentError(f"amount must be 1..{most}, got {request.amount}")
        with self._store.transaction():
            row = self._store.player(pid)
            if row is None:
                raise NotFoundError(f"no player {pid}")
            self._store.grant(pid, request.amount)
            granted = self._store.player(pid)
        if granted is None:  # not after the check above, in the same transaction
            raise NotFoundError(f"no player {pid}")
        CHIPS_GRANTED.inc(request.amount)
        log.info("chips granted", player_id=pid, granted=request.amount)
        return self._player_pb(granted)

    async def GetPlayer(self, request: pb.GetPlayerRequest, context: Context) -> pb.Player:
        return self._player_pb(self._authenticate(request.player_id, request.token, context))

    async def Authenticate(
        self, request: pb.AuthenticateRequest, context: Context
    ) -> pb.AuthenticateResponse:
        row = self._authenticate(request.player_id, request.token, context)
        seat = 0
        if request.table_id:
            seat = self._book(request.table_id).seat_of(request.table_id, row.player_id)
        return pb.AuthenticateResponse(player=self._player_pb(row), seat=seat)

    # ------------------------------------------------------------ tables

    async def CreateTable(self, request: pb.CreateTableRequest, context: Context) -> pb.Table:
        name = check_name(request.name, "name", MAX_TABLE_NAME)
        return self._ring.view(self._ring.create(request, name))

    async def GetTable(self, request: pb.GetTableRequest, context: Context) -> pb.Table:
        return self._book(request.table_id).table_view(request.table_id)

    async def ListTables(
        self, request: pb.ListTablesRequest, context: Context
    ) -> pb.ListTablesResponse:
        game = game_of(request.game) if request.game else None
        return pb.ListTablesResponse(
            tables=[table for book in self._books for table in book.table_views(game)]
        )

    # ------------------------------------------------------------ seats

    async def SitDown(self, request: pb.SitDownRequest, context: Context) -> pb.SitDownResponse:
        player = self._authenticate(request.player_id, request.token, context)
        return sit_down(self._ring, player, request)

    async def StandUp(self, request: pb.StandUpRequest, context: Context) -> pb.StandUpResponse:
        player = self._authenticate(request.player_id, request.token, context)
        return stand_up(self._ring, player, request.table_id)

    def _switches(self, request: Any, context: Context) -> SeatSwitches:
        """The seat switches of the request's player at its table."""
        player = self._authenticate(request.player_id, request.token, context)
        return self._book(request.table_id).seat_switches(request.table_id, player.player_id)

    async def SitOut(self, request: pb.SitOutRequest, context: Context) -> pb.SeatStatusResponse:
        return self._switches(request, context).sit_out()

    async def SitIn(self, request: pb.SitInRequest, context: Context) -> pb.SeatStatusResponse:
        choice = return_choice(request)
        seat = self._switches(request, context)
        return seat.sit_in(choice)

    async def SetAutoPost(
        self, request: pb.SetAutoPostRequest, context: Context
    ) -> pb.SeatStatusResponse:
        seat = self._switches(request, context)
        return seat.set_auto_post(request.auto_post)

    async def ImIn(self, request: pb.ImInRequest, context: Context) -> pb.SeatStatusResponse:
        return self._switches(request, context).im_in()

    # ------------------------------------------------------------ hands

    async def NextHand(self, request: pb.NextHandRequest, context: Context) -> pb.NextHandResponse:
        return self._book(request.table_id).next_hand(request.table_id)

    async def FinishHand(
        self, request: pb.FinishHandRequest, context: Context
    ) -> pb.FinishHandResponse:
        """The result applied; with group commit (``answers_early``) the call that
        applied it is answered at once, ``recorded`` false (commits.py), and
        every other answer (a repeat, a refusal) waits and is recorded."""
        commits = self._store.commits if self.answers_early else None
        response = self._book(request.table_id).finish_hand(request)
        # Nothing committed by the call (a repeat), or no group commit: recorded.
        response.recorded = commits is None or self._store.commits == commits
        return response

    async def HandRecorded(
        self, request: pb.HandRecordedRequest, context: Context
    ) -> pb.HandRecordedResponse:
        return self._book(request.table_id).hand_recorded(request.table_id, request.hand_id)

    async def VoidPendingHand(
        self, request: pb.VoidPendingHandRequest, context: Context
    ) -> pb.VoidPendingHandResponse:
        return self._book(request.table_id).void_pending_hand(request)

    async def Batch(  # type: ignore[override]  # Early: only under DurableServicer
        self, request_iterator: AsyncIterator[CallBatch], context: Context
    ) -> AsyncIterator[ReplyBatch | Early]:
        """The hand protocol's calls in batches, each answered in order by the
        unary method itself (see the proto); with group commit, the FinishHand
        replies answered early leave first (``Early``, commits.py)."""
        early = answered_early if self.answers_early else None
        async for replies in self._batch.answer_early(request_iterator, context, None, early):
            yield replies

    async def GetHandHistories(
        self, request: pb.GetHandHistoriesRequest, context: Context
    ) -> pb.GetHandHistoriesResponse:
        """The table's stored histories (``histories.py``): one hand, or the newest
        ``limit`` before a hand; the bytes as the table sent them."""
        table_id = self._known_table(request.table_id)
        histories = self._store.histories
        if request.hand_id:
            hand_id = check_id(request.hand_id, "hand_id")
            if request.limit or request.before_hand_id:
                raise InvalidArgumentError(
                    "hand_id names one hand: leave limit and before_hand_id unset"
                )
            one = histories.one(table_id, hand_id)
            if one is None:
                raise NotFoundError(f"table {table_id} has no stored history of hand {hand_id}")
            return pb.GetHandHistoriesResponse(
                histories=[pb.StoredHistory(hand_id=hand_id, history=one)]
            )
        if not 1 <= request.limit <= MOST_HISTORIES:
            raise InvalidArgumentError(
                f"limit must be 1..{MOST_HISTORIES} (or hand_id set), got {request.limit}"
            )
        before = check_id(request.before_hand_id, "before_hand_id", required=False)
        rows = histories.newest(table_id, request.limit, before)
        if rows is None:
            raise NotFoundError(f"table {table_id} has no stored history of hand {before}")
        return pb.GetHandHistoriesResponse(
            histories=[pb.StoredHistory(hand_id=h, history=b) for h, b in rows]
        )

    async def StoreVoidedHistory(
        self, request: pb.StoreVoidedHistoryRequest, context: Context
    ) -> pb.StoreVoidedHistoryResponse:
        """A history for a hand the lobby voided itself (``histories.py``): only a
        voided hand of this table, only once (the same bytes again are a retry)."""
        table_id = self._known_table(request.table_id)
        hand_id = check_id(request.hand_id, "hand_id")
        if not request.history:
            raise InvalidArgumentError("history is required: the hand's history as kept")
        if self._hand_status(table_id, hand_id) != "voided":
            raise FailedPreconditionError(
                f"hand {hand_id} is not recorded voided at table {table_id}: a played "
                "hand's history comes with its FinishHand"
            )
        with self._store.transaction():
            stored = self._store.histories.one(table_id, hand_id)
            if stored is None:
                self._store.histories.add(hand_id, table_id, request.history)
            elif stored != request.history:
                raise FailedPreconditionError(f"hand {hand_id} has a history stored already")
        return pb.StoreVoidedHistoryResponse()

    def _known_table(self, table_id: str) -> str:
        """A ring or tournament table's id; NOT_FOUND when the lobby has no such table."""
        if self._tournaments is not None and self._tournaments.owns(table_id):
            return table_id
        return self._ring.table(table_id).row.table_id

    def _hand_status(self, table_id: str, hand_id: str) -> str | None:
        """How the lobby recorded hand ``hand_id`` of table ``table_id`` (None: not)."""
        if self._tournaments is not None and self._tournaments.owns(table_id):
            return self._tournaments.hand_rows.status(table_id, hand_id)
        row = self._store.hand(hand_id)
        return row.status if row is not None and row.table_id == table_id else None

    async def ListHands(
        self, request: pb.ListHandsRequest, context: Context
    ) -> pb.ListHandsResponse:
        return self._book(request.table_id).list_hands(request)

    # ------------------------------------------------------------ audit

    async def GetLedgerTotals(
        self, request: pb.GetLedgerTotalsRequest, context: Context
    ) -> pb.LedgerTotals:
        # The exact sums walk the whole ledger (about 2 s of CPU at three million
        # rows): on a thread with a connection of its own, one snapshot, so the
        # loop, and every table's hands with it, never waits for an audit; one
        # at a time.  A ``:memory:`` store has no other connection: on the loop.
        async with self._totals_lock:
            if self._store.reads_apart:
                t = await asyncio.to_thread(self._store.reconcile_sums)
            else:
                t = self._store.totals()
        return pb.LedgerTotals(
            granted=t.granted,
            balances=t.balances,
            at_tables=t.at_tables,
            ledger_balances=t.ledger_balances,
            ledger_tables=t.ledger_tables,
            entries=t.entries,
        )
