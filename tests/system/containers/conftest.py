"""Fixtures of the container tests: the room as six containers (the five services
and the gateway, its door), started once for every module here, and one run of
bots through it with a container restart in the middle.

Every test here carries ``xdist_group("containers")`` (``pytestmark``): ``make test``
runs pytest with ``--dist loadgroup``, so one worker runs all of them against one
set of containers while the other worker runs the rest of the suite.  Without
Docker or without this tree's images the tests fail (``tests/system/containers/stack.py``),
they never skip.

The run (:func:`run`): bots play at a table of every game; once every table has
played :data:`HANDS_BEFORE_RESTART` hands the table container is restarted
(``docker restart``: SIGTERM, so the service voids and reports the hands in
progress, then a new process on the same ports); the bots reconnect and play on
until every table has played :data:`HANDS_PER_TABLE` hands.  The bots play through
the gateway container, which follows the restarted table: the streams it carried
end, the bots reconnect through it.  The ledger, the hands in progress and the
lobby's hand records are taken at each step for the tests to check.

The stack is the session's: ``test_gateway.py``, ``test_room.py`` and
``test_trust_boundary.py`` run in that order against the same containers (each
leaves the ledger as the next expects it: the gateway's players stand up; the
trust-boundary test, last, leaves its hands held).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.lobby.v1 import lobby_pb2_grpc
from poker.table.v1 import table_pb2 as tpb
from poker.table.v1 import table_pb2_grpc
from poker_wire.channels import Stubs, staff_lobby

from .bots import Outcome, PlayingRoom
from .stack import ContainerStack

HANDS_PER_TABLE = 100
HANDS_BEFORE_RESTART = 40
HANDS_AFTER_RESTART = 20  # at least, at every table: play resumed
PLAY_TIMEOUT_S = 240.0
LIST_HANDS_MAX = 500  # ListHands' largest page
# The table's downstream calls get a roomy deadline, as in the e2e tests: a hand
# is voided when one fails, and the test machine runs the rest of the suite too.
STACK_ENV = {"table": {"CALL_DEADLINE_S": "10", "TABLE_IDLE_POLL_S": "0.3"}}


@dataclass
class Run:
    """What the run saw; each test checks a part of it."""

    labels: dict[str, str]  # table_id -> label
    games: dict[str, common.Game.ValueType]  # table_id -> its game
    totals_before: lpb.LedgerTotals
    totals_after_restart: lpb.LedgerTotals
    totals_end: lpb.LedgerTotals
    in_progress: dict[str, str]  # table_id -> hand id in progress just before the restart
    played_at_restart: dict[str, int]
    played_end: dict[str, int]
    restart_window_ms: tuple[int, int]  # wall clock: restart begun, play resumed
    records: dict[str, list[lpb.HandRecord]]  # table_id -> the lobby's hands, oldest first
    outcome: Outcome
    seconds: float

    def summary(self) -> str:
        voided = {
            self.labels[t]: sum(r.status == lpb.HAND_STATUS_VOIDED for r in records)
            for t, records in self.records.items()
        }
        played = {self.labels[t]: n for t, n in self.played_end.items()}
        return (
            f"container run: {self.seconds:.1f} s, hands played {played}, "
            f"at the restart {list(self.played_at_restart.values())}, voided {voided}, "
            f"bot reconnects {self.outcome.reconnects}"
        )


if TYPE_CHECKING:

    class StaffLobby(lobby_pb2_grpc.LobbyStub, lobby_pb2_grpc.LobbyOperatorStub):
        """The lobby's player plane and the operator's calls on one object."""

else:
    StaffLobby = Stubs


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ContainerStack]:
    running = ContainerStack(
        tmp_path_factory.mktemp("lobby-data"), tmp_path_factory.mktemp("pki"), STACK_ENV
    ).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture(scope="module")
def lobby(stack: ContainerStack) -> Iterator[StaffLobby]:
    """The lobby as the operator (the ledger, the hand records, the tables),
    over mutual TLS on its internal port."""
    with stack.channel("lobby", "operator") as channel:
        merged = staff_lobby(channel)
        yield cast(StaffLobby, merged)


def totals(lobby: StaffLobby) -> lpb.LedgerTotals:
    reply: lpb.LedgerTotals = lobby.GetLedgerTotals(lpb.GetLedgerTotalsRequest(), timeout=10)
    return reply


def played(lobby: StaffLobby, table_ids: list[str]) -> dict[str, int]:
    """Finished hands per table, as the lobby counts them (voided ones do not count)."""
    return {
        t: lobby.GetTable(lpb.GetTableRequest(table_id=t), timeout=10).hands_played
        for t in table_ids
    }


def wait_played(
    lobby: StaffLobby,
    room: PlayingRoom,
    wanted: dict[str, int],
    deadline: float,
    what: str,
    explain: Callable[[str], str] = lambda table_id: "",
) -> dict[str, int]:
    """Until every table of ``wanted`` has played its hands; raises at the deadline
    (with ``explain(table_id)`` for each table short of its hands), or at once with
    the bots' error when they failed."""
    while True:
        room.check()
        now = played(lobby, list(wanted))
        if all(now[t] >= n for t, n in wanted.items()):
            return now
        if time.monotonic() > deadline:
            short = [explain(t) for t, n in wanted.items() if now[t] < n]
            raise TimeoutError(f"{what}: played {now}, wanted {wanted}\n" + "\n".join(short))
        time.sleep(0.5)


def stall_report(stack: ContainerStack, lobby: StaffLobby, room: PlayingRoom, table_id: str) -> str:
    """Why a table is short of hands, for the failure's message: its seats at the
    lobby, its last hands, the table service's view of it, bots that stopped, and
    the table container's last log lines about it."""
    lines = [f"--- table {table_id} ({room.labels.get(table_id, '?')})"]
    try:
        info = lobby.GetTable(lpb.GetTableRequest(table_id=table_id), timeout=10)
        lines.append(
            "lobby seats: "
            + ", ".join(
                f"{s.seat}:{s.player_id[-6:]} stack {s.stack}"
                + (" sitting out" if s.sitting_out else "")
                + (" away" if s.away else "")
                for s in info.occupied
            )
        )
        lines.extend(
            f"hand {r.hand_id} {lpb.HandStatus.Name(r.status)} {r.void_reason}"
            for r in hand_records(lobby, table_id)[-3:]
        )
        summary = {t.table_id: t for t in _list_tables(stack).tables}.get(table_id)
        lines.append(f"table service: {summary}".replace("\n", " "))
    except grpc.RpcError as error:
        lines.append(f"(not read: {error})")
    lines.append(f"bots stopped: {room.stopped_bots(table_id) or 'none'}")
    logs = [line for line in stack["table"].logs().splitlines() if table_id in line]
    lines.extend(logs[-15:])
    return "\n".join(lines)


def _list_tables(stack: ContainerStack) -> tpb.ListTablesResponse:
    """The table service's tables, as a player lists them (its public port)."""
    with stack.player_channel("table") as channel:
        listed: tpb.ListTablesResponse = table_pb2_grpc.TableServiceStub(channel).ListTables(
            tpb.ListTablesRequest(), timeout=10
        )
    return listed


def in_progress(stack: ContainerStack) -> dict[str, str]:
    return {t.table_id: t.current_hand_id for t in _list_tables(stack).tables}


def hand_records(lobby: StaffLobby, table_id: str) -> list[lpb.HandRecord]:
    """Every hand the lobby recorded for the table, oldest first (ListHands' pages)."""
    records: list[lpb.HandRecord] = []
    token = ""
    while True:
        reply = lobby.ListHands(
            lpb.ListHandsRequest(table_id=table_id, limit=LIST_HANDS_MAX, page_token=token),
            timeout=10,
        )
        records.extend(reply.hands)
        token = reply.next_page_token
        if not token:
            return list(reversed(records))


@pytest.fixture(scope="module")
def run(stack: ContainerStack, lobby: StaffLobby) -> Run:
    started = time.monotonic()
    deadline = started + PLAY_TIMEOUT_S
    room = PlayingRoom(stack).start()
    try:
        tables = list(room.labels)

        def explain(table_id: str) -> str:
            return stall_report(stack, lobby, room, table_id)

        totals_before = totals(lobby)
        wait_played(
            lobby,
            room,
            dict.fromkeys(tables, HANDS_BEFORE_RESTART),
            deadline,
            "before the restart",
            explain,
        )
        hands_in_progress = in_progress(stack)
        before = played(lobby, tables)
        restart_began = time.time_ns() // 1_000_000
        stack.restart("table")  # and until the gateway is ready again
        resumed = wait_played(
            lobby,
            room,
            {t: before[t] + 1 for t in tables},
            deadline,
            "a hand after the restart",
            explain,
        )
        restart_ended = time.time_ns() // 1_000_000
        totals_after = totals(lobby)
        goal = {t: max(HANDS_PER_TABLE, resumed[t] + HANDS_AFTER_RESTART) for t in tables}
        wait_played(lobby, room, goal, deadline, "every table's hands", explain)
    finally:
        outcome = room.finish()
    result = Run(
        labels=room.labels,
        games=room.games,
        totals_before=totals_before,
        totals_after_restart=totals_after,
        totals_end=totals(lobby),
        in_progress=hands_in_progress,
        played_at_restart=before,
        played_end=played(lobby, tables),
        restart_window_ms=(restart_began, restart_ended),
        records={t: hand_records(lobby, t) for t in tables},
        outcome=outcome,
        seconds=time.monotonic() - started,
    )
    print(result.summary())  # shown with -s or on failure
    return result
