"""What a viewer may know about a table right now: the Snapshot, and the seating.

Why a module of its own: a Snapshot is read, not played.  It is built on Join and
GetState from the hand in progress (or the last hand's end) and the lobby's
seating, and never changes the table.  Keeping it apart from the hand loop keeps
the visibility rules of a snapshot (own cards only, the D7 draw counts, the seats
waiting for their first hand) in one place.
"""

from __future__ import annotations

from collections.abc import Sequence

import structlog

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as pb

from . import facts as f
from .clients import Downstream, DownstreamError
from .hand import Hand


async def lobby_seating(
    ds: Downstream, table_id: str, log: structlog.typing.FilteringBoundLogger
) -> tuple[lpb.SeatInfo, ...] | None:
    """Who sits where now, from the lobby (``GetTable``), for a snapshot; None
    when the lobby does not answer.

    Why ask: the seats of a hand are only those dealt in, so a player who sat
    down and waits for their first hand (B2), or anyone between hands, would
    otherwise see no seat at all, not even their own.  The table's copy of the
    lobby's table (refreshed by discovery) may predate a SitDown of a moment ago;
    it is only the caller's fallback when the lobby does not answer, so a Join or
    GetState never fails for want of it.  Every field shown (seat, player, name,
    stack) is public: the lobby's GetTable shows it to anyone."""
    try:
        table: lpb.Table = await ds.call(
            "lobby", "GetTable", lpb.GetTableRequest(table_id=table_id)
        )
    except DownstreamError as error:
        log.warning("seating not read from the lobby", code=error.code().name)
        return None
    return tuple(table.occupied)


def snapshot(
    table_id: str,
    config: common.GameConfig,
    hand: Hand | None,
    player_id: str | None,
    seating: Sequence[lpb.SeatInfo] = (),
    *,
    last: f.HandFinished | None = None,
    report_pending: bool = False,
) -> pb.Snapshot:
    """Everything ``player_id`` (None: a spectator) may know about the table now.

    ``seating`` (``lobby_seating``: the lobby's seats) adds the seats not dealt
    into ``hand`` (the hand in progress), or every seat between hands, with their
    stacks and no cards; a seated player's ``your_seat`` is their seat even when
    they are not in the hand (their view of the hand stays a spectator's).
    ``last`` (the last hand's end) and ``report_pending`` (the lobby has not
    taken its report yet) only matter between hands."""
    snap = pb.Snapshot(table_id=table_id, config=config)
    own = next((s.seat for s in seating if player_id and s.player_id == player_id), 0)
    if hand is None:
        _seats_between_hands(snap, seating, last, report_pending)
        snap.your_seat = own
        return snap
    seat = hand.seat_of(player_id) if player_id else 0
    snap.hand_id = hand.hand_id
    snap.your_seat = seat or own
    snap.street = hand.street
    snap.button_seat = hand.button_seat
    snap.button_dead = hand.button_dead
    snap.community_card = hand.community_card
    snap.deck_commitment = hand.commitment
    snap.card_commitment = hand.card_commitment
    snap.event_seq = len(hand.facts)
    snap.pots.extend(hand.pots)
    players = hand.chips
    draws = _draw_counts(hand.facts)
    for i, s in enumerate(hand.seats):
        cards = hand.cards[i] if i < len(hand.cards) else f.PlayerCards()
        p = players[i] if i < len(players) else None
        view = pb.SeatView(
            seat=s,
            player_id=hand.players[i],
            name=hand.names[i],
            stack=p.stack if p is not None else hand.start_stacks[i],
            bet=p.bet if p is not None else 0,
            in_hand=not p.folded if p is not None else True,
            all_in=p.all_in if p is not None else False,
            upcards=cards.up,
        )
        if s == seat:
            view.own_cards.extend(cards.down)
        else:
            view.down_cards = len(cards.down)
        if s in draws:
            view.draw_count = draws[s]
        snap.seats.append(view)
    waiting = [s for s in seating if s.seat not in hand.seats]
    if waiting:  # seated, not dealt in: no cards, the lobby's stack
        views = [*snap.seats, *(_waiting_view(s) for s in waiting)]
        del snap.seats[:]
        snap.seats.extend(sorted(views, key=lambda v: v.seat))
    turn = hand.turn
    if turn is not None:
        snap.to_act_seat = turn.seat
        snap.to_act_deadline_unix_ms = turn.deadline_unix_ms
        if turn.seat == seat:
            snap.your_turn.CopyFrom(
                pb.YourTurn(
                    action_seq=turn.action_seq,
                    legal=turn.legal,
                    deadline_unix_ms=turn.deadline_unix_ms,
                )
            )
    return snap


def _seats_between_hands(
    snap: pb.Snapshot,
    seating: Sequence[lpb.SeatInfo],
    last: f.HandFinished | None,
    report_pending: bool,
) -> None:
    """No hand in progress: the lobby's seats, or, without them, the last hand's
    final seats.  While the last hand's report is not taken yet the lobby still
    has the stacks from before it, so its players show their final stacks."""
    if not seating:
        if last is not None:
            snap.seats.extend(
                pb.SeatView(seat=s.seat, player_id=s.player_id, stack=s.stack) for s in last.seats
            )
        return
    final = (
        {s.player_id: s.stack for s in last.seats} if last is not None and report_pending else {}
    )
    for s in sorted(seating, key=lambda s: s.seat):
        view = _waiting_view(s)
        view.stack = final.get(s.player_id, s.stack)
        snap.seats.append(view)


def _waiting_view(s: lpb.SeatInfo) -> pb.SeatView:
    """A seat not in the hand (or between hands): who, and the lobby's stack."""
    return pb.SeatView(seat=s.seat, player_id=s.player_id, name=s.name, stack=s.stack)


def _draw_counts(facts: Sequence[f.Fact]) -> dict[int, int]:
    """D7: the cards each seat drew, public from the draw until the first action
    after it (then none)."""
    counts: dict[int, int] = {}
    for fact in facts:
        if isinstance(fact, f.DrawTaken):
            counts[fact.seat] = len(fact.discarded)
        elif isinstance(fact, f.ActionTaken) and counts:
            return {}
    return counts


__all__ = ["lobby_seating", "snapshot"]
