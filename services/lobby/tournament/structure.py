"""A tournament's structure and stakes (T1): the library's ``TournamentStructure``
from a CreateTournament request, and each level's stakes as a hand's GameConfig
and as the wire's ``TournamentLevel``."""

from __future__ import annotations

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import tournament_pb2 as tpb
from poker_rules.config import Game
from poker_rules.errors import InvalidConfigError
from poker_rules.tournament import (
    DEFAULT_PAYOUT_TABLE,
    BlindPositions,
    BlindStakes,
    Break,
    Level,
    LevelClock,
    PayoutTable,
    PayoutTier,
    StudStakes,
    TournamentStructure,
)
from poker_wire import check_chips as check_amount
from poker_wire import check_count
from service_kit.errors import InvalidArgumentError

MAX_LEVELS = 200


def stakes_pb(stakes: BlindStakes | StudStakes, duration: int = 0) -> tpb.TournamentLevel:
    """A level's stakes as the wire shows them (blinds for draw, stud stakes otherwise)."""
    if isinstance(stakes, BlindStakes):
        return tpb.TournamentLevel(
            small_blind=stakes.small_blind,
            big_blind=stakes.big_blind,
            ante=stakes.ante,
            duration=duration,
        )
    return tpb.TournamentLevel(
        ante=stakes.ante,
        bring_in=stakes.bring_in,
        small_bet=stakes.small_bet,
        big_bet=stakes.big_bet,
        duration=duration,
    )


def stored_positions(last: list[int] | None) -> BlindPositions | None:
    """A table's last positions as kept in its state: [button, small blind, big blind]."""
    return BlindPositions(last[0], last[1], last[2]) if last else None


def hand_config(base: common.GameConfig, stakes: BlindStakes | StudStakes) -> common.GameConfig:
    """The GameConfig of a hand at this level (draw: the big blind is small_bet)."""
    config = common.GameConfig()
    config.CopyFrom(base)
    if isinstance(stakes, BlindStakes):
        config.ante = stakes.ante
        config.small_bet = stakes.big_blind
        config.big_bet = 2 * stakes.big_blind
        config.bring_in = 0
    else:
        config.ante = stakes.ante
        config.bring_in = stakes.bring_in
        config.small_bet = stakes.small_bet
        config.big_bet = stakes.big_bet
    return config


def structure_from(request: tpb.CreateTournamentRequest, game: Game) -> TournamentStructure:
    """The library's structure from the request; INVALID_ARGUMENT saying what is wrong."""
    if not request.schedule:
        raise InvalidArgumentError("schedule is required: one or more levels")
    if len(request.schedule) > MAX_LEVELS:
        raise InvalidArgumentError(f"schedule has at most {MAX_LEVELS} items")
    stud = game is not Game.DRAW_7A
    schedule: list[Level | Break] = []
    for i, item in enumerate(request.schedule):
        where = f"schedule[{i}]"
        check_count(item.duration, f"{where}.duration", 1, 10**9)
        if item.is_break:
            schedule.append(Break(item.duration))
            continue
        for name in ("small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet"):
            check_amount(getattr(item, name), f"{where}.{name}")
        if stud:
            if item.small_blind or item.big_blind:
                raise InvalidArgumentError(
                    f"{where}: stud levels have ante, bring_in, small_bet and big_bet, not blinds"
                )
            stakes: BlindStakes | StudStakes = StudStakes(
                item.ante, item.bring_in, item.small_bet, item.big_bet
            )
        else:
            if item.bring_in or item.small_bet or item.big_bet:
                raise InvalidArgumentError(
                    f"{where}: draw levels have small_blind, big_blind and ante, not stud stakes"
                )
            stakes = BlindStakes(item.small_blind, item.big_blind, item.ante)
        problem = stakes.problem()
        if problem:
            raise InvalidArgumentError(f"{where}: {problem}")
        schedule.append(Level(stakes, item.duration))
    payout_table = DEFAULT_PAYOUT_TABLE
    try:
        if request.payouts:
            payout_table = PayoutTable(
                tuple(PayoutTier(t.min_entries, tuple(t.shares)) for t in request.payouts)
            )
        return TournamentStructure(
            tuple(schedule),
            check_amount(request.starting_stack, "starting_stack", positive=True),
            check_amount(request.buy_in, "buy_in"),
            check_amount(request.fee, "fee"),
            LevelClock.HANDS if request.clock == tpb.LEVEL_CLOCK_HANDS else LevelClock.SECONDS,
            check_count(request.late_registration_level, "late_registration_level", 0, MAX_LEVELS),
            check_count(request.max_entries, "max_entries (0 = 1, freezeout)", 0, 100) or 1,
            payout_table,
        )
    except InvalidConfigError as error:
        raise InvalidArgumentError(str(error)) from None
