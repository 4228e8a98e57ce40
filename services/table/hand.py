"""The hand in progress, as the table's streams and snapshots read it.

``Hand`` is what a viewer may be shown of the hand now (seats, cards, street,
pots, the turn) and where a player's answer comes in (``offer``, checked against
the turn, then posted to the runner through the ``TurnBox``).  The runner
(``runner.HandRunner``) plays it; its betting lives in a ``BettingSession``.
``HandResult`` is what the table keeps of a finished hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import grpc

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.lobby.v1 import lobby_pb2 as lpb
from poker_wire.betting import action_from_pb
from poker_wire.errors import WireError

from . import facts as f
from .turns import TurnBox

if TYPE_CHECKING:
    from poker.betting.v1 import betting_pb2 as bpb

    from .betting_session import BettingSession

KIND_NAMES = {v: k.removeprefix("ACTION_KIND_").lower() for k, v in common.ActionKind.items()}
_GAME_NAMES = {v: k.removeprefix("GAME_").lower() for k, v in common.Game.items()}

Rejection = tuple[grpc.StatusCode, str]


def game_name(game: int) -> str:
    name: str = _GAME_NAMES.get(game, "unknown")  # type: ignore[call-overload]
    return name


@dataclass
class HandResult:
    """What the table keeps of a finished hand."""

    hand_id: str
    config: common.GameConfig
    facts: list[f.Fact]
    seats: list[int]
    players: list[str]
    final_stacks: list[int]
    voided: bool
    reveal: dpb.CloseDeckResponse | None
    rpc_calls: int
    outcome: str  # "showdown", "uncontested", "voided"


@dataclass
class Hand:
    """The hand in progress: the runner's record and what reconnects read."""

    table_id: str
    hand_id: str
    config: common.GameConfig
    seats: list[int]  # dealing order (stud from seat 1; draw left of the button)
    players: list[str]
    names: list[str]
    start_stacks: list[int]
    button_seat: int = 0
    button_dead: bool = False  # B1: nobody holds the button (NextHandResponse)
    betting: BettingSession | None = None  # set by the runner when the hand starts
    cards: list[f.PlayerCards] = field(default_factory=list)
    community_card: str = ""
    street: int = 0
    commitment: bytes = b""
    card_commitment: bytes = b""  # the per-card commitment (G4a)
    facts: list[f.Fact] = field(default_factory=list)
    turns: TurnBox = field(default_factory=TurnBox)

    @property
    def is_stud(self) -> bool:
        return self.config.game != common.GAME_DRAW_7A

    @property
    def turn(self) -> f.Turn | None:
        """The turn in progress (the seat to act, its menu and deadline), if any."""
        return self.turns.turn

    @property
    def chips(self) -> Sequence[bpb.PlayerBetting]:
        """Each player's chips and flags now, in dealing order (none before the
        betting starts: the start stacks stand)."""
        return self.betting.players if self.betting is not None else ()

    @property
    def pots(self) -> list[common.Pot]:
        """The pots as the last betting round's end left them."""
        return self.betting.pots if self.betting is not None else []

    def seat_of(self, player_id: str) -> int:
        """The player's seat in this hand, 0 when not dealt in."""
        try:
            return self.seats[self.players.index(player_id)]
        except ValueError:
            return 0

    def index(self, seat: int) -> int:
        return self.seats.index(seat)

    def offer(
        self, seat: int, hand_id: str, action_seq: int, action: common.Action
    ) -> Rejection | None:
        """A player's answer to their turn: None when taken for the runner, or why
        it is refused (nothing changes then)."""
        pre = grpc.StatusCode.FAILED_PRECONDITION
        if hand_id != self.hand_id:
            return pre, f"hand {hand_id!r} is not the hand in progress ({self.hand_id})"
        turn = self.turns.turn
        if turn is None:
            return pre, "nobody is to act now; wait for your YourTurn"
        if seat != turn.seat:
            return pre, f"it is seat {turn.seat}'s turn, not seat {seat}'s"
        if action_seq != turn.action_seq:
            return pre, (
                f"action_seq {action_seq} is not the current turn's ({turn.action_seq}): "
                "a late or repeated action is not applied"
            )
        if self.turns.answered:
            return pre, "an action for this turn is already being applied"
        try:
            action_from_pb(action)
        except WireError as error:
            return grpc.StatusCode.INVALID_ARGUMENT, str(error)
        if action.kind not in turn.legal.kinds:
            return pre, (
                f"{KIND_NAMES.get(action.kind, 'that action')} is not allowed now; "
                f"allowed: {turn.legal.description}"
            )
        if action.kind == common.ACTION_KIND_DISCARD:
            held = set(self.cards[self.index(seat)].all())
            strangers = [c for c in action.cards if c not in held]
            if strangers or len(set(action.cards)) != len(action.cards):
                return pre, (
                    f"discard only cards you hold, each once: you hold {' '.join(sorted(held))}"
                )
        self.turns.post(action)
        return None

    # ------------------------------------------------------------ what everyone sees

    def seat_infos(self) -> tuple[f.SeatInfo, ...]:
        return tuple(
            f.SeatInfo(s, p, n, c)
            for s, p, n, c in zip(
                self.seats, self.players, self.names, self.start_stacks, strict=True
            )
        )

    def antes(self) -> tuple[f.Post, ...]:
        """S3 (draw: the configured ante): each at most the seat's stack."""
        if not self.config.ante:
            return ()
        return tuple(
            f.Post(seat, min(self.config.ante, stack), "ante")
            for seat, stack in zip(self.seats, self.start_stacks, strict=True)
        )

    def blinds(self, posts: Sequence[lpb.Post]) -> tuple[f.Post, ...]:
        """The lobby's blinds and dead money as posted: in the plan's order (live
        before dead for each seat), after the antes, each at most what the seat has
        left, as the engine takes them (all-in for less), so the history's live and
        dead amounts are the chips that went in (B3, B4)."""
        left = dict(zip(self.seats, self.start_stacks, strict=True))
        for ante in self.antes():
            left[ante.seat] -= ante.amount
        posted = []
        for p in posts:
            amount = min(p.amount, left[p.seat])
            left[p.seat] -= amount
            posted.append(f.Post(p.seat, amount, "blind" if p.live else "dead"))
        return tuple(posted)
