"""Tournament rules (T1-T6 of docs/rules.md): pure arithmetic for the lobby.

Structure and clock (T1), the seating draw and TDA balancing (T2, T3), finishing
places for simultaneous busts (T4), payouts and chip conservation (T5), players
away (T6), and standings.  No I/O and no stored state: the lobby owns the state
and asks these functions what the rules say; randomness comes only from a
``random.Random`` passed in.  Chips and prize money are integers throughout.
"""

from .away import away_action, dealt_in, posts_forced_bets
from .eliminations import Bust, Finish, finishes_from_log, prizes, rank_busts, shared_prizes
from .payouts import (
    BASIS_POINTS,
    DEFAULT_PAYOUT_TABLE,
    ChipConservationError,
    PayoutTable,
    PayoutTier,
    allocate,
    check_chips,
    prize_pool,
    split_evenly,
    total_chips,
)
from .positions import coming_positions, dealt_positions, next_positions
from .seating import (
    BlindPositions,
    Move,
    Rebalance,
    Seat,
    Table,
    draw_seats,
    mover_by_position,
    next_big_blind,
    protected_seats,
    rebalance,
    seat_entrant,
    tables_needed,
    worst_position,
)
from .standings import Result, Standing, results, standings
from .structure import (
    BlindStakes,
    Break,
    ClockPosition,
    EntryRefusedError,
    Level,
    LevelClock,
    Stakes,
    StudStakes,
    TournamentStructure,
)

__all__ = [
    "BASIS_POINTS",
    "DEFAULT_PAYOUT_TABLE",
    "BlindPositions",
    "BlindStakes",
    "Break",
    "Bust",
    "ChipConservationError",
    "ClockPosition",
    "EntryRefusedError",
    "Finish",
    "Level",
    "LevelClock",
    "Move",
    "PayoutTable",
    "PayoutTier",
    "Rebalance",
    "Result",
    "Seat",
    "Stakes",
    "Standing",
    "StudStakes",
    "Table",
    "TournamentStructure",
    "allocate",
    "away_action",
    "check_chips",
    "coming_positions",
    "dealt_in",
    "dealt_positions",
    "draw_seats",
    "finishes_from_log",
    "mover_by_position",
    "next_big_blind",
    "next_positions",
    "posts_forced_bets",
    "prize_pool",
    "prizes",
    "protected_seats",
    "rank_busts",
    "rebalance",
    "results",
    "seat_entrant",
    "shared_prizes",
    "split_evenly",
    "standings",
    "tables_needed",
    "total_chips",
    "worst_position",
]
