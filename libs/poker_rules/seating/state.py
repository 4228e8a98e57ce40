"""What a ring-game table remembers between hands, and the seat arithmetic.

``TableState`` holds exactly the table's state (configuration, seats, the last
hand's positions, the pending plan, the hand count) and the lookups every rule
needs; the rules themselves are the mixins of the sibling modules, which
``SeatingTable`` combines.  Seats are numbered 1..N clockwise.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InvalidConfigError
from .model import Forced, HandPlan, PostKind, SeatedPlayer, SeatingConfig, SeatingError, Waiting


@dataclass(frozen=True, slots=True)
class History:
    """The positions of the last hand played: the dead button moves from these."""

    big_blind: int
    big_blind_player: str
    small_blind_position: int
    button: int
    button_player: str | None  # None when the button was dead


@dataclass(slots=True)
class Draft:
    """Positions and posts being worked out for a button-game hand."""

    big_blind: int
    small_blind_position: int
    button: int
    dealt: dict[int, list[Forced]] = field(default_factory=dict)
    button_dead: bool = False
    waiting: dict[int, Waiting] = field(default_factory=dict)
    small_blind: int | None = None


class TableState:
    """The state of one ring-game table and the queries the seating rules share."""

    def __init__(self, config: SeatingConfig) -> None:
        config.validate()
        self.config = config
        self._seats: dict[int, SeatedPlayer] = {}
        self._last: History | None = None
        self._pending: HandPlan | None = None
        self.hands_played = 0

    # ------------------------------------------------------------ seat geometry

    @property
    def size(self) -> int:
        return self.config.seats

    def _next(self, seat: int) -> int:
        return seat % self.size + 1

    def _prev(self, seat: int) -> int:
        return (seat - 2) % self.size + 1

    def _dist(self, a: int, b: int) -> int:
        """Clockwise steps from seat a to seat b (0..N-1)."""
        return (b - a) % self.size

    def _between(self, a: int, x: int, b: int) -> bool:
        """x lies strictly between a and b going clockwise (a == b: all but a)."""
        span = self._dist(a, b) or self.size
        return 0 < self._dist(a, x) < span

    def _button_passes(self, seat: int, old: int, new: int) -> bool:
        """Moving from ``old`` to ``new`` the button leaves or jumps over ``seat``."""
        return old != new and (seat == old or self._between(old, seat, new))

    # ------------------------------------------------------------ lookups

    def _check_seat(self, seat: int) -> None:
        if type(seat) is not int or not 1 <= seat <= self.size:
            raise InvalidConfigError(f"seats are 1..{self.size}, got {seat!r}")

    def _player(self, seat: int) -> SeatedPlayer:
        self._check_seat(seat)
        p = self._seats.get(seat)
        if p is None:
            raise SeatingError(f"seat {seat} is empty")
        return p

    def _in_hand(self, seat: int) -> bool:
        return self._pending is not None and seat in self._pending.seats

    def _ready(self, seat: int) -> bool:
        """Sitting in with chips: can be dealt in, and takes the big blind when it
        reaches the seat."""
        p = self._seats.get(seat)
        return p is not None and not p.away and p.chips > 0

    def _clockwise_from(self, seat: int) -> list[int]:
        """Every seat clockwise, starting left of ``seat`` and ending with it."""
        out: list[int] = []
        s = seat
        for _ in range(self.size):
            s = self._next(s)
            out.append(s)
        return out

    def _forced(self, seat: int, kind: PostKind) -> Forced:
        cfg = self.config
        amount = {
            PostKind.SMALL_BLIND: cfg.small_blind,
            PostKind.DEAD_SMALL_BLIND: cfg.small_blind,
            PostKind.ANTE: cfg.ante,
        }.get(kind, cfg.big_blind)
        return Forced(seat, self._seats[seat].player_id, kind, amount)

    def _im_in_back(self, plan: HandPlan) -> list[int]:
        """The seats whose "I'm in" ``plan`` used, still held by the same player."""
        return [
            s
            for s in plan.im_in_used
            if (p := self._seats.get(s)) is not None and p.player_id == plan.players[plan.index(s)]
        ]

    def _check_pending(self, plan: HandPlan) -> None:
        if self._pending is None or plan is not self._pending:
            raise SeatingError("that plan is not the hand in progress")

    def _same_player(self, plan: HandPlan, seat: int) -> SeatedPlayer | None:
        """The seat's player if it is still the one seated when the plan was made."""
        p = self._seats.get(seat)
        return p if p is not None and (seat, p.player_id) in plan.seated else None
