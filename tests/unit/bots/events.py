"""Builders of hand-made TableEvent messages for the bot SDK tests."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from poker.common.v1 import common_pb2 as c
from poker.table.v1 import table_pb2 as t

TABLE = "t1"
HAND = "h1"

STUD = c.GameConfig(game=c.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200)
HILO = c.GameConfig(game=c.GAME_STUD_HILO, ante=25, bring_in=50, small_bet=100, big_bet=200)
DRAW_NL = c.GameConfig(game=c.GAME_DRAW_7A, structure=c.STRUCTURE_NO_LIMIT, small_bet=100)


def ev(seq: int = 0, hand: str = HAND, **kw: Any) -> t.TableEvent:
    return t.TableEvent(event_seq=seq, table_id=TABLE, hand_id=hand, **kw)


def seat(n: int, stack: int = 1_000, **kw: Any) -> t.SeatView:
    return t.SeatView(seat=n, player_id=f"p{n}", name=f"P{n}", stack=stack, **kw)


def snapshot(
    config: c.GameConfig = STUD,
    your_seat: int = 1,
    seats: Sequence[t.SeatView] = (),
    turn: t.YourTurn | None = None,
    hand: str = HAND,
    seq: int = 0,
) -> t.TableEvent:
    snap = t.Snapshot(
        table_id=TABLE,
        hand_id=hand,
        config=config,
        your_seat=your_seat,
        seats=seats,
        event_seq=seq,
    )
    if turn is not None:
        snap.your_turn.CopyFrom(turn)
    return ev(seq, hand, snapshot=snap)


def hand_started(
    seats: Sequence[t.SeatView], posts: Iterable[tuple[int, int, str]] = (), seq: int = 1
) -> t.TableEvent:
    return ev(
        seq,
        hand_started=t.HandStarted(
            seats=seats, posts=[t.Post(seat=s, amount=a, kind=k) for s, a, k in posts]
        ),
    )


def dealt(
    seat_no: int, cards: Sequence[str] = (), *, up: bool = False, hidden: int = 0, seq: int = 2
) -> t.TableEvent:
    return ev(seq, cards_dealt=t.CardsDealt(seat=seat_no, cards=cards, up=up, hidden_count=hidden))


def action(
    seat_no: int, kind: int, stack: int, amount: int = 0, seq: int = 3, cards: Sequence[str] = ()
) -> t.TableEvent:
    return ev(
        seq,
        action_taken=t.ActionTaken(
            seat=seat_no,
            action=c.Action(kind=kind, amount=amount, cards=cards),  # type: ignore[arg-type]
            stack=stack,
        ),
    )


def street(n: int, name: str, seq: int = 4) -> t.TableEvent:
    return ev(seq, street_started=t.StreetStarted(street=n, name=name))


def your_turn(legal: c.LegalActions, action_seq: int, seq: int = 5) -> t.TableEvent:
    return ev(seq, your_turn=t.YourTurn(action_seq=action_seq, legal=legal))


def finished(stacks: dict[int, int], seq: int = 9) -> t.TableEvent:
    return ev(
        seq,
        hand_finished=t.HandFinished(
            seats=[t.SeatView(seat=s, stack=v) for s, v in stacks.items()],
            awards=[c.Award(pot_index=0, seat=min(stacks), amount=100, share=c.POT_SHARE_WHOLE)],
        ),
    )


def batch(*events: t.TableEvent) -> t.TableEvent:
    return t.TableEvent(table_id=TABLE, batch=t.EventBatch(events=events))


def fixed_menu(
    seat_no: int = 1,
    *,
    check: bool = False,
    call: int | None = None,
    fold: bool = True,
    raise_kind: int = c.ACTION_KIND_UNSPECIFIED,
    to: Sequence[int] = (),
    bring_in: int | None = None,
) -> c.LegalActions:
    kinds: list[int] = []
    legal = c.LegalActions(seat=seat_no, can_fold=fold, can_check=check)
    if fold:
        kinds.append(c.ACTION_KIND_FOLD)
    if check:
        kinds.append(c.ACTION_KIND_CHECK)
    if call is not None:
        legal.call_amount = call
        kinds.append(c.ACTION_KIND_CALL)
    if bring_in is not None:
        legal.bring_in_amount = bring_in
        kinds.append(c.ACTION_KIND_BRING_IN)
    if raise_kind:
        legal.raise_kind = raise_kind  # type: ignore[assignment]
        legal.min_to, legal.max_to = min(to), max(to)
        legal.to_choices.extend(to)
        kinds.append(raise_kind)
    legal.kinds.extend(kinds)  # type: ignore[arg-type]
    return legal


def discard_menu(seat_no: int = 1, most: int = 5) -> c.LegalActions:
    return c.LegalActions(seat=seat_no, max_discards=most, kinds=[c.ACTION_KIND_DISCARD])
