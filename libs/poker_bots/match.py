"""Duplicate matches: bots against each other on the same cards, seats rotated.

Why duplicate: in a plain match most of the spread of a bot's result is the cards
it was dealt, so telling a better bot from a luckier one takes a great many
hands.  Here every deal (a deck order) is played once per rotation of the
seating: heads-up twice, the bots' positions swapped; with ``n`` bots ``n``
times, each bot in each position once.  So every bot receives every stream of
cards once, and what luck gave one seat it gave every bot.

The statistics (``bot_result``):

- a bot's **win rate** is its mean net per hand, in big bets per 100 hands
  (``bb/100``).  The big bet is the game's: ``big_bet`` in fixed limit (stud,
  fixed-limit draw); the big blind (``small_bet``) in pot and no limit, where
  there is no big bet (``big_bet_of``);
- the **duplicate interval**: the sample is the deal, its value the bot's mean net
  over the deal's rotations; with ``D`` deals the 95 % interval is
  ``mean +- 1.96 sd / sqrt(D)`` (normal approximation, sample standard deviation);
- the **plain interval**: the same ``D x n`` hands taken as independent hands,
  ``mean +- 1.96 sd / sqrt(D x n)``: what the same number of hands without
  duplication would give (same mean, the cards' luck left in);
- the **variance reduction** of the mean: ``1 - var_dup / var_plain``, the share
  of the plain variance that duplication removed (0.8: the duplicate interval is
  as narrow as a plain match five times as long would give).

Chips stay integers until the statistics turn them into floats: the sums and
sums of squares are exact.  The ACPC dealer also rotates seats, but reports a
total and no interval.

Each rotation is played with fresh bots when the match is given factories (a
class, or any callable making a bot): the bot of the second rotation has not seen
the deals of the first, as in the ACPC's duplicate matches.  Bots given as
objects play every rotation and could remember the deals.

Reproducible: the deals follow from ``seed`` (``random.Random``, one stream per
game), so the same seed and the same deterministic bots give the same hands and
the same numbers in process (:class:`~poker_bots.local.LocalBackend`); through
the room (``poker_bots.match_room``) the same decks and seatings are dealt.

Every hand's PHH is kept (``HandPlayed.phh``); :func:`write_phh` writes one file
per game, ``<game>.phhs``: a PHH "phhs" file, each hand a TOML table ``[1]``,
``[2]``... in the order played (rotation by rotation, deals in order), which
PokerKit's ``HandHistory.loads_all`` reads.
"""

from __future__ import annotations

import asyncio
import inspect
import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from poker.common.v1 import common_pb2
from poker_rules.cards import card_str, short_deck, standard_deck

from .local import LocalBackend
from .match_types import Deal, HandPlayed, HandsBackend
from .sdk import AsyncBot, Bot

__all__ = [
    "Z95",
    "BotFactory",
    "BotResult",
    "GameResult",
    "Interval",
    "MatchResult",
    "big_bet_of",
    "bot_result",
    "deals",
    "game_name",
    "play_match",
    "rotations",
    "run_match",
    "write_phh",
]

Z95 = 1.959963984540054  # the normal distribution's two-sided 95 % quantile
BotFactory = Callable[[], Bot | AsyncBot]
"""Makes a fresh bot (a bot class is one): each rotation gets its own."""

GAME_NAMES = {
    common_pb2.GAME_STUD: "stud",
    common_pb2.GAME_STUD_HILO: "stud_hilo",
    common_pb2.GAME_DRAW_7A: "draw_7a",
}
MOST_PLAYERS = {common_pb2.GAME_STUD: 8, common_pb2.GAME_STUD_HILO: 8, common_pb2.GAME_DRAW_7A: 5}


def game_name(config: common_pb2.GameConfig) -> str:
    """``stud``, ``stud_hilo``, ``draw_7a`` (with the structure when not fixed)."""
    name = GAME_NAMES.get(config.game, "unknown")
    if config.game == common_pb2.GAME_DRAW_7A and config.structure in (
        common_pb2.STRUCTURE_POT_LIMIT,
        common_pb2.STRUCTURE_NO_LIMIT,
    ):
        name += "_pot" if config.structure == common_pb2.STRUCTURE_POT_LIMIT else "_no_limit"
    return name


def big_bet_of(config: common_pb2.GameConfig) -> tuple[int, str]:
    """The unit of ``bb/100`` and its name: the big bet in fixed limit, the big blind
    (the draw's ``small_bet``) in pot and no limit, which have no big bet."""
    if config.game == common_pb2.GAME_DRAW_7A and config.structure in (
        common_pb2.STRUCTURE_POT_LIMIT,
        common_pb2.STRUCTURE_NO_LIMIT,
    ):
        return config.small_bet, "big blind"
    return config.big_bet, "big bet"


# ---------------------------------------------------------------------- the plan


def deck_of(config: common_pb2.GameConfig, players: int) -> list[str]:
    """The game's deck, in the library's order (G1: the 7-A deck with the sixes
    for five players)."""
    if config.game == common_pb2.GAME_DRAW_7A:
        return [card_str(c) for c in short_deck(players == 5)]
    return [card_str(c) for c in standard_deck()]


def deals(config: common_pb2.GameConfig, players: int, count: int, seed: int) -> list[Deal]:
    """``count`` decks shuffled by ``random.Random``, one stream per seed and game:
    the same arguments give the same decks."""
    rng = random.Random(f"poker-match:{seed}:{game_name(config)}")
    deck = deck_of(config, players)
    made = []
    for number in range(count):
        order = list(deck)
        rng.shuffle(order)
        made.append(Deal(number, tuple(order)))
    return made


def rotations(names: Sequence[str]) -> list[tuple[str, ...]]:
    """The seatings of a deal: ``names`` rotated one position at a time, so each
    bot sits in each dealing position once (heads-up: the two orders)."""
    n = len(names)
    return [tuple(names[(k + r) % n] for k in range(n)) for r in range(n)]


# ---------------------------------------------------------------------- statistics


@dataclass(frozen=True, slots=True)
class Interval:
    """A 95 % confidence interval of a win rate, in bb/100."""

    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int | float) and self.low <= value <= self.high

    def overlaps(self, other: Interval) -> bool:
        return self.low <= other.high and other.low <= self.high


@dataclass(frozen=True, slots=True)
class BotResult:
    """One bot's result in one game (see the module docstring)."""

    name: str
    hands: int
    deals: int
    chips: int  # net chips over every hand
    big_bet: int  # chips in the unit of bb/100
    bb_per_100: float
    duplicate: Interval | None  # None with fewer than two deals
    plain: Interval | None  # None with fewer than two hands
    variance_reduction: float | None  # 1 - var_dup / var_plain of the mean

    @property
    def chips_per_hand(self) -> float:
        return self.chips / self.hands if self.hands else 0.0


def _variance(total: int, squares: int, n: int) -> Fraction:
    """The sample variance (n - 1) of ``n`` integers from their sum and sum of
    squares, exactly."""
    return Fraction(n * squares - total * total, n * (n - 1))


def bot_result(name: str, played: Sequence[HandPlayed], big_bet: int) -> BotResult:
    """``name``'s win rate and intervals over ``played``, grouped by deal: every
    deal must have been played in the same number of seatings (its rotations).

    >>> from poker_bots.match_types import HandPlayed
    >>> hands = [HandPlayed(d, ("a", "b"), {"a": x, "b": -x}, "") for d, x in
    ...          [(0, 300), (0, -100), (1, 100), (1, 100)]]
    >>> r = bot_result("a", hands, 200)
    >>> r.chips, r.bb_per_100  # 400 chips in 4 hands: 100 a hand, half a big bet
    (400, 50.0)
    """
    if big_bet <= 0:
        raise ValueError(f"the big bet must be a positive number of chips, got {big_bet}")
    by_deal: dict[int, list[int]] = {}
    for hand in played:
        if name in hand.net:
            by_deal.setdefault(hand.deal, []).append(hand.net[name])
    if not by_deal:
        raise ValueError(f"{name} played no hand")
    sizes = {len(nets) for nets in by_deal.values()}
    if len(sizes) != 1:
        raise ValueError(f"the deals were played in different numbers of seatings: {sorted(sizes)}")
    per_deal = sizes.pop()
    nets = [x for deal in sorted(by_deal) for x in by_deal[deal]]
    n = len(nets)
    d = len(by_deal)
    chips = sum(nets)
    squares = sum(x * x for x in nets)
    unit_sums = [sum(v) for v in by_deal.values()]  # a deal's net over its seatings
    mean = Fraction(chips, n)  # chips a hand
    scale = 100 / big_bet

    def interval(variance_of_mean: Fraction) -> Interval:
        half = Z95 * math.sqrt(variance_of_mean) * scale
        centre = float(mean) * scale
        return Interval(centre - half, centre + half)

    plain_var: Fraction | None = None
    plain = None
    if n >= 2:
        plain_var = _variance(chips, squares, n) / n
        plain = interval(plain_var)
    dup_var: Fraction | None = None
    duplicate = None
    if d >= 2:
        # A deal's mean is its sum over per_deal hands: var(mean of deals) =
        # var(sums) / per_deal^2 / d.
        unit_squares = sum(s * s for s in unit_sums)
        dup_var = _variance(sum(unit_sums), unit_squares, d) / (per_deal * per_deal * d)
        duplicate = interval(dup_var)
    reduction = None
    if plain_var is not None and dup_var is not None and plain_var > 0:
        reduction = float(1 - dup_var / plain_var)
    return BotResult(
        name=name,
        hands=n,
        deals=d,
        chips=chips,
        big_bet=big_bet,
        bb_per_100=float(mean * scale),
        duplicate=duplicate,
        plain=plain,
        variance_reduction=reduction,
    )


# ---------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game of a match: its hands and every bot's result."""

    game: str
    config: common_pb2.GameConfig
    big_bet: int
    unit: str  # "big bet" or "big blind" (big_bet_of)
    deals: int
    seatings: int  # rotations per deal
    stack: int  # every bot's chips at the start of every hand
    bots: tuple[BotResult, ...]
    played: tuple[HandPlayed, ...]
    seconds: float  # wall time of the game's hands

    @property
    def hands(self) -> int:
        return len(self.played)

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0

    def bot(self, name: str) -> BotResult:
        return next(b for b in self.bots if b.name == name)


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A whole match: its settings and each game's result."""

    seed: int
    mode: str  # "local" or "room"
    games: tuple[GameResult, ...]
    phh_files: tuple[Path, ...] = field(default=())

    def game(self, name: str) -> GameResult:
        return next(g for g in self.games if g.game == name)

    def to_dict(self) -> dict[str, object]:
        """The numbers, JSON-ready (``poker match --json``)."""

        def pair(i: Interval | None) -> list[float] | None:
            return None if i is None else [i.low, i.high]

        return {
            "seed": self.seed,
            "mode": self.mode,
            "phh_files": [str(p) for p in self.phh_files],
            "games": [
                {
                    "game": g.game,
                    "hands": g.hands,
                    "deals": g.deals,
                    "seatings": g.seatings,
                    "stack": g.stack,
                    "big_bet": g.big_bet,
                    "unit": g.unit,
                    "seconds": g.seconds,
                    "hands_per_second": g.hands_per_second,
                    "bots": [
                        {
                            "name": b.name,
                            "hands": b.hands,
                            "deals": b.deals,
                            "chips": b.chips,
                            "bb_per_100": b.bb_per_100,
                            "duplicate": pair(b.duplicate),
                            "plain": pair(b.plain),
                            "variance_reduction": b.variance_reduction,
                        }
                        for b in g.bots
                    ],
                }
                for g in self.games
            ],
        }

    def report(self) -> str:
        """The match as text: per game, each bot's bb/100 with both intervals and
        the variance duplication removed."""
        where = "in process" if self.mode == "local" else "through the room"
        lines: list[str] = []
        for g in self.games:
            lines.append(
                f"{g.game}: {g.hands:,} hands ({g.deals:,} deals x {g.seatings} seatings), "
                f"seed {self.seed}, {where}, {g.hands_per_second:,.0f} hands/s"
            )
            lines.append(
                f"  win rate in {g.unit}s ({g.big_bet} chips) per 100 hands, 95 % intervals; "
                f"every hand starts at {g.stack:,} chips"
            )
            width = max(8, *(len(b.name) for b in g.bots))
            lines.append(
                f"  {'bot':<{width}}  {'bb/100':>8}  {'duplicate 95 %':>20}  "
                f"{'plain 95 %':>20}  {'var. reduction':>14}"
            )
            for b in g.bots:
                lines.append(
                    f"  {b.name:<{width}}  {b.bb_per_100:>+8.2f}  {_interval(b.duplicate):>20}  "
                    f"{_interval(b.plain):>20}  {_share(b.variance_reduction):>14}"
                )
        for path in self.phh_files:
            lines.append(f"PHH: {path}")
        return "\n".join(lines)


def _interval(i: Interval | None) -> str:
    return "n/a" if i is None else f"[{i.low:+.2f}, {i.high:+.2f}]"


def _share(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f} %"


# ---------------------------------------------------------------------- playing


def _is_factory(spec: object) -> bool:
    """A class or a callable that is not itself a bot."""
    return inspect.isclass(spec) or (callable(spec) and not hasattr(spec, "act"))


def _bots_for(specs: Mapping[str, BotFactory | Bot | AsyncBot]) -> dict[str, Bot]:
    """One rotation's bots: fresh from each factory, the same object otherwise."""
    made: dict[str, Bot] = {}
    for name, spec in specs.items():
        bot = spec() if _is_factory(spec) else spec  # type: ignore[operator]
        made[name] = bot  # type: ignore[assignment]
    return made


async def play_game(
    config: common_pb2.GameConfig,
    bots: Mapping[str, BotFactory | Bot | AsyncBot],
    deal_count: int,
    *,
    seed: int,
    stack: int,
    backend: HandsBackend,
) -> GameResult:
    """``deal_count`` deals of one game, each in every rotation of the seating."""
    names = list(bots)
    most = MOST_PLAYERS.get(config.game, 0)
    if not 2 <= len(names) <= most:
        raise ValueError(f"{game_name(config)} takes 2 to {most} bots, got {len(names)}")
    if len(set(names)) != len(names):
        raise ValueError(f"every bot needs its own name: {names}")
    if deal_count < 1:
        raise ValueError("a match needs at least one deal")
    if stack <= 0:
        raise ValueError(f"the stack must be a positive number of chips, got {stack}")
    big_bet, unit = big_bet_of(config)
    dealt = deals(config, len(names), deal_count, seed)
    seatings = rotations(names)
    played: list[HandPlayed] = []
    start = time.perf_counter()
    for seating in seatings:
        plan = [(deal, seating) for deal in dealt]
        hands = await backend.play(config, _bots_for(bots), plan, stack=stack)
        if len(hands) != len(plan):
            raise RuntimeError(f"the backend played {len(hands)} hands of {len(plan)}")
        for hand in hands:
            if sum(hand.net.values()) != 0:
                raise RuntimeError(f"deal {hand.deal}: chips not conserved: {dict(hand.net)}")
        played += hands
    seconds = time.perf_counter() - start
    return GameResult(
        game=game_name(config),
        config=config,
        big_bet=big_bet,
        unit=unit,
        deals=deal_count,
        seatings=len(seatings),
        stack=stack,
        bots=tuple(bot_result(name, played, big_bet) for name in names),
        played=tuple(played),
        seconds=seconds,
    )


async def play_match(
    configs: Sequence[common_pb2.GameConfig],
    bots: Mapping[str, BotFactory | Bot | AsyncBot],
    hands: int,
    *,
    seed: int = 1,
    stack: int | None = None,
    backend: HandsBackend | None = None,
    mode: str | None = None,
    phh_dir: str | Path | None = None,
) -> MatchResult:
    """A duplicate match of ``bots`` (name -> factory or bot) in each game of
    ``configs``: ``hands`` hands per game (rounded up to whole deals: a deal is
    played once per seating), every hand starting with ``stack`` chips each (by
    default 100 of the game's big bets, ``big_bet_of``), on ``backend`` (by
    default in process).  ``mode`` names where for the report (default: ``local``
    for the in-process backend, else ``room``); ``phh_dir``: where ``write_phh``
    puts the PHH files."""
    if hands < 1:
        raise ValueError("a match needs at least one hand")
    if len(bots) < 2:
        raise ValueError(f"a match needs two bots or more, got {len(bots)}")
    backend = backend if backend is not None else LocalBackend()
    rotations_per_deal = len(bots)
    deal_count = -(-hands // rotations_per_deal)
    games = []
    for config in configs:
        chips = stack if stack is not None else 100 * big_bet_of(config)[0]
        games.append(
            await play_game(config, bots, deal_count, seed=seed, stack=chips, backend=backend)
        )
    if mode is None:
        mode = "local" if isinstance(backend, LocalBackend) else "room"
    result = MatchResult(seed=seed, mode=mode, games=tuple(games))
    if phh_dir is not None:
        files = write_phh(result, phh_dir)
        result = MatchResult(result.seed, result.mode, result.games, tuple(files))
    return result


def run_match(
    configs: Sequence[common_pb2.GameConfig],
    bots: Mapping[str, BotFactory | Bot | AsyncBot],
    hands: int,
    *,
    seed: int = 1,
    stack: int | None = None,
    backend: HandsBackend | None = None,
    mode: str | None = None,
    phh_dir: str | Path | None = None,
) -> MatchResult:
    """``play_match`` from synchronous code (in its own event loop)."""
    return asyncio.run(
        play_match(
            configs,
            bots,
            hands,
            seed=seed,
            stack=stack,
            backend=backend,
            mode=mode,
            phh_dir=phh_dir,
        )
    )


def write_phh(result: MatchResult, directory: str | Path) -> list[Path]:
    """Every hand's PHH, one ``<game>.phhs`` file per game (see the module)."""
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for g in result.games:
        path = out / f"{g.game}.phhs"
        with path.open("w", encoding="utf-8") as f:
            for k, hand in enumerate(g.played, 1):
                if k > 1:
                    f.write("\n")
                f.write(f"[{k}]\n")
                f.write(hand.phh)
        files.append(path)
    return files
