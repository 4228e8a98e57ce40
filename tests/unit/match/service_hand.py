"""One hand through the table service's own hand runner, seen from every seat.

Why: the in-process table (``poker_bots.local``) promises that a bot sees there
exactly the events the table service would send it.  This plays the same deck
with the same bots through ``services.table.runner.HandRunner``, its downstream
calls answered by the real dealer, betting and showdown servicers of this process
(``tests.system.e2e.inprocess.InProcessDownstream``), and builds each seat's
events with the table's own ``facts.view``, so the two can be compared event for
event.  Each seat's bot answers its turn from a ``TableView`` fed those events,
through the SDK's checks (``check_action``, ``safest``), as ``poker_bots.play``
would.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence

import grpc

from poker.common.v1 import common_pb2 as common
from poker.lobby.v1 import lobby_pb2 as lpb
from poker.table.v1 import table_pb2 as tpb
from poker_bots import Bot, TableView, check_action, safest
from poker_rules import commitment
from poker_rules.draw import default_blinds
from poker_wire.config import game_config
from services.table import facts as f
from services.table.hand import Hand
from services.table.runner import HandRunner
from tests.system.e2e.inprocess import InProcessDownstream

TABLE_ID = "local"


@contextlib.contextmanager
def dealer_secrets(salt: bytes, reshuffle_seed: bytes) -> Iterator[None]:
    """The dealer's next deck opened with these secrets instead of fresh ones, so
    that its commitment and its mid-hand reshuffles (S11, D6) are the ones the
    in-process table derives from the deck order (``poker_bots.local``)."""
    given = [salt, reshuffle_seed]
    module = vars(commitment)
    real = module["secrets"]

    class Fixed:
        @staticmethod
        def token_bytes(n: int) -> bytes:
            assert given, "one deck per hand"
            secret = given.pop(0)
            assert len(secret) == n
            return secret

    module["secrets"] = Fixed
    try:
        yield
    finally:
        module["secrets"] = real


def plan_of(
    config: common.GameConfig, hand_id: str, players: Sequence[str], stacks: Sequence[int]
) -> lpb.NextHandResponse:
    """The lobby's plan for seats 1..n in dealing order: draw, the button on the last
    seat and D3's blinds in dealing order (``SeatingPlan.draw_posts``)."""
    n = len(players)
    seats = list(range(1, n + 1))
    plan = lpb.NextHandResponse(
        hand_id=hand_id,
        play=True,
        dealt_in=[
            lpb.SeatInfo(seat=s, player_id=p, stack=c)
            for s, p, c in zip(seats, players, stacks, strict=True)
        ],
    )
    if config.game == common.GAME_DRAW_7A:
        rules = game_config(config)
        blinds, big_blind = default_blinds(rules, n)  # type: ignore[arg-type]
        plan.button_seat = seats[-1]
        plan.big_blind_seat = seats[big_blind]
        for post in sorted(blinds, key=lambda p: (p.player, not p.live)):
            plan.posts.add(seat=seats[post.player], amount=post.amount, live=post.live)
    return plan


async def service_hand(
    config: common.GameConfig,
    bots: Sequence[Bot],
    names: Sequence[str],
    order: Sequence[str],
    stacks: Sequence[int],
    snapshots: Sequence[tpb.TableEvent],
    *,
    hand_id: str,
    secrets: tuple[bytes, bytes],
) -> dict[int, list[tpb.TableEvent]]:
    """Each seat's events of one hand at the table service (seat = position + 1).
    ``snapshots``: each seat's Snapshot, applied to its view first (the join);
    ``secrets``: the dealer's salt and reshuffle seed (``dealer_secrets``)."""
    n = len(bots)
    seats = list(range(1, n + 1))
    players = [f"local-{name}" for name in names]
    plan = plan_of(config, hand_id, players, stacks)
    hand = Hand(
        table_id=TABLE_ID,
        hand_id=hand_id,
        config=config,
        seats=seats,
        players=players,
        names=list(names),
        start_stacks=list(stacks),
        button_seat=plan.button_seat,
    )
    views = {seat: TableView() for seat in seats}
    for seat, snap in zip(seats, snapshots, strict=True):
        views[seat].apply(snap)
    seen: dict[int, list[tpb.TableEvent]] = {seat: [] for seat in seats}

    def emit(h: Hand, fact: f.Fact) -> None:
        seq = len(h.facts)
        for seat in seats:
            event = f.view(fact, f.Viewer(seat), seq=seq, table_id=TABLE_ID, hand_id=h.hand_id)
            seen[seat].append(event)
            views[seat].apply(event)
        if isinstance(fact, f.Turn):
            view = views[fact.seat]
            legal = fact.legal
            action = bots[fact.seat - 1].act(view, legal)
            if check_action(legal, action, view.my_down_cards or None) is not None:
                action = safest(legal)
            refused = h.offer(fact.seat, h.hand_id, fact.action_seq, action)
            if refused is not None:
                raise AssertionError(f"seat {fact.seat} {action}: {refused[1]}")

    def reject(h: Hand, seat: int, version: int, code: grpc.StatusCode, why: str) -> None:
        raise AssertionError(f"betting refused seat {seat}'s action: {code.name} {why}")

    runner = HandRunner(
        hand,
        InProcessDownstream(),  # type: ignore[arg-type]
        plan=plan,
        clock_ms=600_000,
        emit=emit,
        reject=reject,
        preset_order=order,
    )
    with dealer_secrets(*secrets):
        result = await runner.run()
    last = result.facts[-1]
    if isinstance(last, f.HandFinished) and (not hand.facts or hand.facts[-1] is not last):
        runner.emit(last)  # the runtime tells the viewers once the hand is reported
    return seen
