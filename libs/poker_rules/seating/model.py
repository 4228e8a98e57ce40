"""The seating vocabulary: a table's configuration, its seated players, and the
plan of a hand (who is dealt in, every forced bet, who waits and why).

These are the values the lobby reads and stores; the rules that produce them live in
the sibling modules (``plan_button``, ``entry``, ``plan_stud``, ``finish``).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..config import DrawConfig, Game, StudConfig
from ..draw import Post
from ..errors import InvalidConfigError, RulesError


class SeatingError(RulesError):
    """A seating request the table cannot honour now (occupied seat, empty seat,
    a player who is in the hand in progress, a plan that is not the pending one)."""


class Choice(StrEnum):
    """What a player entering or coming back chooses (B2c, B3, B4).

    ``POST``: pay what the rules ask now and be dealt in at once.  ``WAIT``: pay
    nothing and be dealt in when the big blind reaches the seat (posting only it).
    """

    POST = "post"
    WAIT = "wait_for_big_blind"


class PostKind(StrEnum):
    """Why a forced bet is asked for; the history shows each kind separately."""

    SMALL_BLIND = "small_blind"  # live, B1/D3
    BIG_BLIND = "big_blind"  # live, the seat due the big blind (B1, B2a)
    ENTRY_BIG_BLIND = "entry_big_blind"  # live, a new player posting now (B2c)
    MAKE_UP_BIG_BLIND = "make_up_big_blind"  # live, back after missing the big (B3)
    DEAD_SMALL_BLIND = "dead_small_blind"  # dead money owed for a missed small (B3, B4)
    ANTE = "ante"  # stud (S3) or a draw table with an ante; the engine posts it


_LIVE = frozenset(
    {
        PostKind.SMALL_BLIND,
        PostKind.BIG_BLIND,
        PostKind.ENTRY_BIG_BLIND,
        PostKind.MAKE_UP_BIG_BLIND,
        PostKind.ANTE,
    }
)


class Waiting(StrEnum):
    """Why a seated player is not dealt in this hand."""

    AWAY = "away"  # sitting out (B3-B6)
    NO_CHIPS = "no_chips"  # busted, waiting to rebuy: treated as away (Robert's)
    WAIT_FOR_BIG_BLIND = "wait_for_big_blind"  # chose to wait (B2c, B3, B4)
    BUTTON_MUST_PASS = "button_must_pass"  # between the button and the blinds (B2b, B4)
    NOT_IN = "not_in"  # stud, auto-post off and no "I'm in" for this hand (S3)


@dataclass(frozen=True, slots=True)
class Forced:
    """One forced bet of a hand: who, why, how much, and whether it is live.

    Live money is part of the poster's bet (and gives the option); dead money goes
    to the middle and is nobody's bet (B3, B4).  The amount is the full amount due;
    the engine takes what the player has (all-in for less).
    """

    seat: int
    player_id: str
    kind: PostKind
    amount: int

    @property
    def live(self) -> bool:
        return self.kind in _LIVE


@dataclass(frozen=True, slots=True)
class HandPlan:
    """Everything the table decided for one hand, in the engine's terms.

    ``seats`` are the players dealt in, in the engine's index order: for a button
    game clockwise from the first seat left of the button (how ``DrawHand`` indexes
    players, the button last); for stud from seat 1 (G5, how ``StudHand`` does).
    ``button`` may be a dead seat (empty, or a player not dealt in); ``button_dead``
    says nobody holds the button this hand (B1), which also covers the one case
    where it lies dead on a seat whose player is dealt in (``_avoid_repeat_button``:
    that player acts last, as under any dead button, but does not hold it).  ``posts``
    hold every forced bet, antes included, live blinds and dead money apart.
    ``missed_big`` / ``missed_small`` are the seats this hand marks ML / MS (applied
    by ``finish_hand``, so a voided hand marks nobody).
    """

    hand_number: int
    game: Game
    seats: tuple[int, ...]
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    posts: tuple[Forced, ...]
    button: int | None = None
    button_dead: bool = False  # B1: nobody holds the button this hand
    small_blind: int | None = None  # the seat posting a live small blind, if any
    small_blind_position: int | None = None  # that position even when nobody posts
    big_blind: int | None = None
    heads_up: bool = False
    new_game: bool = False  # positions drawn afresh (first hand, or play restarting)
    waiting: tuple[tuple[int, Waiting], ...] = ()
    missed_big: tuple[int, ...] = ()
    missed_small: tuple[int, ...] = ()
    passed_away: tuple[int, ...] = ()  # away seats the big blind passed (B5 orbits)
    seated: tuple[tuple[int, str], ...] = ()  # every (seat, player) at planning time
    im_in_used: tuple[int, ...] = ()  # stud: seats dealt in by their "I'm in" (S3)

    def index(self, seat: int) -> int:
        """The engine index of a seat dealt in."""
        return self.seats.index(seat)

    @property
    def button_player(self) -> str | None:
        """Who holds the button this hand: None when it is dead (B1) or in stud."""
        if self.button is None or self.button_dead or self.button not in self.seats:
            return None
        return self.players[self.seats.index(self.button)]

    @property
    def big_blind_player(self) -> int | None:
        """``DrawHand``'s ``big_blind_player``: action pre-draw starts left of it."""
        return None if self.big_blind is None else self.seats.index(self.big_blind)

    def draw_posts(self) -> list[Post]:
        """The blinds and dead money as ``DrawHand`` posts, live before dead for each
        player (a short stack's chips go live first, Robert's).  Antes are left out:
        the engine posts them itself from its config."""
        order = sorted(
            (p for p in self.posts if p.kind is not PostKind.ANTE),
            key=lambda p: (self.seats.index(p.seat), not p.live),
        )
        return [Post(self.seats.index(p.seat), p.amount, p.live) for p in order]

    def posts_of(self, seat: int) -> list[Forced]:
        return [p for p in self.posts if p.seat == seat]

    @property
    def dead_money(self) -> int:
        """Dead money asked for (before any all-in for less)."""
        return sum(p.amount for p in self.posts if not p.live)


@dataclass(frozen=True, slots=True)
class SeatLost:
    """A player removed for sitting out too long (B5): the lobby returns ``chips``
    to the player's balance."""

    seat: int
    player_id: str
    chips: int


@dataclass(slots=True)
class SeatedPlayer:
    """A player in a seat and what the table remembers about them."""

    player_id: str
    chips: int
    away: bool = False
    new: bool = True  # not dealt in since sitting down (B2)
    choice: Choice = Choice.WAIT
    missed_big: bool = False  # ML (B3); at most one owed (B5)
    missed_small: bool = False  # MS (B4); at most one owed (B5)
    button_must_pass: bool = False  # B4: MS players, or B2 by choice: wait for the button
    auto_post: bool = True  # stud "I'm in" switch (S3)
    im_in: bool = False  # stud, auto-post off: posts the ante for the next hand planned
    orbits_away: int = 0  # consecutive orbits missed while away (B5)
    hands_away: int = 0  # stud: consecutive hands not dealt in while away (B5)


@dataclass(frozen=True, slots=True)
class SeatingConfig:
    """A ring-game table: its game, size, forced bets and the B5 sit-out limit.

    ``max_orbits_away`` (*configurable*, B5; default 3): a player away for more
    orbits than this loses the seat.  A button-game orbit is the big blind passing
    the seat; in stud (no blinds) it is as many hands as the table has seats.
    """

    game: Game
    seats: int
    small_blind: int = 0
    big_blind: int = 0
    ante: int = 0
    max_orbits_away: int = 3

    @classmethod
    def for_draw(
        cls, cfg: DrawConfig, *, seats: int = 5, max_orbits_away: int = 3
    ) -> SeatingConfig:
        return cls(Game.DRAW_7A, seats, cfg.small_blind, cfg.big_blind, cfg.ante, max_orbits_away)

    @classmethod
    def for_stud(
        cls, cfg: StudConfig, *, seats: int = 8, max_orbits_away: int = 3
    ) -> SeatingConfig:
        return cls(cfg.game, seats, 0, 0, cfg.ante, max_orbits_away)

    @property
    def button_game(self) -> bool:
        return self.game is Game.DRAW_7A

    def validate(self) -> None:
        most = 5 if self.button_game else 8  # D1, S1
        if not 2 <= self.seats <= most:
            raise InvalidConfigError(f"a {self.game} table has 2 to {most} seats, got {self.seats}")
        if self.button_game and not 0 < self.small_blind <= self.big_blind:
            raise InvalidConfigError(
                f"blinds need 0 < small <= big, got {self.small_blind}/{self.big_blind}"
            )
        if self.ante < 0 or self.max_orbits_away < 0:
            raise InvalidConfigError("ante and max_orbits_away must not be negative")
