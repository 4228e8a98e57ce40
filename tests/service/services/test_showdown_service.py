# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S11)
"""The showdown service over real gRPC: splits, odd chips, show order, errors."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.common.v1.batch_pb2 import CallBatch
from poker.showdown.v1 import showdown_pb2 as pb
from poker.showdown.v1.showdown_pb2_grpc import ShowdownStub
from poker_rules import Action, ActionKind, StudConfig, StudHand, card_str
from tests.support.batching import call, response

STUD = common.GameConfig(game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
HILO = common.GameConfig(
    game=common.GAME_STUD_HILO, ante=25, bring_in=50, small_bet=100, big_bet=200
)
DRAW = common.GameConfig(game=common.GAME_DRAW_7A, small_bet=100, big_bet=200)


def seat(number: int, cards: str = "", folded: bool = False) -> pb.SeatHand:
    return pb.SeatHand(seat=number, cards=cards.split(), folded=folded)


def pot(amount: int, *seats: int) -> common.Pot:
    return common.Pot(amount=amount, eligible_seats=seats)


def awards(reply: pb.SettleResponse) -> list[tuple[int, int, int, str]]:
    return [
        (a.pot_index, a.seat, a.amount, common.PotShare.Name(a.share).removeprefix("POT_SHARE_"))
        for a in reply.awards
    ]


def call_down(seed: int) -> StudHand:
    """A three-handed Stud Hi-Lo hand where everybody checks or calls to the end."""
    hand = StudHand(StudConfig(hi_lo=True), [5_000] * 3, seed=seed)
    while not hand.is_over:
        legal = hand.legal_actions()
        if ActionKind.BRING_IN in legal.kinds:
            hand.act(Action.bring_in())
        else:
            hand.act(Action.check() if legal.can_check else Action.call())
    return hand


def settle_request(hand: StudHand) -> pb.SettleRequest:
    """What a table service would send for ``hand``: seats are library index + 1."""
    assert hand.result is not None
    contenders = hand.in_hand()
    first = hand.last_aggressor if hand.last_aggressor in contenders else None
    if first is None:
        first = hand.final_street_opener
    return pb.SettleRequest(
        config=HILO,
        hands=[
            pb.SeatHand(seat=i + 1, cards=[card_str(c) for c in hand.cards[i]], folded=f)
            for i, f in enumerate(hand.folded)
        ],
        community_card=card_str(hand.community) if hand.community is not None else "",
        pots=[pot(p.amount, *(i + 1 for i in p.eligible)) for p in hand.result.pots],
        first_to_show_seat=(first + 1) if first is not None else 0,
        all_show=hand.final_street_opener is None or any(hand.all_in[i] for i in contenders),
    )


def test_showdown_hilo_split_with_odd_chip_matches_library__H5(showdown: ShowdownStub) -> None:
    for seed in range(500):  # the first seeded hand with a split between two players
        hand = call_down(seed)
        assert hand.result is not None
        result = hand.result
        high = {a.player for a in result.awards if a.half == "high"}
        low = {a.player for a in result.awards if a.half == "low"}
        if high and low and not high & low and sum(p.amount for p in result.pots) % 2:
            break
    else:
        pytest.fail("no hi/lo split with an odd pot in 500 seeded hands")
    reply = showdown.Settle(settle_request(hand), timeout=5)
    share = {"all": "WHOLE", "high": "HIGH", "low": "LOW"}
    assert awards(reply) == [(a.pot, a.player + 1, a.amount, share[a.half]) for a in result.awards]
    assert list(reply.shown_seats) == [p + 1 for p in result.shown]
    assert list(reply.mucked_seats) == [p + 1 for p in result.mucked]
    high_award = next(a for a in reply.awards if a.share == common.POT_SHARE_HIGH)
    low_award = next(a for a in reply.awards if a.share == common.POT_SHARE_LOW)
    assert high_award.amount == low_award.amount + 1  # H5: the odd chip plays high
    assert sum(a.amount for a in reply.awards) == sum(p.amount for p in result.pots)


def test_showdown_tied_high_odd_chip_to_highest_card__S13(showdown: ShowdownStub) -> None:
    request = pb.SettleRequest(
        config=STUD,
        hands=[  # the same wheel; seat 5 holds the ace of spades, the highest card
            seat(2, "Ah 2d 3c 4s 5h Kd Qc"),
            seat(5, "As 2c 3d 4h 5s Kc Qd"),
            seat(7, "9c 9d 9h 9s Tc Td Th", folded=True),
        ],
        pots=[pot(101, 2, 5)],
        first_to_show_seat=2,
    )
    reply = showdown.Settle(request, timeout=5)
    assert awards(reply) == [(0, 5, 51, "WHOLE"), (0, 2, 50, "WHOLE")]
    assert list(reply.show_order) == [2, 5] and list(reply.shown_seats) == [2, 5]


def test_showdown_hilo_low_half_odd_chip_to_lowest_card__H5(showdown: ShowdownStub) -> None:
    request = pb.SettleRequest(
        config=HILO,
        hands=[
            seat(1, "Kc Kd Kh Qs Js 9d 9c"),  # kings full: the high hand, no low
            seat(2, "Ad 2c 3s 4d 6h Td Jc"),  # 6-4-3-2-A
            seat(3, "Ac 2d 3h 4s 6c Ts Jh"),  # the same low, with the ace of clubs
        ],
        pots=[pot(303, 1, 2, 3)],
        first_to_show_seat=1,
    )
    reply = showdown.Settle(request, timeout=5)
    # 303: high half 152 (H5), low half 151 split 76/75, the odd chip to the ace of
    # clubs, the lowest card by suit.
    assert awards(reply) == [(0, 1, 152, "HIGH"), (0, 3, 76, "LOW"), (0, 2, 75, "LOW")]
    lows = {e.seat: e.low.description for e in reply.evaluations if e.HasField("low")}
    assert lows == {2: "six low (6-4-3-2-A)", 3: "six low (6-4-3-2-A)"}


def test_showdown_side_pots_split_on_their_own__H6(showdown: ShowdownStub) -> None:
    request = pb.SettleRequest(
        config=HILO,
        hands=[
            seat(1, "Kc Kd Kh Qs Js 9d 9c"),  # best high
            seat(2, "Ac 2d 3h 4s 5c Ts Jh"),  # the wheel: best low, straight
            seat(3, "Qc Qd 7h 8s 6c Td Jc"),
        ],
        pots=[pot(300, 1, 2, 3), pot(201, 2, 3)],  # seat 1 is all-in for the main pot
        all_show=True,
    )
    reply = showdown.Settle(request, timeout=5)
    # Side pot: seat 2 has the better high (a straight) and the only low: scoop.
    assert awards(reply) == [
        (0, 1, 150, "HIGH"),
        (0, 2, 150, "LOW"),
        (1, 2, 101, "HIGH"),
        (1, 2, 100, "LOW"),
    ]


def test_showdown_draw_odd_chip_clockwise_from_button__D9(showdown: ShowdownStub) -> None:
    request = pb.SettleRequest(
        config=DRAW,
        hands=[  # dealing order: seat 4 is the first player left of the button
            seat(4, "Ac Kc Qd Jh 9s"),
            seat(2, "Ad Kd Qh Js 9c"),
            seat(3, folded=True),
        ],
        pots=[pot(101, 2, 4)],
        first_to_show_seat=2,
    )
    reply = showdown.Settle(request, timeout=5)
    assert awards(reply) == [(0, 4, 51, "WHOLE"), (0, 2, 50, "WHOLE")]
    assert list(reply.show_order) == [2, 4]


def test_showdown_evaluate_names_hands__D8(showdown: ShowdownStub) -> None:
    reply = showdown.Evaluate(
        pb.EvaluateRequest(
            config=DRAW, hands=[seat(1, "7h 8h 9h Jh Kh"), seat(2, "Ac Ad As Kc Kd")]
        ),
        timeout=5,
    )
    names = [(e.seat, e.high.category, e.high.description) for e in reply.evaluations]
    assert names == [
        (1, "FLUSH", "flush, king high"),
        (2, "FULL_HOUSE", "full house, aces full of kings"),
    ]
    assert reply.evaluations[0].high.value > reply.evaluations[1].high.value  # D8


def test_showdown_community_card_counts_for_everyone__S11(showdown: ShowdownStub) -> None:
    reply = showdown.Evaluate(
        pb.EvaluateRequest(
            config=STUD,
            hands=[seat(1, "As Ad 2c 7h 9d Jc"), seat(2, "Kc Kd 3c 8h Td Qc")],
            community_card="Ah",
        ),
        timeout=5,
    )
    assert [e.high.description for e in reply.evaluations] == [
        "three of a kind, aces",
        "pair of kings",
    ]


MALFORMED: list[tuple[str, Any]] = [
    ("missing config", pb.SettleRequest(hands=[seat(1, "As Ks Qs Js Ts 2c 3d")])),
    ("unknown game", pb.SettleRequest(config=common.GameConfig(game=common.Game.ValueType(77)))),
    (
        "bad stakes",
        pb.SettleRequest(config=common.GameConfig(game=common.GAME_STUD, bring_in=500)),
    ),
    (
        "unknown structure",
        pb.SettleRequest(
            config=common.GameConfig(
                game=common.GAME_DRAW_7A, structure=common.Structure.ValueType(9)
            )
        ),
    ),
    (
        "pot limit stud",
        pb.SettleRequest(
            config=common.GameConfig(
                game=common.GAME_STUD, structure=common.STRUCTURE_POT_LIMIT, bring_in=1
            )
        ),
    ),
    (
        "huge ante",
        pb.SettleRequest(config=common.GameConfig(game=common.GAME_STUD, ante=2**62)),
    ),
    ("one hand", pb.SettleRequest(config=STUD, hands=[seat(1, "As Ks Qs Js Ts 2c 3d")])),
    (
        "same seat twice",
        pb.SettleRequest(
            config=STUD, hands=[seat(1, "As Ks Qs Js Ts 2c 3d"), seat(1, "Ah Kh Qh Jh Th 2d 3h")]
        ),
    ),
    (
        "seat zero",
        pb.SettleRequest(
            config=STUD, hands=[seat(0, "As Ks Qs Js Ts 2c 3d"), seat(1, "Ah Kh Qh Jh Th 2d 3h")]
        ),
    ),
    (
        "card dealt twice",
        pb.SettleRequest(
            config=STUD,
            hands=[seat(1, "As Ks Qs Js Ts 2c 3d"), seat(2, "As Kh Qh Jh Th 2d 3h")],
            pots=[pot(100, 1, 2)],
            first_to_show_seat=1,
        ),
    ),
    (
        "oversized card",
        pb.SettleRequest(
            config=STUD,
            hands=[seat(1, "As Ks Qs Js Ts 2c " + "3" * 10_000), seat(2, "Ah Kh Qh Jh Th 2d 3h")],
        ),
    ),
    (
        "a deuce in 7-A draw",
        pb.SettleRequest(config=DRAW, hands=[seat(1, "2c Ks Qs Js Ts"), seat(2, "Ah Kh Qh Jh Th")]),
    ),
    (
        "community card in draw",
        pb.SettleRequest(
            config=DRAW,
            hands=[seat(1, "As Ks Qs Js Ts"), seat(2, "Ah Kh Qh Jh Th")],
            community_card="9c",
        ),
    ),
    (
        "negative pot",
        pb.SettleRequest(
            config=STUD,
            hands=[seat(1, "As Ks Qs Js Ts 2c 3d"), seat(2, "Ah Kh Qh Jh Th 2d 3h")],
            pots=[pot(-100, 1, 2)],
            first_to_show_seat=1,
        ),
    ),
    (
        "huge pot",
        pb.SettleRequest(
            config=STUD,
            hands=[seat(1, "As Ks Qs Js Ts 2c 3d"), seat(2, "Ah Kh Qh Jh Th 2d 3h")],
            pots=[pot(2**62, 1, 2)],
            first_to_show_seat=1,
        ),
    ),
    (
        "folded seat eligible",
        pb.SettleRequest(
            config=STUD,
            hands=[seat(1, "As Ks Qs Js Ts 2c 3d"), seat(2, folded=True)],
            pots=[pot(100, 1, 2)],
            first_to_show_seat=1,
        ),
    ),
    (
        "no pots",
        pb.SettleRequest(
            config=STUD,
            hands=[seat(1, "As Ks Qs Js Ts 2c 3d"), seat(2, "Ah Kh Qh Jh Th 2d 3h")],
            first_to_show_seat=1,
        ),
    ),
    (
        "missing first to show",
        pb.SettleRequest(
            config=STUD,
            hands=[seat(1, "As Ks Qs Js Ts 2c 3d"), seat(2, "Ah Kh Qh Jh Th 2d 3h")],
            pots=[pot(100, 1, 2)],
        ),
    ),
]


@pytest.mark.parametrize(("why", "request_"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_showdown_malformed_requests_are_invalid_argument(
    showdown: ShowdownStub, why: str, request_: pb.SettleRequest
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        showdown.Settle(request_, timeout=5)
    error = info.value
    assert isinstance(error, grpc.Call)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (why, error.details())
    assert error.details()


def test_showdown_batches_answer_like_the_unary_calls__H5_D8(
    showdown: ShowdownStub,
) -> None:
    """The Batch stream: Settle and Evaluate several to a message, answered in
    order by one message with what the unary calls answer; every malformed Settle is
    its reply's error (the unary call's code and message) and the stream goes on;
    an empty batch is INVALID_ARGUMENT."""
    settles = [settle_request(call_down(seed)) for seed in range(4)]
    evaluate = pb.EvaluateRequest(
        config=DRAW, hands=[seat(1, "7h 8h 9h Jh Kh"), seat(2, "Ac Ad As Kc Kd")]
    )
    malformed = [request_ for _, request_ in MALFORMED]
    calls = [call(k, "Settle", r) for k, r in enumerate(settles, 1)]
    calls.append(call(10, "Evaluate", evaluate))
    calls += [call(100 + k, "Settle", r) for k, r in enumerate(malformed)]
    calls.append(call(99))
    first, second = list(
        showdown.Batch(iter([CallBatch(calls=calls), CallBatch(calls=calls[:1])]), timeout=5)
    )
    assert [r.id for r in first.replies] == [c.id for c in calls]
    for request_, reply in zip(settles, first.replies, strict=False):
        assert response(reply, pb.SettleResponse) == showdown.Settle(request_, timeout=5)
    evaluated = response(first.replies[len(settles)], pb.EvaluateResponse)
    assert evaluated == showdown.Evaluate(evaluate, timeout=5)
    refused = first.replies[len(settles) + 1 : -1]
    for request_, reply in zip(malformed, refused, strict=True):
        with pytest.raises(grpc.RpcError) as unary:
            showdown.Settle(request_, timeout=5)
        assert (reply.error.code, reply.error.message) == (
            unary.value.code().value[0],
            unary.value.details(),
        )
        assert reply.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert first.replies[-1].error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "call is required" in first.replies[-1].error.message
    assert second.replies[0].response == first.replies[0].response  # the stream went on

    with pytest.raises(grpc.RpcError) as error:
        list(showdown.Batch(iter([CallBatch()]), timeout=5))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
