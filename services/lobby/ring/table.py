"""A ring table as the lobby holds it: the stored definition, the rules library's
``SeatingTable`` (the markers of B1-B6 and S3), and the hand in progress."""

from __future__ import annotations

from dataclasses import dataclass, field

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.config import DrawConfig, Game
from poker_rules.errors import InvalidConfigError
from poker_rules.seating import SeatingConfig, SeatingTable
from poker_wire import check_count, game_config
from service_kit.errors import InvalidArgumentError

from ..checks import MOST_SEATS
from ..store import TableRow

MAX_VOID_REASON = 300  # characters of a void's reason kept (longer ones are cut)
VOIDED_BY_RESTART = "voided by the lobby restart"
VOIDED_AT_TAKEOVER = "voided when a table service took the table over"
VOIDED_BY_TABLE = "voided by the table service"


@dataclass(slots=True)
class PendingHand:
    """The hand in progress: NextHand answers this same plan until it ends."""

    hand_id: str
    response: pb.NextHandResponse


@dataclass(slots=True)
class RingTable:
    """A table's definition and its live seating state."""

    row: TableRow
    config: common.GameConfig
    game: Game
    seating: SeatingTable
    max_orbits_away: int
    pending: PendingHand | None = None
    leaving: set[int] = field(default_factory=set)  # stand up after the hand in progress
    last_finished: tuple[str, bytes] | None = None  # hand_id and the FinishHand request
    # The seating markers as last written (``RingTables.save_seating``): an idle
    # table's NextHand poll, which changes nothing, writes nothing.
    saved_seating: str = ""

    def seat_of(self, player_id: str) -> int:
        """The player's seat here, 0 when not seated."""
        for s in self.seating.occupied():
            p = self.seating.seat(s)
            if p is not None and p.player_id == player_id:
                return s
        return 0


@dataclass(frozen=True, slots=True)
class CashOut:
    """Chips a seat returned to a balance, for the cash-out metrics."""

    game: Game
    reason: str
    chips: int


def seating_config(
    config: common.GameConfig, seats: int, max_orbits_away: int
) -> tuple[Game, SeatingConfig]:
    """The library's table configuration; INVALID_ARGUMENT when it refuses it."""
    cfg = game_config(config)
    most = MOST_SEATS[cfg.game]
    check_count(seats, f"seats (a {cfg.game.value} table)", 2, most)
    if isinstance(cfg, DrawConfig):
        seating = SeatingConfig.for_draw(cfg, seats=seats, max_orbits_away=max_orbits_away)
    else:
        seating = SeatingConfig.for_stud(cfg, seats=seats, max_orbits_away=max_orbits_away)
    try:
        seating.validate()
    except InvalidConfigError as error:
        raise InvalidArgumentError(
            f"config: {error} (the small blind is small_bet // 2, D3)"
        ) from None
    return cfg.game, seating
