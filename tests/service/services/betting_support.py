"""What the betting service tests share: the games' configurations, a fresh hand's
state, and calls that play the same action on the service and on the library.

Each hand is also played on the library's own ``StudHand``/``DrawHand`` with the
same cards, and the service's state must be the hand's betting state at every step
(the wire round trip included).
"""

from __future__ import annotations

from collections.abc import Callable

import grpc
import pytest

from poker.betting.v1 import betting_pb2 as pb
from poker.betting.v1.betting_pb2_grpc import BettingStub
from poker.common.v1 import common_pb2 as common
from poker_rules import Action, DrawHand, StudConfig, StudHand, card_str
from poker_rules.betting import snapshot
from poker_wire.betting import action_to_pb, state_from_pb

SERVICE = "poker.betting.v1.Betting"
STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)


def fresh(config: common.GameConfig, stacks: list[int]) -> pb.BettingState:
    """A hand before anything is posted: seats 1..n, version 0."""
    return pb.BettingState(
        config=config,
        phase=pb.PHASE_BETTING,
        players=[pb.PlayerBetting(seat=i + 1, stack=s) for i, s in enumerate(stacks)],
    )


def same(state: pb.BettingState, hand: StudHand | DrawHand) -> None:
    assert state_from_pb(state)[0] == snapshot(hand)


def act(
    betting: BettingStub, state: pb.BettingState, action: Action, hand: StudHand | DrawHand
) -> pb.ApplyActionResponse:
    seat = state.players[state.to_act].seat
    reply: pb.ApplyActionResponse = betting.ApplyAction(
        pb.ApplyActionRequest(
            state=state, action=action_to_pb(action), seat=seat, version=state.version
        ),
        timeout=5,
    )
    hand.act(action)
    return reply


def upcards(hand: StudHand) -> list[pb.UpCards]:
    return [pb.UpCards(cards=[card_str(c) for c in board]) for board in hand.boards]


def third_street(
    config: common.GameConfig, stacks: list[int], hand: StudHand
) -> pb.StartRoundRequest:
    """StartRound of a fresh stud hand: each player's door card (the library
    ``hand``'s third upcard) on third street."""
    return pb.StartRoundRequest(
        state=fresh(config, stacks),
        street=0,
        upcards=[pb.UpCards(cards=[card_str(c[2])]) for c in hand.cards],
    )


def code_of(call: Callable[[], object]) -> tuple[grpc.StatusCode, str]:
    with pytest.raises(grpc.RpcError) as caught:
        call()
    error = caught.value
    return error.code(), error.details() or ""


# ------------------------------------------------------------------ errors


def _opened_stud(betting: BettingStub, seed: int = 11) -> tuple[pb.BettingState, StudHand]:
    hand = StudHand(StudConfig(), [5_000] * 3, seed=seed)
    state = betting.StartRound(
        third_street(STUD, [5_000] * 3, hand),
        timeout=5,
    ).state
    return state, hand
