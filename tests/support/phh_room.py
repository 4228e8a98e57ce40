"""A card room in one process for hand-history tests: the real servicers, no sockets.

Why: the PHH acceptance needs thousands of random hands per game exported by the
table's ``GetHandHistory``, with timeouts and all-ins.  Through five processes and
gRPC that costs about 24 ms of CPU a hand; here the table service's own
``TableManager``/``TableRuntime``/``HandRunner`` play the hands against the real
``DealerServicer``, ``BettingServicer`` (with its stream's state refs),
``ShowdownServicer`` and ``LobbyServicer`` (SQLite in memory), called directly by
an in-process stand-in for ``services.table.clients.Downstream``.  Every request
and reply is serialized and parsed again, as the wire would, and a refusal is the
``DownstreamError`` a gRPC status would be.  The histories come from
``TableServicer.GetHandHistory`` itself (player authentication through the lobby
included), so the export path is the service's.

Players are random bots joined to the table's runtime as subscribers (the
``PlayMany`` sink path): on their ``YourTurn`` they answer at once with a random
legal action (pot and no limit: random amounts, sometimes all in), or, with
probability ``timeout_p``, not at all, so the table's clock runs out (S10).  A
player who busts stands up and a fresh player sits down, with a random buy-in of
which a quarter are short (all-ins, side pots).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from service_kit.errors import ErrorCodes, status_of
from services.betting.servicer import ERROR_CODES as BETTING_CODES
from services.betting.servicer import BettingServicer, StateRefs
from services.dealer.decks import DeckStore
from services.dealer.servicer import ERROR_CODES as DEALER_CODES
from services.dealer.servicer import DealerServicer
from services.lobby.servicer import ERROR_CODES as LOBBY_CODES
from services.lobby.servicer import LobbyServicer
from services.lobby.settings import LobbySettings
from services.lobby.store import LobbyStore
from services.showdown.servicer import ERROR_CODES as SHOWDOWN_CODES
from services.showdown.servicer import ShowdownServicer
from services.table.clients import DownstreamError
from services.table.runtime import Subscriber, TableRuntime
from services.table.servicer import TableManager, TableServicer

_STATE_CALLS = {"ApplyAction", "ApplyTimeout", "StartRound"}


class InProcessDownstream:
    """``Downstream.call`` onto the servicers in this process (see the module)."""

    def __init__(self) -> None:
        self.lobby = LobbyServicer(LobbyStore(":memory:"), LobbySettings(default_balance=10**9))
        self.dealer = DealerServicer(DeckStore(max_decks=10_000, ttl=3600), allow_presets=False)
        self.betting = BettingServicer()
        self.showdown = ShowdownServicer()
        self.refs = StateRefs()  # as one Batch stream remembers them
        self.codes: dict[str, ErrorCodes] = {
            "lobby": LOBBY_CODES,
            "dealer": DEALER_CODES,
            "betting": BETTING_CODES,
            "showdown": SHOWDOWN_CODES,
        }
        self.calls = 0

    async def call(self, service: str, method: str, request: Any) -> Any:
        self.calls += 1
        handler = getattr(getattr(self, service), method)
        wired = type(request).FromString(request.SerializeToString())
        try:
            if service == "betting" and method in _STATE_CALLS:
                reply = await handler(wired, None, refs=self.refs)
            else:
                reply = await handler(wired, None)
        except Exception as error:
            status = status_of(error, self.codes[service])
            if status is None:
                raise
            raise DownstreamError(*status) from error
        return type(reply).FromString(reply.SerializeToString())

    async def close(self) -> None:
        return None


@dataclass
class Seat:
    """One random bot: its player, its stream, what it saw of the hand in progress."""

    player_id: str
    token: str
    sub: Subscriber | None = None
    seat: int = 0
    cards: list[str] = field(default_factory=list)
    stack: int = 0
    busted: bool = False


@dataclass
class TableRun:
    table_id: str
    config: common.GameConfig
    target: int
    seats: dict[str, Seat] = field(default_factory=dict)
    hands: list[str] = field(default_factory=list)  # finished hand ids, in order
    players_of: dict[str, list[str]] = field(default_factory=dict)  # hand id -> players
    rejections: list[str] = field(default_factory=list)
    done: asyncio.Event = field(default_factory=asyncio.Event)


def random_action(
    legal: common.LegalActions, cards: Sequence[str], rng: random.Random
) -> common.Action:
    """A uniform choice among the kinds on the menu; random amounts, a quarter of
    the aggressive ones all in; random discards."""
    kinds = list(legal.kinds)
    if common.ACTION_KIND_DISCARD in kinds:
        most = min(legal.max_discards, len(cards))
        k = rng.randint(0, most)
        return common.Action(kind=common.ACTION_KIND_DISCARD, cards=rng.sample(list(cards), k))
    if common.ACTION_KIND_FOLD in kinds and legal.can_check and rng.random() < 0.8:
        kinds.remove(common.ACTION_KIND_FOLD)  # folding for free: rarely
    kind = rng.choice(kinds)
    if kind == legal.raise_kind and kind != common.ACTION_KIND_UNSPECIFIED:
        if legal.to_choices:
            return common.Action(kind=kind, amount=rng.choice(list(legal.to_choices)))
        low, high = legal.min_to, legal.max_to
        amount = high if rng.random() < 0.25 else rng.randint(low, max(low, (low + high) // 2))
        return common.Action(kind=kind, amount=amount)
    return common.Action(kind=kind)


class Room:
    """The lobby, the table manager and servicer, bots; ``play`` runs tables."""

    def __init__(self, *, seed: int, timeout_p: float = 0.04, short_p: float = 0.25) -> None:
        self.ds = InProcessDownstream()
        self.manager = TableManager(
            self.ds,  # type: ignore[arg-type]
            discovery_s=3600,
            idle_poll_s=0.01,
            hand_pause_s=0,
            history_hands=100_000,
        )
        self.servicer = TableServicer(self.manager, allow_presets=False, audit_token="")
        self.rng = random.Random(seed)
        self.timeout_p = timeout_p
        self.short_p = short_p
        self.runs: dict[str, TableRun] = {}
        self.tokens: dict[str, str] = {}  # every player's, seated or gone
        self._names = 0

    async def lobby(self, method: str, request: Any) -> Any:
        return await self.ds.call("lobby", method, request)

    async def create_table(
        self, config: common.GameConfig, *, seats: int, target: int, clock_ms: int = 50
    ) -> TableRun:
        table = await self.lobby(
            "CreateTable",
            lpb.CreateTableRequest(
                name=f"phh {len(self.runs) + 1}",
                config=config,
                seats=seats,
                min_buy_in=1,
                action_clock_ms=clock_ms,
            ),
        )
        run = TableRun(table.table_id, config, target)
        self.runs[table.table_id] = run
        for _ in range(seats):
            await self._seat_new_player(run)
        return run

    def _buy_in(self, config: common.GameConfig) -> int:
        big = max(config.big_bet, config.small_bet)
        if self.rng.random() < self.short_p:
            return self.rng.randint(1, 5 * big)
        return self.rng.randint(10 * big, 60 * big)

    async def _seat_new_player(self, run: TableRun) -> None:
        self._names += 1
        name = f"bot{self._names}"
        reply = await self.lobby("RegisterPlayer", lpb.RegisterPlayerRequest(name=name))
        player = Seat(reply.player.player_id, reply.token)
        self.tokens[player.player_id] = reply.token
        sat = await self.lobby(
            "SitDown",
            lpb.SitDownRequest(
                player_id=player.player_id,
                token=player.token,
                table_id=run.table_id,
                buy_in=self._buy_in(run.config),
            ),
        )
        player.seat = sat.seat
        run.seats[player.player_id] = player
        runtime = self.manager.tables.get(run.table_id)
        if runtime is not None:
            self._join(run, runtime, player)

    def _join(self, run: TableRun, runtime: TableRuntime, player: Seat) -> None:
        player.sub = runtime.join(
            player.player_id, tpb.DELIVERY_EVERY_EVENT, self._sink(run, player)
        )

    def _sink(
        self, run: TableRun, player: Seat
    ) -> Callable[[Subscriber, tpb.TableEvent | list[tpb.TableEvent] | bytes | None], None]:
        def sink(
            sub: Subscriber, event: tpb.TableEvent | list[tpb.TableEvent] | bytes | None
        ) -> None:
            # Joined without ``wire``: never bytes (the annotation is the runtime's Sink).
            if event is None or isinstance(event, list | bytes):
                return
            self._on_event(run, player, sub, event)

        return sink

    def _on_event(self, run: TableRun, player: Seat, sub: Subscriber, e: tpb.TableEvent) -> None:
        kind = e.WhichOneof("event")
        if kind == "hand_started":
            player.cards = []
        elif kind == "cards_dealt" and e.cards_dealt.seat == player.seat:
            player.cards.extend(e.cards_dealt.cards)
        elif kind == "draw_taken" and e.draw_taken.seat == player.seat:
            for old, new in zip(e.draw_taken.discarded, e.draw_taken.received, strict=True):
                player.cards[player.cards.index(old)] = new
        elif kind == "your_turn":
            if self.rng.random() < self.timeout_p:
                return  # the clock runs out (S10)
            turn = e.your_turn
            action = random_action(turn.legal, player.cards, self.rng)
            runtime = self.manager.tables[run.table_id]
            runtime.submit(
                sub, tpb.PlayerAction(hand_id=e.hand_id, action_seq=turn.action_seq, action=action)
            )
        elif kind == "action_rejected":
            run.rejections.append(e.action_rejected.message)
        elif kind == "hand_finished":
            stack = {s.seat: s.stack for s in e.hand_finished.seats}.get(player.seat)
            if stack == 0 and not player.busted:
                player.busted = True
                asyncio.get_running_loop().create_task(self._replace(run, player))
            # The first seat's subscriber records the hand for the table.
            if e.hand_id not in run.players_of:
                run.players_of[e.hand_id] = [s.player_id for s in e.hand_finished.seats]
                if not e.hand_finished.voided:
                    run.hands.append(e.hand_id)
                if len(run.hands) >= run.target:
                    run.done.set()

    async def _replace(self, run: TableRun, player: Seat) -> None:
        """A busted player stands up (after the hand) and a new one sits down."""
        await self.lobby(
            "StandUp",
            lpb.StandUpRequest(
                player_id=player.player_id, token=player.token, table_id=run.table_id
            ),
        )
        for _ in range(2000):  # the seat is free once the lobby took the hand's report
            table = await self.lobby("GetTable", lpb.GetTableRequest(table_id=run.table_id))
            if not any(s.player_id == player.player_id for s in table.occupied):
                break
            await asyncio.sleep(0.002)
        else:
            raise TimeoutError(f"player {player.player_id} never left table {run.table_id}")
        if player.sub is not None:
            self.manager.tables[run.table_id].leave(player.sub)
        del run.seats[player.player_id]
        if not run.done.is_set():
            await self._seat_new_player(run)

    async def play(self, timeout_s: float) -> None:
        """Start every table (the manager's discovery from the lobby) and play until
        each has its target of finished hands; then stop dealing."""
        await self.manager.refresh()
        for run in self.runs.values():
            runtime = self.manager.tables[run.table_id]
            for player in run.seats.values():
                self._join(run, runtime, player)
        try:
            await asyncio.wait_for(
                asyncio.gather(*(run.done.wait() for run in self.runs.values())), timeout_s
            )
        finally:
            for runtime in self.manager.tables.values():
                await runtime.stop()

    async def history(
        self, run: TableRun, hand_id: str, player_id: str | None = None
    ) -> tpb.HandHistory:
        """``TableServicer.GetHandHistory`` of one hand: public, or a player's view."""
        request = tpb.GetHandHistoryRequest(table_id=run.table_id, hand_id=hand_id)
        if player_id is not None:
            request.player_id = player_id
            request.token = self.token(player_id)
        # No gRPC context: GetHandHistory never touches it.
        reply = await self.servicer.GetHandHistory(request, None)  # type: ignore[arg-type]
        (history,) = reply.hands
        return history

    def token(self, player_id: str) -> str:
        return self.tokens[player_id]
