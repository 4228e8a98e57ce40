# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_B3_...)
"""The ``poker`` command through the room's door (issue 16): a whole room behind
its gateway, every player command at the gateway's one address with the
credential ``register`` printed, nothing at a service's own port but the staff's
create-table (the operator, on the lobby's internal port).

- register -> tables -> sit -> bot / watch / state -> history -> balance -> stand;
- a wrong credential, an unknown table: the door's status and message, one line;
- the seating commands (``sit --entry``, ``sit-out`` / ``sit-in --wait``, B2-B4;
  ``auto-post`` and ``im-in``, S3), each printing the seat and its markers.
"""

from __future__ import annotations

import asyncio
import re
import shlex
import threading
from collections.abc import Iterator

import pytest

from devroom.stack import Stack
from poker.lobby.v1 import lobby_pb2 as pb
from poker_bots import PlayStats, make_bot, play
from poker_cli.__main__ import main
from poker_wire.channels import player_channel
from tests.support.lobby import LobbyClient, ledger, lobby_client

CLOCK_S = "3"  # the table's action clock: a seat nobody plays is acted for in 3 s


@pytest.fixture(scope="module")
def room() -> Iterator[tuple[Stack, LobbyClient]]:
    """The room with its gateway; the lobby as the operator sees it (the checks)."""
    with (
        Stack(ports="free", env={"lobby": {"LOBBY_DEFAULT_BALANCE": "100000"}}) as stack,
        lobby_client(stack["lobby"]) as lobby,
    ):
        yield stack, lobby
        ledger(lobby)


def cli(capsys: pytest.CaptureFixture[str], stack: Stack, *argv: str, code: int = 0) -> list[str]:
    """``poker ARGV`` at the room's door; the lines it printed (stderr's when it
    failed).  The staff's create-table goes to the lobby's internal port."""
    assert stack.pki is not None
    at = [
        "--room", stack.gateway_target, "--ca", str(stack.pki.ca_file),
        "--lobby-internal", stack.target("lobby"),
        "--operator-dir", str(stack.pki.dir("operator")),
    ]  # fmt: skip
    result = main([*argv, *at])
    out, err = capsys.readouterr()
    assert result == code, out + err
    return out.splitlines() if code == 0 else err.splitlines()


def register(capsys: pytest.CaptureFixture[str], stack: Stack, name: str) -> str:
    """A new player through the door: their credential, from the export line."""
    out = cli(capsys, stack, "register", name)
    words = shlex.split(out[-1])
    assert words[0] == "export" and words[1].startswith("POKER_CREDENTIAL=")
    credential = words[1].removeprefix("POKER_CREDENTIAL=")
    player_id, token = out[0].split()[1], out[1].split()[1]
    assert credential == f"{player_id}.{token}" and f"credential: {credential}" in out[2]
    return credential


def create_table(capsys: pytest.CaptureFixture[str], stack: Stack, *argv: str) -> str:
    out = cli(capsys, stack, "create-table", *argv, "--clock", CLOCK_S)
    return out[0].removeprefix("table_id: ")


@pytest.fixture(autouse=True)
def no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("POKER_ROOM", "POKER_CREDENTIAL", "POKER_PLAYER_ID", "POKER_TOKEN"):
        monkeypatch.delenv(name, raising=False)


class Opponent:
    """A reference bot playing a seat through the door, in a thread of its own,
    until ``stop``."""

    def __init__(self, stack: Stack, table_id: str, credential: str) -> None:
        assert stack.pki is not None
        self.target, self.ca = stack.gateway_target, str(stack.pki.ca_file)
        self.table_id = table_id
        self.player_id, _, self.token = credential.rpartition(".")
        self.loop = asyncio.new_event_loop()
        self.stopping = asyncio.Event()
        self.stats: PlayStats | None = None
        self.thread = threading.Thread(target=self._run, name="opponent", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self._play())

    async def _play(self) -> None:
        async with player_channel(self.target, self.ca) as channel:
            self.stats = await play(
                channel,
                self.table_id,
                self.player_id,
                self.token,
                make_bot("station"),
                stop=self.stopping,
                via="room",
            )

    def stop(self) -> PlayStats:
        self.loop.call_soon_threadsafe(self.stopping.set)
        self.thread.join(30)
        assert self.stats is not None, "the opponent's play did not end"
        return self.stats


def test_a_player_s_evening_through_the_door(
    room: tuple[Stack, LobbyClient], capsys: pytest.CaptureFixture[str]
) -> None:
    stack, _lobby = room
    tid = create_table(capsys, stack, "--game", "draw", "--small-bet", "20", "--seats", "2")
    alice = register(capsys, stack, "alice")
    bob = register(capsys, stack, "bob")
    carol = register(capsys, stack, "carol")
    listed = [line for line in cli(capsys, stack, "tables") if line.startswith(tid)]
    assert len(listed) == 1 and "0/2 seated" in listed[0]

    assert cli(capsys, stack, "sit", tid, "--buy-in", "1000", "--credential", alice) == [
        f"seat 1 at {tid}: stack 1,000, balance 99,000"
    ]
    bob_id, _, bob_token = bob.rpartition(".")
    sat = cli(
        capsys, stack, "sit", tid, "--buy-in", "1000", "--player", bob_id, "--token", bob_token
    )
    assert sat == [f"seat 2 at {tid}: stack 1,000, balance 99,000"]

    opponent = Opponent(stack, tid, bob)
    others = [opponent]
    try:
        out = cli(capsys, stack, "bot", tid, "--kind", "station", "--hands", "2", "--quiet",
                  "--credential", alice)  # fmt: skip
        assert re.fullmatch(r"CallingStation\(\): 2 hands, \d+ actions, 0 rejected, .*", out[-1])
        others.append(Opponent(stack, tid, alice))  # alice's seat goes on being played
        # a spectator (a player without a seat here) sees hands, no down card
        watched = cli(capsys, stack, "watch", tid, "--hands", "2", "--credential", carol)
        assert watched[0].startswith(f"== table {tid}: Five Card Draw 7-A, fixed limit 20/40")
        assert any(line.startswith("== hand ") and " over: " in line for line in watched)
        dealt = [line for line in watched if " is dealt " in line]
        assert dealt and all(re.search(r"is dealt \d down$", line) for line in dealt), dealt
        state = cli(capsys, stack, "state", tid, "--credential", alice)
        assert state[0].startswith(f"== table {tid}: Five Card Draw 7-A")
        assert any(re.match(r" \* +1 alice +\d", line) for line in state), state
        spectator = cli(capsys, stack, "state", tid, "--credential", carol)
        assert spectator[-1] == f"   you have no seat at {tid}: this is what a spectator sees"
    finally:
        stats = [other.stop() for other in others]
    assert stats[0].hands >= 3 and not [s for s in stats if s.rejected]

    listed = cli(capsys, stack, "history", tid)
    assert listed[-1] == f"(poker history {tid} HAND: one hand in full)"
    first_id, first = listed[0].split("  ", 1)
    assert first.startswith("alice [1], bob [2]: ")
    public = cli(capsys, stack, "history", tid, first_id)
    mine = cli(capsys, stack, "history", tid, first_id, "--credential", alice)
    assert public[0] == f"== hand {first_id}: alice [1] 1,000, bob [2] 1,000"
    assert not [line for line in public if "(you)" in line or re.search(r"down [2-9TJQKA]", line)]
    assert mine[0] == f"== hand {first_id}: alice (you) [1] 1,000, bob [2] 1,000"
    dealt = [line for line in mine if line.startswith("   alice (you) [1] is dealt")]
    assert dealt and re.search(r"[2-9TJQKA][shdc]", dealt[0]), dealt  # her own cards

    balance = cli(capsys, stack, "balance", "--credential", alice)
    assert balance[0].startswith("alice: balance 99,000, at tables ")
    assert balance[1].startswith(f"   {tid}  draw 20/40  seat 1: stack ")
    for who in (alice, bob):
        left = cli(capsys, stack, "stand", tid, "--credential", who)
        assert left[0].startswith((f"left {tid}: ", f"you leave {tid} after the current hand"))


def test_the_door_s_refusals_are_one_line(
    room: tuple[Stack, LobbyClient], capsys: pytest.CaptureFixture[str]
) -> None:
    stack, _lobby = room
    tid = create_table(capsys, stack, "--game", "stud", "--small-bet", "20")
    dave = register(capsys, stack, "dave")
    dave_id, _, token = dave.rpartition(".")
    forged = f"{dave_id}.{token[:-1]}{'A' if token[-1] != 'A' else 'B'}"
    assert cli(capsys, stack, "sit", tid, "--buy-in", "500", "--credential", forged, code=1) == [
        "poker sit: UNAUTHENTICATED: the credential was not accepted: send the credential "
        "Register returned, unchanged (your credential: --credential or POKER_CREDENTIAL, as "
        "poker register NAME printed it)"
    ]
    err = cli(capsys, stack, "balance", "--credential", f"p-nobody.{token}", code=1)
    assert len(err) == 1 and err[0].startswith("poker balance: UNAUTHENTICATED: ")
    err = cli(
        capsys, stack, "sit", "no-such-table", "--buy-in", "500", "--credential", dave, code=1
    )
    assert len(err) == 1 and err[0].startswith("poker sit: NOT_FOUND: "), err
    err = cli(capsys, stack, "state", "no-such-table", "--credential", dave, code=1)
    assert len(err) == 1 and err[0].startswith("poker state: NOT_FOUND: "), err
    err = cli(capsys, stack, "play", tid, "--credential", dave, code=1)
    assert err == [
        f"poker play: you are not seated at {tid}: take a seat first (poker sit {tid} --buy-in 400)"
    ]


def seat_info(lobby: LobbyClient, table_id: str, seat: int) -> pb.SeatInfo:
    table: pb.Table = lobby.GetTable(pb.GetTableRequest(table_id=table_id), timeout=5)
    return next(s for s in table.occupied if s.seat == seat)


def test_B2_B3_sit_with_an_entry_then_sit_out_and_back(
    room: tuple[Stack, LobbyClient], capsys: pytest.CaptureFixture[str]
) -> None:
    stack, lobby = room
    tid = create_table(capsys, stack, "--game", "draw", "--small-bet", "100", "--min-buy-in", "500")
    me = ["--credential", register(capsys, stack, "erin")]
    out = cli(capsys, stack, "sit", tid, "--buy-in", "1000", "--entry", "wait-bb", *me)
    assert out[0].startswith(f"seat 1 at {tid}")
    assert seat_info(lobby, tid, 1).return_choice == pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND
    assert "sitting out" in cli(capsys, stack, "sit-out", tid, *me)[0]
    back = cli(capsys, stack, "sit-in", tid, "--wait", *me)[0]
    assert "sitting out" not in back and "waits for the big blind" in back
    assert not seat_info(lobby, tid, 1).away


def test_S3_auto_post_off_and_im_in(
    room: tuple[Stack, LobbyClient], capsys: pytest.CaptureFixture[str]
) -> None:
    stack, lobby = room
    tid = create_table(capsys, stack, "--game", "stud", "--small-bet", "100", "--seats", "4")
    me = ["--credential", register(capsys, stack, "frank")]
    cli(capsys, stack, "sit", tid, "--buy-in", "2000", "--seat", "2", *me)
    assert "auto-post off" in cli(capsys, stack, "auto-post", tid, "off", *me)[0]
    assert "in next hand" in cli(capsys, stack, "im-in", tid, *me)[0]
    assert seat_info(lobby, tid, 2).im_in
