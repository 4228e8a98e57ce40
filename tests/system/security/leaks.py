"""Who may see which card: the truth of a hand from the auditor's reveal, and a
scanner that reads every string of every protobuf message a viewer received.

``HandTruth`` is built from ``GetDeckReveal`` (the deck order and the dealer's log
of every deal, river and draw, burns included) and the public record of the hand
(who was dealt in, who folded before which street, who showed and who mucked).
From the log alone it knows exactly which card went where:

- stud: the first deal is two down cards then the door card to each seat in
  dealing order; each later street deals one card to each seat still in (upcards
  on fourth..sixth, down cards or the community card on seventh, S4, S11);
- 7-A draw: five cards each, one at a time (D4); a burn; each draw replaces the
  discards of the seat that held them (D6), reshuffles included.

Then a card may be in a message for a viewer (docs/rules.md G4, S12) when it is

- an upcard or the community card (everyone);
- a card the viewer's own seat held face down, at any time of the hand;
- in a hand shown at the showdown: on a live stream from the showdown on, and in
  every hand history;
- in a called hand that was mucked: in the hand history of the hand's
  participants only (S12), never live;

and never otherwise: other seats' down cards, folded hands, burned cards and the
undealt stub are in no message at all.  ``Scan`` walks every string field of every
message recursively and checks every card-looking token ("As", "Td") against this,
and every message's bytes against each hand's salt and reshuffle seed.
"""

from __future__ import annotations

import base64
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from poker.common.v1 import common_pb2 as common
from poker.dealer.v1 import dealer_pb2 as dpb
from poker.table.v1 import table_pb2 as pb
from services.dealer.audit import audit_reveal

from .room import events_of

CARD = re.compile(r"(?<![0-9A-Za-z])([2-9TJQKA][cdhs])(?![0-9A-Za-z])")
PHH_RUN = re.compile(r"(?<![0-9A-Za-z?])((?:[2-9TJQKA][cdhs]|\?\?)+)(?![0-9A-Za-z?])")
SECRET_TEXT = re.compile(r"[0-9a-f]{64}|[A-Za-z0-9+/_-]{43}=")  # 32 bytes as hex or base64


def values_in(msg: Message) -> Iterator[str | bytes]:
    """Every string and bytes value in ``msg``, recursively (repeated fields too)."""
    for fd, value in msg.ListFields():
        values = value if fd.is_repeated else [value]
        if fd.type == FieldDescriptor.TYPE_MESSAGE:
            for item in values:
                yield from values_in(item)
        elif fd.type in (FieldDescriptor.TYPE_STRING, FieldDescriptor.TYPE_BYTES):
            yield from values


def phh_cards(text: str) -> list[str]:
    """The cards in PHH text (HandHistory.phh), which writes them without separators
    (``d dh p1 As7c??``): every run of cards split in two-character cards, ``??``
    (unknown) left out."""
    return [
        run[k : k + 2]
        for run in PHH_RUN.findall(text)
        for k in range(0, len(run), 2)
        if run[k : k + 2] != "??"
    ]


def cards_in(msg: Message) -> list[str]:
    """Every card-looking token in every string of ``msg``."""
    return [m for text in values_in(msg) if isinstance(text, str) for m in CARD.findall(text)]


def audit(reveal: pb.DeckReveal) -> list[str]:
    return audit_reveal(reveal)


def first(events: Iterable[pb.TableEvent], kind: str) -> pb.TableEvent | None:
    return next((e for e in events if e.WhichOneof("event") == kind), None)


@dataclass
class HandTruth:
    """Where every card of one hand went (see the module docstring)."""

    hand_id: str
    game: common.Game.ValueType
    seat_of: dict[str, int]  # player id -> seat, players dealt in
    order: list[int]  # seats in dealing order
    down: dict[int, list[str]]  # final down cards per seat
    up: dict[int, list[str]]  # upcards per seat, in dealing order
    hidden: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    public: set[str] = field(default_factory=set)
    community: str = ""
    shown: set[str] = field(default_factory=set)
    mucked: set[str] = field(default_factory=set)
    mucked_seats: set[int] = field(default_factory=set)
    shown_seats: set[int] = field(default_factory=set)
    burned: set[str] = field(default_factory=set)  # burned and never dealt
    undealt: set[str] = field(default_factory=set)
    folded: set[int] = field(default_factory=set)
    discards: int = 0
    river: int = 0  # the dealer's RiverOutcome on seventh street (S11)
    street_of: dict[str, int] = field(default_factory=dict)  # first dealt on this street
    commitment: bytes = b""
    secrets: tuple[bytes, bytes] = (b"", b"")

    def final(self, seat: int) -> list[str]:
        cards = [*self.down[seat], *self.up[seat]]
        return [*cards, self.community] if self.community else cards

    def may_see(self, card: str, seat: int, *, history: bool, after_showdown: bool) -> bool:
        """Whether a viewer dealt in at ``seat`` (0: not dealt in, or a spectator)
        may find ``card`` in a message about this hand."""
        if card in self.public:
            return True
        if seat and seat in self.hidden.get(card, ()):
            return True
        if card in self.shown and (history or after_showdown):
            return True
        return card in self.mucked and history and bool(seat)

    def seat_may_hold(self, seat: int) -> set[str]:
        return {c for c, seats in self.hidden.items() if seat in seats}


def hand_truth(reveal: pb.DeckReveal, public: pb.HandHistory) -> HandTruth:
    """The truth of one hand from its reveal and its public history."""
    events = list(public.events)
    started = first(events, "hand_started")
    assert started is not None, f"{public.hand_id}: no HandStarted in the public history"
    order = [s.seat for s in started.hand_started.seats]
    n = len(order)
    truth = HandTruth(
        hand_id=public.hand_id,
        game=public.config.game,
        seat_of={s.player_id: s.seat for s in started.hand_started.seats},
        order=order,
        down={s: [] for s in order},
        up={s: [] for s in order},
        commitment=reveal.commitment,
        secrets=(reveal.salt, reveal.reshuffle_seed),
    )
    ops = list(reveal.log)
    burned: set[str] = set()
    for op in ops:
        burned.update(op.burned)

    given: set[str] = set()  # cards some player got (or the community card)

    def hold(seat: int, card: str) -> None:
        truth.down[seat].append(card)
        truth.hidden[card].add(seat)
        given.add(card)

    def show(seat: int, card: str) -> None:
        truth.up[seat].append(card)
        truth.public.add(card)
        given.add(card)

    draw_game = public.config.game == common.GAME_DRAW_7A
    for k, op in enumerate(ops):
        street = min(k, 1) if draw_game else k  # stud: one operation per street
        for card in [*op.cards, op.community_card]:
            if card:
                truth.street_of.setdefault(card, street)
    first_op = ops[0]
    cards = list(first_op.cards)
    if public.config.game == common.GAME_DRAW_7A:
        assert first_op.deal.count == 5 * n, first_op
        for i, seat in enumerate(order):
            for k in range(5):
                hold(seat, cards[i + k * n])
        for op in ops[1:]:
            if op.WhichOneof("op") == "deal":
                assert op.deal.count == 0 and not op.cards, f"a draw hand deals only burns: {op}"
                continue
            assert op.WhichOneof("op") == "draw", op
            discards = list(op.draw.discards)
            owners = [s for s in order if set(discards) <= set(truth.down[s])]
            assert len(owners) == 1, f"{public.hand_id}: who discarded {discards}? {owners}"
            seat = owners[0]
            truth.discards += len(discards)
            for old, new in zip(discards, op.cards, strict=True):
                truth.down[seat][truth.down[seat].index(old)] = new
                truth.hidden[new].add(seat)
                given.add(new)
    else:
        assert first_op.deal.count == 3 * n, first_op
        for i, seat in enumerate(order):
            hold(seat, cards[i])
            hold(seat, cards[n + i])
            show(seat, cards[2 * n + i])
        later = iter(enumerate(ops[1:], 1))
        folded: set[int] = set()
        # A street may be dealt ahead, at a turn that may close the round, for every
        # player still in: those still in when it is dealt get its first cards in
        # dealing order (S4), and the next operation puts the others back first.
        owed = 0
        for event in events:
            kind = event.WhichOneof("event")
            if kind == "action_taken" and event.action_taken.action.kind == common.ACTION_KIND_FOLD:
                folded.add(event.action_taken.seat)
            elif kind == "street_started" and event.street_started.street >= 1:
                k, op = next(later)
                assert put_back(op) == owed, f"{public.hand_id}: {owed} unused cards, then {op}"
                active = [s for s in order if s not in folded]
                owed = 0
                if op.WhichOneof("op") == "river":
                    truth.river = op.river_outcome
                if op.community_card:
                    truth.community = op.community_card
                    truth.public.add(op.community_card)
                    given.add(op.community_card)
                    continue
                deal = hold if op.WhichOneof("op") == "river" else show
                cards = list(op.cards)
                if op.WhichOneof("op") == "deal":
                    owed = len(cards) - len(active)
                    cards = cards[: len(active)]
                for seat, card in zip(active, cards, strict=True):
                    deal(seat, card)
                    truth.street_of[card] = k
        rest = [op for _, op in later]
        # Dealt ahead for a street that never came (the hand ended first).
        assert len(rest) <= 1 and all(
            op.WhichOneof("op") == "deal" and put_back(op) == owed for op in rest
        ), f"{public.hand_id}: dealer operations left over: {rest}"
    for event in events:
        taken = event.action_taken if event.HasField("action_taken") else None
        if taken is not None and taken.action.kind == common.ACTION_KIND_FOLD:
            truth.folded.add(taken.seat)
    returned = returned_cards(ops)
    if public.config.game != common.GAME_DRAW_7A:
        assert not returned, f"{public.hand_id}: cards dealt twice in stud: {returned}"
    truth.burned = burned - given
    truth.undealt = set(reveal.order) - given - burned
    showdown = first(events, "showdown")
    if showdown is not None:
        for hand in showdown.showdown.hands:
            cards = truth.final(hand.seat)
            if hand.mucked:
                truth.mucked.update(cards)
                truth.mucked_seats.add(hand.seat)
            else:
                truth.shown.update(cards)
                truth.shown_seats.add(hand.seat)
    return truth


def put_back(op: dpb.DeckOperation) -> int:
    """An operation's ``return_unused``: how many of the previous deal's last cards
    went back on top of the stub before it."""
    kind = op.WhichOneof("op")
    if kind == "deal":
        return op.deal.return_unused
    if kind == "river":
        return op.river.return_unused
    return 0


def returned_cards(ops: list[dpb.DeckOperation]) -> set[str]:
    """Cards dealt more than once in a hand.  A card still held (a folded hand's
    included) is never dealt again (G4); in 7-A draw a discard may be, to another
    player (D6: not the current player's own discards)."""
    live: set[str] = set()
    discarded: set[str] = set()
    again: set[str] = set()
    for k, op in enumerate(ops):
        unused = put_back(op)
        if unused:  # the last cards of the previous deal, given to nobody, go back
            live -= set(ops[k - 1].cards[len(ops[k - 1].cards) - unused :])
        if op.WhichOneof("op") == "draw":
            own = set(op.draw.discards) & set(op.cards)
            assert not own, f"a player got their own discards {own} back (D6)"
            live -= set(op.draw.discards)
            discarded |= set(op.draw.discards)
        for card in [*op.cards, *([op.community_card] if op.community_card else [])]:
            assert card not in live, f"{card} dealt while still held"
            if card in discarded:
                again.add(card)
            live.add(card)
    return again


@dataclass
class Violation:
    where: str
    hand_id: str
    card: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.card} in hand {self.hand_id}: {self.why}"


class Scan:
    """Checks messages against the truths; collects violations and counts."""

    def __init__(self, truths: dict[str, HandTruth]) -> None:
        self.truths = truths
        self.messages = 0
        self.cards = 0
        self.violations: list[Violation] = []
        secrets = {s for t in truths.values() for s in t.secrets if s}
        self._secrets: set[str | bytes] = {
            *secrets,
            *(s.hex() for s in secrets),
            *(base64.b64encode(s).decode() for s in secrets),
            *(base64.urlsafe_b64encode(s).decode() for s in secrets),
        }

    def _fail(self, where: str, hand_id: str, card: str, why: str) -> None:
        self.violations.append(Violation(where, hand_id, card, why))

    def _secret_bytes(
        self, msg: Message, values: list[str | bytes], hand_id: str, where: str
    ) -> None:
        """No salt or reshuffle seed (G4), raw, hex or base64, in any string or
        bytes field; and none of this hand's anywhere in the message's bytes."""
        for value in values:
            if value in self._secrets or any(
                token in self._secrets for token in SECRET_TEXT.findall(str(value))
            ):
                self._fail(where, hand_id, "", "a deck salt or reshuffle seed is in the message")
        truth = self.truths.get(hand_id)
        if truth is not None:
            data = msg.SerializeToString()
            for secret in truth.secrets:
                if secret and (secret in data or secret.hex().encode() in data):
                    self._fail(where, hand_id, "", "this hand's salt or seed is in the message")

    def _check(
        self,
        msg: Message,
        hand_id: str,
        player_id: str | None,
        *,
        where: str,
        history: bool,
        after_showdown: bool,
        street: int | None = None,
    ) -> None:
        """``street``: the latest street this viewer was told of (None: the hand is
        over); a card dealt on a later street must not be known yet (G4)."""
        values = list(values_in(msg))
        self._secret_bytes(msg, values, hand_id, where)
        found = [m for text in values if isinstance(text, str) for m in CARD.findall(text)]
        # HandHistory.phh: cards run together, which CARD (one card between
        # separators) does not see.
        found += [
            card
            for text in values
            if isinstance(text, str) and text.startswith("variant = ")
            for card in phh_cards(text)
        ]
        self.cards += len(found)
        if not found:
            return
        truth = self.truths.get(hand_id)
        if truth is None:
            for card in found:
                self._fail(where, hand_id, card, "a card in a message about no known hand")
            return
        seat = truth.seat_of.get(player_id, 0) if player_id else 0
        for card in found:
            dealt_on = truth.street_of.get(card, 0)
            if street is not None and dealt_on > street:
                self._fail(where, hand_id, card, f"dealt on street {dealt_on}, sent on {street}")
            if truth.may_see(card, seat, history=history, after_showdown=after_showdown):
                continue
            if card in truth.burned:
                why = "a burned card (G4)"
            elif card in truth.undealt:
                why = "an undealt card of the deck (G4)"
            elif card in truth.mucked:
                why = "a mucked hand outside the participants' history (S12)"
            elif card in truth.hidden:
                owners = sorted(truth.hidden[card])
                why = f"seat {owners}'s down card, seen by seat {seat} (G4)"
            else:
                why = "a card not in this hand's deck"
            self._fail(where, hand_id, card, why)

    def stream(self, label: str, player_id: str | None, messages: list[pb.TableEvent]) -> None:
        """A whole stream, in order: shown hands count from the stream's showdown on."""
        seen_showdown: set[str] = set()
        street: dict[str, int] = {}  # the latest StreetStarted of each hand on this stream
        for k, message in enumerate(messages):
            self.messages += 1
            where = f"{label} message {k}"
            for event in events_of(message):
                hand_id = event.snapshot.hand_id if event.HasField("snapshot") else event.hand_id
                if event.HasField("showdown"):
                    seen_showdown.add(hand_id)
                if event.HasField("street_started"):
                    street[hand_id] = event.street_started.street
                elif event.HasField("snapshot"):
                    street[hand_id] = event.snapshot.street
                self._check(
                    event,
                    hand_id,
                    player_id,
                    where=where,
                    history=False,
                    after_showdown=hand_id in seen_showdown,
                    street=street.get(hand_id, -1),
                )

    def snapshot(self, label: str, player_id: str, snap: pb.Snapshot) -> None:
        self.messages += 1
        self._check(
            snap,
            snap.hand_id,
            player_id,
            where=label,
            history=False,
            after_showdown=False,
            street=snap.street,
        )

    def history(self, label: str, player_id: str | None, hist: pb.HandHistory) -> None:
        self.messages += 1
        self._check(hist, hist.hand_id, player_id, where=label, history=True, after_showdown=True)

    def proof(self, label: str, player_id: str | None, proof: pb.DeckProof) -> None:
        """A deck proof (G4a) names the cards it opens and those dealt after a
        reshuffle: each must be one the viewer's history may show."""
        self.messages += 1
        self._check(proof, proof.hand_id, player_id, where=label, history=True, after_showdown=True)


def attribution(event: pb.TableEvent, truth: HandTruth, seat: int) -> list[str]:
    """Cards put on the right seat: what a message says a seat holds is what the
    reveal says it holds (``seat``: the viewer's)."""
    problems: list[str] = []
    kind = event.WhichOneof("event")
    if kind == "cards_dealt":
        d = event.cards_dealt
        if d.community_card:
            if d.community_card != truth.community:
                problems.append(f"community card {d.community_card}, dealt {truth.community!r}")
        elif d.up:
            if not set(d.cards) <= set(truth.up[d.seat]):
                problems.append(f"upcards {list(d.cards)} for seat {d.seat}: {truth.up[d.seat]}")
        elif d.cards:
            if d.seat != seat or not set(d.cards) <= truth.seat_may_hold(d.seat):
                problems.append(f"down cards {list(d.cards)} of seat {d.seat} to seat {seat}")
        elif d.hidden_count <= 0:
            problems.append(f"a down-card deal to seat {d.seat} with neither cards nor a count")
    elif kind == "draw_taken":
        drew = event.draw_taken
        if (drew.discarded or drew.received) and (
            drew.seat != seat or not set(drew.received) <= truth.seat_may_hold(drew.seat)
        ):
            problems.append(f"the draw of seat {drew.seat} shown to seat {seat}")
        if drew.count != len(drew.discarded) and drew.seat == seat:
            problems.append(
                f"seat {drew.seat} drew {drew.count} but discarded {list(drew.discarded)}"
            )
    elif kind == "showdown":
        for hand in event.showdown.hands:
            if hand.cards and sorted(hand.cards) != sorted(truth.final(hand.seat)):
                problems.append(
                    f"seat {hand.seat} shows {list(hand.cards)}: holds {truth.final(hand.seat)}"
                )
    elif kind == "snapshot":
        for view in event.snapshot.seats:
            ups = list(view.upcards)
            # A seat not dealt in (seated, waiting: defect 13.8) must show no upcard.
            if ups != truth.up.get(view.seat, [])[: len(ups)]:
                problems.append(f"snapshot upcards of seat {view.seat}: {ups}")
            if view.own_cards and (
                view.seat != seat or not set(view.own_cards) <= truth.seat_may_hold(view.seat)
            ):
                problems.append(f"snapshot own_cards of seat {view.seat} to seat {seat}")
    return problems
