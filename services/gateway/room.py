"""``poker.room.v1.Room``: the public API, call by call.

Each method authenticates its caller when it acts for a player
(``credentials``), counts the call against the player's limit (``limits``), and
makes the same call of the lobby or of the table's shard with the player's id
and token filled in.  The public requests carry the internal requests' field
numbers minus the credential's (room.proto), so a public request becomes the
internal one by re-reading its bytes.  Statuses and messages are the room's
(``errors``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, TypeVar, cast

from google.protobuf.message import Message

from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import tournament_pb2 as tour
from poker.room.v1 import room_pb2 as rpb
from poker.table.v1 import table_pb2 as tpb
from poker_wire.checks import check_id
from service_kit.errors import InvalidArgumentError

from . import seats
from .credentials import Credentials, Player, credential
from .errors import as_connect_errors
from .limits import Limits
from .spectators import Spectators
from .upstream import Upstream

M = TypeVar("M", bound=Message)
Ctx = Any  # connectrpc.request.RequestContext


def _internal(request: Message, kind: type[M], player: Player | None = None) -> M:
    """The internal request with the public one's fields and the player's id and token.

    The public request's unknown fields are dropped first: the public messages
    reserve the internal ones' ``player_id`` and ``token`` numbers, and bytes a
    client put there would otherwise arrive as those fields, a credential that
    skipped the gateway's check and its per-player limits."""
    request.DiscardUnknownFields()
    internal = kind.FromString(request.SerializeToString())
    if player is not None:
        internal.player_id = player.player_id  # type: ignore[attr-defined]
        internal.token = player.token  # type: ignore[attr-defined]
    return internal


def _authorization(ctx: Ctx) -> str | None:
    value = ctx.request_headers.get("authorization")
    return value if isinstance(value, str) else None


class RoomService:
    """The Room service (room_connect.Room)."""

    def __init__(
        self,
        upstream: Upstream,
        credentials: Credentials,
        limits: Limits,
        spectators: Spectators,
    ) -> None:
        self.up = upstream
        self.credentials = credentials
        self.limits = limits
        self.spectators = spectators

    @property
    def _t(self) -> float:
        return self.up.deadline_s

    async def _player(self, ctx: Ctx) -> Player:
        """The authenticated caller, within their call limit."""
        player = await self.credentials.player(_authorization(ctx), ctx.client_address)
        self.limits.player(player.player_id)
        return player

    async def _anyone(self, ctx: Ctx) -> Player | None:
        """The caller if they sent a credential (checked), else None (limited by address)."""
        player = await self.credentials.optional(_authorization(ctx), ctx.client_address)
        if player is None:
            self.limits.address(ctx.client_address)
        else:
            self.limits.player(player.player_id)
        return player

    # ------------------------------------------------------------ account

    async def register(self, request: rpb.RegisterRequest, ctx: Ctx) -> rpb.RegisterResponse:
        with as_connect_errors("Register"):
            self.limits.registration(ctx.client_address)
            made = await self.up.lobby.RegisterPlayer(
                lpb.RegisterPlayerRequest(name=request.name), timeout=self._t
            )
            return rpb.RegisterResponse(
                player=made.player, credential=credential(made.player.player_id, made.token)
            )

    async def get_me(self, request: rpb.GetMeRequest, ctx: Ctx) -> lpb.Player:
        with as_connect_errors("GetMe"):
            player = await self._player(ctx)
            return await self.up.lobby.GetPlayer(
                lpb.GetPlayerRequest(player_id=player.player_id, token=player.token),
                timeout=self._t,
            )

    # ------------------------------------------------------------ tables and seats

    async def list_tables(self, request: rpb.ListTablesRequest, ctx: Ctx) -> lpb.ListTablesResponse:
        with as_connect_errors("ListTables"):
            await self._anyone(ctx)
            return await self.up.lobby.ListTables(
                _internal(request, lpb.ListTablesRequest), timeout=self._t
            )

    async def get_table(self, request: rpb.GetTableRequest, ctx: Ctx) -> lpb.Table:
        with as_connect_errors("GetTable"):
            await self._anyone(ctx)
            return await self.up.lobby.GetTable(
                _internal(request, lpb.GetTableRequest), timeout=self._t
            )

    async def sit_down(self, request: rpb.SitDownRequest, ctx: Ctx) -> lpb.SitDownResponse:
        with as_connect_errors("SitDown"):
            player = await self._player(ctx)
            return await self.up.lobby.SitDown(
                _internal(request, lpb.SitDownRequest, player), timeout=self._t
            )

    async def stand_up(self, request: rpb.StandUpRequest, ctx: Ctx) -> lpb.StandUpResponse:
        with as_connect_errors("StandUp"):
            player = await self._player(ctx)
            return await self.up.lobby.StandUp(
                _internal(request, lpb.StandUpRequest, player), timeout=self._t
            )

    async def sit_out(self, request: rpb.SitOutRequest, ctx: Ctx) -> lpb.SeatStatusResponse:
        with as_connect_errors("SitOut"):
            player = await self._player(ctx)
            return await self.up.lobby.SitOut(
                _internal(request, lpb.SitOutRequest, player), timeout=self._t
            )

    async def sit_in(self, request: rpb.SitInRequest, ctx: Ctx) -> lpb.SeatStatusResponse:
        with as_connect_errors("SitIn"):
            player = await self._player(ctx)
            return await self.up.lobby.SitIn(
                _internal(request, lpb.SitInRequest, player), timeout=self._t
            )

    async def set_auto_post(
        self, request: rpb.SetAutoPostRequest, ctx: Ctx
    ) -> lpb.SeatStatusResponse:
        with as_connect_errors("SetAutoPost"):
            player = await self._player(ctx)
            return await self.up.lobby.SetAutoPost(
                _internal(request, lpb.SetAutoPostRequest, player), timeout=self._t
            )

    async def im_in(self, request: rpb.ImInRequest, ctx: Ctx) -> lpb.SeatStatusResponse:
        with as_connect_errors("ImIn"):
            player = await self._player(ctx)
            return await self.up.lobby.ImIn(
                _internal(request, lpb.ImInRequest, player), timeout=self._t
            )

    # ------------------------------------------------------------ at the table

    async def play(
        self, request: AsyncIterator[tpb.PlayerMessage], ctx: Ctx
    ) -> AsyncIterator[tpb.TableEvent]:
        with as_connect_errors("Play"):
            # The Join is read before anything is refused: a client still writing
            # to a stream the server has closed sees a reset, not the refusal.
            first = await anext(aiter(request), None)
            player = await self.credentials.optional(_authorization(ctx), ctx.client_address)
            if first is None or not first.HasField("join"):
                raise InvalidArgumentError("the first message must be a Join (table_id, delivery)")
            join = seats.seat_join(first.join, player)
            if player is None:  # the Join's own credential: the door's check, as a bearer's
                await self.credentials.of_join(join.player_id, join.token, ctx.client_address)
            self.limits.player(join.player_id)
            async for event in seats.play(self.up, first, request):
                yield cast(tpb.TableEvent, event)  # bytes passed on (codecs.Encoded)

    async def play_many(
        self, request: AsyncIterator[tpb.PlayManyRequest], ctx: Ctx
    ) -> AsyncIterator[tpb.PlayManyEvents]:
        with as_connect_errors("PlayMany"):
            many = seats.ManySeats(
                self.up, self.credentials, self.limits.player, ctx.client_address
            )
            async for batch in many.events(request):
                yield cast(tpb.PlayManyEvents, batch)  # bytes passed on (codecs.Encoded)

    async def follow(self, request: rpb.FollowRequest, ctx: Ctx) -> AsyncIterator[tpb.TableEvent]:
        with as_connect_errors("Follow"):
            player = await self._player(ctx)
            join = tpb.Join(
                table_id=request.table_id,
                player_id=player.player_id,
                token=player.token,
                delivery=tpb.DELIVERY_EVERY_EVENT,
            )
            async for event in seats.follow(self.up, join):
                yield cast(tpb.TableEvent, event)  # bytes passed on (codecs.Encoded)

    async def act(self, request: rpb.ActRequest, ctx: Ctx) -> rpb.ActResponse:
        with as_connect_errors("Act"):
            player = await self._player(ctx)
            # The Room API's names (the table's own checks say action.hand_id).
            check_id(request.hand_id, "hand_id")
            if not request.HasField("action"):
                raise InvalidArgumentError(
                    "action is required: your action (kind, and amount for a bet or raise) "
                    "for the YourTurn of hand_id and action_seq"
                )
            internal = tpb.ActRequest(
                table_id=request.table_id,
                player_id=player.player_id,
                token=player.token,
                action=tpb.PlayerAction(
                    hand_id=request.hand_id, action_seq=request.action_seq, action=request.action
                ),
            )

            async def on(shard: int) -> None:
                await self.up.table(shard).Act(internal, timeout=self._t)

            await self.up.on_table(request.table_id, on)
            return rpb.ActResponse(hand_id=request.hand_id, action_seq=request.action_seq)

    async def watch(self, request: rpb.WatchRequest, ctx: Ctx) -> AsyncIterator[tpb.TableEvent]:
        with as_connect_errors("Watch"):
            player = await self._player(ctx)
            await self.up.shards.shard_of(request.table_id)  # NOT_FOUND before any limit
            async for event in self.spectators.watch(request.table_id, player.player_id):
                yield cast(tpb.TableEvent, event)  # bytes passed on (codecs.Encoded)

    async def get_state(self, request: rpb.GetStateRequest, ctx: Ctx) -> tpb.Snapshot:
        with as_connect_errors("GetState"):
            player = await self._player(ctx)
            internal = tpb.GetStateRequest(
                table_id=request.table_id, player_id=player.player_id, token=player.token
            )

            async def on(shard: int) -> tpb.Snapshot:
                return await self.up.table(shard).GetState(internal, timeout=self._t)

            return await self.up.on_table(request.table_id, on)

    async def get_hand_history(
        self, request: rpb.GetHandHistoryRequest, ctx: Ctx
    ) -> tpb.GetHandHistoryResponse:
        with as_connect_errors("GetHandHistory"):
            player = await self._anyone(ctx)
            internal = _internal(request, tpb.GetHandHistoryRequest, player)

            async def on(shard: int) -> tpb.GetHandHistoryResponse:
                return await self.up.table(shard).GetHandHistory(internal, timeout=self._t)

            return await self.up.on_table(request.table_id, on, closed_ok=True)

    async def get_deck_proof(self, request: rpb.GetDeckProofRequest, ctx: Ctx) -> tpb.DeckProof:
        """A finished hand's deck proof (G4a), the identity rules of GetHandHistory:
        the caller's own view with a credential (checked), else the public one."""
        with as_connect_errors("GetDeckProof"):
            player = await self._anyone(ctx)
            internal = _internal(request, tpb.GetDeckProofRequest, player)

            async def on(shard: int) -> tpb.DeckProof:
                return await self.up.table(shard).GetDeckProof(internal, timeout=self._t)

            return await self.up.on_table(request.table_id, on, closed_ok=True)

    async def list_live_tables(
        self, request: rpb.ListLiveTablesRequest, ctx: Ctx
    ) -> tpb.ListTablesResponse:
        with as_connect_errors("ListLiveTables"):
            await self._anyone(ctx)
            if not 0 <= request.game <= 3:
                raise InvalidArgumentError(f"game must be 0..3, got {request.game}")
            return tpb.ListTablesResponse(
                tables=[
                    t
                    for t in self.up.shards.live_tables()
                    if not request.game or t.config.game == request.game
                ]
            )

    # ------------------------------------------------------------ tournaments

    async def list_tournaments(
        self, request: rpb.ListTournamentsRequest, ctx: Ctx
    ) -> tour.ListTournamentsResponse:
        with as_connect_errors("ListTournaments"):
            await self._anyone(ctx)
            return await self.up.tournaments.ListTournaments(
                tour.ListTournamentsRequest(), timeout=self._t
            )

    async def get_tournament(self, request: rpb.GetTournamentRequest, ctx: Ctx) -> tour.Tournament:
        with as_connect_errors("GetTournament"):
            await self._anyone(ctx)
            return await self.up.tournaments.GetTournament(
                _internal(request, tour.GetTournamentRequest), timeout=self._t
            )

    async def get_standings(self, request: rpb.GetStandingsRequest, ctx: Ctx) -> tour.Standings:
        with as_connect_errors("GetStandings"):
            await self._anyone(ctx)
            return await self.up.tournaments.GetStandings(
                _internal(request, tour.GetStandingsRequest), timeout=self._t
            )

    async def enter_tournament(
        self, request: rpb.TournamentEntryRequest, ctx: Ctx
    ) -> tour.RegisterEntryResponse:
        with as_connect_errors("EnterTournament"):
            player = await self._player(ctx)
            return await self.up.tournaments.Register(self._entry(request, player), timeout=self._t)

    async def re_enter_tournament(
        self, request: rpb.TournamentEntryRequest, ctx: Ctx
    ) -> tour.RegisterEntryResponse:
        with as_connect_errors("ReEnterTournament"):
            player = await self._player(ctx)
            return await self.up.tournaments.ReEnter(self._entry(request, player), timeout=self._t)

    async def leave_tournament(
        self, request: rpb.TournamentEntryRequest, ctx: Ctx
    ) -> tour.UnregisterEntryResponse:
        with as_connect_errors("LeaveTournament"):
            player = await self._player(ctx)
            return await self.up.tournaments.Unregister(
                tour.UnregisterEntryRequest(
                    tournament_id=request.tournament_id,
                    player_id=player.player_id,
                    token=player.token,
                ),
                timeout=self._t,
            )

    async def set_away(self, request: rpb.SetAwayRequest, ctx: Ctx) -> tour.SetAwayResponse:
        with as_connect_errors("SetAway"):
            player = await self._player(ctx)
            return await self.up.tournaments.SetAway(
                _internal(request, tour.SetAwayRequest, player), timeout=self._t
            )

    async def get_my_seat(self, request: rpb.GetMySeatRequest, ctx: Ctx) -> tour.MySeat:
        with as_connect_errors("GetMySeat"):
            player = await self._player(ctx)
            return await self.up.tournaments.GetMySeat(
                _internal(request, tour.GetMySeatRequest, player), timeout=self._t
            )

    @staticmethod
    def _entry(request: rpb.TournamentEntryRequest, player: Player) -> tour.RegisterEntryRequest:
        return tour.RegisterEntryRequest(
            tournament_id=request.tournament_id, player_id=player.player_id, token=player.token
        )
