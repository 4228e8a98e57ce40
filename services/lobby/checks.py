"""What both kinds of table share: the seat counts (S1, D1), the action clock (S10),
the check of a reported hand result (its stacks, and the players it sits out), and
the guard for a state the book's own bookkeeping rules out.

Ring tables and tournament tables check their requests against the same limits,
so they are stated once here; each kind words its own refusals.

The result check (``final_stacks``) is the lobby's defence in depth against a
confused or forged FinishHand: a result is accepted only if it could be the
outcome of the hand the lobby planned.  See ``most_won`` for the pot bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.config import Game
from poker_wire import check_chips, check_count, check_id
from service_kit.errors import FailedPreconditionError, InvalidArgumentError

T = TypeVar("T")

MOST_SEATS = {Game.STUD: 8, Game.STUD_HILO: 8, Game.DRAW_7A: 5}  # S1, D1
DEFAULT_ACTION_CLOCK_MS = 10_000  # S10
ACTION_CLOCK_MS = (50, 600_000)


def present(value: T | None, what: str) -> T:
    """``value``, which the book's invariants say is there.

    A real check, not an ``assert`` (which ``python -O`` drops): if the books ever
    disagree with themselves the call fails (INTERNAL, nothing committed) instead
    of going on with a wrong seat or entry.
    """
    if value is None:
        raise RuntimeError(f"lobby state out of step: no {what}")
    return value


# ---------------------------------------------------------------- hand results


@dataclass(frozen=True, slots=True)
class Dealt:
    """A player dealt in to the planned hand: the seat, the player, the chips the
    player started the hand with, and the dead money the plan asks of the seat
    (B3/B4: it goes to the main pot and is nobody's bet)."""

    seat: int
    player_id: str
    stack: int
    dead: int = 0


def dealt_in(plan: pb.NextHandResponse) -> list[Dealt]:
    """The players of a stored plan (what NextHand answered), in its order."""
    dead: dict[int, int] = {}
    for post in plan.posts:
        if not post.live:
            dead[post.seat] = dead.get(post.seat, 0) + post.amount
    return [Dealt(s.seat, s.player_id, s.stack, dead.get(s.seat, 0)) for s in plan.dealt_in]


def most_won(dealt: Sequence[Dealt], seat: int) -> int:
    """The most the player in ``seat`` can win in the hand (final minus start).

    From each opponent j a player i wins at most what i covers of j's chips plus
    j's dead money: ``min(start_j, start_i + dead_j)`` (side pots, S13: i is
    eligible only for the layers up to what i put in; dead money joins the main
    pot, which every player still in is eligible for).

    With two or more opponents there is one more way to win: when every opponent
    who put in more than i folds (a player may fold when checking is free, D7,
    and the clock folds a player with no chips in by choice, S10), their chips go
    to the players still in, and the uncalled part goes back (G6), so no
    opponent loses more than the second-largest opponent's stack could call.
    The cap is then ``max(start_i, second-largest opponent's start)``.
    """
    me = next(d for d in dealt if d.seat == seat)
    others = [d for d in dealt if d.seat != seat]
    cap = me.stack
    if len(others) >= 2:
        cap = max(cap, sorted(d.stack for d in others)[-2])
    return sum(min(d.stack, cap + min(d.dead, d.stack)) for d in others)


def final_stacks(
    dealt: Sequence[Dealt], infos: Sequence[pb.SeatInfo], seats: int | None = None
) -> dict[int, int]:
    """seat -> final stack of a FinishHand, for exactly the players ``dealt`` in,
    if it is a possible outcome of their hand; else nothing is changed and:

    - INVALID_ARGUMENT for a malformed list: a seat outside ``1..seats`` (when
      given), a seat twice, a stack that is not ``0..MAX_CHIPS`` chips;
    - FAILED_PRECONDITION for a result the planned hand cannot have had: a player
      or seat not dealt in, a dealt-in seat missing, a negative stack, chips made
      or lost (the sum of the final stacks is the sum dealt in: the room takes no
      rake), or a player winning more than the pot allows (``most_won``).
    """
    planned = {d.seat: d for d in dealt}
    finals: dict[int, int] = {}
    for i, info in enumerate(infos):
        seat = info.seat
        if seats is not None:
            seat = check_count(seat, f"final_stacks[{i}].seat", 1, seats)
        if seat in finals:
            raise InvalidArgumentError(f"final_stacks lists seat {seat} twice")
        check_chips(info.stack, f"final_stacks[{i}].stack")
        known = planned.get(seat)
        if info.player_id and known is not None and known.player_id != info.player_id:
            raise FailedPreconditionError(
                f"final_stacks[{i}]: seat {seat} was dealt in to {known.player_id}, "
                f"not {info.player_id}"
            )
        finals[seat] = info.stack
    check_outcome(dealt, finals)
    return finals


def check_outcome(dealt: Sequence[Dealt], finals: dict[int, int]) -> None:
    """FAILED_PRECONDITION unless ``finals`` (seat -> final stack) is a possible
    outcome of the hand ``dealt`` in (see ``final_stacks``)."""
    seats_dealt = sorted(d.seat for d in dealt)
    if sorted(finals) != seats_dealt:
        raise FailedPreconditionError(
            f"final_stacks must list exactly the seats dealt in, {seats_dealt}; "
            f"got {sorted(finals)}"
        )
    negative = {s: c for s, c in finals.items() if c < 0}
    if negative:
        raise FailedPreconditionError(
            f"final_stacks: a stack is never negative, got {negative}: "
            "a player loses at most the chips they were dealt in with"
        )
    before, after = sum(d.stack for d in dealt), sum(finals.values())
    if after != before:
        raise FailedPreconditionError(
            f"final_stacks: chips not conserved: {before} dealt in, {after} after; "
            "chips are never created or destroyed (T5; no rake is taken)"
        )
    for d in dealt:
        won, most = finals[d.seat] - d.stack, most_won(dealt, d.seat)
        if won > most:
            raise FailedPreconditionError(
                f"final_stacks: seat {d.seat} ({d.player_id}) started with {d.stack} "
                f"and would win {won}, but the pot allows at most {most}: a player "
                "wins from each opponent at most what they cover of that "
                "opponent's chips, plus the opponent's dead money"
            )


def sit_outs(request: pb.FinishHandRequest, dealt: Sequence[str]) -> list[str]:
    """The players a FinishHand sits out (``sit_out_player_ids``: the table saw
    their client leave, docs/rule-decisions.md#departed-players), checked before
    anything changes: INVALID_ARGUMENT for a malformed id or one listed twice,
    FAILED_PRECONDITION for a player not dealt into the hand (the table only
    ever names a player whose decisions in this very hand the clock took)."""
    ids = [
        check_id(p, f"sit_out_player_ids[{i}]") for i, p in enumerate(request.sit_out_player_ids)
    ]
    if len(set(ids)) != len(ids):
        raise InvalidArgumentError("sit_out_player_ids lists a player twice; each at most once")
    strangers = [p for p in ids if p not in dealt]
    if strangers:
        raise FailedPreconditionError(
            f"sit_out_player_ids: {strangers} not dealt into hand {request.hand_id}; "
            "only players dealt into the hand reported can be sat out with it"
        )
    return ids
