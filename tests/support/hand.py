"""A scripted hand at a table of its own, driven to its end and checked (tests only).

:class:`Hand`: :meth:`Hand.play` answers every turn with a policy until the hand
ends; :meth:`Hand.settle` waits until it is recorded and checks the deal audit,
the chip invariant and the payout; what happened: :meth:`Hand.finished`,
:meth:`Hand.final_stacks`, :meth:`Hand.awards`, :meth:`Hand.showdown` (live),
:meth:`Hand.seen` and :meth:`Hand.moves` (from the hand history: complete).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc

from poker.table.v1 import table_pb2 as tpb
from tests.support.player import WAIT_S, Player
from tests.support.policies import Policy, passive
from tests.support.wire import KIND_NAMES

if TYPE_CHECKING:
    from tests.support.room import Room


@dataclass
class Hand:
    """A hand in progress at a table of its own, with its players connected.

    ``players`` are in seat order (seat 1 first); ``hand_id`` is known once any
    player has seen the hand (always, by the time :meth:`Room.start_hand` returns).
    """

    room: Room
    table_id: str
    players: list[Player]
    hand_id: str = ""
    timeouts: list[tuple[int, int]] = field(default_factory=list)  # (seat, action_seq) left
    turns: list[tpb.YourTurn] = field(default_factory=list)  # every turn play() answered
    stood_up: bool = False  # the players asked to leave after this hand

    def by_seat(self, seat: int) -> Player:
        return next(p for p in self.players if p.seat == seat)

    def play(self, policy: Policy = passive, timeout: float = 40.0) -> tpb.HandFinished:
        """Answer every turn of every player with ``policy`` until the hand finishes;
        returns HandFinished (as the first player saw it)."""
        deadline = time.monotonic() + timeout
        skipped: set[tuple[str, int]] = set()
        while True:
            for player in self.players:
                turn = player.pending_turn()
                if turn is None or (turn[0], turn[1].action_seq) in skipped:
                    continue
                if turn[0] != self.hand_id:
                    raise AssertionError(f"a turn in another hand {turn[0]} ({self.hand_id})")
                answer = policy(player, *turn)
                self.turns.append(turn[1])
                if answer is None:
                    skipped.add((turn[0], turn[1].action_seq))
                    self.timeouts.append((turn[1].legal.seat, turn[1].action_seq))
                else:
                    player.act(answer, turn)
            for player in self.players:
                refused = player.of("action_rejected", self.hand_id)
                if refused:
                    raise AssertionError(f"seat {player.seat}'s action was refused: {refused}")
            ends = [p.of("hand_finished", self.hand_id) for p in self.players]
            if any(end and end[0].voided for end in ends):
                raise AssertionError(f"hand {self.hand_id} was voided: {self.room.why_voided()}")
            if all(ends):
                return self.finished()
            if time.monotonic() > deadline:
                raise TimeoutError(
                    "the hand did not finish: "
                    + "; ".join(f"seat {p.seat}: {p.describe_events()}" for p in self.players)
                )
            changed = self.players[0].changed
            with changed:
                changed.wait(0.05)

    def finished(self, seat: int = 0) -> tpb.HandFinished:
        """HandFinished as ``seat`` (default the first player) saw it (waits)."""
        player = self.by_seat(seat) if seat else self.players[0]
        if not player.of("hand_finished", self.hand_id):
            player.wait_for(
                lambda e: e.HasField("hand_finished") and e.hand_id == self.hand_id,
                what="HandFinished",
            )
        (done,) = player.of("hand_finished", self.hand_id)
        result: tpb.HandFinished = done
        return result

    def final_stacks(self) -> dict[int, int]:
        return {s.seat: s.stack for s in self.finished().seats}

    def awards(self) -> list[tuple[int, int, int, int]]:
        """(pot_index, seat, amount, share) of every award, in order."""
        return [(a.pot_index, a.seat, a.amount, a.share) for a in self.finished().awards]

    def showdown(self, seat: int = 0) -> tpb.ShowdownEvent | None:
        player = self.by_seat(seat) if seat else self.players[0]
        shown = player.of("showdown", self.hand_id)
        return shown[0] if shown else None

    def actions(self, seat: int = 0) -> list[tpb.ActionTaken]:
        """Every ActionTaken of the hand, as ``seat`` (default the first) saw them."""
        player = self.by_seat(seat) if seat else self.players[0]
        return player.of("action_taken", self.hand_id)

    def history(self, seat: int = 0) -> tpb.HandHistory:
        """GetHandHistory of this (finished) hand as ``seat`` (default the first) sees it."""
        player = self.by_seat(seat) if seat else self.players[0]
        return player.history(self.hand_id)

    def seen(self, kind: str, seat: int = 0) -> list[Any]:
        """The payloads of every ``kind`` event (``"action_taken"``, ``"cards_dealt"``...)
        of the finished hand, from ``seat``'s history: complete, even for a player who
        joined the hand late."""
        return [
            getattr(e, kind) for e in self.history(seat).events if e.WhichOneof("event") == kind
        ]

    def moves(self, seat: int = 0) -> list[tuple[int, str]]:
        """(seat, kind name) of every ActionTaken of the finished hand, in order."""
        return [
            (a.seat, KIND_NAMES.get(a.action.kind, str(a.action.kind)))
            for a in self.seen("action_taken", seat)
        ]

    def settle(self, timeout: float = WAIT_S) -> tpb.DeckReveal:
        """Wait until the finished hand is recorded (the table's history has its
        reveal, the lobby has its result: players who stood up have left), then
        check it: the deal verifies and chips are conserved.  Returns the reveal."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                reveal = self.room.reveal(self.table_id, self.hand_id)
                if not self.stood_up or all(not p.balance().at_tables for p in self.players):
                    break
            except grpc.RpcError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    raise
            if time.monotonic() > deadline:
                raise TimeoutError(f"hand {self.hand_id} was not recorded")
            time.sleep(0.02)
        problems = self.room.audit(self.table_id, self.hand_id)
        assert problems == [], problems
        self.room.assert_chips_conserved()
        if self.stood_up:  # the lobby paid out exactly the final stacks
            final = self.final_stacks()
            for p in self.players:
                assert p.balance().balance == p.granted - p.buy_in + final[p.seat], p.name
        return reveal

    def close(self) -> None:
        for player in self.players:
            player.close()
