"""FinishHand accepts only a possible outcome of the hand the lobby planned
(``services.lobby.checks.final_stacks``): exactly the players dealt in, no
negative stack, every chip kept, and nobody winning more than the pot allows.
A refused result changes nothing: the hand stays pending and can still be voided.

The service tests run the lobby over gRPC (both stores, ``lobby_support.py``);
the property tests play real hands with the rules library and check that every
outcome it produces is accepted, and that a result breaking the rules is not.
"""

from __future__ import annotations

import random

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules import DrawConfig, DrawHand, StudConfig, StudHand
from poker_rules.draw import Post
from service_kit.errors import FailedPreconditionError
from services.lobby.checks import Dealt, check_outcome, most_won
from tests.support.lobby import LobbyClient
from tests.support.random_hands import play_out

from . import lobby_support as support

# ---------------------------------------------------------------- over gRPC


def _state(lobby: LobbyClient, tid: str, who: list[support.Player]) -> tuple[object, ...]:
    return (
        support.assert_invariant(lobby),
        support.stacks(lobby, tid),
        support.table_of(lobby, tid).hands_played,
        [p.get().balance for p in who],
    )


def _refused(
    lobby: LobbyClient,
    tid: str,
    hand: pb.NextHandResponse,
    final: list[pb.SeatInfo],
    who: list[support.Player],
) -> grpc.Call:
    """FinishHand with ``final`` is refused and changes nothing: stacks, balances,
    the ledger and the hand count as before, the same hand still in progress."""
    before = _state(lobby, tid, who)
    request = pb.FinishHandRequest(table_id=tid, hand_id=hand.hand_id, final_stacks=final)
    with pytest.raises(grpc.RpcError) as info:
        lobby.FinishHand(request, timeout=5)
    assert _state(lobby, tid, who) == before
    assert support.next_hand(lobby, tid) == hand
    error = info.value
    assert isinstance(error, grpc.Call)
    return error


def _heads_up(lobby: LobbyClient) -> tuple[str, list[support.Player], pb.NextHandResponse]:
    """A stud table: alice sits with 1,000 in seat 1, bob with 10,000 in seat 2."""
    tid = support.create(lobby, support.STUD, max_buy_in=20_000).table_id
    alice = support.Player(lobby, "alice", 1_000)
    bob = support.Player(lobby, "bob", 10_000)
    alice.sit(tid, 1_000, seat=1)
    bob.sit(tid, 10_000, seat=2)
    hand = support.next_hand(lobby, tid)
    assert {s.seat: s.stack for s in hand.dealt_in} == {1: 1_000, 2: 10_000}
    return tid, [alice, bob], hand


def test_finish_hand_with_chips_moved_between_players_beyond_the_pot_is_refused_and_changes_nothing(
    lobby: LobbyClient,
) -> None:
    tid, who, hand = _heads_up(lobby)
    s = pb.SeatInfo
    # The tester's rewrite: 5,000 from bob to alice, the sum kept.  Alice could
    # win at most the 1,000 she covers.
    error = _refused(lobby, tid, hand, [s(seat=1, stack=6_000), s(seat=2, stack=5_000)], who)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "pot allows at most 1000" in (error.details() or "")
    # Not even one chip beyond what she covers.
    error = _refused(lobby, tid, hand, [s(seat=1, stack=2_001), s(seat=2, stack=8_999)], who)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    # The hand is still pending: the table can still void it, and then nothing moved.
    void = pb.FinishHandRequest(table_id=tid, hand_id=hand.hand_id, voided=True)
    assert lobby.FinishHand(void, timeout=5).hands_played == 0
    assert support.stacks(lobby, tid) == {1: 1_000, 2: 10_000}
    support.assert_invariant(lobby)


def test_finish_hand_with_the_most_the_pot_allows_is_accepted_and_repeats_ok(
    lobby: LobbyClient,
) -> None:
    tid, _who, hand = _heads_up(lobby)
    request = pb.FinishHandRequest(
        table_id=tid,
        hand_id=hand.hand_id,
        final_stacks=[pb.SeatInfo(seat=1, stack=2_000), pb.SeatInfo(seat=2, stack=9_000)],
    )
    assert lobby.FinishHand(request, timeout=5).hands_played == 1
    assert lobby.FinishHand(request, timeout=5).hands_played == 1  # a retry: OK, no change
    assert support.stacks(lobby, tid) == {1: 2_000, 2: 9_000}
    support.assert_invariant(lobby)


def test_finish_hand_naming_a_player_not_dealt_in_is_refused_and_changes_nothing(
    lobby: LobbyClient,
) -> None:
    tid, who, hand = _heads_up(lobby)
    carol = support.Player(lobby, "carol", 1_000)
    carol.sit(tid, 1_000, seat=3)  # seated during the hand: not dealt in
    s = pb.SeatInfo
    extra = [s(seat=1, stack=1_000), s(seat=2, stack=10_000), s(seat=3, stack=0)]
    error = _refused(lobby, tid, hand, extra, [*who, carol])
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "exactly the seats dealt in, [1, 2]" in (error.details() or "")
    wrong = [s(seat=1, stack=1_000, player_id=carol.id), s(seat=2, stack=10_000)]
    error = _refused(lobby, tid, hand, wrong, [*who, carol])
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert f"was dealt in to {who[0].id}, not {carol.id}" in (error.details() or "")


def test_finish_hand_missing_a_dealt_in_player_is_refused_and_changes_nothing(
    lobby: LobbyClient,
) -> None:
    tid, who, hand = _heads_up(lobby)
    error = _refused(lobby, tid, hand, [pb.SeatInfo(seat=2, stack=11_000)], who)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "exactly the seats dealt in, [1, 2]; got [2]" in (error.details() or "")


def test_finish_hand_that_creates_chips_is_refused_and_changes_nothing(lobby: LobbyClient) -> None:
    tid, who, hand = _heads_up(lobby)
    s = pb.SeatInfo
    error = _refused(lobby, tid, hand, [s(seat=1, stack=1_000), s(seat=2, stack=10_001)], who)
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "chips not conserved: 11000 dealt in, 11001 after" in (error.details() or "")


def test_finish_hand_with_a_negative_stack_is_refused_and_changes_nothing(
    lobby: LobbyClient,
) -> None:
    tid, who, hand = _heads_up(lobby)
    s = pb.SeatInfo
    # A malformed stack is refused on the wire (INVALID_ARGUMENT) before the
    # outcome check, which would refuse it too (see the unit test below).
    error = _refused(lobby, tid, hand, [s(seat=1, stack=-1), s(seat=2, stack=11_001)], who)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "final_stacks[0].stack must be 0.." in (error.details() or "")


def test_a_negative_final_stack_is_refused_by_the_outcome_check() -> None:
    dealt = [Dealt(1, "a", 1_000), Dealt(2, "b", 10_000)]
    with pytest.raises(FailedPreconditionError, match="never negative"):
        check_outcome(dealt, {1: -1, 2: 11_001})


# ---------------------------------------------------------------- the rule itself


def test_pot_bound_is_what_a_player_covers_of_each_opponent_plus_dead_money() -> None:
    heads_up = [Dealt(1, "a", 1_000), Dealt(2, "b", 10_000, dead=50)]
    assert most_won(heads_up, 1) == 1_050  # covers 1,000 of b's chips, and b's dead 50
    assert most_won(heads_up, 2) == 1_000
    three = [Dealt(1, "a", 1_000), Dealt(2, "b", 1_000), Dealt(3, "c", 20_000)]
    assert most_won(three, 1) == 2_000
    with pytest.raises(FailedPreconditionError, match="pot allows at most 2000"):
        check_outcome(three, {1: 6_000, 2: 1_000, 3: 15_000})


def _dealt(stacks: list[int], dead: list[int] | None = None) -> list[Dealt]:
    dead = dead or [0] * len(stacks)
    return [
        Dealt(i + 1, f"p{i + 1}", c, d) for i, (c, d) in enumerate(zip(stacks, dead, strict=True))
    ]


def _play_draw(rng: random.Random, stacks: list[int], dead: list[int]) -> list[int]:
    """A random legal 7-A draw hand (random actions and clock timeouts), with a
    dead small blind for the players ``dead`` marks (B3/B4); its final stacks."""
    n = len(stacks)
    posts = [Post(0, 50), Post(1, 100)] if n > 2 else [Post(1, 50), Post(0, 100)]
    posts += [Post(i, d, live=False) for i, d in enumerate(dead) if d]
    big = 1 if n > 2 else 0
    hand = DrawHand(
        DrawConfig(), stacks, seed=rng.randrange(1 << 30), posts=posts, big_blind_player=big
    )
    play_out(hand, rng, timeout_rate=0.1)
    assert hand.result is not None
    return list(hand.result.final_stacks)


def _play_stud(rng: random.Random, stacks: list[int]) -> list[int]:
    hand = StudHand(StudConfig(), stacks, seed=rng.randrange(1 << 30))
    play_out(hand, rng, timeout_rate=0.1)
    assert hand.result is not None
    return list(hand.result.final_stacks)


@settings(max_examples=300, deadline=None)
@given(
    stacks=st.lists(st.integers(1, 3_000), min_size=2, max_size=5),
    dead_seats=st.lists(st.booleans(), min_size=5, max_size=5),
    seed=st.integers(0, 2**32 - 1),
)
def test_every_outcome_of_a_random_draw_hand_is_accepted(
    stacks: list[int], dead_seats: list[bool], seed: int
) -> None:
    dead = [50 if d and i > 1 else 0 for i, d in enumerate(dead_seats[: len(stacks)])]
    finals = _play_draw(random.Random(seed), stacks, dead)
    check_outcome(_dealt(stacks, dead), dict(enumerate(finals, start=1)))


@settings(max_examples=200, deadline=None)
@given(stacks=st.lists(st.integers(1, 3_000), min_size=2, max_size=8), seed=st.integers(0, 2**32))
def test_every_outcome_of_a_random_stud_hand_is_accepted(stacks: list[int], seed: int) -> None:
    finals = _play_stud(random.Random(seed), stacks)
    check_outcome(_dealt(stacks), dict(enumerate(finals, start=1)))


@st.composite
def _pots(draw: st.DrawFn) -> tuple[list[int], list[int]]:
    """Random starting stacks, contributions and winners: each player puts in up
    to their stack, every layer goes to one of the players who covered it."""
    stacks = draw(st.lists(st.integers(0, 5_000), min_size=2, max_size=8))
    put = [draw(st.integers(0, c)) for c in stacks]
    finals = [c - p for c, p in zip(stacks, put, strict=True)]
    levels = sorted(set(put))
    previous = 0
    for level in levels:
        layer = sum(min(p, level) - min(p, previous) for p in put)
        eligible = [i for i, p in enumerate(put) if p >= level]
        if layer:
            finals[draw(st.sampled_from(eligible))] += layer
        previous = level
    return stacks, finals


@settings(max_examples=300, deadline=None)
@given(pot=_pots())
def test_every_split_of_side_pots_among_their_eligible_players_is_accepted(
    pot: tuple[list[int], list[int]],
) -> None:
    stacks, finals = pot
    check_outcome(_dealt(stacks), dict(enumerate(finals, start=1)))


@settings(max_examples=300, deadline=None)
@given(
    pot=_pots(),
    seat=st.integers(0, 7),
    delta=st.integers(-10_000, 10_000).filter(bool),
)
def test_a_result_that_does_not_conserve_chips_is_refused(
    pot: tuple[list[int], list[int]], seat: int, delta: int
) -> None:
    stacks, finals = pot
    seat %= len(stacks)
    finals[seat] = max(0, finals[seat] + delta)
    if sum(finals) == sum(stacks):
        finals[seat] += 1
    with pytest.raises(FailedPreconditionError):
        check_outcome(_dealt(stacks), dict(enumerate(finals, start=1)))


@settings(max_examples=300, deadline=None)
@given(pot=_pots(), data=st.data())
def test_a_result_where_someone_wins_beyond_the_pot_is_refused(
    pot: tuple[list[int], list[int]], data: st.DataObject
) -> None:
    stacks, finals = pot
    dealt = _dealt(stacks)
    i = data.draw(st.integers(0, len(stacks) - 1))
    extra = most_won(dealt, i + 1) - (finals[i] - stacks[i]) + 1
    j = data.draw(st.sampled_from([j for j in range(len(stacks)) if j != i]))
    if finals[j] < extra:  # the chips must come from somewhere to keep the sum
        return
    finals[i] += extra
    finals[j] -= extra
    with pytest.raises(FailedPreconditionError, match="pot allows"):
        check_outcome(dealt, dict(enumerate(finals, start=1)))
