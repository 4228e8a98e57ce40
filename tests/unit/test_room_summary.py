"""The local room's closing summary (``devroom.room._report``) names what the
chips it did not give out are: a served room's people's seats, and the money
tournaments hold (the lobby's ``at_tables`` counts their unpaid pools and fees,
docs/tournaments.md).  An outside probe ran five tournaments with 400 in fees and
nobody seated, and the summary called the 400 "people's: still seated, theirs"."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from devroom.room import _report
from poker.lobby.v1 import lobby_pb2 as lpb


def test_chips_held_by_tournaments_are_not_called_seats(capsys: pytest.CaptureFixture[str]) -> None:
    table = SimpleNamespace(hands=12, spec=SimpleNamespace(label="stud"), seats=[])
    room = SimpleNamespace(
        tables=[table], granted=6_000, tally=SimpleNamespace(bought_in=6_000, rebuys=0)
    )
    bots = {
        f"p-{i}": lpb.Player(player_id=f"p-{i}", name=f"bot {i}", balance=1_000, at_tables=0)
        for i in range(6)
    }
    # People were granted 10,000: 9,600 in their balances, 400 in tournament fees.
    totals = lpb.LedgerTotals(granted=16_000, balances=15_600, at_tables=400)
    ok = _report(room, 60.0, None, [], totals, bots, stopped="SIGTERM")  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert ok, out
    assert "still seated, theirs" not in out
    assert "400 at tables or in tournaments (their seats, the pools not yet paid, the fees)" in out
    assert (
        "[x] the room's players left nothing on the tables (400 chips there are the "
        "people's seats or their tournaments' pools and fees)" in out
    )
