"""Ring-game seating: who is dealt in each hand and what each player posts (B1-B6).

The engines (``DrawHand``, ``StudHand``) play one hand with the forced bets they are
given; they know nothing about the table around them.  This module is that table:
seats 1..N, each empty or holding a player with chips, away or sitting in, the
missed-blind markers (ML, MS), the new-player status and choice, the stud "I'm in"
switch, and the button history.  The lobby asks it for a ``HandPlan`` before each
hand, plays the hand, and reports the final stacks back with ``finish_hand``.  Pure:
no I/O, no clock, no randomness (the lobby draws for the first button if it wants).

Button games (7-A draw) use the dead button (B1): the big blind moves one active
player clockwise every hand, the small blind is the previous big blind's seat and the
button the previous small blind's seat, even when those seats are empty or their
players away.  Heads-up the button posts the small blind (D3).  Stud games have no
blinds and no button; a player away simply is not dealt in (B6, S3).

``plan_hand`` changes nothing but the table's "hand in progress" lock, so a hand
that cannot finish is voided with ``void_hand`` and leaves no trace (issue 4:
voided hands restore everything).  ``finish_hand`` applies the markers the plan
decided (a player who was away when the blind reached them), clears the debts of
those who posted, moves the history on and reports seats lost for sitting out too
long (B5) so the lobby can return those chips to the player's balance.

``snapshot`` / ``restore`` turn the table between hands into JSON-able data and
back (the lobby stores it with every change, so a restarted lobby plans the next
hand as it would have; money always comes from the lobby's own seat rows).

Decisions where RULES.md is silent follow Robert's Rules of Poker; each is noted
where it is made (look for "Robert's" and "house").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from typing import Any

from .config import DrawConfig, Game, StudConfig
from .draw import Post
from .errors import InvalidConfigError, RulesError

__all__ = [
    "Choice",
    "Forced",
    "HandPlan",
    "PostKind",
    "SeatLost",
    "SeatedPlayer",
    "SeatingConfig",
    "SeatingError",
    "SeatingTable",
    "Waiting",
]


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


SNAPSHOT_VERSION = 1
_PLAYER_FIELDS = tuple(f.name for f in fields(SeatedPlayer))


def _plain(value: object) -> object:
    """A snapshot value: enums as their string value, the rest as is."""
    return value.value if isinstance(value, StrEnum) else value


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


@dataclass(frozen=True, slots=True)
class _History:
    """The positions of the last hand played: the dead button moves from these."""

    big_blind: int
    big_blind_player: str
    small_blind_position: int
    button: int
    button_player: str | None  # None when the button was dead


@dataclass(slots=True)
class _Draft:
    """Positions and posts being worked out for a button-game hand."""

    big_blind: int
    small_blind_position: int
    button: int
    dealt: dict[int, list[Forced]] = field(default_factory=dict)
    button_dead: bool = False
    waiting: dict[int, Waiting] = field(default_factory=dict)
    small_blind: int | None = None


class SeatingTable:
    """The state of one ring-game table between hands (B1-B6, D3, S3)."""

    def __init__(self, config: SeatingConfig) -> None:
        config.validate()
        self.config = config
        self._seats: dict[int, SeatedPlayer] = {}
        self._last: _History | None = None
        self._pending: HandPlan | None = None
        self.hands_played = 0

    def copy(self) -> SeatingTable:
        """An independent copy (to roll back to when a change fails part way).

        Cheaper than ``copy.deepcopy`` (the lobby takes one at every change, two
        per hand): the configuration, the last hand's positions and the pending
        plan are frozen and only ever replaced whole, so they are shared; each
        seated player is copied (its fields are plain values)."""
        other = SeatingTable.__new__(SeatingTable)
        other.config = self.config
        other._seats = {seat: replace(p) for seat, p in self._seats.items()}
        other._last = self._last
        other._pending = self._pending
        other.hands_played = self.hands_played
        return other

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

    # ------------------------------------------------------------ queries

    def seat(self, seat: int) -> SeatedPlayer | None:
        """A copy of the seat's player (None when empty): read, don't mutate."""
        self._check_seat(seat)
        p = self._seats.get(seat)
        return None if p is None else replace(p)

    def occupied(self) -> list[int]:
        return sorted(self._seats)

    @property
    def button(self) -> int | None:
        """The button of the last hand played (None before the first, and in stud)."""
        return None if self._last is None else self._last.button

    @property
    def button_dead(self) -> bool:
        """Whether nobody held the last hand's button (B1's dead button)."""
        return self._last is not None and self._last.button_player is None

    @property
    def hand_in_progress(self) -> HandPlan | None:
        return self._pending

    def total_chips(self) -> int:
        return sum(p.chips for p in self._seats.values())

    # ------------------------------------------------------------ durable state

    def snapshot(self) -> dict[str, Any]:
        """The table between hands as plain JSON-able data: every seat with its
        markers (ML, MS, new, choice, away, orbits away, the "I'm in" switch), the
        last hand's positions (the dead button moves from them) and the hand count.

        The lobby stores it with each change so that a restarted lobby plans the
        next hand exactly as it would have without the restart.  A hand in progress
        is not part of it: a restart voids that hand, and a voided hand changes no
        marker (``void_hand``), so the state before it is the state after it."""
        last = self._last
        seats = [
            {"seat": s, **{f: _plain(getattr(p, f)) for f in _PLAYER_FIELDS}}
            for s, p in sorted(self._seats.items())
        ]
        if self._pending is not None:  # as if voided: the plan's "I'm in" given back
            back = set(self._im_in_back(self._pending))
            for entry in seats:
                if entry["seat"] in back:
                    entry["im_in"] = True
        return {
            "version": SNAPSHOT_VERSION,
            "hands_played": self.hands_played,
            "last": None
            if last is None
            else {
                "big_blind": last.big_blind,
                "big_blind_player": last.big_blind_player,
                "small_blind_position": last.small_blind_position,
                "button": last.button,
                "button_player": last.button_player,
            },
            "seats": seats,
        }

    @classmethod
    def restore(
        cls,
        config: SeatingConfig,
        data: Mapping[str, Any] | None,
        occupants: Mapping[int, tuple[str, int]],
        *,
        hands_played: int = 0,
    ) -> SeatingTable:
        """A table from a ``snapshot`` and the authoritative occupants, ``seat ->
        (player_id, chips)`` (the lobby's seats and stacks: money is never taken
        from the snapshot).  A seat whose player matches the snapshot keeps its
        markers; any other occupant sits down as a new player who posts to come in
        (B2c, what a lobby without a snapshot always did).  ``data`` None, or from
        another version: no markers, no button history.  Raises
        ``InvalidConfigError`` when the snapshot is malformed."""
        table = cls(config)
        table.hands_played = hands_played
        known: dict[int, SeatedPlayer] = {}
        if data is not None and data.get("version") == SNAPSHOT_VERSION:
            try:
                last = data["last"]
                if last is not None:
                    table._last = _History(
                        big_blind=int(last["big_blind"]),
                        big_blind_player=str(last["big_blind_player"]),
                        small_blind_position=int(last["small_blind_position"]),
                        button=int(last["button"]),
                        button_player=None
                        if last["button_player"] is None
                        else str(last["button_player"]),
                    )
                for entry in data["seats"]:
                    fields = {f: entry[f] for f in _PLAYER_FIELDS}
                    fields["choice"] = Choice(fields["choice"])
                    known[int(entry["seat"])] = SeatedPlayer(**fields)
            except (KeyError, TypeError, ValueError) as error:
                raise InvalidConfigError(f"malformed seating snapshot: {error!r}") from None
        for seat, (player_id, chips) in sorted(occupants.items()):
            p = known.get(seat)
            if p is not None and p.player_id == player_id:
                table._check_seat(seat)
                table._seats[seat] = replace(p, chips=chips)
            else:
                table.sit_down(seat, player_id, max(chips, 1), choice=Choice.POST)
                table._seats[seat].chips = chips  # a stack of 0 waits for a rebuy
        return table

    # ------------------------------------------------------------ lobby requests

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

    def sit_down(
        self,
        seat: int,
        player_id: str,
        chips: int,
        *,
        choice: Choice = Choice.WAIT,
        away: bool = False,
        wait_for_button: bool = False,
    ) -> None:
        """A new player takes an empty seat (B2).  ``choice`` is B2c's: post a live
        big blind now or wait for the big blind; waiting is the default so nobody
        pays a blind they did not ask for.  ``wait_for_button``: the player asks
        for B2b's path wherever they sit: not dealt in until the button has passed
        the seat, then ``choice`` applies (the big blind reaching them first still
        deals them in, posting it, B2a)."""
        self._check_seat(seat)
        if seat in self._seats:
            raise SeatingError(f"seat {seat} is taken by {self._seats[seat].player_id}")
        if any(p.player_id == player_id for p in self._seats.values()):
            raise SeatingError(f"player {player_id} already has a seat at this table")
        if type(chips) is not int or chips <= 0:
            raise InvalidConfigError(f"a player sits down with whole chips > 0, got {chips!r}")
        self._seats[seat] = SeatedPlayer(
            player_id, chips, away=away, choice=choice, button_must_pass=wait_for_button
        )

    def leave(self, seat: int) -> int:
        """The player leaves the table; returns the chips for the balance."""
        p = self._player(seat)
        if self._in_hand(seat):
            raise SeatingError(f"seat {seat} is in the hand in progress; leave after it")
        del self._seats[seat]
        return p.chips

    def sit_out(self, seat: int) -> None:
        """Away from the next hand on (B3-B6); a hand in progress is unaffected."""
        self._player(seat).away = True

    def sit_in(self, seat: int, choice: Choice | None = None) -> None:
        """Back from away; ``choice`` (B3, B4): make up what is owed now, or wait
        for the big blind."""
        p = self._player(seat)
        p.away = False
        if choice is not None:
            p.choice = choice

    def set_choice(self, seat: int, choice: Choice) -> None:
        self._player(seat).choice = choice

    def set_auto_post(self, seat: int, on: bool) -> None:
        """The stud "I'm in" switch (S3): off, the player must ``im_in`` each hand."""
        self._player(seat).auto_post = on

    def im_in(self, seat: int) -> None:
        """Stud, auto-post off: post the ante and be dealt into the next hand (S3)."""
        self._player(seat).im_in = True

    def add_chips(self, seat: int, amount: int) -> None:
        """A top-up or rebuy between hands (never into a hand in progress)."""
        if type(amount) is not int or amount <= 0:
            raise InvalidConfigError(f"chips are whole and > 0, got {amount!r}")
        p = self._player(seat)
        if self._in_hand(seat):
            raise SeatingError(f"seat {seat} is in the hand in progress; add chips after it")
        p.chips += amount

    # ------------------------------------------------------------ planning

    def _ready(self, seat: int) -> bool:
        """Sitting in with chips: can be dealt in, and takes the big blind when it
        reaches the seat."""
        p = self._seats.get(seat)
        return p is not None and not p.away and p.chips > 0

    def plan_hand(self, *, button: int | None = None) -> HandPlan | None:
        """Decide the next hand: positions, who is dealt in, every forced bet.

        Returns None when fewer than two players can be dealt in (nothing changes).
        ``button`` places the button for a game's first hand (the lobby may draw for
        it); later hands move it by the rules.  Locks the table until
        ``finish_hand`` or ``void_hand``.
        """
        if self._pending is not None:
            raise SeatingError(f"hand {self._pending.hand_number} is still in progress")
        if button is not None:
            self._check_seat(button)
        plan = self._plan_stud() if not self.config.button_game else self._plan_button(button)
        self._pending = plan
        return plan

    def _plan_stud(self) -> HandPlan | None:
        """S3, B6: antes from everyone in; auto-post off without "I'm in", or away,
        is not dealt in and owes nothing."""
        seats: list[int] = []
        waiting: list[tuple[int, Waiting]] = []
        for s in sorted(self._seats):
            p = self._seats[s]
            if p.away:
                waiting.append((s, Waiting.AWAY))
            elif p.chips <= 0:
                waiting.append((s, Waiting.NO_CHIPS))
            elif not (p.auto_post or p.im_in):
                waiting.append((s, Waiting.NOT_IN))
            else:
                seats.append(s)
        if len(seats) < 2:
            return None
        ante = self.config.ante
        posts = tuple(
            Forced(s, self._seats[s].player_id, PostKind.ANTE, ante) for s in seats if ante
        )
        # "I'm in" is for one hand: the plan uses it up, so a player who says it again
        # during this hand is in the next one too (void_hand gives it back).
        used = tuple(s for s in seats if not self._seats[s].auto_post)
        for s in used:
            self._seats[s].im_in = False
        return HandPlan(
            hand_number=self.hands_played + 1,
            game=self.config.game,
            seats=tuple(seats),
            players=tuple(self._seats[s].player_id for s in seats),
            stacks=tuple(self._seats[s].chips for s in seats),
            posts=posts,
            waiting=tuple(waiting),
            im_in_used=used,
        )

    def _walk_big_blind(self, prev_bb: int) -> tuple[int | None, list[int]]:
        """B1: the big blind moves to the next ready player clockwise, never back to
        the previous big blind's seat.  Returns it and the occupied seats passed."""
        passed: list[int] = []
        s = self._next(prev_bb)
        while s != prev_bb:
            if self._ready(s):
                return s, passed
            if s in self._seats:
                passed.append(s)
            s = self._next(s)
        return None, passed

    def _plan_button(self, first_button: int | None) -> HandPlan | None:
        ready = [s for s in sorted(self._seats) if self._ready(s)]
        if len(ready) < 2:
            return None
        last = self._last
        if last is None:
            return self._new_game(ready, first_button, None, [], [])
        bb, passed = self._walk_big_blind(last.big_blind)
        assert bb is not None  # two ready players: one is not the last big blind's seat
        # B3: players away (or busted, Robert's) when the big blind passes are marked
        # ML; a new player who never played owes no missed blind (Robert's: no blind
        # is due before the big blind first reaches a new player).
        missed_big = [s for s in passed if not self._seats[s].new]
        sb_pos = last.big_blind
        sb_player = self._seats.get(sb_pos)
        sb_is_last_bb = (
            sb_player is not None
            and sb_player.player_id == last.big_blind_player
            and not sb_player.new
        )
        missed_small = [sb_pos] if sb_is_last_bb and not self._ready(sb_pos) else []

        # B1: the button goes to the last small blind's position.  After heads-up
        # (where that is the button itself) or on a tiny table it can land on this
        # hand's blinds; then it goes dead right of the small blind (house).
        btn = last.small_blind_position
        if btn in (bb, sb_pos):
            btn = self._prev(sb_pos)
        d = _Draft(big_blind=bb, small_blind_position=sb_pos, button=btn)
        d.dealt[bb] = [self._forced(bb, PostKind.BIG_BLIND)]
        if sb_is_last_bb and self._ready(sb_pos):
            d.dealt[sb_pos] = [self._forced(sb_pos, PostKind.SMALL_BLIND)]
            d.small_blind = sb_pos
        for s in sorted(self._seats):
            if s in d.dealt:
                continue
            self._entry(s, d, last.button)

        if len(d.dealt) < 2:
            # Nobody else may play under the entry rules (new players waiting, a
            # missed small blind waiting for a button that cannot move): start the
            # game afresh rather than stall (house; Robert's "newly started game").
            return self._new_game(ready, None, bb, missed_big, missed_small, passed)
        if len(d.dealt) == 2:
            self._heads_up(d)
        self._avoid_repeat_button(d)
        return self._make_plan(d, missed_big, missed_small, passed, new_game=False)

    def _entry(self, s: int, d: _Draft, last_button: int) -> None:
        """Whether a seat that is not in the blinds is dealt in, and what it posts
        (B2-B4); fills ``d.dealt`` or ``d.waiting``."""
        p = self._seats[s]
        if p.away:
            d.waiting[s] = Waiting.AWAY
            return
        if p.chips <= 0:
            d.waiting[s] = Waiting.NO_CHIPS
            return
        if p.new:
            if s == d.button or self._between(d.button, s, d.big_blind):
                # B2b.  The button seat itself counts: a new player may not take the
                # button before paying the blinds (Robert's, B1's reason).
                d.waiting[s] = Waiting.BUTTON_MUST_PASS
            elif p.button_must_pass and not self._button_passes(s, last_button, d.button):
                d.waiting[s] = Waiting.BUTTON_MUST_PASS  # B2, the player's choice
            elif p.choice is Choice.POST:
                d.dealt[s] = [self._forced(s, PostKind.ENTRY_BIG_BLIND)]  # B2c, live
            else:
                d.waiting[s] = Waiting.WAIT_FOR_BIG_BLIND
            return
        if (
            p.missed_small
            and p.button_must_pass
            and not self._button_passes(s, last_button, d.button)
        ):
            d.waiting[s] = Waiting.BUTTON_MUST_PASS  # B4
            return
        if not (p.missed_big or p.missed_small):
            d.dealt[s] = []  # owes nothing: plays
            return
        if p.choice is Choice.WAIT:
            d.waiting[s] = Waiting.WAIT_FOR_BIG_BLIND
            return
        if p.missed_big:
            # B3: the big blind live and the small blind dead (B5: one of each).
            d.dealt[s] = [
                self._forced(s, PostKind.MAKE_UP_BIG_BLIND),
                self._forced(s, PostKind.DEAD_SMALL_BLIND),
            ]
        elif p.chips <= self.config.small_blind:
            # All of it would be dead money: dealt in, the player could win nothing
            # (house).  They wait for the big blind, which is live.
            d.waiting[s] = Waiting.WAIT_FOR_BIG_BLIND
        else:
            d.dealt[s] = [self._forced(s, PostKind.DEAD_SMALL_BLIND)]  # B4

    def _heads_up(self, d: _Draft) -> None:
        """D3: two players dealt in: the other player has the button and posts the
        small blind.  Anything else they owed is waived (house): heads-up each
        player posts a blind every hand, so nobody can dodge one."""
        other = next(s for s in d.dealt if s != d.big_blind)
        d.dealt[other] = [self._forced(other, PostKind.SMALL_BLIND)]
        d.dealt[d.big_blind] = [self._forced(d.big_blind, PostKind.BIG_BLIND)]
        d.button = d.small_blind = d.small_blind_position = other

    def _avoid_repeat_button(self, d: _Draft) -> None:
        """B1: nobody gets the button twice in a row.

        Only around heads-up play, where the button posts the small blind (D3), can
        B1's "the button goes to the last small blind" give it back to the same
        player: going from two players to three, or from one heads-up opponent to
        another when the big blind sits out.  Then the button is dead (B1's own
        remedy).  With three or more players it goes on the seat just right of the
        small blind when nobody plays from it; when the last holder sits there (no
        seat between them and the small blind), it lies dead between the two.
        Heads-up, the same player still posts the small blind in the button's
        place and acts as D3 says, without holding it.  Either way nobody holds
        it, the same player acts last, as a dead button always allows (Robert's),
        and the order of play, the deal and D9's odd chip are unchanged.  RULES.md
        does not say how B1's procedure and its "never twice in a row" meet here;
        every other sentence of B1 and D3 holds (house ruling, in the README)."""
        last = self._last
        if last is None or last.button_player is None:
            return
        holder = self._seats.get(d.button)
        if holder is None or d.button not in d.dealt or holder.player_id != last.button_player:
            return
        s = self._prev(d.small_blind_position)
        if len(d.dealt) > 2 and s != d.button and s not in d.dealt:
            d.button = s
        else:
            d.button_dead = True

    def _new_game(
        self,
        ready: list[int],
        first_button: int | None,
        bb: int | None,
        missed_big: list[int],
        missed_small: list[int],
        passed: Sequence[int] = (),
    ) -> HandPlan:
        """Positions drawn afresh: everyone sitting in with chips is dealt in and
        owes nothing (Robert's newly started game).  With history the big blind
        still moves one player on (nobody skips it or takes it twice running) and
        the small blind and button are the ready players right of it; for the very
        first hand the button is ``first_button`` (or the first ready seat) and the
        blinds follow it."""
        n = len(ready)
        if bb is None:
            btn = first_button if first_button is not None else ready[0]
            after = [s for s in self._clockwise_from(btn) if s in ready]
            if n == 2:
                sb = btn if btn in ready else after[0]
                bb = next(s for s in ready if s != sb)
                btn = sb
            else:
                sb, bb = after[0], after[1]
        else:
            before = [s for s in reversed(self._clockwise_from(bb)) if s in ready and s != bb]
            sb = before[0]
            btn = sb if n == 2 else before[1]
        d = _Draft(big_blind=bb, small_blind_position=sb, button=btn, small_blind=sb)
        for s in ready:
            d.dealt[s] = []
        d.dealt[sb] = [self._forced(sb, PostKind.SMALL_BLIND)]
        d.dealt[bb] = [self._forced(bb, PostKind.BIG_BLIND)]
        for s in self._seats:
            if s not in d.dealt:
                p = self._seats[s]
                d.waiting[s] = Waiting.AWAY if p.away else Waiting.NO_CHIPS
        self._avoid_repeat_button(d)
        return self._make_plan(d, missed_big, missed_small, passed, new_game=True)

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

    def _make_plan(
        self,
        d: _Draft,
        missed_big: Sequence[int],
        missed_small: Sequence[int],
        passed: Sequence[int],
        *,
        new_game: bool,
    ) -> HandPlan:
        order = [s for s in self._clockwise_from(d.button) if s in d.dealt]
        posts: list[Forced] = []
        if self.config.ante:
            posts += [self._forced(s, PostKind.ANTE) for s in order]
        for s in order:
            posts += d.dealt[s]
        return HandPlan(
            hand_number=self.hands_played + 1,
            game=self.config.game,
            seats=tuple(order),
            players=tuple(self._seats[s].player_id for s in order),
            stacks=tuple(self._seats[s].chips for s in order),
            posts=tuple(posts),
            button=d.button,
            button_dead=d.button_dead or d.button not in d.dealt,
            small_blind=d.small_blind,
            small_blind_position=d.small_blind_position,
            big_blind=d.big_blind,
            heads_up=len(order) == 2,
            new_game=new_game,
            waiting=tuple(sorted(d.waiting.items())),
            missed_big=tuple(missed_big),
            missed_small=tuple(missed_small),
            passed_away=tuple(passed),
            seated=tuple((s, p.player_id) for s, p in sorted(self._seats.items())),
        )

    # ------------------------------------------------------------ after the hand

    def void_hand(self, plan: HandPlan) -> None:
        """The hand could not finish: forget the plan; nothing is marked or moved
        (an "I'm in" the plan used is given back)."""
        self._check_pending(plan)
        for s in self._im_in_back(plan):
            self._seats[s].im_in = True
        self._pending = None

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

    def finish_hand(self, plan: HandPlan, final_stacks: Sequence[int]) -> list[SeatLost]:
        """Apply a finished hand: stacks (the engine's ``final_stacks``, in the
        plan's order), markers, debts paid, the button history, and B5.

        Everyone dealt in has paid what the plan asked (the engine takes all-in
        for less), so their debts and new status are cleared.  Returns the seats
        lost for sitting out too long, already emptied.  Markers only reach the
        player who was in the seat when the hand was planned.
        """
        self._check_pending(plan)
        if len(final_stacks) != len(plan.seats):
            raise SeatingError(
                f"{len(plan.seats)} players were dealt in, got {len(final_stacks)} stacks"
            )
        if any(type(c) is not int or c < 0 for c in final_stacks):
            raise SeatingError(f"final stacks are whole chips >= 0, got {list(final_stacks)}")
        if sum(final_stacks) != sum(plan.stacks):
            raise SeatingError(
                f"chips not conserved: {sum(plan.stacks)} dealt in, {sum(final_stacks)} after"
            )
        for seat, pid in zip(plan.seats, plan.players, strict=True):
            p = self._seats.get(seat)
            if p is None or p.player_id != pid:
                raise SeatingError(f"seat {seat} no longer holds {pid}")
        for seat, chips in zip(plan.seats, final_stacks, strict=True):
            p = self._seats[seat]
            p.chips = chips
            p.new = p.missed_big = p.missed_small = p.button_must_pass = False
            p.orbits_away = p.hands_away = 0
        if self.config.button_game:
            self._finish_button(plan)
        self._pending = None
        self.hands_played += 1
        return self._remove_long_absent(plan)

    def _finish_button(self, plan: HandPlan) -> None:
        assert plan.button is not None and plan.big_blind is not None
        assert plan.small_blind_position is not None
        last = self._last
        if last is not None:
            for s, seated in self._seats.items():
                if seated.button_must_pass and self._button_passes(s, last.button, plan.button):
                    seated.button_must_pass = False
        for s in plan.passed_away:
            p = self._same_player(plan, s)
            if p is not None:
                p.orbits_away += 1
                p.missed_big = p.missed_big or (s in plan.missed_big and not p.new)
        for s in plan.missed_small:
            p = self._same_player(plan, s)
            if p is not None and not p.new:
                p.missed_small = p.button_must_pass = True
        self._last = _History(
            big_blind=plan.big_blind,
            big_blind_player=plan.players[plan.index(plan.big_blind)],
            small_blind_position=plan.small_blind_position,
            button=plan.button,
            button_player=plan.button_player,
        )

    def _same_player(self, plan: HandPlan, seat: int) -> SeatedPlayer | None:
        """The seat's player if it is still the one seated when the plan was made."""
        p = self._seats.get(seat)
        return p if p is not None and (seat, p.player_id) in plan.seated else None

    def _remove_long_absent(self, plan: HandPlan) -> list[SeatLost]:
        """B5: away more than ``max_orbits_away`` orbits loses the seat."""
        lost: list[SeatLost] = []
        limit = self.config.max_orbits_away
        for s in sorted(self._seats):
            p = self._seats[s]
            if not self.config.button_game and s not in plan.seats:
                # Stud: away, busted or not "in" (S3) all sit the hand out.
                p.hands_away += 1
                p.orbits_away = p.hands_away // self.size
            if p.orbits_away > limit:
                lost.append(SeatLost(s, p.player_id, p.chips))
                del self._seats[s]
        return lost
