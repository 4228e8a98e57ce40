# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs, e.g. __S12)
"""The table's PHH exports (``GetHandHistory``) of thousands of random hands, read
by PokerKit: the stud files replay to the stacks the table paid, no 7-A file makes
PokerKit pay anyone (it refuses the variant), and the files are well formed (no
upcard unknown, every discard of the draw before its new cards).

The hands are played by the table service's own code (``TableManager``,
``TableRuntime``, ``HandRunner``) against the real dealer, betting, showdown and
lobby servicers in this process (``tests/support/phh_room.py``: about 5 ms of CPU a hand
instead of the 24 ms of five processes), by random bots that let the clock run out
(S10) on 4 % of their turns, with a quarter of the buy-ins short (all-ins, side
pots).  Each hand is exported twice: the public view and one participant's view.

PokerKit 0.7.7 does not play docs/rules.md exactly.  A hand touching a known difference
is not compared but counted under its name (``differences``; the same list as
tests/unit/test_phh_pokerkit.py, plus ``S10_all_in_protection``: PokerKit has no
all-in protection, so it waits for the protected player to act again, and
``S11_community``: PokerKit's stud has no community river card).  Any other
disagreement fails the test.
"""

from __future__ import annotations

import asyncio
import tomllib
import warnings
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_rules.config import Structure
from poker_rules.phh import DRAW_VARIANTS
from service_kit.logs import quieted
from tests.support.phh_room import Room

# One worker plays the room once for every test here (``make test`` runs pytest
# with ``--dist loadgroup``); about 30 s of CPU, so slow.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("phh_table_histories")]

HANDS = 1_000  # per game, the acceptance's minimum
TABLES = 4  # per game, played at the same time (the clock's waits overlap)

STUD = common.GameConfig(game=common.GAME_STUD, ante=10, bring_in=25, small_bet=50, big_bet=100)
GAMES: dict[str, common.GameConfig] = {
    "stud": STUD,
    "stud_hilo": common.GameConfig(
        game=common.GAME_STUD_HILO, ante=10, bring_in=25, small_bet=50, big_bet=100
    ),
    "draw_fl": common.GameConfig(
        game=common.GAME_DRAW_7A,
        structure=common.STRUCTURE_FIXED_LIMIT,
        small_bet=100,
        big_bet=200,
    ),
    "draw_pl": common.GameConfig(
        game=common.GAME_DRAW_7A, structure=common.STRUCTURE_POT_LIMIT, small_bet=100, big_bet=200
    ),
    "draw_nl": common.GameConfig(
        game=common.GAME_DRAW_7A,
        structure=common.STRUCTURE_NO_LIMIT,
        ante=10,
        small_bet=100,
        big_bet=200,
    ),
}
SEATS = {"stud": 7, "stud_hilo": 6, "draw_fl": 5, "draw_pl": 4, "draw_nl": 5}

# Half the tables of each game under each S10 policy: all-in protection is a known
# PokerKit difference, so the other half keeps the compared sample large.
POLICIES = (common.TIMEOUT_POLICY_ALL_IN_PROTECTION, common.TIMEOUT_POLICY_CHECK_OR_FOLD)

AGGRESSIVE = (common.ACTION_KIND_COMPLETE, common.ACTION_KIND_BET, common.ACTION_KIND_RAISE)


def _with_policy(config: common.GameConfig, policy: int) -> common.GameConfig:
    copy = common.GameConfig()
    copy.CopyFrom(config)
    copy.timeout_policy = policy  # type: ignore[assignment]
    return copy


@dataclass
class Exported:
    """One finished hand as the table exports it: the public history and one
    participant's."""

    game: str
    public: tpb.HandHistory
    seat: tpb.HandHistory


async def _play_and_export(seed: int) -> dict[str, list[Exported]]:
    # A third of the buy-ins short: all-ins (S12, H6 side pots) in over 1 hand in 20
    # of every game, fixed-limit stud included, with a margin over the floor below.
    room = Room(seed=seed, short_p=0.35)
    runs = {
        name: [
            await room.create_table(
                _with_policy(config, POLICIES[k % len(POLICIES)]),
                seats=SEATS[name],
                target=-(-HANDS // TABLES),
            )
            for k in range(TABLES)
        ]
        for name, config in GAMES.items()
    }
    await room.play(timeout_s=600)
    exported: dict[str, list[Exported]] = {}
    for name, tables in runs.items():
        rejected = [m for run in tables for m in run.rejections]
        assert not rejected, f"{name}: the table refused the bots' actions: {rejected[:3]}"
        out = exported[name] = []
        for run in tables:
            for k, hand_id in enumerate(run.hands):
                players = run.players_of[hand_id]
                out.append(
                    Exported(
                        name,
                        await room.history(run, hand_id),
                        await room.history(run, hand_id, players[k % len(players)]),
                    )
                )
    return exported


@pytest.fixture(scope="module")
def exported() -> Iterator[dict[str, list[Exported]]]:
    with quieted("error"):
        yield asyncio.run(_play_and_export(seed=1313))


def _views(hands: list[Exported]) -> Iterator[tuple[str, tpb.HandHistory]]:
    for hand in hands:
        yield "public", hand.public
        yield "seat", hand.seat


# ---------------------------------------------------------------- known differences


def differences(history: tpb.HandHistory) -> set[str]:
    """The known PokerKit 0.7.7 differences (module docstring) a stud hand touches,
    read from its events (the public facts: the same in every view)."""
    cfg = history.config
    tags: set[str] = set()
    started = next(e.hand_started for e in history.events if e.HasField("hand_started"))
    stacks = {s.seat: s.stack for s in started.seats}
    for post in started.posts:
        stacks[post.seat] -= post.amount
    folded: set[int] = set()
    bets = dict.fromkeys(stacks, 0)
    street = current = aggression = 0
    forced_in = short_all_in = False
    for event in history.events:
        kind = event.WhichOneof("event")
        if kind == "street_started":
            street = event.street_started.street
            bets = dict.fromkeys(stacks, 0)
            current = aggression = 0
            short_all_in = False
        elif kind == "cards_dealt" and event.cards_dealt.community_card:
            tags.add("S11_community")
        elif kind == "action_taken":
            taken = event.action_taken
            seat, action = taken.seat, taken.action
            if action.kind == common.ACTION_KIND_UNSPECIFIED:
                tags.add("S10_all_in_protection")
                continue
            if action.kind == common.ACTION_KIND_FOLD:
                if street == 0 and not forced_in:
                    tags.add("S5_substitute_fold")
                folded.add(seat)
            if action.kind in AGGRESSIVE:
                aggression += 1
                if short_all_in:
                    tags.add("S8_short_all_in")
                if all(
                    stacks[j] + bets[j] <= current for j in stacks if j != seat and j not in folded
                ):
                    tags.add("raise_nobody_can_call")
                increment = action.amount - current
                if cfg.game == common.GAME_STUD and street == 1 and increment > cfg.small_bet:
                    tags.add("S7a_big_bet")
                full = cfg.small_bet if street < 2 else cfg.big_bet
                if taken.stack == 0 and (
                    action.amount < cfg.small_bet
                    if action.kind == common.ACTION_KIND_COMPLETE
                    else increment < full
                ):
                    short_all_in = True  # not a full bet or raise (S8)
                current = max(current, action.amount)
            if action.kind in (*AGGRESSIVE, common.ACTION_KIND_BRING_IN):
                forced_in = True
            bets[seat] += stacks[seat] - taken.stack
            stacks[seat] = taken.stack
            current = max(current, bets[seat])
            if aggression > 4:
                tags.add("S8_cap")
        elif kind == "hand_finished":
            tags |= _split_differences(cfg, event.hand_finished)
    return tags


def _split_differences(cfg: common.GameConfig, finished: tpb.HandFinished) -> set[str]:
    tags: set[str] = set()
    shares: dict[tuple[int, int], list[int]] = {}
    pots: Counter[int] = Counter()
    for award in finished.awards:
        shares.setdefault((award.pot_index, award.share), []).append(award.amount)
        pots[award.pot_index] += award.amount
    for (pot, share), amounts in shares.items():
        if len(amounts) > 1 and sum(amounts) % len(amounts):
            tags.add("S13_odd_chip")
        if share == common.POT_SHARE_LOW and pots[pot] % 2:
            tags.add("S13_odd_chip")  # H5: the odd chip plays high
    kinds = {share for _, share in shares}
    if common.POT_SHARE_LOW in kinds and common.POT_SHARE_WHOLE in kinds:
        tags.add("H6_side_pot_low")  # a side pot without a qualifying low (H1/H6)
    return tags


def _pokerkit_final_stacks(text: str) -> list[int]:
    from pokerkit import notation  # in the lock file: a missing PokerKit must fail, not skip

    history = notation.HandHistory.loads(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cards dealt that PokerKit did not shuffle
        states = list(history)
    state = states[-1]
    assert not state.status, "PokerKit did not finish the hand"
    return [int(s) for s in state.stacks]


def _paid(history: tpb.HandHistory) -> list[int]:
    """The stacks the table paid (HandFinished), in PHH player order."""
    finished = next(e.hand_finished for e in history.events if e.HasField("hand_finished"))
    final = {s.seat: s.stack for s in finished.seats}
    started = next(e.hand_started for e in history.events if e.HasField("hand_started"))
    return [final[s.seat] for s in started.seats]


def _cross_check(hands: list[Exported]) -> Counter[str]:
    tally: Counter[str] = Counter()
    unexplained: list[str] = []
    for view, history in _views(hands):
        tags = differences(history)
        fields = tomllib.loads(history.phh)
        assert fields["finishing_stacks"] == _paid(history)
        all_in = " # all-in (S12)" in history.phh or 0 in fields["finishing_stacks"]
        tally["all_in_exported"] += all_in
        if tags:
            tally["filtered"] += 1
            tally.update(tags)
            continue
        try:
            replayed = _pokerkit_final_stacks(history.phh)
        except Exception as error:
            unexplained.append(f"{view}: PokerKit refused it: {error!r}\n{history.phh}")
            continue
        if replayed != fields["finishing_stacks"]:
            unexplained.append(f"{view}: PokerKit paid {replayed}\n{history.phh}")
            continue
        tally["compared"] += 1
        tally["showdown"] += any(e.HasField("showdown") for e in history.events)
        tally["all_in"] += all_in
        tally["timeout"] += "timeout (S10)" in history.phh
        tally["split_hi_lo"] += "POT_SHARE_LOW" in str(history.events[-1])
    assert not unexplained, (
        f"{len(unexplained)} of {2 * len(hands)} files disagree with PokerKit for no known "
        f"reason; first:\n{unexplained[0]}"
    )
    assert tally["compared"] + tally["filtered"] == 2 * len(hands)
    return tally


def assert_coverage(tally: Counter[str], hands: int) -> None:
    """The exports hold showdowns, timeouts and all-ins (1 hand in 20 each), and
    PokerKit checked some of each.  All-ins are counted over every exported file:
    many of them are set aside under a named difference (H6 side-pot lows, S10
    protection), so only a floor of 1 in 50 is asked of the compared ones."""
    assert min(tally["showdown"], tally["timeout"]) >= hands // 20, tally
    assert tally["all_in_exported"] >= hands // 20, tally
    assert tally["all_in"] >= hands // 50, tally


@pytest.mark.pokerkit
def test_stud_table_histories_replay_in_pokerkit_to_the_stacks_paid__S12(
    exported: dict[str, list[Exported]],
) -> None:
    hands = exported["stud"]
    assert len(hands) >= HANDS
    tally = _cross_check(hands)
    print("stud", dict(tally))
    assert tally["compared"] >= len(hands), tally  # at least half of the 2 x 1,000 files
    assert_coverage(tally, len(hands))


@pytest.mark.pokerkit
def test_stud_hilo_table_histories_replay_in_pokerkit_to_the_stacks_paid__H1(
    exported: dict[str, list[Exported]],
) -> None:
    hands = exported["stud_hilo"]
    assert len(hands) >= HANDS
    tally = _cross_check(hands)
    print("stud_hilo", dict(tally))
    assert tally["compared"] >= len(hands), tally
    assert_coverage(tally, len(hands))
    # Split pots PokerKit checked: about 3 hands in 100 split, each counted once per
    # view compared (78 and 80 files of about 2,430 on a quiet machine, 58 under
    # load).  The floor was once 1 file per 20 hands, 1.4 standard deviations under
    # that mean: it failed a fresh-clone CI run (58 < 59).  1 in 50 is over four
    # under it, and still asks for dozens of split pots checked.
    assert tally["split_hi_lo"] >= len(hands) // 50, tally


# ---------------------------------------------------------------- the files themselves


def _deals(actions: list[str]) -> Iterator[tuple[str, int, str]]:
    """``(player, k, card)`` for each card of each ``d dh`` line, k counting that
    player's cards from 1 (stud: 3 and 4-6 are upcards, S4)."""
    count: Counter[str] = Counter()
    for action in actions:
        words = action.split("#")[0].split()
        if words[:2] != ["d", "dh"]:
            continue
        player, cards = words[2], words[3]
        for i in range(0, len(cards), 2):
            count[player] += 1
            yield player, count[player], cards[i : i + 2]


def test_no_upcard_is_unknown_in_any_view__S4_G4(exported: dict[str, list[Exported]]) -> None:
    """Defect 4 of issue 13: every upcard is written face up in every view (PokerKit
    opens fourth to sixth street on the upcards: one ``??`` there is its
    ``KeyError: Rank.UNKNOWN``), equal to the public view's, and a hand turned up
    (``sm``) never holds a card the file does not know (PokerKit would count it as
    an upcard too)."""
    checked = protections = 0
    for name in ("stud", "stud_hilo"):
        for hand in exported[name]:
            public = tomllib.loads(hand.public.phh)["actions"]
            ups = {(p, k): c for p, k, c in _deals(public) if k in (3, 4, 5, 6)}
            for _view, history in _views([hand]):
                actions = tomllib.loads(history.phh)["actions"]
                for player, k, card in _deals(actions):
                    if k in (3, 4, 5, 6):
                        assert card != "??" and card == ups[(player, k)], history.phh
                        checked += 1
                for action in actions:
                    words = action.split("#")[0].split()
                    if len(words) == 3 and words[1] == "sm":
                        assert "??" not in words[2], history.phh
                    assert words[1:] != ["cbr", "0"], history.phh
                # S10 all-in protection applies no action: a commentary, no PHH verb.
                protected = sum(
                    e.action_taken.action.kind == common.ACTION_KIND_UNSPECIFIED
                    for e in history.events
                    if e.HasField("action_taken")
                )
                protections += protected
                assert protected == sum("timeout: all-in protection (S10)" in a for a in actions)
    assert checked > 20 * HANDS
    assert protections > HANDS // 10


@pytest.mark.pokerkit
def test_draw_7a_files_are_refused_by_pokerkit_never_paid_to_another__D8(
    exported: dict[str, list[Exported]],
) -> None:
    """Defect 3 of issue 13: PHH has no 7-A variant, and read as 2-7 lowball
    (``N2L1D``) PokerKit paid the low hand.  The files carry variant codes of their
    own; PokerKit refuses them (an unknown variant), and never pays anyone."""
    from pokerkit import notation

    refused: Counter[str] = Counter()
    for name, structure in (
        ("draw_fl", Structure.FIXED_LIMIT),
        ("draw_pl", Structure.POT_LIMIT),
        ("draw_nl", Structure.NO_LIMIT),
    ):
        hands = exported[name]
        assert len(hands) >= HANDS
        for _view, history in _views(hands):
            fields = tomllib.loads(history.phh)
            assert fields["variant"] == DRAW_VARIANTS[structure]
            assert (fields["_game"], fields["_structure"]) == ("draw_7a", structure.value)
            assert fields["finishing_stacks"] == _paid(history)
            bets = ("small_bet", "big_bet") if structure is Structure.FIXED_LIMIT else ("min_bet",)
            assert all(name in fields for name in bets)
            with pytest.raises(KeyError) as refusal:
                list(notation.HandHistory.loads(history.phh))
            assert refusal.value.args == (fields["variant"],)  # the unknown variant
            refused[fields["variant"]] += 1
    assert min(refused.values()) >= 2 * HANDS, refused


def test_draw_writes_every_discard_before_the_new_cards__D6_S10(
    exported: dict[str, list[Exported]],
) -> None:
    """Defect 2 of issue 13 (the same order in the table's views): PHH deals the
    draw's new cards after the last discard; a file that deals one before the last
    ``sd`` cannot be stepped through ("a card must be burnt before hole dealing")."""
    draws = 0
    for name in ("draw_fl", "draw_pl", "draw_nl"):
        for _view, history in _views(exported[name]):
            actions = tomllib.loads(history.phh)["actions"]
            discards = [i for i, a in enumerate(actions) if a.split()[1:2] == ["sd"]]
            if not discards:
                continue
            draws += 1
            dealt = [i for i, a in enumerate(actions) if a.startswith("d dh ")]
            assert all(not discards[0] < i < discards[-1] for i in dealt), history.phh
    assert draws > 3 * HANDS
