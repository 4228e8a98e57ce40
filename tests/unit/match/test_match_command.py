"""``poker match``: its options, the bots it loads, its report and its refusals."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from poker.common.v1 import common_pb2 as common
from poker_bots.bots import CallingStation, RandomBot
from poker_cli.__main__ import main
from poker_cli.match_command import bot_factories, match_configs, room_backend
from poker_cli.options import UsageError, build_parser


def args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["match", *argv])


def test_games_and_stakes() -> None:
    hilo, stud, draw = match_configs(args("--bots", "a,b", "--game", "stud_hilo,stud,draw"))
    assert (hilo.game, stud.game, draw.game) == (
        common.GAME_STUD_HILO,
        common.GAME_STUD,
        common.GAME_DRAW_7A,
    )
    assert (hilo.ante, hilo.bring_in, hilo.small_bet, hilo.big_bet) == (25, 50, 100, 200)
    assert (draw.ante, draw.structure) == (0, common.STRUCTURE_FIXED_LIMIT)
    (no_limit,) = match_configs(
        args("--bots", "a,b", "--game", "draw-7a", "--structure", "no", "--small-bet", "50")
    )
    assert (no_limit.structure, no_limit.small_bet, no_limit.big_bet) == (
        common.STRUCTURE_NO_LIMIT,
        50,
        100,
    )
    with pytest.raises(UsageError, match="unknown game 'holdem'"):
        match_configs(args("--bots", "a,b", "--game", "holdem"))


def test_bots_by_kind_file_and_name(tmp_path: Path) -> None:
    mine = tmp_path / "mine.py"
    mine.write_text(
        "from poker_bots import passive\n\n\n"
        "class Mine:\n"
        "    def act(self, view, legal):\n"
        "        return passive(legal)\n"
    )
    made = bot_factories(f"station,{mine}:Mine,me={mine}:Mine,random,random", seed=3)
    assert list(made) == ["station", "Mine", "me", "random", "random-2"]
    assert isinstance(made["station"](), CallingStation)
    assert type(made["Mine"]()).__name__ == "Mine"
    first, again = made["random"](), made["random"]()
    assert isinstance(first, RandomBot) and isinstance(again, RandomBot)
    assert first.rng.random() == again.rng.random()  # the same seed each rotation
    with pytest.raises(UsageError, match="unknown bot 'bluffer'"):
        bot_factories("station,bluffer", seed=1)
    with pytest.raises(UsageError, match=r"no bot class 'Other'.*it has: Mine"):
        bot_factories(f"station,{mine}:Other", seed=1)
    with pytest.raises(UsageError, match="at least two bots"):
        bot_factories("station", seed=1)


def test_a_match_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "result.json"
    status = main(
        [
            "match",
            "--hands",
            "40",
            "--bots",
            "strength,station",
            "--json",
            str(out),
            "--phh-dir",
            str(tmp_path / "phh"),
            "--seed",
            "4",
        ]
    )
    assert status == 0
    report = capsys.readouterr().out
    assert "stud_hilo: 40 hands (20 deals x 2 seatings), seed 4, in process" in report
    assert "big bets (200 chips) per 100 hands" in report
    numbers = json.loads(out.read_text())
    (game,) = numbers["games"]
    assert [b["name"] for b in game["bots"]] == ["strength", "station"]
    assert numbers["phh_files"] == [str(tmp_path / "phh" / "stud_hilo.phhs")]
    again = tmp_path / "again.json"
    assert (
        main(
            [
                "match",
                "--hands",
                "40",
                "--bots",
                "strength,station",
                "--json",
                str(again),
                "--seed",
                "4",
            ]
        )
        == 0
    )
    assert json.loads(again.read_text())["games"][0]["bots"] == game["bots"]  # reproducible


def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["match", "--bots", "station"]) == 2
    assert "at least two bots" in capsys.readouterr().err
    assert main(["match", "--game", "draw", "--bots", ",".join(["station"] * 6)]) == 2
    assert "draw_7a seats 2 to 5 bots, not 6" in capsys.readouterr().err
    assert main(["match", "--bots", f"{tmp_path}/none.py:Bot,station"]) == 2
    assert "no bot file" in capsys.readouterr().err
    broken = tmp_path / "broken.py"
    broken.write_text("import no_such_module\n")
    assert main(["match", "--bots", f"{broken}:Bot,station"]) == 1
    assert "failed to load: ModuleNotFoundError" in capsys.readouterr().err
    assert main(["match", "--bots", "station,random", "--hands", "0"]) == 2


def test_the_room_mode_reaches_the_room_named_by_the_options() -> None:
    from poker_bots.match_room import RoomBackend

    backend, close = room_backend(
        args(
            "--bots",
            "a,b",
            "--mode",
            "room",
            "--room",
            "door:1",
            "--lobby-internal",
            "lobby:2",
            "--table-shards",
            "t0:3,t1:4",
            "--operator-dir",
            "/ops",
            "--ca",
            "/ca",
        )
    )
    assert isinstance(backend, RoomBackend)
    assert backend.room.door == "door:1" and backend.room.lobby == "lobby:2"
    assert backend.room.tables == ("t0:3", "t1:4")
    assert str(backend.room.operator_dir) == "/ops" and str(backend.room.ca_file) == "/ca"
    close()
