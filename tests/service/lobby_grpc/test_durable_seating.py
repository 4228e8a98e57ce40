# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""Durable seating (issue 4): a lobby restarted from its SQLite file plans the next
hand exactly as it would have without the restart: button, blinds, dead money,
who is dealt in, the B3/B4 markers, orbits away (B5), the stud "I'm in" switch.

Two lobby processes get the same requests, the same players in the same seats:
``steady`` is never restarted, ``durable`` (``LOBBY_DB`` on disk) is restarted
between hands, by SIGTERM or by SIGKILL, and once in the middle of a hand (the
restart voids it; ``steady`` is told the same hand was voided).  After every
restart every table's seats and markers must match, and every hand's plan (seats,
stacks, button, blinds, posts) must be the same on both.
"""

from __future__ import annotations

import random
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from devroom.launcher import ServiceProcess
from poker.lobby.v1 import lobby_pb2 as pb
from tests.support.lobby import LobbyClient, ledger, lobby_stubs

from .client import STUD, Player, create_table, finish, get_table, next_hand

SIZE = 5
ENTRIES = [pb.ENTRY_POST_NOW, pb.ENTRY_WAIT_FOR_BIG_BLIND, pb.ENTRY_WAIT_FOR_BUTTON]
RETURNS = [pb.RETURN_CHOICE_POST, pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND]


class Lobby:
    """A lobby process that can be restarted on the same settings (and file)."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = {"LOBBY_DEFAULT_BALANCE": "1000000", **env}
        self.process = ServiceProcess("lobby", self.env).__enter__()
        self.channels = self.process.channel("operator"), self.process.channel("table")
        self.stub = lobby_stubs(*self.channels)
        self.players: dict[str, Player] = {}

    def restart(self, sig: signal.Signals) -> None:
        for channel in self.channels:
            channel.close()
        if sig is signal.SIGKILL:
            self.process.proc.send_signal(signal.SIGKILL)
            self.process.proc.wait(10)
        self.process.terminate()
        self.process = ServiceProcess("lobby", self.env).__enter__()
        self.channels = self.process.channel("operator"), self.process.channel("table")
        self.stub = lobby_stubs(*self.channels)
        for player in self.players.values():
            player.lobby = self.stub

    def close(self) -> None:
        for channel in self.channels:
            channel.close()
        self.process.terminate()


@pytest.fixture
def lobbies(tmp_path: Path) -> Iterator[tuple[Lobby, Lobby]]:
    steady = Lobby({})
    durable = Lobby({"LOBBY_DB": str(tmp_path / "lobby.sqlite3")})
    try:
        yield steady, durable
    finally:
        steady.close()
        durable.close()


def plan_of(hand: pb.NextHandResponse) -> tuple[object, ...]:
    """A plan without its ids: what must be identical on both lobbies."""
    return (
        hand.play,
        [(s.seat, s.stack) for s in hand.dealt_in],
        hand.button_seat,
        hand.small_blind_seat,
        hand.big_blind_seat,
        [(p.seat, p.amount, p.live) for p in hand.posts],
    )


def seats_of(lobby: LobbyClient, table_id: str) -> list[pb.SeatInfo]:
    """GetTable's seats with every marker, the ids and names left out."""
    out = []
    for info in get_table(lobby, table_id).occupied:
        copy = pb.SeatInfo()
        copy.CopyFrom(info)
        copy.player_id = copy.name = ""
        out.append(copy)
    return out


class Twin:
    """The same table on both lobbies, driven by one script."""

    def __init__(self, steady: Lobby, durable: Lobby, **table: Any) -> None:
        self.lobbies = (steady, durable)
        self.tables = [create_table(lb.stub, **table).table_id for lb in self.lobbies]

    def player(self, name: str) -> None:
        for lb in self.lobbies:
            lb.players[name] = Player(lb.stub, name)

    def do(self, name: str, action: str, *args: Any) -> None:
        """The same call by the same player on both lobbies."""
        for lb, tid in zip(self.lobbies, self.tables, strict=True):
            p = lb.players[name]
            if action == "sit":
                p.sit(tid, *args)
            else:
                p.table_id = tid
                getattr(p, action)(*args)

    def seats(self) -> list[pb.SeatInfo]:
        steady, durable = (
            seats_of(lb.stub, t) for lb, t in zip(self.lobbies, self.tables, strict=True)
        )
        assert durable == steady, "the restarted lobby's seats or markers differ"
        return steady

    def names(self) -> dict[int, str]:
        steady, tid = self.lobbies[0], self.tables[0]
        ids = {p.id: n for n, p in steady.players.items()}
        return {s.seat: ids[s.player_id] for s in get_table(steady.stub, tid).occupied}

    def plan(self) -> tuple[pb.NextHandResponse, pb.NextHandResponse]:
        a, b = (next_hand(lb.stub, t) for lb, t in zip(self.lobbies, self.tables, strict=True))
        assert plan_of(b) == plan_of(a), "the restarted lobby planned another hand"
        return a, b

    def finish(
        self, hands: tuple[pb.NextHandResponse, pb.NextHandResponse], final: dict[int, int]
    ) -> None:
        for lb, tid, hand in zip(self.lobbies, self.tables, hands, strict=True):
            finish(lb.stub, tid, hand, final)


def test_B3_restarted_lobby_plans_the_same_next_hand(lobbies: tuple[Lobby, Lobby]) -> None:
    steady, durable = lobbies
    rng = random.Random(7)
    twin = Twin(steady, durable, seats=SIZE, max_orbits_away=2)
    pool = [f"p{i}" for i in range(8)]
    for name in pool:
        twin.player(name)
    for seat, name in enumerate(pool[:5], 1):
        twin.do(name, "sit", seat, 1_000)
    compared = restarts = markers = 0
    voided = False
    for hand_number in range(40):
        names = twin.names()
        infos = {s.seat: s for s in twin.seats()}
        for seat in range(1, SIZE + 1):  # the same random events on both lobbies
            if rng.random() > 0.2:
                continue
            info = infos.get(seat)
            if info is None:
                free = [n for n in pool if n not in names.values()]
                if free:
                    name = rng.choice(free)
                    twin.do(name, "sit", seat, rng.choice([500, 1_000]), rng.choice(ENTRIES))
                    names[seat] = name
            elif info.stack == 0 or rng.random() < 0.15:
                twin.do(names.pop(seat), "stand")
            elif not info.away:
                twin.do(names[seat], "sit_out")
            else:
                twin.do(names[seat], "sit_in", rng.choice(RETURNS))
        markers += sum(s.missed_big_blind or s.missed_small_blind for s in twin.seats())
        if hand_number % 4 == 3:  # between hands: restart, then compare everything
            durable.restart(signal.SIGKILL if hand_number % 2 else signal.SIGTERM)
            twin.seats()
            restarts += 1
        hands = twin.plan()
        if not hands[0].play:
            continue
        compared += 1
        if (
            hand_number >= 20 and not voided
        ):  # mid-hand: the restart voids it, as VoidPendingHand would
            durable.restart(signal.SIGKILL)
            steady.stub.FinishHand(
                pb.FinishHandRequest(table_id=twin.tables[0], hand_id=hands[0].hand_id, voided=True)
            )
            again = twin.plan()
            assert plan_of(again[0]) == plan_of(hands[0])  # a void changes nothing
            hands = again
            voided = True
        final = {s.seat: s.stack for s in hands[0].dealt_in}
        seats = list(final)
        loser, winner = rng.sample(seats, 2)
        # a possible outcome (services.lobby.checks): the winner wins at most what
        # they cover of the loser's chips; sometimes all of it (a bust when covered)
        covered = min(final[loser], final[winner])
        amount = covered if rng.random() < 0.1 else rng.randint(0, covered)
        final[loser] -= amount
        final[winner] += amount
        twin.finish(hands, final)
    assert compared >= 20 and restarts == 10 and markers > 0 and voided
    ledger(steady.stub)
    ledger(durable.stub)


def test_S3_im_in_and_auto_post_survive_a_restart(lobbies: tuple[Lobby, Lobby]) -> None:
    steady, durable = lobbies
    twin = Twin(steady, durable, config=STUD, seats=4, max_orbits_away=5)
    for name in ("a", "b", "c", "d"):
        twin.player(name)
        twin.do(name, "sit", 0, 1_000)
    twin.do("c", "auto_post", False)
    twin.do("d", "auto_post", False)
    twin.do("d", "im_in")  # for the next hand only
    twin.do("b", "sit_out")
    durable.restart(signal.SIGKILL)
    seats = {s.seat: s for s in twin.seats()}
    assert not seats[3].auto_post and seats[4].im_in and seats[2].away
    hands = twin.plan()
    assert [s.seat for s in hands[0].dealt_in] == [1, 4]
    twin.finish(hands, {1: 1_000, 4: 1_000})
    durable.restart(signal.SIGTERM)
    assert twin.seats()[1].orbits_away == 0  # one hand away of a four-hand orbit
    assert not twin.plan()[0].play  # "I'm in" was for one hand: seat 1 alone is ready
