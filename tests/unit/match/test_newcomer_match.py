"""Issue 18's acceptance, in process: a newcomer's bot in a 10,000-hand duplicate match.

The bot is written as a newcomer would write it: one file, importing only what
``poker_bots`` exports and docs/bots.md and docs/matches.md show.  It plays a
heads-up Stud Hi-Lo duplicate match of 10,000 hands (5,000 deals, each dealt in
both seatings) against the calling station with ``poker match``, in process.
The report gives each bot's big bets per 100 hands with a 95 % interval, the
duplicate interval is narrower than the plain one on the same hands, and the PHH
file holds every hand, whose chips add up to the bots' results.

The room's half (500 hands through the services, both modes agreeing within
their intervals) is tests/system/match/test_match_modes.py.
"""

from __future__ import annotations

import json
import re
import time
import tomllib
from pathlib import Path

import pytest

from poker_cli.__main__ import main

from .newcomer import NEWCOMER_BOT

pytestmark = pytest.mark.slow


def test_a_newcomers_bot_in_a_10000_hand_duplicate_match_in_process(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot_file = tmp_path / "my_bot.py"
    bot_file.write_text(NEWCOMER_BOT)
    result_file = tmp_path / "result.json"
    started = time.perf_counter()
    status = main(
        [
            "match",
            "--game",
            "stud_hilo",
            "--hands",
            "10000",
            "--bots",
            f"{bot_file}:LowChaser,station",
            "--seed",
            "18",
            "--phh-dir",
            str(tmp_path / "phh"),
            "--json",
            str(result_file),
        ]
    )
    seconds = time.perf_counter() - started
    report = capsys.readouterr().out
    assert status == 0, report
    print(report, f"\n10,000 hands in {seconds:.1f} s")
    result = json.loads(result_file.read_text())
    (game,) = result["games"]
    assert (game["game"], game["hands"], game["deals"], game["seatings"]) == (
        "stud_hilo",
        10_000,
        5_000,
        2,
    )
    assert game["unit"] == "big bet" and game["big_bet"] == 200
    bots = {b["name"]: b for b in game["bots"]}
    assert set(bots) == {"LowChaser", "station"}
    for name, bot in bots.items():
        low, high = bot["duplicate"]
        plain_low, plain_high = bot["plain"]
        assert low <= bot["bb_per_100"] <= high, name
        assert plain_low <= bot["bb_per_100"] <= plain_high, name
        assert high - low < plain_high - plain_low, f"{name}: duplication did not narrow it"
        assert 0 < bot["variance_reduction"] < 1
        assert bot["hands"] == 10_000
        assert f"{bot['bb_per_100']:+.2f}" in report
    assert bots["LowChaser"]["chips"] == -bots["station"]["chips"]  # heads-up

    # Every hand's PHH, and the chips in them are the bots' results (every 50th hand
    # read as TOML too: reading all 10,000 would take the match's own time again).
    text = (tmp_path / "phh" / "stud_hilo.phhs").read_text()
    sections = re.split(r"^\[\d+\]\n", text, flags=re.MULTILINE)[1:]
    assert len(sections) == 10_000
    chips = {"LowChaser": 0, "station": 0}
    for k, section in enumerate(sections):
        fields = {
            key: json.loads(value)
            for key, value in re.findall(
                r"^(players|starting_stacks|finishing_stacks) = (.*)$", section, re.MULTILINE
            )
        }
        if k % 50 == 0:
            hand = tomllib.loads(section)
            assert hand["variant"] == "F7S/8"
            assert {key: hand[key] for key in fields} == fields
        for name, start, end in zip(
            fields["players"], fields["starting_stacks"], fields["finishing_stacks"], strict=True
        ):
            chips[name] += end - start
    assert chips == {name: bot["chips"] for name, bot in bots.items()}
