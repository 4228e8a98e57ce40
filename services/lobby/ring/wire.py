"""Ring tables to and from the wire: the B2/B3 choices of a request, a seat's
markers, a table, a hand's plan, and ListHands' records and page tokens."""

from __future__ import annotations

import base64
import math

from poker.lobby.v1 import lobby_pb2 as pb
from poker_rules.seating import Choice, HandPlan, SeatedPlayer
from service_kit.errors import InvalidArgumentError

from ..store import HandRow
from .table import RingTable

LIST_HANDS = (20, 500)  # ListHands: the default and the largest limit
MAX_PAGE_TOKEN = 400  # characters of a ListHands page token (ours are about 70)
HAND_STATUSES = {
    "pending": pb.HAND_STATUS_PENDING,
    "finished": pb.HAND_STATUS_FINISHED,
    "voided": pb.HAND_STATUS_VOIDED,
}
# B2 entry (SitDown) and B3/B4 return (SitIn) choices: the library's choice and
# whether the player waits for the button to pass first.
ENTRIES = {
    pb.ENTRY_POST_NOW: (Choice.POST, False),
    pb.ENTRY_WAIT_FOR_BIG_BLIND: (Choice.WAIT, False),
    pb.ENTRY_WAIT_FOR_BUTTON: (Choice.POST, True),
}
RETURN_CHOICES = {
    pb.RETURN_CHOICE_UNSPECIFIED: Choice.POST,
    pb.RETURN_CHOICE_POST: Choice.POST,
    pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND: Choice.WAIT,
}
RETURN_CHOICE_VALUES = {
    Choice.POST: pb.RETURN_CHOICE_POST,
    Choice.WAIT: pb.RETURN_CHOICE_WAIT_FOR_BIG_BLIND,
}


def entry_choice(request: pb.SitDownRequest) -> tuple[Choice, bool]:
    """B2's choice of a SitDown: the library's choice and whether to wait for the
    button; INVALID_ARGUMENT for an unknown entry or a contradiction."""
    if request.entry == pb.ENTRY_UNSPECIFIED:
        return (Choice.WAIT if request.wait_for_big_blind else Choice.POST), False
    entry = ENTRIES.get(request.entry)
    if entry is None:
        raise InvalidArgumentError(
            f"entry {request.entry} is unknown; allowed: ENTRY_POST_NOW, "
            "ENTRY_WAIT_FOR_BIG_BLIND, ENTRY_WAIT_FOR_BUTTON (or unspecified: "
            "wait_for_big_blind decides)"
        )
    if request.wait_for_big_blind and request.entry != pb.ENTRY_WAIT_FOR_BIG_BLIND:
        raise InvalidArgumentError(
            f"wait_for_big_blind contradicts entry {pb.Entry.Name(request.entry)}: set one of them"
        )
    return entry


def return_choice(request: pb.SitInRequest) -> Choice:
    """B3/B4's choice of a SitIn; INVALID_ARGUMENT for an unknown one."""
    choice = RETURN_CHOICES.get(request.return_choice)
    if choice is None:
        raise InvalidArgumentError(
            f"return_choice {request.return_choice} is unknown; allowed: "
            "RETURN_CHOICE_POST (or unspecified) and RETURN_CHOICE_WAIT_FOR_BIG_BLIND"
        )
    return choice


def seat_info(seat: int, p: SeatedPlayer, name: str) -> pb.SeatInfo:
    """A seat as GetTable shows it: the stack and every seating marker."""
    return pb.SeatInfo(
        seat=seat,
        player_id=p.player_id,
        name=name,
        stack=p.chips,
        sitting_out=p.away or p.chips == 0,
        away=p.away,
        missed_big_blind=p.missed_big,
        missed_small_blind=p.missed_small,
        new_player=p.new,
        return_choice=RETURN_CHOICE_VALUES[p.choice],
        wait_for_button=p.button_must_pass,
        orbits_away=p.orbits_away,
        auto_post=p.auto_post,
        im_in=p.im_in,
    )


def table_pb(table: RingTable, names: dict[str, str]) -> pb.Table:
    """The table as GetTable and ListTables show it (``names``: player_id -> name)."""
    row = table.row
    seated = [(s, table.seating.seat(s)) for s in table.seating.occupied()]
    return pb.Table(
        table_id=row.table_id,
        name=row.name,
        config=table.config,
        seats=row.seats,
        min_buy_in=row.min_buy_in,
        max_buy_in=row.max_buy_in,
        action_clock_ms=row.action_clock_ms,
        occupied=[seat_info(s, p, names.get(p.player_id, "")) for s, p in seated if p is not None],
        hands_played=table.seating.hands_played,
        max_orbits_away=table.max_orbits_away,
        button_seat=table.seating.button or 0,
        button_dead=table.seating.button_dead,
    )


def plan_pb(plan: HandPlan, hand_id: str, names: dict[str, str]) -> pb.NextHandResponse:
    """The library's plan as NextHand answers it: the seats dealt in and the posts."""
    dealt_in = [
        pb.SeatInfo(seat=s, player_id=p, name=names.get(p, ""), stack=c)
        for s, p, c in zip(plan.seats, plan.players, plan.stacks, strict=True)
    ]
    posts = [
        pb.Post(seat=plan.seats[p.player], amount=p.amount, live=p.live) for p in plan.draw_posts()
    ]
    return pb.NextHandResponse(
        hand_id=hand_id,
        play=True,
        dealt_in=dealt_in,
        button_seat=plan.button or 0,
        button_dead=plan.button_dead,
        big_blind_seat=plan.big_blind or 0,
        small_blind_seat=plan.small_blind or 0,
        posts=posts,
    )


def page_token(last: HandRow) -> str:
    """ListHands' next page starts after ``last``: its (planned_at, hand_id), the
    listing's order, opaque to clients (planned_at's repr is exact)."""
    return base64.urlsafe_b64encode(f"{last.planned_at!r}/{last.hand_id}".encode()).decode()


def page_after(token: str) -> tuple[float, str] | None:
    """The (planned_at, hand_id) a page token names, None for the first page;
    INVALID_ARGUMENT for anything ListHands did not hand out."""
    if not token:
        return None
    refused = InvalidArgumentError(
        "page_token must be empty (the newest hands) or a next_page_token from ListHands"
    )
    if len(token) > MAX_PAGE_TOKEN:
        raise refused
    try:
        planned_at, slash, hand_id = base64.urlsafe_b64decode(token).decode().partition("/")
        after = float(planned_at), hand_id
    except ValueError:
        raise refused from None
    if not slash or not hand_id or not math.isfinite(after[0]):
        raise refused
    return after


def hand_record(row: HandRow) -> pb.HandRecord:
    """A stored hand as ListHands shows it."""
    plan = pb.NextHandResponse.FromString(row.plan)
    return pb.HandRecord(
        hand_id=row.hand_id,
        table_id=row.table_id,
        status=HAND_STATUSES[row.status],
        void_reason=row.reason,
        dealt_in=plan.dealt_in,
        planned_at_unix_ms=round(row.planned_at * 1000),
        ended_at_unix_ms=0 if row.ended_at is None else round(row.ended_at * 1000),
    )
