# ruff: noqa: N802  (test names carry the docs/rules.md rule ID, e.g. test_..._S5)
"""The ``poker`` command against the whole room (five processes behind the
gateway, where every player command goes): what a person types and reads (issue
13, defects 5 and 9).

- A token that begins with ``-`` (about one ``token_urlsafe`` in 64 did, and the
  CLI read ``--token -abc`` as an option) works on the command line and in
  ``POKER_TOKEN``, joined into the credential the door takes.  The lobby no longer
  issues such tokens, so the test builds one:
  it writes a player with a known token into the lobby's SQLite file before the
  lobby starts, as an old lobby would have issued it.
- ``poker play`` at a stud table: the bring-in menu refuses ``c`` in words, the
  bring-in is printed with its amount, whose turn it is is said only when it tells,
  and ``q`` says the seat is still yours.  A player with no seat is refused.
- ``poker history`` and ``poker balance``.

The other player never connects: the action clock (S10) acts for them.
"""

from __future__ import annotations

import re
import secrets
import shlex
from collections.abc import Callable, Iterator

import pytest

from devroom.stack import Stack
from poker.table.v1.table_pb2 import PresetNextDeckRequest
from poker.table.v1.table_pb2_grpc import TableCertificationStub
from poker_cli.__main__ import main
from services.lobby.auth import new_token, token_hash
from services.lobby.store import LobbyStore
from tests.support.decks import stud_order
from tests.support.lobby import LobbyClient, ledger, lobby_client
from tests.support.stacks import stack_env, stop_stack

DASH_ID = "p-old-dash-token"
DASH_TOKEN = "-" + secrets.token_urlsafe(32)[1:]  # as an old lobby could issue it
CLOCK_S = "5"  # long enough for the CLI to join before its own first turn runs out

pytestmark = pytest.mark.slow  # the whole room, and two action clocks run out


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Stack, LobbyClient]]:
    db = tmp_path_factory.mktemp("lobby") / "lobby.sqlite3"
    store = LobbyStore(str(db))
    store.add_player(DASH_ID, "dash", token_hash(DASH_TOKEN), 100_000)
    store.close()
    env = stack_env()
    env["lobby"] = {"LOBBY_DB": str(db), "LOBBY_DEFAULT_BALANCE": "100000"}
    stack = Stack(env=env).start()
    try:
        with lobby_client(stack["lobby"]) as lobby:
            yield stack, lobby
            ledger(lobby)
    finally:
        stop_stack(stack)


def cli(capsys: pytest.CaptureFixture[str], stack: Stack, *argv: str, code: int = 0) -> list[str]:
    """``poker ARGV`` against the room; the lines it printed (stdout).  The player's
    commands go to the room's door (the gateway) over TLS; the staff's
    (create-table) to the lobby's internal port with the operator's certificate."""
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


def credential_of(registered: list[str]) -> str:
    """The credential in ``poker register``'s export line."""
    words = shlex.split(registered[-1])
    assert words[0] == "export" and words[1].startswith("POKER_CREDENTIAL="), registered
    return words[1].removeprefix("POKER_CREDENTIAL=")


@pytest.fixture(autouse=True)
def no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("POKER_ROOM", "POKER_CREDENTIAL", "POKER_PLAYER_ID", "POKER_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def typing(*lines: str) -> Callable[[str], str]:
    """``input`` that types ``lines``, then ends (EOF: the CLI quits)."""
    queue = list(lines)

    def read(prompt: str = "") -> str:
        if not queue:
            raise EOFError
        return queue.pop(0)

    return read


def test_new_tokens_never_begin_with_a_dash(monkeypatch: pytest.MonkeyPatch) -> None:
    """One token_urlsafe in 64 begins with "-": 3,000 fresh tokens would hold about
    47 of them."""
    tokens = [new_token() for _ in range(3_000)]
    assert not [t for t in tokens if t.startswith("-")]
    assert len(set(tokens)) == len(tokens) and {len(t) for t in tokens} == {43}
    drawn = iter(["-first", "-second", "third"])
    monkeypatch.setattr(secrets, "token_urlsafe", lambda n: next(drawn))
    assert new_token() == "third"


def test_S2_S3_a_token_that_begins_with_a_dash_on_the_command_line_and_in_the_environment(
    room: tuple[Stack, LobbyClient],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The failing ``test_S3_auto_post_off_and_im_in`` did this with an unlucky token."""
    stack, _lobby = room
    (line,) = cli(capsys, stack, "create-table", "--game", "stud", "--small-bet", "100")[:1]
    tid = line.removeprefix("table_id: ")
    me = ["--player", DASH_ID, "--token", DASH_TOKEN]
    assert cli(capsys, stack, "sit", tid, "--buy-in", "2000", *me) == [
        f"seat 1 at {tid}: stack 2,000, balance 98,000"
    ]
    assert cli(capsys, stack, "auto-post", tid, "off", "--player", DASH_ID, "--tok", DASH_TOKEN)
    assert "in next hand" in cli(capsys, stack, "im-in", tid, *me)[0]
    monkeypatch.setenv("POKER_PLAYER_ID", DASH_ID)
    monkeypatch.setenv("POKER_TOKEN", DASH_TOKEN)
    assert cli(capsys, stack, "balance") == [
        "dash: balance 98,000, at tables 2,000",
        f"   {tid}  stud 100/200  seat 1: stack 2,000 (new, auto-post off, in next hand)",
    ]
    assert cli(capsys, stack, "stand", tid) == [f"left {tid}: 2,000 returned", "balance: 100,000"]
    monkeypatch.delenv("POKER_PLAYER_ID")
    monkeypatch.delenv("POKER_TOKEN")
    monkeypatch.setenv("POKER_CREDENTIAL", f"{DASH_ID}.{DASH_TOKEN}")
    assert cli(capsys, stack, "balance")[0] == "dash: balance 100,000, at tables 0"
    # a new player's printed export line is shell-safe and their token has no dash
    out = cli(capsys, stack, "register", "newcomer")
    words = shlex.split(out[-1])
    assert words[0] == "export" and out[-1].count("'") == 2
    credential = words[1].removeprefix("POKER_CREDENTIAL=")
    token = credential.rpartition(".")[2]
    assert token and not token.startswith("-") and f"'{credential}'" in out[-1]


def test_S5_S10_play_history_and_balance_read_as_a_person(
    room: tuple[Stack, LobbyClient],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stack, _lobby = room
    created = cli(
        capsys, stack, "create-table", "--game", "stud", "--small-bet", "100", "--ante", "25",
        "--seats", "2", "--clock", CLOCK_S, "--name", "cli",
    )  # fmt: skip
    tid = created[0].removeprefix("table_id: ")
    bob_id, _, bob_token = credential_of(cli(capsys, stack, "register", "bob")).rpartition(".")
    dash = ["--player", DASH_ID, "--token", DASH_TOKEN]
    bob = ["--player", bob_id, "--token", bob_token]
    cli(capsys, stack, "sit", tid, "--buy-in", "2000", "--seat", "1", *dash)
    cli(capsys, stack, "sit", tid, "--buy-in", "2000", "--seat", "2", *bob)

    # somebody without a seat cannot play here
    carol = credential_of(cli(capsys, stack, "register", "carol"))
    err = cli(capsys, stack, "play", tid, "--credential", carol, code=1)
    assert err == [
        f"poker play: you are not seated at {tid}: take a seat first "
        f"(poker sit {tid} --buy-in 2000)"
    ]

    # dash's door card is the lowest: dash must bring in (S5); bob's clock folds (S10)
    order = stud_order([("Ah", "Kh", "2c"), ("Qd", "Jd", "Ks")])
    with stack.table_process(tid).channel("operator") as channel:
        TableCertificationStub(channel).PresetNextDeck(
            PresetNextDeckRequest(table_id=tid, order=order), timeout=10
        )
    monkeypatch.setattr("builtins.input", typing("c", "b"))
    lines = cli(capsys, stack, "play", tid, "--hands", "1", *dash)
    assert lines[0] == f"you sit in seat 1 at {tid}"
    assert "b bring in" in lines[1]
    assert "call is not allowed here; you may: [b]ring in 50  [r N] complete to 100" in lines
    assert "you may: [b]ring in 50  [r N] complete to 100" in lines
    assert "   dash (you) [1] brings in 50" in lines
    assert "   bob [2] folds (timed out); pot 50" in lines
    assert lines[-1] == "played 1 hand; stack 2,025"  # the antes; the bring-in came back
    text = "\n".join(lines)
    for wrong in ("(to_act)", "ACTION_KIND", "street: -", DASH_ID, bob_id, "(pot "):
        assert wrong not in text, wrong
    # the join view: the street by name; the antes in the pot though the snapshot has
    # no pot before the first betting round ends; the view printed once, with the menu
    # (at the join, before the hand or the turn; then at the turn, with the menu)
    heads = [x for x in lines if re.fullmatch(r"   (third street|waiting for the next hand).*", x)]
    assert heads[-1] == "   third street   pot 50   your turn"
    assert set(heads[:-1]) <= {"   waiting for the next hand", "   third street   pot 50"}
    assert len(heads) <= 2

    # the next hand: dash quits at the first turn; the seat stays, the clock acts
    monkeypatch.setattr("builtins.input", typing("q"))
    lines = cli(capsys, stack, "play", tid, "--hands", "1", *dash)  # bounded, should q miss
    assert lines[-2:] == [
        f"you are still seated at {tid} (seat 1) and will be dealt in: the action clock "
        "checks or folds for you when your time runs out (S10).",
        f"to leave the table: poker stand {tid}   "
        f"to miss hands but keep the seat: poker sit-out {tid}",
    ]
    assert "(to_act)" not in "\n".join(lines)
    standing = cli(capsys, stack, "stand", tid, *bob)
    assert standing[0].startswith((f"you leave {tid} after the current hand", f"left {tid}: "))

    listed = cli(capsys, stack, "history", tid)
    first_id, first = listed[0].split("  ", 1)
    assert first == "dash [1], bob [2]: dash [1] wins 50"
    assert listed[-1] == f"(poker history {tid} HAND: one hand in full)"
    hand = cli(capsys, stack, "history", tid, first_id)
    assert hand[0] == f"== hand {first_id}: dash [1] 2,000, bob [2] 2,000"
    assert [x for x in hand if "to act" in x] == ["   dash [1] to act"]
    assert "-- third street" in hand and "   dash [1] brings in 50" in hand
    assert "   dash [1] is dealt 2 down, up 2c" not in hand  # public: no down cards
    assert "   uncalled 50 returned to dash [1]" in hand
    mine = cli(capsys, stack, "history", tid, first_id, *dash)
    assert "   dash (you) [1] is dealt down Ah Kh" in mine
    assert cli(capsys, stack, "history", tid, first_id, "--phh", *dash)[0].startswith("variant")

    balance = cli(capsys, stack, "balance", *dash)
    assert balance[0].startswith("dash: balance 98,000, at tables ")
    assert balance[1].startswith(f"   {tid}  cli  seat 1: stack ")
