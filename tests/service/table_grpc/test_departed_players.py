# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""Departed players (docs/rule-decisions.md#departed-players): a seat whose
client has gone is sat out once the action clock took its every decision in
``TABLE_SIT_OUT_AFTER_CLOCK_HANDS`` hands in a row (2 here), as SitOut would sit
it out (B3-B6), and the others play on.  Answering a turn, or connecting again,
starts the count over.

A three-handed 7-A draw table with a 50 ms clock: seats 1 and 2 always answer
(check or call, so seat 3 gets a turn in every hand it is dealt into); seat 3 is
the player under test.  Seat 1 watches: on each HandFinished it reads how seat 3's
decisions went in that hand (answered, or all by the clock) and the lobby's seat
3.  The table reports a hand before its HandFinished, so the lobby's seat then
already shows whatever that hand's report did.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb

from .live_table import PASSIVE, LiveTable, Policy, Seated, live_table

DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)
CLOCK_MS = 50  # S10, the shortest a table takes
AFTER = 2  # TABLE_SIT_OUT_AFTER_CLOCK_HANDS
GONE = 3  # the seat under test


@dataclass(frozen=True)
class Seen:
    """One hand as seat 1 saw it, and the lobby's seat 3 right after."""

    dealt: tuple[int, ...]
    seat3: str  # "answered", "clock" (every decision), "out" (not dealt in), "none"
    away: bool
    sitting_out: bool
    missed_big_blind: bool


def how_seat3_played(events: list[tpb.TableEvent], e: tpb.TableEvent) -> str:
    dealt = {s.seat for s in e.hand_finished.seats}
    if GONE not in dealt:
        return "out"
    taken = [
        x.action_taken
        for x in events
        if x.hand_id == e.hand_id and x.HasField("action_taken") and x.action_taken.seat == GONE
    ]
    if any(not a.timeout for a in taken):
        return "answered"
    return "clock" if taken else "none"


async def play(
    answers: Policy,
    until: Callable[[list[Seen]], bool],
    *,
    connect: bool,
    after_hand: Callable[[LiveTable, Seated, int], None] | None = None,
) -> list[Seen]:
    """Play until ``until(seen)``; seat 3 answers its n-th hand when
    ``answers(n)``, connects first when ``connect``, and ``after_hand(table,
    seat3, n)`` runs on its n-th HandFinished (a disconnect, a reconnect)."""
    async with live_table(sit_out_after=AFTER) as table:
        await table.create(DRAW, 3, min_buy_in=100, action_clock_ms=CLOCK_MS)
        seen: list[Seen] = []

        async def watch(player: Seated, e: tpb.TableEvent) -> None:
            info = await table.seat_info(GONE)
            assert info is not None, "seat 3 is still seated"
            seen.append(
                Seen(
                    tuple(s.seat for s in e.hand_finished.seats),
                    how_seat3_played(player.events, e),
                    info.away,
                    info.sitting_out,
                    info.missed_big_blind,
                )
            )

        async def seat3_finished(player: Seated, e: tpb.TableEvent) -> None:
            if after_hand is not None:
                after_hand(table, player, len(player.hands))

        watcher = await table.sit(1, 5_000, order=PASSIVE, on_finished=watch)
        others = [watcher, await table.sit(2, 5_000, order=PASSIVE)]
        gone = await table.sit(GONE, 5_000, answers=answers, on_finished=seat3_finished)
        gone.order = PASSIVE
        await table.start()
        for player in others:
            table.connect(player)
        if connect:
            table.connect(gone)
        await table.until(lambda: until(seen), "the hands wanted")
        return seen


def away_from(seen: list[Seen]) -> int:
    """The index of the first hand after which seat 3 was away."""
    return next(i for i, s in enumerate(seen) if s.away)


def test_B3_a_player_who_never_connects_is_sat_out_after_two_clock_hands() -> None:
    """Seat 3 sits down and never connects: the clock takes its decisions; after
    exactly two such hands the lobby shows it away and sitting out (the second
    hand's report), the others play on without it, and the big blind passing the
    away seat marks it ML (B3), as any SitOut."""

    def enough(seen: list[Seen]) -> bool:
        return any(s.away for s in seen) and seen[-1].missed_big_blind and len(seen) >= 5

    seen = asyncio.run(play(lambda n: False, enough, connect=False))
    first = away_from(seen)
    assert [s.seat3 for s in seen[: first + 1]] == ["clock"] * AFTER
    assert first == AFTER - 1
    assert seen[first].sitting_out
    later = seen[first + 1 :]
    assert later and all(set(s.dealt) == {1, 2} for s in later)  # the others play on
    assert all(s.away for s in later)
    assert later[-1].missed_big_blind  # B3: the big blind passed the away seat


def test_B3_a_player_whose_client_disconnects_is_sat_out_after_two_clock_hands() -> None:
    """Seat 3 plays its first hand, then its client goes (the stream closes): two
    hands later, both played by the clock, the lobby shows it away."""

    def gone(table: LiveTable, seat3: Seated, n: int) -> None:
        if n == 1:
            table.disconnect(seat3)

    seen = asyncio.run(
        play(
            lambda n: n == 1, lambda seen: any(s.away for s in seen), connect=True, after_hand=gone
        )
    )
    first = away_from(seen)
    assert [s.seat3 for s in seen[: first + 1]] == ["answered", "clock", "clock"]
    assert first == 2 and seen[first].sitting_out


def test_B3_answering_or_connecting_again_starts_the_count_over() -> None:
    """Seat 3 lets the clock run in hands 1, 3, 4 and 5 and answers in hand 2, and
    connects again after hand 3: the answer in hand 2 and the new connection each
    start the count over, so only hand 5 (the second clock hand in a row since
    the reconnection) sits it out."""

    def reconnect(table: LiveTable, seat3: Seated, n: int) -> None:
        if n == 3:
            table.connect(seat3)

    seen = asyncio.run(
        play(
            lambda n: n == 2,
            lambda seen: any(s.away for s in seen),
            connect=True,
            after_hand=reconnect,
        )
    )
    first = away_from(seen)
    assert [s.seat3 for s in seen[: first + 1]] == ["clock", "answered", "clock", "clock", "clock"]
    assert first == 4 and seen[first].sitting_out
