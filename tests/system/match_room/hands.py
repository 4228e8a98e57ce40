"""What the match room tests check a room's hands against (tests only).

- ``duplicate_plan``: deals of a seeded deck, each played once per rotation of
  the players (the duplicate seatings);
- ``replay``: the same hand in the rules library, from the deal's order and the
  actions the room's history records, so the cards each position gets, and its
  result, are the library's (the in-process engine's) for the same deck;
- ``check_played``: every hand of a run against the plan and the library.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_bots.match_room import RoomRun
from poker_bots.match_room_phh import dealt_cards
from poker_bots.match_types import Deal, HandPlayed
from poker_rules import Action, DrawHand, StudHand, card_str, parse_card
from poker_rules.commitment import committed_deck
from poker_rules.config import DrawConfig
from poker_rules.events import Deal as Dealt
from poker_rules.events import Draw
from poker_wire.betting import action_from_pb
from poker_wire.config import game_config
from tests.support.decks import SHORT_DECK, STUD_DECK

Plan = list[tuple[Deal, tuple[str, ...]]]


def duplicate_plan(config: common.GameConfig, deals: int, names: Sequence[str], seed: int) -> Plan:
    """``deals`` shuffled decks, each dealt to every rotation of ``names`` in turn."""
    deck = SHORT_DECK if config.game == common.GAME_DRAW_7A else STUD_DECK
    rng = random.Random(seed)
    plan: Plan = []
    for number in range(deals):
        order = list(deck)
        rng.shuffle(order)
        deal = Deal(number, tuple(order))
        for turn in range(len(names)):
            plan.append((deal, tuple(names[turn:]) + tuple(names[:turn])))
    return plan


def replay(
    config: common.GameConfig,
    order: Sequence[str],
    stacks: Sequence[int],
    events: Sequence[tpb.TableEvent],
) -> StudHand | DrawHand:
    """The hand of ``events`` in the rules library: ``order`` as its deck, the
    room's players by dealing position (``HandStarted``), every action and draw."""
    rules = game_config(config)
    deck = committed_deck([parse_card(c) for c in order], bytes(32))  # no reshuffle here
    hand: StudHand | DrawHand = (
        DrawHand(rules, list(stacks), deck=deck)
        if isinstance(rules, DrawConfig)
        else StudHand(rules, list(stacks), deck=deck)
    )
    started = next(e.hand_started for e in events if e.HasField("hand_started"))
    position = {s.seat: i for i, s in enumerate(started.seats)}
    for event in events:
        if event.HasField("action_taken"):
            taken = event.action_taken
            assert not taken.timeout, "the bots answer every turn"
            hand.act(action_from_pb(taken.action), position[taken.seat])
        elif event.HasField("draw_taken"):
            drawn = event.draw_taken
            discards = tuple(parse_card(c) for c in drawn.discarded)
            assert len(discards) == drawn.count, "the merged history shows every draw"
            hand.act(Action.discard(discards), position[drawn.seat])
    return hand


def library_cards(hand: StudHand | DrawHand, player: int) -> list[str]:
    """What the library dealt ``player``, in the order dealt (a draw's after its five)."""
    cards: list[str] = []
    for record in hand.events:
        if isinstance(record, Dealt) and record.player == player:
            cards.extend(card_str(c) for c in record.cards)
        elif isinstance(record, Draw) and record.player == player:
            cards.extend(card_str(c) for c in record.received)
    return cards


def first_round(
    config: common.GameConfig, order: Sequence[str], n: int, position: int
) -> list[str]:
    """The deck's first cards for ``position`` (G5, S4: two down and one up round
    the table; D4: five, one at a time)."""
    rounds = 5 if config.game == common.GAME_DRAW_7A else 3
    return [order[position + k * n] for k in range(rounds)]


def check_played(
    config: common.GameConfig, plan: Plan, played: Sequence[HandPlayed], run: RoomRun, stack: int
) -> None:
    """Every hand against its plan entry and against the rules library."""
    assert len(played) == len(plan) == len(run.hands) == len(run.hand_ids)
    for k, ((deal, seating), hand, record) in enumerate(zip(plan, played, run.hands, strict=True)):
        where = f"hand {k} ({record.hand_id}, deal {deal.number}, seating {seating})"
        n = len(seating)
        assert (hand.deal, hand.seating) == (deal.number, seating), where
        assert set(hand.net) == set(seating) and sum(hand.net.values()) == 0, (where, hand.net)
        started = next(e.hand_started for e in record.events if e.HasField("hand_started"))
        # The room dealt the bots in the plan's order, each with the match's stack.
        assert [s.seat for s in started.seats] == [record.seats[name] for name in seating], where
        assert [s.stack for s in started.seats] == [stack] * n, where
        # Every card each bot received is the library's for its position, from the
        # deal's order; the first round straight from the deck (G5, S4, D4).
        library = replay(config, deal.order, [stack] * n, record.events)
        assert library.is_over, where
        room_cards = dealt_cards(record.events)
        for i, name in enumerate(seating):
            got = room_cards[record.seats[name]]
            assert got[: len(first_round(config, deal.order, n, i))] == first_round(
                config, deal.order, n, i
            ), (where, name)
            assert got == library_cards(library, i), (where, name)
        # The room's result is the library's.
        assert library.result is not None, where
        final = library.result.final_stacks
        assert hand.net == {name: final[i] - stack for i, name in enumerate(seating)}, where
        # The PHH: every player's cards (merged histories), the bots by name.
        assert hand.phh == record.phh and hand.phh.startswith("variant = "), where
        assert "??" not in hand.phh, (where, hand.phh)
        assert f'hand = "{record.hand_id}"' in hand.phh, where
        names = ", ".join(f'"{name}"' for name in seating)
        assert f"players = [{names}]" in hand.phh, (where, hand.phh)
