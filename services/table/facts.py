"""What happened in a hand, and what one viewer may see of it.

The hand runner records *facts*: complete, internal, never sent as they are (a
``Dealt`` fact holds every card dealt, down cards included).  ``view`` is the one
function that turns a fact into the ``TableEvent`` a viewer receives: every viewer
receives every fact, each seen its own way (``private_to`` and ``shared`` only tell
the table which viewers see the same event, so that it builds each one once).
Streams, reconnect snapshots and hand histories all go through ``view``, so a card
reaches a viewer only where it puts it (ARCHITECTURE: "a player's view is
computed, not filtered late").

A viewer is a seat number (1..10) or ``SPECTATOR`` (0).  What each may see:

- its own down cards; every upcard; the S11 community card; how many hidden
  cards the others hold (``hidden_count``, never the cards, not even masked);
- every action, draw count (D7), pot, street and result;
- its own ``YourTurn`` with the menu; of another seat's turn only who and until
  when (``ToAct``);
- at the showdown the hands shown (S12); a hand mucked is seen by its owner, and
  by the hand's participants in the history afterwards (S12), never live;
- never a burned card, the deck order or the salt (G4): those are in no fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as pb

SPECTATOR = 0


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """A player dealt in, as everyone may see them at the start of the hand."""

    seat: int
    player_id: str
    name: str
    stack: int


@dataclass(frozen=True, slots=True)
class Post:
    seat: int
    amount: int
    kind: str  # "ante", "blind", "dead", "bring_in"


@dataclass(frozen=True, slots=True)
class HandStarted:
    seats: tuple[SeatInfo, ...]
    button_seat: int
    button_dead: bool
    posts: tuple[Post, ...]
    commitment: bytes
    card_commitment: bytes = b""  # "cardroom-cards-v1" (G4a)


@dataclass(frozen=True, slots=True)
class Dealt:
    """Cards dealt to one seat (down cards are its owner's only), or the S11
    community card (``seat`` 0, public)."""

    seat: int
    cards: tuple[str, ...]
    up: bool
    community_card: str = ""


@dataclass(frozen=True, slots=True)
class StreetStarted:
    street: int
    name: str


@dataclass(frozen=True, slots=True)
class ActionTaken:
    seat: int
    action: common.Action
    timeout: bool
    stack: int
    pots: tuple[common.Pot, ...] = ()


@dataclass(frozen=True, slots=True)
class DrawTaken:
    seat: int
    discarded: tuple[str, ...]
    received: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Turn:
    """The seat must act: only that seat is told (its ``YourTurn``)."""

    seat: int
    action_seq: int
    legal: common.LegalActions
    deadline_unix_ms: int


@dataclass(frozen=True, slots=True)
class Shown:
    seat: int
    cards: tuple[str, ...]
    high: str
    low: str
    mucked: bool


@dataclass(frozen=True, slots=True)
class Showdown:
    hands: tuple[Shown, ...]  # show order (S12), mucked hands included


@dataclass(frozen=True, slots=True)
class FinalSeat:
    seat: int
    player_id: str
    stack: int


@dataclass(frozen=True, slots=True)
class HandFinished:
    awards: tuple[common.Award, ...]
    seats: tuple[FinalSeat, ...]
    uncalled_seat: int | None
    uncalled_amount: int
    voided: bool


Fact = (
    HandStarted | Dealt | StreetStarted | ActionTaken | DrawTaken | Turn | Showdown | HandFinished
)


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: a seat (or SPECTATOR), and whether the hand is over and the
    viewer took part in it (S12: then called hands that were mucked are shown)."""

    seat: int = SPECTATOR
    participant_after_hand: bool = False


def private_to(fact: Fact) -> int | None:
    """The one seat that sees this fact differently from everyone else (its own
    down cards, its draw, its turn), or None when all viewers see the same event.
    The table builds each event once for the seat and once for everyone else."""
    if isinstance(fact, Dealt):
        return None if fact.up or fact.community_card else fact.seat
    if isinstance(fact, DrawTaken | Turn):
        return fact.seat
    return None


def shared(fact: Fact) -> bool:
    """False for facts whose views differ by more than one seat (a showdown with a
    mucked hand: each owner sees their own): build those per viewer."""
    return not (isinstance(fact, Showdown) and any(h.mucked for h in fact.hands))


def _seat_info(s: SeatInfo) -> pb.SeatView:
    return pb.SeatView(seat=s.seat, player_id=s.player_id, name=s.name, stack=s.stack, in_hand=True)


def _dealt(fact: Dealt, viewer: Viewer) -> pb.CardsDealt:
    if fact.community_card:
        return pb.CardsDealt(community_card=fact.community_card, up=True)
    if fact.up or fact.seat == viewer.seat:
        return pb.CardsDealt(seat=fact.seat, cards=fact.cards, up=fact.up)
    return pb.CardsDealt(seat=fact.seat, up=False, hidden_count=len(fact.cards))


def _action(fact: ActionTaken) -> pb.ActionTaken:
    return pb.ActionTaken(
        seat=fact.seat, action=fact.action, timeout=fact.timeout, stack=fact.stack, pots=fact.pots
    )


def _draw(fact: DrawTaken, viewer: Viewer) -> pb.DrawTaken:
    if fact.seat == viewer.seat:
        return pb.DrawTaken(
            seat=fact.seat,
            count=len(fact.discarded),
            discarded=fact.discarded,
            received=fact.received,
        )
    return pb.DrawTaken(seat=fact.seat, count=len(fact.discarded))


def _showdown(fact: Showdown, viewer: Viewer) -> pb.ShowdownEvent:
    hands = []
    for h in fact.hands:
        if h.mucked and h.seat != viewer.seat and not viewer.participant_after_hand:
            hands.append(pb.ShownHand(seat=h.seat, mucked=True))
        else:
            hands.append(
                pb.ShownHand(seat=h.seat, cards=h.cards, high=h.high, low=h.low, mucked=h.mucked)
            )
    return pb.ShowdownEvent(hands=hands)


def _finished(fact: HandFinished) -> pb.HandFinished:
    msg = pb.HandFinished(
        awards=fact.awards,
        seats=[pb.SeatView(seat=s.seat, player_id=s.player_id, stack=s.stack) for s in fact.seats],
        uncalled_amount=fact.uncalled_amount,
        voided=fact.voided,
    )
    if fact.uncalled_seat is not None:
        msg.uncalled_seat = fact.uncalled_seat
    return msg


def view(fact: Fact, viewer: Viewer, *, seq: int, table_id: str, hand_id: str) -> pb.TableEvent:
    """The event ``viewer`` receives for ``fact``, the hand's ``seq``-th."""
    event = pb.TableEvent(event_seq=seq, table_id=table_id, hand_id=hand_id)
    if isinstance(fact, Dealt):
        event.cards_dealt.CopyFrom(_dealt(fact, viewer))
    elif isinstance(fact, ActionTaken):
        event.action_taken.CopyFrom(_action(fact))
    elif isinstance(fact, Turn):
        if fact.seat == viewer.seat:
            event.your_turn.CopyFrom(
                pb.YourTurn(
                    action_seq=fact.action_seq,
                    legal=fact.legal,
                    deadline_unix_ms=fact.deadline_unix_ms,
                )
            )
        else:
            event.to_act.CopyFrom(
                pb.ToAct(
                    seat=fact.seat,
                    action_seq=fact.action_seq,
                    deadline_unix_ms=fact.deadline_unix_ms,
                )
            )
    elif isinstance(fact, DrawTaken):
        event.draw_taken.CopyFrom(_draw(fact, viewer))
    elif isinstance(fact, StreetStarted):
        event.street_started.CopyFrom(pb.StreetStarted(street=fact.street, name=fact.name))
    elif isinstance(fact, HandStarted):
        event.hand_started.CopyFrom(
            pb.HandStarted(
                seats=[_seat_info(s) for s in fact.seats],
                button_seat=fact.button_seat,
                button_dead=fact.button_dead,
                posts=[pb.Post(seat=p.seat, amount=p.amount, kind=p.kind) for p in fact.posts],
                deck_commitment=fact.commitment,
                card_commitment=fact.card_commitment,
            )
        )
    elif isinstance(fact, Showdown):
        event.showdown.CopyFrom(_showdown(fact, viewer))
    else:
        event.hand_finished.CopyFrom(_finished(fact))
    return event


def views(
    facts: Sequence[Fact], viewer: Viewer, *, table_id: str, hand_id: str
) -> list[pb.TableEvent]:
    """A whole hand as ``viewer`` may see it (hand histories), numbered 1, 2, ..."""
    return [
        view(fact, viewer, seq=k, table_id=table_id, hand_id=hand_id)
        for k, fact in enumerate(facts, 1)
    ]


@dataclass(slots=True)
class PlayerCards:
    """One player's cards during the hand, as the runner holds them."""

    down: list[str] = field(default_factory=list)
    up: list[str] = field(default_factory=list)

    def all(self) -> list[str]:
        return [*self.down, *self.up]
