"""A tournament hand's plan and the check of its result: who is dealt in at the
level's stakes, the blinds of the dead-button positions (draw, B1), the players
away dealt in with ``fold_on_turn`` (T6), and final stacks that keep every chip
(T5) and are a possible outcome of the hand (``checks.final_stacks``)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.tournament import BlindStakes, dealt_positions

from .. import checks
from ..checks import present
from .models import Entry, Tournament, TTable
from .structure import hand_config, stored_positions


def plan(t: Tournament, table: TTable) -> pb.NextHandResponse:
    """The table's next hand, recorded as its hand in progress."""
    size = t.request.seats_per_table
    stakes = t.structure.position(t.elapsed()).stakes
    occupied = sorted(table.seats)  # draw: without the seats waiting for the button
    response = pb.NextHandResponse(
        hand_id=f"h-{uuid.uuid4().hex}",
        play=True,
        config=hand_config(t.request.config, stakes),
    )
    order = occupied
    if isinstance(stakes, BlindStakes):
        occupied, positions = dealt_positions(
            occupied, table.wait_button, size, stored_positions(table.last)
        )
        button, big = positions.button, positions.big_blind
        small = positions.small_blind if positions.small_blind in occupied else 0
        start = next((i for i, s in enumerate(occupied) if s > button), 0)
        order = occupied[start:] + occupied[:start]
        chips = {s: _entry(t, table, s).chips for s in occupied}
        posts = []
        if small:
            posts.append((small, min(stakes.small_blind, chips[small])))
        posts.append((big, min(stakes.big_blind, chips[big])))
        posts.sort(key=lambda p: order.index(p[0]))
        response.posts.extend(pb.Post(seat=s, amount=a, live=True) for s, a in posts)
        response.button_seat = button
        response.button_dead = button not in occupied or positions.button_dead
        response.small_blind_seat = small
        response.big_blind_seat = big
        # The small-blind position even when it is dead (nobody posts it).
        table.pending_last = [button, positions.small_blind, big]
    for seat in order:
        entry = _entry(t, table, seat)
        response.dealt_in.append(
            pb.SeatInfo(
                seat=seat, player_id=table.seats[seat], stack=entry.chips, fold_on_turn=entry.away
            )
        )
    table.pending_id = response.hand_id
    table.pending_plan = response.SerializeToString(deterministic=True)
    table.pending_dealt = [[s.seat, s.player_id, s.stack] for s in response.dealt_in]
    table.waiting = False
    return response


def _entry(t: Tournament, table: TTable, seat: int) -> Entry:
    player = table.seats[seat]
    return present(t.live(player), f"live entry of {player}")


def final_stacks(infos: Sequence[pb.SeatInfo], table: TTable) -> dict[int, int]:
    """seat -> final stack of the table's hand in progress, once
    ``checks.final_stacks`` has found it a possible outcome of the hand planned:
    exactly the seats dealt in, none negative, every chip kept (T5), nobody winning
    more than the pot allows; INVALID_ARGUMENT or FAILED_PRECONDITION else."""
    return checks.final_stacks(
        checks.dealt_in(pb.NextHandResponse.FromString(table.pending_plan)), infos
    )
