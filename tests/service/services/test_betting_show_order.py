# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S12)
"""The betting service answers the show order (S12, D9) with its last betting reply.

The table settles in the order the betting service gives (``ShowdownOrder`` on the
reply after which no betting is left) and never decodes the betting state for it.
These drive the real ``BettingServicer`` in-process through whole hands and check
that the order is on exactly that reply, and that it is the library's
``showdown_start`` over the final state, with the final round opened or not as
the table sees it; where the best board decides (stud, the betting closed before
seventh street) the reply says so and names no seat.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from poker.betting.v1 import betting_pb2 as pb
from poker.common.v1 import common_pb2 as common
from poker_rules.betting import showdown_start
from poker_rules.cards import parse_card
from poker_wire.betting import state_from_pb
from services.betting.servicer import BettingServicer

K = common.ActionKind
STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
DRAW_NL = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_NO_LIMIT, small_bet=100, big_bet=200
)
# Distinct upcards per street for two players (third to sixth street).
BOARDS = [["2c", "Kd"], ["3c", "Kh"], ["4c", "9s"], ["5c", "9h"]]


def fresh(config: common.GameConfig, stacks: list[int]) -> pb.BettingState:
    return pb.BettingState(
        config=config,
        phase=pb.PHASE_BETTING,
        players=[pb.PlayerBetting(seat=i + 1, stack=s) for i, s in enumerate(stacks)],
    )


def passive(legal: common.LegalActions) -> common.Action:
    """Check, else call, else bring in; a draw stands pat."""
    for kind in (K.ACTION_KIND_DISCARD, K.ACTION_KIND_CHECK, K.ACTION_KIND_CALL):
        if kind in legal.kinds:
            return common.Action(kind=kind)
    return common.Action(kind=K.ACTION_KIND_BRING_IN)


@dataclass
class Played:
    last: pb.ApplyActionResponse
    final_round_opened: bool  # as the table tracked it before the service answered it
    upcards: list[list[str]]


def play(config: common.GameConfig, stacks: list[int]) -> Played:
    """A hand answered passively at every turn; every street opened with BOARDS."""
    return asyncio.run(_play(BettingServicer(), config, stacks))


async def _play(servicer: BettingServicer, config: common.GameConfig, stacks: list[int]) -> Played:
    stud = config.game != common.GAME_DRAW_7A
    boards: list[list[str]] = [[BOARDS[0][i]] for i in range(len(stacks))] if stud else []
    street = 0
    opened = False
    replies: list[pb.ApplyActionResponse] = []

    async def start() -> pb.ApplyActionResponse:
        request = pb.StartRoundRequest(
            state=state, street=street, upcards=[pb.UpCards(cards=b) for b in boards]
        )
        return await servicer.StartRound(request, None)  # type: ignore[arg-type]

    state = fresh(config, stacks)
    reply = await start()
    replies.append(reply)
    closed = reply.betting_closed
    while True:
        state = reply.state
        if reply.HasField("legal"):
            was_drawing = state.phase == pb.PHASE_DRAWING
            reply = await servicer.ApplyAction(
                pb.ApplyActionRequest(
                    state=state,
                    action=passive(reply.legal),
                    seat=reply.legal.seat,
                    version=state.version,
                ),
                None,  # type: ignore[arg-type]
            )
            replies.append(reply)
            if reply.hand_complete:
                break
            closed = reply.betting_closed
            if was_drawing and reply.state.phase != pb.PHASE_DRAWING:
                opened = reply.HasField("legal")
            continue
        if not stud or street >= 4:
            break
        street += 1
        if street < 4:
            for i, board in enumerate(boards):
                board.append(BOARDS[street][i])
        if closed:
            continue
        reply = await start()
        replies.append(reply)
        closed = reply.betting_closed
        if street == 4:
            opened = reply.HasField("legal")
    last = replies[-1]
    ordered = [r for r in replies if r.HasField("showdown")]
    assert ordered == ([] if last.hand_complete else [last]), "the order is on the last reply only"
    return Played(last, opened, boards)


def library_order(played: Played) -> tuple[int, bool]:
    """The seat that shows first and all_show, as the library decides from the
    final state (what the table computed before the service answered it)."""
    state, seats = state_from_pb(played.last.state)
    upcards = [[parse_card(c) for c in b] for b in played.upcards]
    first, all_show = showdown_start(state, played.final_round_opened, upcards)
    return seats[first], all_show


def test_stud_checked_through_shows_from_seventh_streets_opener__S12() -> None:
    played = play(STUD, [5_000, 5_000])
    order = played.last.showdown
    assert played.final_round_opened and not order.best_board
    assert (order.first_to_show_seat, order.all_show) == library_order(played)
    assert not order.all_show  # nobody all-in: a beaten hand may be mucked


def test_stud_all_in_by_the_antes_is_the_best_board_at_the_showdown__S12_S6() -> None:
    """The antes leave one player with chips: StartRound opens no betting, so its
    reply is the last and the best board once dealt out shows first."""
    played = play(STUD, [5_000, 25])
    order = played.last.showdown
    assert played.last.betting_closed and not played.final_round_opened
    assert order.best_board and order.first_to_show_seat == 0 and order.all_show
    seat, all_show = library_order(played)
    assert all_show == order.all_show and seat in (1, 2)


def test_stud_all_in_on_third_street_is_the_best_board__S12_S6() -> None:
    played = play(STUD, [5_000, 60])  # the ante, then a call of the bring-in: all-in
    order = played.last.showdown
    assert not played.final_round_opened
    assert order.best_board and order.first_to_show_seat == 0 and order.all_show


def test_draw_checked_through_shows_from_the_second_rounds_opener__S12_D7() -> None:
    played = play(DRAW_NL, [5_000, 5_000])
    order = played.last.showdown
    assert played.final_round_opened and not order.best_board
    assert (order.first_to_show_seat, order.all_show) == library_order(played)


def test_draw_all_in_before_the_draw_shows_from_left_of_the_button__S12_D9() -> None:
    played = play(DRAW_NL, [5_000, 100])  # a blind and a call: all-in
    order = played.last.showdown
    assert played.last.betting_closed and not played.final_round_opened
    assert not order.best_board and order.all_show
    assert (order.first_to_show_seat, order.all_show) == library_order(played)
