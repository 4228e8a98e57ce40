# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S12)
"""S12 / D9 show order through the services agrees with the rules library (issue 13).

The table service settled every showdown with a player still in all-in as if the
order had changed: it showed from the first seat (stud) or the first player left
of the button (draw), because ``poker_rules.betting.showdown_start`` answered "no
first player" whenever anyone was all-in.  S12's all-in sentence only says that
every hand is shown; the order is still the final round's last bettor or
raiser, or its first player to act when it was checked through.  Where the
betting closed before the final round, the order is a rule decision
(docs/rule-decisions.md#show-order-betting-closed; stud: the S6 best board; draw:
the first player left of the button).

Two kinds of test, both through the table service's own ``HandRunner`` with the
real dealer, betting and showdown servicers (``tests.system.e2e.inprocess``):

- the issue's scenarios, scripted on preset decks, with the expected seats;
- thousands of random hands of each game with short stacks (all-ins in most of
  them), each replayed in ``StudHand`` / ``DrawHand`` from the dealer's reveal:
  the same cards, show order, shown and mucked hands, awards and stacks.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import pytest
from structlog.testing import capture_logs

from poker.common.v1 import common_pb2 as common
from poker_rules import Action, DrawHand, StudHand, card_str, parse_cards
from poker_rules.betting import apply_action, new_state, showdown_start, start_round
from poker_rules.errors import InvalidConfigError
from poker_rules.showdown import show_order
from poker_wire.config import game_config
from services.table import facts as f
from tests.support.decks import SHORT_DECK, SHORT_DECK_SIXES, STUD_DECK, draw_order, stud_order

from .inprocess import Harness, Played, library_replay

STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=25, small_bet=50, big_bet=100)
STUD_HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=10, bring_in=25, small_bet=50, big_bet=100
)
DRAW_FL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_FIXED_LIMIT, small_bet=50, big_bet=100
)
DRAW_PL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_POT_LIMIT, small_bet=50, big_bet=100
)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=50, big_bet=100
)
GAMES = {
    "stud": STUD,
    "stud_hilo": STUD_HILO,
    "draw_fl": DRAW_FL,
    "draw_pl": DRAW_PL,
    "draw_nl": DRAW_NL,
}
# Acceptance (issue 13): at least this many random hands with an all-in per game.
ALL_IN_HANDS = 2_000
MAX_HANDS = 4_000  # a bound on the loop; about 2,500 hands get there


@contextmanager
def quiet_logs() -> Iterator[None]:
    """The servicers log every deck opened and every clock that ran out; thousands
    of hands of that would only fill the captured output."""
    with capture_logs():
        yield


def seats_shown(played: Played) -> list[tuple[int, bool]]:
    """The showdown as the table recorded it: (seat, mucked) in show order."""
    showdown = played.showdown
    assert showdown is not None, "the hand had no showdown"
    return [(x.seat, x.mucked) for x in showdown.hands]


def play_script(
    config: common.GameConfig,
    stacks: list[int],
    preset: list[str],
    script: dict[int, list[str]],
    seats: tuple[int, ...] = (),
) -> tuple[Played, StudHand | DrawHand]:
    """A scripted hand through the services, and its library replay."""
    with quiet_logs():
        played = asyncio.run(
            Harness().play(config, stacks, preset, random.Random(0), script=script, seats=seats)
        )
    return played, library_replay(played)


def library_order(played: Played, library: StudHand | DrawHand) -> list[tuple[int, bool]]:
    """The library's showdown as (seat, mucked) in show order.  The first player to
    show always shows (no hand is shown before theirs), so ``shown[0]`` fixes the
    order; the others follow clockwise (S12)."""
    result = library.result
    assert result is not None and result.shown
    seats = played.hand.seats
    contenders = [i for i in range(library.n) if not library.folded[i]]
    mucked = set(result.mucked)
    return [(seats[i], i in mucked) for i in show_order(result.shown[0], contenders, library.n)]


# ---------------------------------------------------------------- the scenarios

# Stud, three players: seat 1 (2c door) brings in and is all-in on third street;
# seat 3 shows the best board from fourth street on (A K Q J), seat 2 the next.
STUD_DECK_ALL_IN = stud_order(
    [("Th", "Td", "2c"), ("3s", "4s", "9d"), ("5d", "6d", "As")],
    [["3d", "8c", "Ks"], ["4h", "7h", "Qs"], ["5c", "Tc", "Js"]],
    ["2d", "2h", "3c"],
)
STUD_ALL_IN_THIRD = {1: ["bring_in", "call"], 2: ["complete"], 3: ["call"]}


def test_seventh_street_checked_through_the_first_to_act_shows_first__S12() -> None:
    """Seat 1 is all-in since third street; seats 2 and 3 check every street.  The
    first player to act on seventh street (seat 3, best board, S6) shows first,
    then clockwise; everyone shows (a player is all-in)."""
    script = {s: [*a, *["check"] * 4] for s, a in STUD_ALL_IN_THIRD.items() if s != 1}
    script[1] = STUD_ALL_IN_THIRD[1]
    played, library = play_script(STUD, [60, 1_000, 1_000], STUD_DECK_ALL_IN, script)
    assert seats_shown(played) == [(3, False), (1, False), (2, False)]
    assert library_order(played, library) == seats_shown(played)
    assert compare(played, library) == []


def test_a_raise_on_seventh_street_shows_first__S12() -> None:
    """Seat 1 all-in since third street; on seventh street seat 3 bets, seat 2
    raises, seat 3 calls: the raiser, seat 2, shows first, then 3 and 1."""
    script = {
        1: STUD_ALL_IN_THIRD[1],
        2: ["complete", "check", "check", "check", "raise 200"],
        3: ["call", "check", "check", "check", "bet 100", "call"],
    }
    played, library = play_script(STUD, [60, 1_000, 1_000], STUD_DECK_ALL_IN, script)
    assert seats_shown(played) == [(2, False), (3, False), (1, False)]
    assert library_order(played, library) == seats_shown(played)


def test_stud_hilo_bet_on_seventh_with_an_all_in_shows_from_the_bettor__S12() -> None:
    """The same in Stud Hi-Lo (H: S12 as in stud): seat 2 bets seventh street and
    is called: seat 2 shows first."""
    script = {
        1: STUD_ALL_IN_THIRD[1],
        2: ["complete", "check", "check", "check", "bet 100"],
        3: ["call", "check", "check", "check", "check", "call"],
    }
    played, library = play_script(STUD_HILO, [60, 1_000, 1_000], STUD_DECK_ALL_IN, script)
    assert seats_shown(played) == [(2, False), (3, False), (1, False)]
    assert library_order(played, library) == seats_shown(played)


def test_stud_betting_closed_before_seventh_the_best_board_shows_first__S12_S6() -> None:
    """Everyone all-in on third street: nobody acts on seventh street, so the player
    who would have opened it shows first (docs/rule-decisions.md: the S6 best
    board, seat 3's A K Q J), then clockwise; every hand is shown."""
    script = {1: ["bring_in"], 2: ["complete"], 3: ["call"]}
    played, library = play_script(STUD, [35, 60, 500], STUD_DECK_ALL_IN, script)
    assert seats_shown(played) == [(3, False), (1, False), (2, False)]
    assert library_order(played, library) == seats_shown(played)


# Draw, three players dealt from seat 2 (the button is seat 1): seat 2 small blind,
# seat 3 big blind (all-in for it), seat 1 first to act.
DRAW_DECK = draw_order(
    [
        ["Ac", "Ad", "Kc", "Kd", "7h"],  # seat 2: two pair
        ["8c", "8d", "9h", "Tc", "Js"],  # seat 3: a pair of eights
        ["Qc", "Qd", "Qh", "7c", "9d"],  # seat 1: three queens
    ]
)


def test_draw_bet_last_after_the_draw_shows_first__D9() -> None:
    """Seat 3 is all-in for the big blind; after the draw seat 2 checks, seat 1
    bets and seat 2 calls.  Seat 1 bet last: it shows first, then 2 and 3 (the
    issue saw 2, 3, 1: the first player left of the button)."""
    script = {
        1: ["call", "discard", "bet 100"],
        2: ["call", "discard", "check", "call"],
        3: ["discard"],
    }
    played, library = play_script(DRAW_FL, [1_000, 50, 1_000], DRAW_DECK, script, seats=(2, 3, 1))
    assert seats_shown(played) == [(1, False), (2, False), (3, False)]
    assert library_order(played, library) == seats_shown(played)


def test_draw_checked_through_after_the_draw_first_to_act_shows_first__D9() -> None:
    """All-in big blind; after the draw both others check: the first to act after
    the draw (seat 2, left of the button, D7) shows first."""
    script = {
        1: ["call", "discard", "check"],
        2: ["call", "discard", "check"],
        3: ["discard"],
    }
    played, library = play_script(DRAW_NL, [1_000, 50, 1_000], DRAW_DECK, script, seats=(2, 3, 1))
    assert seats_shown(played) == [(2, False), (3, False), (1, False)]
    assert library_order(played, library) == seats_shown(played)


def test_draw_betting_closed_before_the_draw_shows_from_the_button__D9() -> None:
    """Everyone all-in before the draw: nobody acts after it, so showing starts
    with the first player left of the button (docs/rule-decisions.md)."""
    script = {1: ["raise 300", "discard"], 2: ["call", "discard"], 3: ["discard"]}
    played, library = play_script(DRAW_NL, [1_000, 50, 300], DRAW_DECK, script, seats=(2, 3, 1))
    assert seats_shown(played) == [(2, False), (3, False), (1, False)]
    assert library_order(played, library) == seats_shown(played)


def test_without_an_all_in_a_beaten_hand_is_mucked_in_show_order__S12() -> None:
    """No all-in: seat 3 bets seventh street and is called by seat 2; seat 3 shows
    first and seat 2 may muck a beaten hand (S12), in the library as in the
    services."""
    script = {
        1: ["bring_in", "fold"],
        2: ["complete", "check", "check", "check", "call"],
        3: ["call", "check", "check", "check", "bet 100"],
    }
    deck = stud_order(  # seat 1 folds on third street: the later streets are for 2 and 3
        [("Th", "Td", "2c"), ("3s", "4s", "9d"), ("5d", "6d", "As")],
        [["8c", "Ks"], ["7h", "Qs"], ["Tc", "Js"]],
        ["2d", "2h"],
    )
    played, library = play_script(STUD, [1_000, 1_000, 1_000], deck, script)
    assert seats_shown(played) == [(3, False), (2, True)]
    assert library_order(played, library) == seats_shown(played)


def test_showdown_start_without_a_final_round__S12_S6_D9() -> None:
    """The betting closed on third street (everyone all-in): stud needs the upcards
    to name the best board and says so instead of guessing a seat; draw starts
    left of the button.  Every hand is shown either way."""
    state = new_state(game_config(STUD), [35, 60, 500])
    doors = [parse_cards("2c"), parse_cards("9d"), parse_cards("As")]
    outcome = start_round(state, 0, doors)
    for move in (Action.bring_in(), Action.complete(50), Action.call()):
        outcome = apply_action(outcome.state, move)
    assert outcome.betting_closed
    with pytest.raises(InvalidConfigError, match="upcards"):
        showdown_start(outcome.state, False)
    boards = [parse_cards("2c 3d 4h 5c"), parse_cards("9d 8c 7h Tc"), parse_cards("As Ks Qs Js")]
    assert showdown_start(outcome.state, False, boards) == (2, True)
    draw = start_round(new_state(game_config(DRAW_NL), [1_000, 1_000, 50]), 0).state
    assert showdown_start(draw, False) == (0, True)


# ---------------------------------------------------------------- random hands


@dataclass
class Tally:
    """What the random hands of one game exercised."""

    hands: int = 0
    with_all_in: int = 0  # a player all-in at some point (timeout protection too)
    showdowns: int = 0
    all_in_showdowns: int = 0  # a player still in was all-in: every hand shown
    final_round_with_all_in: int = 0  # ... and the final round was opened
    closed_before_final: int = 0  # the betting closed before the final round
    mucked: int = 0  # showdowns where a beaten hand was mucked
    timeouts: int = 0  # hands with a seat whose clock runs out at every turn (S10)
    problems: list[str] = field(default_factory=list)


def random_config(base: common.GameConfig, rng: random.Random) -> common.GameConfig:
    """The game with its configurables drawn at random: the timeout policy (S10),
    the river shortage procedure and the third-street burn (S11, S4), the burn
    before the draw and a draw ante (D6, D3)."""
    config = common.GameConfig()
    config.CopyFrom(base)
    config.timeout_policy = rng.choice(
        [common.TIMEOUT_POLICY_ALL_IN_PROTECTION, common.TIMEOUT_POLICY_CHECK_OR_FOLD]
    )
    if config.game == common.GAME_DRAW_7A:
        config.burn_before_draw = rng.random() < 0.8
        config.ante = rng.choice([0, 0, 10])
    else:
        config.river_shortage = rng.choice(
            [common.RIVER_SHORTAGE_RESHUFFLE_BURNS, common.RIVER_SHORTAGE_STUB_FIRST]
        )
        config.burn_before_third = rng.random() < 0.2
    return config


def random_stacks(n: int, rng: random.Random) -> list[int]:
    """Short stacks, so that most hands have an all-in, mixed with deeper ones, so
    that betting often goes on between players with chips after an all-in; one
    table in six deep, for showdowns without an all-in, where beaten hands are
    mucked in show order."""
    if rng.random() < 1 / 6:
        return [rng.randint(40, 80) * 25 for _ in range(n)]
    return [
        rng.randint(1, 12) * 10 if rng.random() < 0.5 else rng.randint(10, 60) * 25
        for _ in range(n)
    ]


def compare(played: Played, library: StudHand | DrawHand) -> list[str]:
    """Every difference between the hand as the services played it and as the
    library plays it (an empty list: the same hand)."""
    problems: list[str] = []
    result = library.result
    assert result is not None, "the library hand did not finish"
    hand = played.hand
    for i, seat in enumerate(hand.seats):
        held = library.hands[i] if isinstance(library, DrawHand) else library.cards[i]
        if sorted(hand.cards[i].all()) != sorted(card_str(c) for c in held):
            problems.append(f"seat {seat} holds {hand.cards[i].all()} (services), library other")
    if isinstance(library, StudHand):
        community = card_str(library.community) if library.community is not None else ""
        if hand.community_card != community:
            problems.append(f"community card {hand.community_card!r}, library {community!r}")
    if played.result.final_stacks != result.final_stacks:
        problems.append(f"stacks {played.result.final_stacks}, library {result.final_stacks}")
    awards = sorted((a.pot_index, a.seat, a.amount) for a in played.awards)
    expected = sorted((a.pot, hand.seats[a.player], a.amount) for a in result.awards)
    if awards != expected:
        problems.append(f"awards {awards}, library {expected}")
    if not result.shown:
        if played.showdown is not None:
            problems.append("a showdown the library did not have")
        return problems
    if played.showdown is None:
        return [*problems, "no showdown; the library had one"]
    services, ours = seats_shown(played), library_order(played, library)
    if services != ours:
        problems.append(f"show order (seat, mucked) {services}, library {ours}")
    for shown in played.showdown.hands:
        i = hand.index(shown.seat)
        if sorted(shown.cards) != sorted(card_str(c) for c in library.hand_cards(i)):
            problems.append(f"seat {shown.seat} showed {shown.cards}, library other cards")
    return problems


async def play_random(base: common.GameConfig, seed: int) -> Tally:
    """Random hands of one game until ``ALL_IN_HANDS`` of them had an all-in."""
    rng = random.Random(seed)
    harness = Harness()
    tally = Tally()
    draw = base.game == common.GAME_DRAW_7A
    while tally.with_all_in < ALL_IN_HANDS and tally.hands < MAX_HANDS:
        config = random_config(base, rng)
        n = rng.randint(2, 5) if draw else rng.randint(2, 8)
        deck = (SHORT_DECK_SIXES if n == 5 else SHORT_DECK) if draw else STUD_DECK
        timeout_seat = rng.randint(1, n) if rng.random() < 0.1 else None
        stacks = random_stacks(n, rng)
        played = await harness.play(
            config, stacks, rng.sample(deck, len(deck)), rng, timeout_seat=timeout_seat
        )
        library = library_replay(played)
        tally.hands += 1
        problems = compare(played, library)
        if problems:
            moves = [
                (x.seat, x.action.kind, x.action.amount, x.timeout)
                for x in played.result.facts
                if isinstance(x, f.ActionTaken)
            ]
            tally.problems.append(
                f"hand {tally.hands} ({n} players, stacks {stacks}, timeout seat "
                f"{timeout_seat}, moves {moves}): {'; '.join(problems)}"
            )
        all_in = [i for i in range(library.n) if library.all_in[i]]
        tally.with_all_in += bool(all_in)
        tally.timeouts += timeout_seat is not None
        result = library.result
        assert result is not None
        if result.shown:
            tally.showdowns += 1
            tally.mucked += bool(result.mucked)
            still_in = [i for i in all_in if not library.folded[i]]
            opened = (
                library.final_round_opener
                if isinstance(library, DrawHand)
                else library.final_street_opener
            )
            if opened is None:
                tally.closed_before_final += 1
            elif still_in:
                tally.final_round_with_all_in += 1
            tally.all_in_showdowns += bool(still_in)
    return tally


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_random_all_in_hands_show_down_as_in_the_library__S12_D9(game: str) -> None:
    """Acceptance 1 of issue 13: at least 2,000 random hands with an all-in per
    game (preset decks, random configurables and short stacks, a seat timing out
    in one hand in ten), each played through the services and replayed in the
    library: the same cards, show order, shown and mucked hands, awards and
    stacks.  The tally must also hold enough of the cases the defect was about."""
    started, cpu = time.perf_counter(), time.process_time()
    with quiet_logs():
        tally = asyncio.run(play_random(GAMES[game], seed=sum(map(ord, game))))
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"\n{game}: {tally.hands} hands in {wall:.1f} s ({tally.hands / wall:.0f} hands/s, "
        f"{cpu:.1f} s CPU): {tally}"
    )
    assert tally.problems == [], "\n".join(tally.problems[:5])
    assert tally.with_all_in >= ALL_IN_HANDS
    assert tally.final_round_with_all_in >= 150  # the defect's own case
    assert tally.closed_before_final >= 150  # the rule decision
    assert tally.mucked >= 50  # no all-in: beaten hands mucked in order
