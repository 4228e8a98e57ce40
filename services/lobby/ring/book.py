"""The ring tables' book: what the table service and the players ask of a ring
table (its view, a player's seat, the switches) and the hand protocol.

- NextHand: the library's ``plan_hand``; while that hand is in progress, every
  NextHand returns the same plan and hand_id, so the table service can retry
  after a timeout.  The first hand's button is the first ready seat (no draw).
  The plan is stored (``hands`` row, pending) in the same transaction.
- FinishHand: the pending hand_id only; final stacks that are a possible outcome
  of the planned hand (``checks.final_stacks``: exactly the seats dealt in, none
  negative, adding up to the chips they were dealt in with, nobody winning more
  than the pot allows; the library checks the sum again).  Then
  the B5 seats lost and the pending stand-ups return their chips to the balances,
  and the players the table saw leave (``sit_out_player_ids``) are sat out, all in
  the same transaction.
  A repeat of the request that finished a hand is answered OK again, changing
  nothing (a retried call whose answer was lost; the stored digest of the request
  makes this hold after a restart too).  A hand the lobby voided itself is
  refused (FAILED_PRECONDITION) with the reason it was voided.
- VoidPendingHand: the table service voids the hand its predecessor left
  pending; the stacks stay as at the hand's start and pending stand-ups complete.
"""

from __future__ import annotations

import hashlib
import uuid

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.config import Game
from poker_rules.seating import HandPlan, SeatingError
from poker_wire import check_count, check_id
from service_kit.errors import FailedPreconditionError
from service_kit.logs import bound_contextvars, get_logger

from ..checks import dealt_in, final_stacks, present, sit_outs
from ..metrics import HANDS_FINISHED, HANDS_PLANNED, HANDS_VOIDED
from .seats import RingSeat
from .table import (
    MAX_VOID_REASON,
    VOIDED_AT_TAKEOVER,
    VOIDED_BY_TABLE,
    CashOut,
    PendingHand,
    RingTable,
)
from .tables import RingTables
from .wire import LIST_HANDS, hand_record, page_after, page_token, plan_pb, table_pb

log = get_logger()


class RingBook(RingTables):
    """The ``TableBook`` of ring tables (see ``services.lobby.books``)."""

    # ------------------------------------------------------------ views and seats

    def view(self, table: RingTable) -> pb.Table:
        seated = (table.seating.seat(s) for s in table.seating.occupied())
        names = self.store.names(p.player_id for p in seated if p is not None)
        return table_pb(table, names)

    def table_view(self, table_id: str) -> pb.Table:
        return self.view(self.table(table_id))

    def table_views(self, game: Game | None) -> list[pb.Table]:
        return [self.view(t) for t in self.tables.values() if game is None or t.game is game]

    def seat_of(self, table_id: str, player_id: str) -> int:
        return self.table(table_id).seat_of(player_id)

    def seat_switches(self, table_id: str, player_id: str) -> RingSeat:
        """The caller's seat and its switches; FAILED_PRECONDITION when not seated."""
        table = self.table(table_id)
        seat = table.seat_of(player_id)
        if not seat:
            raise FailedPreconditionError(
                f"player {player_id} is not seated at table {table.row.table_id}"
            )
        return RingSeat(self, table, seat)

    # ------------------------------------------------------------ hands

    def next_hand(self, table_id: str) -> pb.NextHandResponse:
        table = self.table(table_id)
        if table.pending is not None:
            with bound_contextvars(table_id=table.row.table_id, hand_id=table.pending.hand_id):
                log.info("hand plan repeated")
            return table.pending.response
        with self.change(table):
            plan = table.seating.plan_hand()  # None changes nothing
            if plan is None:
                return pb.NextHandResponse(play=False)
            hand_id = f"h-{uuid.uuid4().hex}"
            response = plan_pb(plan, hand_id, self.store.names(plan.players))
            self.store.add_hand(
                hand_id, table.row.table_id, response.SerializeToString(deterministic=True)
            )
            table.pending = PendingHand(hand_id, response)
        HANDS_PLANNED.labels(table.game.value).inc()
        with bound_contextvars(table_id=table.row.table_id, hand_id=hand_id):
            log.info(
                "hand planned",
                hand_number=plan.hand_number,
                seats=list(plan.seats),
                button=plan.button,
                big_blind=plan.big_blind,
            )
        return response

    def finish_hand(self, request: pb.FinishHandRequest) -> pb.FinishHandResponse:
        table = self.table(request.table_id)
        hand_id = check_id(request.hand_id, "hand_id")
        table_id = table.row.table_id
        seating = table.seating
        pending = table.pending
        with bound_contextvars(table_id=table_id, hand_id=hand_id):
            fingerprint = request.SerializeToString(deterministic=True)
            if pending is None or pending.hand_id != hand_id:
                self._refuse_finish(table, hand_id, fingerprint)
                log.info("hand finish repeated")
                return self._finished(request, seating.hands_played)
            plan = present(seating.hand_in_progress, f"plan of the pending hand {hand_id}")
            stacks = [] if request.voided else _final_stacks(table, pending, plan, request)
            departed = sit_outs(request, plan.players)
            cash_outs: list[CashOut] = []
            reason = f"{VOIDED_BY_TABLE}: {request.void_reason or 'no reason given'}"
            reason = reason[:MAX_VOID_REASON]
            with self.change(table):
                self.store.end_hand(
                    hand_id,
                    "voided" if request.voided else "finished",
                    reason=reason if request.voided else "",
                    digest=hashlib.sha256(fingerprint).digest(),
                )
                if request.history:  # with its result or not at all (histories.py)
                    self.store.histories.add(hand_id, table_id, request.history)
                if request.voided:
                    seating.void_hand(plan)
                else:
                    cash_outs.extend(self._settle(table, hand_id, plan, stacks))
                self._sit_out(table, departed)
                for seat in sorted(table.leaving):
                    cash_outs.append(self.leave(table, seat, "stand_up")[2])
                table.leaving.clear()
                table.pending = None
                table.last_finished = (hand_id, fingerprint)
            if request.voided:
                HANDS_VOIDED.labels(table.game.value).inc()
                log.info("hand voided", reason=reason)
            else:
                HANDS_FINISHED.labels(table.game.value).inc()
                log.info("hand finished", stacks=stacks)
        self.count_cash_outs(cash_outs)
        return self._finished(request, seating.hands_played)

    def _refuse_finish(self, table: RingTable, hand_id: str, fingerprint: bytes) -> None:
        """A FinishHand for a hand that is not in progress: returns for a repeat of
        the request that finished it, else FAILED_PRECONDITION saying why."""
        table_id = table.row.table_id
        pending = table.pending
        stored = self.store.hand(hand_id)
        if table.last_finished == (hand_id, fingerprint) or (
            stored is not None
            and stored.table_id == table_id
            and stored.digest == hashlib.sha256(fingerprint).digest()
        ):
            return
        current = f"{pending.hand_id} is" if pending else "none is; NextHand starts one"
        if stored is not None and stored.table_id == table_id and stored.reason:
            raise FailedPreconditionError(
                f"hand {hand_id} was {stored.reason}: every stack stayed as at its "
                f"start, and it is not the hand in progress ({current})"
            )
        raise FailedPreconditionError(
            f"hand {hand_id} is not the hand in progress at this table ({current})"
        )

    def _settle(
        self, table: RingTable, hand_id: str, plan: HandPlan, stacks: list[int]
    ) -> list[CashOut]:
        """The hand's results to the seats and the ledger; the B5 seats lost."""
        table_id = table.row.table_id
        seating = table.seating
        try:
            lost = seating.finish_hand(plan, stacks)
        except SeatingError as error:
            raise FailedPreconditionError(f"final_stacks: {error}") from None
        self.store.hand_result(
            table_id, hand_id, zip(plan.seats, plan.players, plan.stacks, stacks, strict=True)
        )
        self.store.set_hands_played(table_id, seating.hands_played)
        cash_outs = []
        for seat_lost in lost:  # B5: already emptied by the library
            self.store.cash_out(seat_lost.player_id, table_id, seat_lost.seat, seat_lost.chips)
            table.leaving.discard(seat_lost.seat)
            cash_outs.append(CashOut(table.game, "seat_lost", seat_lost.chips))
            log.info("seat lost (B5)", player_id=seat_lost.player_id, seat=seat_lost.seat)
        return cash_outs

    def _sit_out(self, table: RingTable, players: list[str]) -> None:
        """The players the table saw leave, away from the next hand on, as SitOut
        does (B3-B6; B5 then takes the seat after ``max_orbits_away``).  A seat
        already lost (B5) or standing up after this hand needs nothing."""
        for player_id in players:
            seat = table.seat_of(player_id)
            if seat and seat not in table.leaving:
                table.seating.sit_out(seat)
                log.info("sat out: the table saw the player leave", player_id=player_id, seat=seat)

    def _finished(self, request: pb.FinishHandRequest, hands_played: int) -> pb.FinishHandResponse:
        response = pb.FinishHandResponse(hands_played=hands_played)
        if request.plan_next:
            response.next_hand.CopyFrom(self.next_hand(request.table_id))
        return response

    def hand_recorded(self, table_id: str, hand_id: str) -> pb.HandRecordedResponse:
        table = self.table(table_id)
        hand_id = check_id(hand_id, "hand_id")
        pending = table.pending.hand_id if table.pending is not None else ""
        if table.last_finished is not None and table.last_finished[0] == hand_id:
            return pb.HandRecordedResponse(recorded=True, pending_hand_id=pending)
        stored = self.store.hand(hand_id)  # after a restart: the stored row
        if stored is None or stored.table_id != table.row.table_id:
            reason = "the lobby has no record of this hand at this table"
        elif stored.digest is not None:  # ended by a FinishHand of the table's
            return pb.HandRecordedResponse(recorded=True, pending_hand_id=pending)
        else:
            reason = stored.reason or f"the hand is {stored.status}"
        return pb.HandRecordedResponse(recorded=False, reason=reason, pending_hand_id=pending)

    def void_pending_hand(self, request: pb.VoidPendingHandRequest) -> pb.VoidPendingHandResponse:
        table = self.table(request.table_id)
        seating = table.seating
        pending = table.pending
        if pending is None:
            return pb.VoidPendingHandResponse(hands_played=seating.hands_played)
        plan = present(seating.hand_in_progress, f"plan of the pending hand {pending.hand_id}")
        reason = (request.reason or VOIDED_AT_TAKEOVER)[:MAX_VOID_REASON]
        with bound_contextvars(table_id=table.row.table_id, hand_id=pending.hand_id):
            with self.change(table):
                self.store.end_hand(pending.hand_id, "voided", reason=reason)
                seating.void_hand(plan)
                cash_outs = [self.leave(table, s, "stand_up")[2] for s in sorted(table.leaving)]
                table.leaving.clear()
                table.pending = None
            HANDS_VOIDED.labels(table.game.value).inc()
            log.warning("hand voided", reason=reason, stacks=list(plan.stacks))
        self.count_cash_outs(cash_outs)
        return pb.VoidPendingHandResponse(
            hand_id=pending.hand_id, hands_played=seating.hands_played
        )

    def list_hands(self, request: pb.ListHandsRequest) -> pb.ListHandsResponse:
        table = self.table(request.table_id)
        limit = check_count(request.limit, f"limit (0 = {LIST_HANDS[0]})", 0, LIST_HANDS[1])
        limit = limit or LIST_HANDS[0]
        before = page_after(request.page_token)
        # One more than the page: whether a next page exists.
        rows = self.store.hands(table.row.table_id, limit + 1, before)
        page = rows[:limit]
        return pb.ListHandsResponse(
            hands=[hand_record(r) for r in page],
            next_page_token=page_token(page[-1]) if len(rows) > limit else "",
        )


def _final_stacks(
    table: RingTable, pending: PendingHand, plan: HandPlan, request: pb.FinishHandRequest
) -> list[int]:
    """The stacks in the plan's order, once ``checks.final_stacks`` has found them a
    possible outcome of the hand planned (refused before anything changes)."""
    finals = final_stacks(dealt_in(pending.response), request.final_stacks, table.row.seats)
    return [finals[s] for s in plan.seats]
