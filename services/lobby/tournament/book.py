"""The tournament tables' book: what the table service and the players ask of a
tournament's table, answered the way the tournament plays it.

A tournament table is run by the table service like a ring table.  NextHand
first applies the level clock and the balancing plan (``balancing.py``), then
sends the level's stakes (``NextHandResponse.config``) and the blinds
(``posts``); players away are dealt in with ``fold_on_turn`` (T6: the table folds
them at each turn).  FinishHand records eliminations (T4) and the end, and
marks away the players the table saw leave (``sit_out_player_ids``, T6), each
with the hand's ``tournament_hands`` row and history, so ListHands lists a
tournament table's hands as a ring table's.  The ring game's seating switches do
not apply here and say where to look instead.
"""

from __future__ import annotations

import hashlib
import hmac
from typing import NoReturn

from poker.lobby.v1 import lobby_pb2 as pb
from poker.lobby.v1 import tournament_pb2 as tpb
from poker_rules.config import Game
from poker_rules.tournament import Bust, ChipConservationError, check_chips, rank_busts
from poker_wire import check_count, check_id
from service_kit.errors import FailedPreconditionError
from service_kit.logs import get_logger

from ..checks import present, sit_outs
from ..ring.table import MAX_VOID_REASON, VOIDED_AT_TAKEOVER, VOIDED_BY_TABLE
from ..ring.wire import LIST_HANDS, hand_record, page_after, page_token
from . import hands
from .balancing import balance
from .lifecycle import clock, finish
from .models import Tournament, TTable
from .registry import TournamentRegistry
from .structure import hand_config

log = get_logger()

K = tpb.TournamentEventKind


class TournamentBook(TournamentRegistry):
    """The ``TableBook`` of tournament tables (see ``services.lobby.books``)."""

    # ------------------------------------------------------------ views and seats

    def table_view(self, table_id: str) -> pb.Table:
        t, table = self.owner(table_id)
        names = self.store.store.names(table.seats.values())
        stakes = t.structure.position(t.elapsed()).stakes
        occupied = []
        for seat, player in sorted(table.seats.items()):
            entry = t.live(player)
            occupied.append(
                pb.SeatInfo(
                    seat=seat,
                    player_id=player,
                    name=names.get(player, ""),
                    stack=entry.chips if entry else 0,
                    fold_on_turn=bool(entry and entry.away),
                )
            )
        return pb.Table(
            table_id=table.table_id,
            name=table.name,
            config=hand_config(t.request.config, stakes),
            seats=t.request.seats_per_table,
            action_clock_ms=t.request.action_clock_ms,
            occupied=occupied,
            hands_played=table.hands_played,
            tournament_id=t.tournament_id,
        )

    def table_views(self, game: Game | None) -> list[pb.Table]:
        """The tables the table service should run: open tables of running tournaments."""
        return [
            self.table_view(table.table_id)
            for t in self.tournaments.values()
            if t.status == "running" and (game is None or t.game is game)
            for table in t.open_tables()
        ]

    def seat_of(self, table_id: str, player_id: str) -> int:
        _t, table = self.owner(table_id)
        for seat, player in table.seats.items():
            if player == player_id:
                return seat
        return 0

    def seat_switches(self, table_id: str, player_id: str) -> NoReturn:
        raise FailedPreconditionError(
            f"table {table_id} is a tournament's: ring-game seating does not apply; "
            "Tournaments.SetAway marks a player away there (T6)"
        )

    def list_hands(self, request: pb.ListHandsRequest) -> pb.ListHandsResponse:
        """The table's hands, newest first, as a ring table's (``hand_records``)."""
        _t, table = self.owner(request.table_id)
        limit = check_count(request.limit, f"limit (0 = {LIST_HANDS[0]})", 0, LIST_HANDS[1])
        limit = limit or LIST_HANDS[0]
        before = page_after(request.page_token)
        rows = self.hand_rows.hands(table.table_id, limit + 1, before)
        page = rows[:limit]
        return pb.ListHandsResponse(
            hands=[hand_record(r) for r in page],
            next_page_token=page_token(page[-1]) if len(rows) > limit else "",
        )

    # ------------------------------------------------------------ hands

    def next_hand(self, table_id: str) -> pb.NextHandResponse:
        t, table = self.owner(table_id)
        if table.pending_id:
            return pb.NextHandResponse.FromString(table.pending_plan)
        if t.status != "running" or table.broken:
            return pb.NextHandResponse(play=False)
        with self.atomic(t):
            before = (len(t.events), [x.waiting for x in t.tables.values()])
            clock(self, t)
            may_deal = not t.on_break and balance(self, t, table)
            if not may_deal or len(table.seats) < 2:
                # A waiting table asks again every poll: write only what changed.
                if (len(t.events), [x.waiting for x in t.tables.values()]) != before:
                    self.save(t)
                return pb.NextHandResponse(play=False)
            response = hands.plan(t, table)
            self.hand_rows.add(
                response.hand_id, table.table_id, t.tournament_id, table.pending_plan
            )
            self.emit(
                t,
                K.TOURNAMENT_EVENT_KIND_HAND_STARTED,
                table_id=table.table_id,
                hand_id=response.hand_id,
                level=t.level,
                table_counts=[
                    tpb.TableCount(table_id=x.table_id, players=len(x.seats), waiting=x.waiting)
                    for x in t.open_tables()
                ],
            )
            self.save(t)
        return response

    def void_pending_hand(self, request: pb.VoidPendingHandRequest) -> pb.VoidPendingHandResponse:
        table_id = request.table_id
        t, table = self.owner(table_id)
        hand_id = table.pending_id
        if hand_id:
            with self.atomic(t):
                table.clear_pending()
                self.hand_rows.end(hand_id, "voided", request.reason or VOIDED_AT_TAKEOVER)
                self.save(t)
            log.warning("tournament hand voided", table_id=table_id, hand_id=hand_id)
        return pb.VoidPendingHandResponse(hand_id=hand_id, hands_played=table.hands_played)

    def hand_recorded(self, table_id: str, hand_id: str) -> pb.HandRecordedResponse:
        _t, table = self.owner(table_id)
        hand_id = check_id(hand_id, "hand_id")
        if table.finished_id == hand_id:  # the tournament's state is stored whole
            return pb.HandRecordedResponse(recorded=True, pending_hand_id=table.pending_id)
        return pb.HandRecordedResponse(
            recorded=False,
            reason="the lobby has no record of its result (a lobby restart voided it)",
            pending_hand_id=table.pending_id,
        )

    def finish_hand(self, request: pb.FinishHandRequest) -> pb.FinishHandResponse:
        t, table = self.owner(request.table_id)
        hand_id = check_id(request.hand_id, "hand_id")
        digest = hashlib.sha256(request.SerializeToString(deterministic=True)).hexdigest()
        if table.pending_id != hand_id:
            if table.finished_id == hand_id and hmac.compare_digest(table.finished_digest, digest):
                return self._finished(request, table)
            current = table.pending_id or "none is; NextHand starts one"
            raise FailedPreconditionError(
                f"hand {hand_id} is not the hand in progress at this table ({current})"
            )
        dealt = [(int(s), str(p), int(c)) for s, p, c in table.pending_dealt]
        departed = sit_outs(request, [p for _, p, _ in dealt])
        if request.voided:
            with self.atomic(t):
                self._away(t, departed)
                reason = f"{VOIDED_BY_TABLE}: {request.void_reason or 'no reason given'}"
                self.hand_rows.end(hand_id, "voided", reason[:MAX_VOID_REASON])
                self._history(table, request)
                table.clear_pending()
                table.finished_id, table.finished_digest = hand_id, digest
                self.save(t)
            return self._finished(request, table)
        finals = hands.final_stacks(request.final_stacks, table)
        with self.atomic(t):
            self._eliminate(t, table, hand_id, dealt, finals)
            self._away(t, departed)
            self.hand_rows.end(hand_id, "finished")
            self._history(table, request)
            table.last = table.pending_last
            seats_dealt = {s for s, _, _ in dealt}
            table.wait_button = [
                s for s in table.wait_button if s in table.seats and s not in seats_dealt
            ]
            table.clear_pending()
            table.finished_id, table.finished_digest = hand_id, digest
            table.hands_played += 1
            t.hands_played += 1
            self.emit(
                t,
                K.TOURNAMENT_EVENT_KIND_HAND_FINISHED,
                table_id=table.table_id,
                hand_id=hand_id,
                chips_in_play=t.chips_in_play(),
                players_left=len(t.alive()),
            )
            if len(t.alive()) == 1:
                finish(self, t)
            else:
                clock(self, t)
            self.save(t)
        return self._finished(request, table)

    def _history(self, table: TTable, request: pb.FinishHandRequest) -> None:
        """The hand's history, with its result (``histories.py``)."""
        if request.history:
            self.store.store.histories.add(request.hand_id, table.table_id, request.history)

    @staticmethod
    def _away(t: Tournament, players: list[str]) -> None:
        """The players the table saw leave are away from the next hand on, as
        Tournaments.SetAway marks them (T6: dealt in, blinded off, folded at each
        turn without waiting for the clock); a player just eliminated needs nothing."""
        for player_id in players:
            entry = t.live(player_id)
            if entry is not None and not entry.away:
                entry.away = True
                log.info("away: the table saw the player leave", player_id=player_id)

    def _eliminate(
        self,
        t: Tournament,
        table: TTable,
        hand_id: str,
        dealt: list[tuple[int, str, int]],
        finals: dict[int, int],
    ) -> None:
        """The final stacks to the entries; the players left without chips are out
        (T4: ranked by their starting stacks), and no chip was made or lost (T5)."""
        left_before = len(t.alive())
        busts: list[Bust] = []
        for seat, player, before in dealt:
            entry = present(t.live(player), f"live entry of {player}")
            entry.chips = finals[seat]
            if entry.chips == 0:
                busts.append(Bust(entry.key, before))
        for place in rank_busts(busts, left_before):
            player = place.player.rsplit("#", 1)[0]
            entry = present(t.live(player), f"live entry of {player}")
            entry.busted, entry.place, entry.tied = True, place.place, place.tied
            del table.seats[entry.seat]
            entry.table_id, entry.seat = "", 0
            self.emit(
                t,
                K.TOURNAMENT_EVENT_KIND_ELIMINATED,
                player_id=player,
                table_id=table.table_id,
                hand_id=hand_id,
                place=place.place,
                tied=place.tied,
                players_left=left_before - len(busts),
            )
        if busts:
            t.bust_log.append([[b.player, b.starting_stack] for b in busts])
        try:
            check_chips([e.chips for e in t.alive()], len(t.entries), t.structure.starting_stack)
        except ChipConservationError as error:
            raise FailedPreconditionError(str(error)) from None

    def _finished(self, request: pb.FinishHandRequest, table: TTable) -> pb.FinishHandResponse:
        response = pb.FinishHandResponse(hands_played=table.hands_played)
        if request.plan_next:
            response.next_hand.CopyFrom(self.next_hand(request.table_id))
        return response
