# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __B4)
"""``poker_wire.phh_view.history_phh`` on hand-made event lists: what only a
constructed hand shows quickly (dead money, a timeout, a voided hand); whole hands
over gRPC are in tests/system/e2e/test_history_phh.py."""

from __future__ import annotations

import tomllib

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_wire.phh_view import history_phh

DRAW = common.GameConfig(
    game=common.GAME_DRAW_7A, structure=common.STRUCTURE_POT_LIMIT, small_bet=100, big_bet=200
)


def _ev(**kwargs: object) -> tpb.TableEvent:
    return tpb.TableEvent(**kwargs)  # type: ignore[arg-type]


def _started(posts: list[tuple[int, int, str]]) -> tpb.TableEvent:
    return _ev(
        hand_started=tpb.HandStarted(
            seats=[
                tpb.SeatView(seat=4, name="dee", stack=1000),
                tpb.SeatView(seat=1, name="ann", stack=800),
                tpb.SeatView(seat=2, name="bob", stack=900),
            ],
            button_seat=3,
            posts=[tpb.Post(seat=s, amount=a, kind=k) for s, a, k in posts],
        )
    )


def _act(
    seat: int, kind: common.ActionKind.ValueType, stack: int, **extra: object
) -> tpb.TableEvent:
    return _ev(
        action_taken=tpb.ActionTaken(
            seat=seat,
            action=common.Action(kind=kind),
            stack=stack,
            **extra,  # type: ignore[arg-type]
        )
    )


def test_dead_small_blind_is_dead_money_not_a_blind__B3_B4() -> None:
    # Seat 2 returns from missing both blinds: a live big blind and a dead small
    # blind (B4); seats 4 and 1 post the blinds of this hand, the button is dead
    # on the empty seat 3 (B1).
    events = [
        _started([(4, 50, "blind"), (1, 100, "blind"), (2, 100, "blind"), (2, 50, "dead")]),
        _act(4, common.ACTION_KIND_FOLD, 950),
        _act(1, common.ACTION_KIND_FOLD, 700),
        _ev(
            hand_finished=tpb.HandFinished(
                awards=[common.Award(seat=2, amount=300)],
                seats=[
                    tpb.SeatView(seat=4, stack=950),
                    tpb.SeatView(seat=1, stack=700),
                    tpb.SeatView(seat=2, stack=1050),
                ],
            )
        ),
    ]
    fields = tomllib.loads(history_phh(DRAW, events, hand_id="h-1", table_id="t-1"))
    assert fields["seats"] == [4, 1, 2]
    assert fields["players"] == ["dee", "ann", "bob"]
    assert fields["blinds_or_straddles"] == [50, 100, 100]  # live money only
    assert fields["_dead_blinds"] == [0, 0, 50]  # in the pot, part of nobody's bet
    assert fields["_button_seat"] == 3
    assert fields["actions"] == ["p1 f", "p2 f"]
    assert fields["finishing_stacks"] == [950, 700, 1050]
    assert fields["winnings"] == [0, 0, 300]
    assert sum(fields["finishing_stacks"]) == sum(fields["starting_stacks"])


def test_timeout_is_noted_and_listed__S10() -> None:
    events = [
        _started([(4, 50, "blind"), (1, 100, "blind")]),
        _act(2, common.ACTION_KIND_FOLD, 900, timeout=True),
    ]
    fields = tomllib.loads(history_phh(DRAW, events))
    assert fields["actions"] == ["p3 f # timeout (S10)"]
    assert fields["_timeouts"] == [3]
    assert "finishing_stacks" not in fields  # the hand is not over


def test_voided_hand_keeps_the_stacks_it_started_with() -> None:
    events = [
        _started([(4, 50, "blind"), (1, 100, "blind")]),
        _ev(
            hand_finished=tpb.HandFinished(
                voided=True,
                seats=[
                    tpb.SeatView(seat=4, stack=1000),
                    tpb.SeatView(seat=1, stack=800),
                    tpb.SeatView(seat=2, stack=900),
                ],
            )
        ),
    ]
    fields = tomllib.loads(history_phh(DRAW, events))
    assert fields["_voided"] is True
    assert fields["finishing_stacks"] == fields["starting_stacks"] == [1000, 800, 900]


def test_no_hand_started_is_no_history() -> None:
    assert history_phh(DRAW, [_ev(pong=tpb.Pong(nonce=1))]) == ""


STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=25, small_bet=50, big_bet=100)


def test_all_in_protection_is_a_commentary_and_closes_the_betting__S10_S12() -> None:
    """Defect 4 of issue 13: an all-in protection timeout (S10) applies no action;
    it was written ``pN cbr 0``, which PokerKit refuses and then "repairs" by
    dealing ``??`` cards of its own, which it counts as upcards: ``KeyError:
    Rank.UNKNOWN`` opening fifth or sixth street.  It is a commentary-only line, as
    in the house record, and the protected player counts as all in: with the other
    player all in too the hands are turned up (S12) before fourth street."""

    def dealt(seat: int, cards: list[str], up: bool = False) -> tpb.TableEvent:
        return _ev(cards_dealt=tpb.CardsDealt(seat=seat, cards=cards, up=up))

    events = [
        _ev(
            hand_started=tpb.HandStarted(
                seats=[tpb.SeatView(seat=1, stack=500), tpb.SeatView(seat=2, stack=60)],
                posts=[
                    tpb.Post(seat=1, amount=10, kind="ante"),
                    tpb.Post(seat=2, amount=10, kind="ante"),
                ],
            )
        ),
        _ev(street_started=tpb.StreetStarted(street=0, name="third")),
        dealt(1, ["Ah", "Kh"]),
        dealt(1, ["2c"], up=True),
        dealt(2, ["Qs", "Qd"]),
        dealt(2, ["9c"], up=True),
        _act(1, common.ACTION_KIND_BRING_IN, 465),
        _ev(
            action_taken=tpb.ActionTaken(
                seat=2,
                action=common.Action(kind=common.ACTION_KIND_RAISE, amount=50),
                stack=0,
            )
        ),
        _act(1, common.ACTION_KIND_UNSPECIFIED, 465, timeout=True),
        _ev(street_started=tpb.StreetStarted(street=1, name="fourth")),
        dealt(1, ["7d"], up=True),
        dealt(2, ["8d"], up=True),
    ]
    fields = tomllib.loads(history_phh(STUD, events))
    assert fields["actions"] == [
        "d dh p1 AhKh2c",
        "d dh p2 QsQd9c",
        "p1 pb",
        "p2 cbr 50",
        "# p1 timeout: all-in protection (S10), plays on for the chips already committed",
        "p1 sm AhKh2c # all-in (S12)",
        "p2 sm QsQd9c # all-in (S12)",
        "d dh p1 7d",
        "d dh p2 8d",
    ]
    assert fields["_timeouts"] == [1]
