# ruff: noqa: N802  (test names end with the docs/rules.md rule IDs)
"""The in-process table shows each seat what the table service would (issue 18).

``poker_bots.local`` builds every seat's ``TableEvent``s itself, from the rules
library.  Here the same decks are dealt to the same bots through the table
service's own hand runner, with the real dealer, betting and showdown servicers
(``service_hand``), and every seat's events must be equal, field by field, except
what differs by nature: the action clock's deadline and the deck commitments
(see ``poker_bots.local``).  Random bots with small stacks make the all-ins, side
pots, S12 show orders and mucks (G4: a mucked hand is its owner's only), the
community river of an eight-handed stud table (S11), and the draws of 7-A (D6).

Separately, whatever the game: a seat never receives another seat's down card,
except in a hand that seat showed (S12), and never a card of the deck it was not
dealt (G4).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_bots import Bot, CallingStation, HandStrengthBot, RandomBot
from poker_bots.local import LocalPlayer, LocalTable, deck_secret
from poker_rules.cards import card_str, short_deck, standard_deck

from .service_hand import TABLE_ID, service_hand

CONFIGS = {
    "stud": common.GameConfig(
        game=common.GAME_STUD, ante=25, bring_in=50, small_bet=100, big_bet=200
    ),
    "stud_hilo": common.GameConfig(
        game=common.GAME_STUD_HILO, ante=25, bring_in=50, small_bet=100, big_bet=200
    ),
    "draw_fixed": common.GameConfig(
        game=common.GAME_DRAW_7A,
        small_bet=100,
        big_bet=200,
        ante=10,
        structure=common.STRUCTURE_FIXED_LIMIT,
    ),
    "draw_pot": common.GameConfig(
        game=common.GAME_DRAW_7A, small_bet=100, big_bet=200, structure=common.STRUCTURE_POT_LIMIT
    ),
    "draw_no": common.GameConfig(
        game=common.GAME_DRAW_7A, small_bet=100, big_bet=200, structure=common.STRUCTURE_NO_LIMIT
    ),
}
SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=list(HealthCheck),
)


def deck_of(config: common.GameConfig, players: int, rng: random.Random) -> list[str]:
    cards = short_deck(players == 5) if config.game == common.GAME_DRAW_7A else standard_deck()
    order = [card_str(c) for c in cards]
    rng.shuffle(order)
    return order


def bots_of(kinds: Sequence[int], seed: int) -> list[Bot]:
    """The same bots every time for the same arguments (0 random, 1 station, 2 strength)."""
    made: list[Bot] = []
    for k, kind in enumerate(kinds):
        if kind == 0:
            made.append(RandomBot(seed * 31 + k))
        elif kind == 1:
            made.append(CallingStation())
        else:
            made.append(HandStrengthBot())
    return made


def normalized(event: tpb.TableEvent) -> tpb.TableEvent:
    """The event without what differs by nature: the action clock's deadline, and
    the per-card commitment the in-process table does not make (``poker_bots.local``)."""
    copy = tpb.TableEvent()
    copy.CopyFrom(event)
    kind = copy.WhichOneof("event")
    if kind == "your_turn":
        copy.your_turn.deadline_unix_ms = 0
    elif kind == "to_act":
        copy.to_act.deadline_unix_ms = 0
    elif kind == "hand_started":
        copy.hand_started.card_commitment = b""
    return copy


def local_hand(
    config: common.GameConfig,
    bots: Sequence[Bot],
    names: Sequence[str],
    order: Sequence[str],
    stacks: Sequence[int],
    hand_id: str,
) -> dict[int, list[tpb.TableEvent]]:
    """Each seat's events at the in-process table (the Snapshot of the join first)."""
    seen: dict[int, list[tpb.TableEvent]] = {s: [] for s in range(1, len(bots) + 1)}
    seat_of: dict[str, int] = {name: k + 1 for k, name in enumerate(names)}

    def record(player: LocalPlayer, event: tpb.TableEvent) -> None:
        seen[seat_of[player.name]].append(event)

    table = LocalTable(config, table_id=TABLE_ID, on_event=record)
    players = [LocalPlayer(bot, name) for bot, name in zip(bots, names, strict=True)]
    hand = table.play_hand(players, order, stacks, hand_id=hand_id)
    assert sum(hand.net) == 0
    return seen


def compare(
    game: str, players: int, kinds: Sequence[int], stacks: Sequence[int], seed: int
) -> None:
    config = CONFIGS[game]
    order = deck_of(config, players, random.Random(seed))
    names = [f"bot{k}" for k in range(players)]
    hand_id = f"h{seed}"
    local = local_hand(config, bots_of(kinds, seed), names, order, stacks, hand_id)
    snapshots = [local[s][0] for s in range(1, players + 1)]
    for snap in snapshots:
        assert snap.WhichOneof("event") == "snapshot"
    service = asyncio.run(
        service_hand(
            config,
            bots_of(kinds, seed),
            names,
            order,
            stacks,
            snapshots,
            hand_id=hand_id,
            secrets=(deck_secret("salt", order), deck_secret("reshuffle", order)),
        )
    )
    for seat in range(1, players + 1):
        ours = [normalized(e) for e in local[seat][1:]]
        theirs = [normalized(e) for e in service[seat]]
        for k, (a, b) in enumerate(zip(ours, theirs, strict=False)):
            assert a == b, f"{game} seat {seat} event {k}:\nlocal:\n{a}\nservice:\n{b}"
        assert len(ours) == len(theirs), f"{game} seat {seat}: {len(ours)} vs {len(theirs)}"


@SETTINGS
@given(
    game=st.sampled_from(["stud", "stud_hilo"]),
    players=st.integers(2, 8),
    data=st.data(),
    seed=st.integers(0, 2**31),
)
def test_stud_seats_see_what_the_table_service_sends_S4_S5_S6_S11_S12(
    game: str, players: int, data: st.DataObject, seed: int
) -> None:
    kinds = data.draw(st.lists(st.integers(0, 2), min_size=players, max_size=players))
    stacks = data.draw(
        st.lists(st.integers(60, 3000), min_size=players, max_size=players), label="stacks"
    )
    compare(game, players, kinds, stacks, seed)


@SETTINGS
@given(
    game=st.sampled_from(["draw_fixed", "draw_pot", "draw_no"]),
    players=st.integers(2, 5),
    data=st.data(),
    seed=st.integers(0, 2**31),
)
def test_draw_seats_see_what_the_table_service_sends_D3_D6_D7_D9(
    game: str, players: int, data: st.DataObject, seed: int
) -> None:
    kinds = data.draw(st.lists(st.integers(0, 2), min_size=players, max_size=players))
    stacks = data.draw(
        st.lists(st.integers(120, 3000), min_size=players, max_size=players), label="stacks"
    )
    compare(game, players, kinds, stacks, seed)


def test_a_full_stud_table_reaches_the_community_river_S11() -> None:
    """Eight calling stations see seventh street: 8 x 7 cards are more than the
    deck, so the river is one community card, equal in both tables."""
    compare("stud", 8, [1] * 8, [5000] * 8, seed=11)


# ---------------------------------------------------------------- what a seat sees


def _cards_by_place(events: Sequence[tpb.TableEvent], me: int) -> list[tuple[str, int, str]]:
    """Every card in a seat's events: (where, whose, card)."""
    found: list[tuple[str, int, str]] = []
    for event in events:
        kind = event.WhichOneof("event")
        if kind == "snapshot":
            for s in event.snapshot.seats:
                found += [("own", s.seat, c) for c in s.own_cards]
                found += [("up", s.seat, c) for c in s.upcards]
        elif kind == "cards_dealt":
            dealt = event.cards_dealt
            if dealt.community_card:
                found.append(("up", 0, dealt.community_card))
            found += [("up" if dealt.up else "own", dealt.seat, c) for c in dealt.cards]
        elif kind == "draw_taken":
            draw = event.draw_taken
            found += [("own", draw.seat, c) for c in [*draw.discarded, *draw.received]]
        elif kind == "action_taken":
            found += [("own", event.action_taken.seat, c) for c in event.action_taken.action.cards]
        elif kind == "showdown":
            for shown in event.showdown.hands:
                place = "mucked" if shown.mucked else "shown"
                found += [(place, shown.seat, c) for c in shown.cards]
        elif kind == "your_turn":
            assert event.your_turn.legal.seat == me
    return found


@SETTINGS
@given(
    game=st.sampled_from(sorted(CONFIGS)),
    players=st.integers(2, 5),
    data=st.data(),
    seed=st.integers(0, 2**31),
)
def test_a_seat_never_sees_another_seats_hidden_cards_G4_S12(
    game: str, players: int, data: st.DataObject, seed: int
) -> None:
    config = CONFIGS[game]
    kinds = data.draw(st.lists(st.integers(0, 2), min_size=players, max_size=players))
    stacks = data.draw(st.lists(st.integers(150, 3000), min_size=players, max_size=players))
    order = deck_of(config, players, random.Random(seed))
    names = [f"bot{k}" for k in range(players)]
    seen = local_hand(config, bots_of(kinds, seed), names, order, stacks, "h")
    own: dict[int, set[str]] = {}  # each seat's down cards, from its own stream
    for seat, events in seen.items():
        own[seat] = {c for place, whose, c in _cards_by_place(events, seat) if place == "own"}
        assert all(
            whose == seat for place, whose, _ in _cards_by_place(events, seat) if place == "own"
        ), f"seat {seat} was told another seat's down card"
    dealt_down = set().union(*own.values())
    for seat, events in seen.items():
        for place, whose, card in _cards_by_place(events, seat):
            assert card in order, "a card that is not in the deck"
            if card in dealt_down and whose != seat:
                assert place == "shown", f"seat {seat} saw seat {whose}'s {card} ({place})"
            if place == "mucked":
                assert whose == seat, f"seat {seat} saw seat {whose}'s mucked hand (S12)"
    # The hidden count says how many; nothing else does.
    for seat, events in seen.items():
        for event in events:
            if event.WhichOneof("event") == "cards_dealt" and event.cards_dealt.seat != seat:
                dealt = event.cards_dealt
                assert dealt.up or (not dealt.cards and dealt.hidden_count > 0)
