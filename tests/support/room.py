"""A small scripted-player client of the card room, over real gRPC (tests only).

Used by the end-to-end tests (``tests/system/e2e``) and reusable by any test that needs
players at a table of a running :class:`devroom.stack.Stack`::

    stack = Stack(env=stack_env()).start()
    room = Room(stack)
    hand = room.start_hand(STUD, order=stud_order([...]), buy_ins=[1000, 1000])
    hand.play(script({1: ["bring_in"], 2: ["call", "raise 300"]}))  # or hand.play()
    hand.settle()            # recorded; the deal audits; chips conserved; paid out
    assert hand.final_stacks() == {1: ..., 2: ...}
    assert hand.moves()[:2] == [(1, "bring_in"), (2, "call")]
    room.close()
    stop_stack(stack)

The pieces, one module each in ``tests/support``:

- ``stacks``: :func:`~tests.support.stacks.stack_env`, the per-service settings a
  test stack needs; :func:`~tests.support.stacks.stop_stack`.
- ``room`` (this module): :class:`Room`: stubs of the lobby's and the table
  service's player planes at their public ports (``room.lobby``, ``room.table``),
  the staff's calls over mutual TLS (``room.staff``: the lobby as the operator,
  ``room.certification``: preset decks as the operator, ``room.audit_stub``: deck
  reveals as the auditor); players (:meth:`Room.register`), tables
  (:meth:`Room.create_table`, :meth:`Room.preset`), the audit (:meth:`Room.reveal`,
  :meth:`Room.audit`, :meth:`Room.audit_all`), the chip invariant
  (:meth:`Room.assert_chips_conserved`), ``/metrics`` (:meth:`Room.metrics`, with
  :func:`sample` and :func:`total`), and :meth:`Room.start_hand`: new players
  seated at a new table with a preset deck, their streams connected, the first
  hand in progress (a :class:`~tests.support.hand.Hand`).
- ``player``: :class:`~tests.support.player.Player`, one player and its stream.
- ``hand``: :class:`~tests.support.hand.Hand`, a hand driven to its end and checked.
- ``policies``: how :meth:`~tests.support.hand.Hand.play` answers turns
  (``passive``, ``script``).
- ``decks``: ``stud_order`` and ``draw_order``, preset decks from who gets what.
- ``wire``: actions from text, batched events unpacked.

Everything is synchronous (``grpc`` blocking stubs); waits take a ``timeout`` and
raise ``TimeoutError`` with what was seen, never hang.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from devroom.stack import Stack
from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from poker_wire.channels import staff_lobby
from services.dealer.audit import audit_reveal
from tests.support.hand import Hand
from tests.support.metrics import scrape
from tests.support.player import Player
from tests.support.stacks import AUDIT_TOKEN, public_channel
from tests.support.wire import hand_of


class Room:
    """Stubs of a running stack's lobby and table service, and the test helpers.

    ``lobby`` and ``table`` are the player planes at the public ports (what
    players call); ``staff`` is the lobby's player plane and operator calls over
    the operator's mutual-TLS channel (registering with a balance, creating
    tables, the ledger, the hand records); ``certification`` (preset decks) is
    the table as the operator, ``audit_stub`` (deck reveals) as the auditor."""

    def __init__(self, stack: Stack, audit_token: str = AUDIT_TOKEN) -> None:
        self.stack = stack
        self.audit_token = audit_token
        lobby, table = stack["lobby"], stack["table"]
        operator = lobby.channel("operator")
        self._channels = [
            public_channel(lobby),
            public_channel(table),
            operator,
            table.channel("operator"),
            table.channel("auditor"),
        ]
        self.lobby = lobby_pb2_grpc.LobbyStub(self._channels[0])
        self.table = table_pb2_grpc.TableServiceStub(self._channels[1])
        self.staff: Any = staff_lobby(operator)
        self.certification = table_pb2_grpc.TableCertificationStub(self._channels[3])
        self.audit_stub = table_pb2_grpc.TableAuditStub(self._channels[4])
        self.players: list[Player] = []
        self.tables: list[str] = []
        self._names = 0

    def close(self) -> None:
        for player in self.players:
            with contextlib.suppress(Exception):
                player.close()
        for channel in self._channels:
            channel.close()

    # -- lobby

    def register(self, name: str = "", balance: int = 100_000) -> Player:
        self._names += 1
        name = name or f"player{self._names}"
        reply = self.staff.RegisterPlayer(
            lpb.RegisterPlayerRequest(name=name, initial_balance=balance), timeout=10
        )
        player = Player(self, reply.player.player_id, reply.token, name)
        player.granted = reply.player.balance
        self.players.append(player)
        return player

    def create_table(
        self,
        config: common.GameConfig,
        seats: int,
        *,
        min_buy_in: int = 100,
        action_clock_ms: int = 0,
        name: str = "e2e",
    ) -> str:
        reply = self.staff.CreateTable(
            lpb.CreateTableRequest(
                name=name,
                config=config,
                seats=seats,
                min_buy_in=min_buy_in,
                action_clock_ms=action_clock_ms,
            ),
            timeout=10,
        )
        table_id: str = reply.table_id
        self.tables.append(table_id)
        return table_id

    def ledger(self) -> lpb.LedgerTotals:
        totals: lpb.LedgerTotals = self.staff.GetLedgerTotals(
            lpb.GetLedgerTotalsRequest(), timeout=10
        )
        return totals

    def assert_chips_conserved(self) -> lpb.LedgerTotals:
        """granted == balances + at_tables, and the ledger's sums agree."""
        t = self.ledger()
        assert t.granted == t.balances + t.at_tables, t
        assert (t.ledger_balances, t.ledger_tables) == (t.balances, t.at_tables), t
        return t

    def why_voided(self) -> list[str]:
        """The table service's log lines about voided hands (for failure messages)."""
        return [line for line in self.stack["table"].lines if "voided" in line]

    # -- table service

    def preset(self, table_id: str, order: Sequence[str]) -> None:
        self.certification.PresetNextDeck(
            tpb.PresetNextDeckRequest(table_id=table_id, order=list(order)), timeout=10
        )

    def reveal(self, table_id: str, hand_id: str) -> tpb.DeckReveal:
        reply: tpb.DeckReveal = self.audit_stub.GetDeckReveal(
            tpb.GetDeckRevealRequest(
                table_id=table_id, hand_id=hand_id, audit_token=self.audit_token
            ),
            timeout=10,
        )
        return reply

    def audit(self, table_id: str, hand_id: str) -> list[str]:
        """The problems of a finished hand's deal (empty: commitment and replay verify)."""
        return audit_reveal(self.reveal(table_id, hand_id))

    def finished_hands(self, table_id: str) -> list[str]:
        """The ids of the table's finished hands (public history, up to 100)."""
        reply = self.table.GetHandHistory(
            tpb.GetHandHistoryRequest(table_id=table_id, limit=100), timeout=10
        )
        return [h.hand_id for h in reply.hands]

    def audit_all(self) -> dict[str, list[str]]:
        """Every finished hand of every table this room created: hand_id -> problems
        (only hands with problems are listed)."""
        problems: dict[str, list[str]] = {}
        for table_id in self.tables:
            for hand_id in self.finished_hands(table_id):
                found = self.audit(table_id, hand_id)
                if found:
                    problems[hand_id] = found
        return problems

    def metrics(self, service: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
        """Every sample of ``service``'s /metrics: (name, sorted labels) -> value."""
        return scrape(self.stack[service])

    # -- a scripted hand

    def start_hand(
        self,
        config: common.GameConfig,
        *,
        order: Sequence[str] | None,
        buy_ins: Sequence[int],
        seats: int = 0,
        action_clock_ms: int = 0,
        delivery: tpb.Delivery.ValueType = tpb.DELIVERY_EVERY_EVENT,
        connect_first: bool = False,
        stand_up: bool = True,
    ) -> Hand:
        """A new table with ``len(buy_ins)`` new players in seats 1..n, the next deck
        preset to ``order`` (None: shuffled), the first hand in progress and every
        player's stream connected.

        By default the players are seated first and the table is started by the
        preset (the table service starts a table when it is first asked about it):
        the hand starts at once with everyone, and the players join it as it runs
        (their Snapshot carries ``your_turn`` if a turn came before they joined;
        :meth:`Player.history` has every event).  ``connect_first`` connects the
        streams before seating instead, so every event of the hand is seen live;
        use it with two players only (the table starts a hand as soon as two sit).

        ``stand_up``: every player asks to stand up once the hand is under way, so
        that they leave when it finishes and no second hand starts.
        """
        n = len(buy_ins)
        table_id = self.create_table(
            config,
            seats or max(n, 2),
            min_buy_in=min(buy_ins),
            action_clock_ms=action_clock_ms,
        )
        players = [self.register() for _ in range(n)]
        shared = threading.Condition()  # one condition: Hand.play waits on all players
        for player in players:
            player.changed = shared
        if connect_first:
            for player in players:
                player.connect(table_id, delivery)
            if order is not None:
                self.preset(table_id, order)
            for seat, (player, buy_in) in enumerate(zip(players, buy_ins, strict=True), 1):
                player.sit(table_id, buy_in, seat)
        else:
            for seat, (player, buy_in) in enumerate(zip(players, buy_ins, strict=True), 1):
                player.sit(table_id, buy_in, seat)
            if order is not None:
                self.preset(table_id, order)
            for player in players:
                player.connect(table_id, delivery)
        hand = Hand(self, table_id, players)
        seen = players[0].wait_for(lambda e: bool(hand_of(e)), what="the hand's start (a hand_id)")
        hand.hand_id = hand_of(seen)
        if stand_up:
            for player in players:
                player.stand_up()
            hand.stood_up = True
        return hand


def sample(
    samples: Mapping[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    """One sample's value from :meth:`Room.metrics` (0 when absent)."""
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def total(
    samples: Mapping[tuple[str, tuple[tuple[str, str], ...]], float], name: str, **labels: str
) -> float:
    """The sum of ``name``'s samples whose labels include ``labels``."""
    return sum(
        value
        for (n, found), value in samples.items()
        if n == name and all((k, v) in found for k, v in labels.items())
    )
