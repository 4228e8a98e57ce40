"""The one interface of the lobby's two kinds of table.

A ring table (``ring``) and a tournament's table (``tournament``) answer the same
questions: the table's view, a player's seat, the seating switches, and the hand
protocol the table service runs (NextHand, FinishHand, VoidPendingHand), each in
its own way.  The Lobby servicer picks a table's book once, by its id, and calls
it; the rules of each kind live in its own package.
"""

from __future__ import annotations

from typing import Protocol

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.config import Game
from poker_rules.seating import Choice


class SeatSwitches(Protocol):
    """A seated player's switches for the next hands (B3-B6, S3)."""

    def sit_out(self) -> pb.SeatStatusResponse: ...

    def sit_in(self, choice: Choice) -> pb.SeatStatusResponse: ...

    def set_auto_post(self, auto_post: bool) -> pb.SeatStatusResponse: ...

    def im_in(self) -> pb.SeatStatusResponse: ...


class TableBook(Protocol):
    """What the lobby answers about the tables of one kind."""

    def table_view(self, table_id: str) -> pb.Table:
        """The table as GetTable shows it."""
        ...

    def table_views(self, game: Game | None) -> list[pb.Table]:
        """The tables ListTables lists (of ``game``, or all when None)."""
        ...

    def seat_of(self, table_id: str, player_id: str) -> int:
        """The player's seat at the table, 0 when not seated."""
        ...

    def seat_switches(self, table_id: str, player_id: str) -> SeatSwitches:
        """The player's seat switches; FAILED_PRECONDITION when they do not apply."""
        ...

    def next_hand(self, table_id: str) -> pb.NextHandResponse:
        """The next hand's plan; the same plan again while it is in progress."""
        ...

    def finish_hand(self, request: pb.FinishHandRequest) -> pb.FinishHandResponse:
        """The hand in progress finished (its final stacks) or voided."""
        ...

    def void_pending_hand(self, request: pb.VoidPendingHandRequest) -> pb.VoidPendingHandResponse:
        """The hand in progress, if any, voided at a table-service takeover."""
        ...

    def hand_recorded(self, table_id: str, hand_id: str) -> pb.HandRecordedResponse:
        """Whether the hand's result, as the table reported it, is in the lobby's
        state (durable once the caller has waited for the committer), and the
        table's pending hand."""
        ...

    def list_hands(self, request: pb.ListHandsRequest) -> pb.ListHandsResponse:
        """The table's hands, newest first."""
        ...
