"""A viewer's deck proof on the wire (``poker.table.v1.DeckProof``, G4a), both ends.

The table builds each proof from the hand's archived facts, its deck reveal and the
viewer's own hand-history view (``services/table/history.py``); a client checks it
against the ``card_commitment`` it got in ``HandStarted`` and against the hand as it
saw it.  This module is the bridge between those messages and the pure scheme
(``poker_rules.card_commitment``):

- ``deal_rules``: the public facts that fix where each card of the deal came from
  (game, seats in dealing order, burns, river procedure);
- ``view_of``: a viewer's deliveries and showdown hands, read from its events (a
  ``HandHistory``'s or a stream's), cards only where that viewer saw them;
- ``proof_message`` / ``card_proof``: the scheme's entries to the message and back;
- ``check_proof``: the whole check, as ``clients/web/src/deckproof.ts`` makes it in
  the browser.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from poker.common.v1 import common_pb2 as common
from poker.table.v1 import table_pb2 as tpb
from poker_rules.card_commitment import (
    CardProof,
    DealRules,
    Delivery,
    Entry,
    Opened,
    Sealed,
    Verdict,
    verify_deal,
)

from .enums import GAMES, RIVER_SHORTAGES

Shown = list[tuple[int, tuple[str, ...]]]


def deal_rules(config: common.GameConfig, started: tpb.HandStarted) -> DealRules:
    """What fixes the positions of the hand's deal, from its configuration and its
    ``HandStarted`` (the seats in dealing order, G5).

    >>> rules = deal_rules(common.GameConfig(game=common.GAME_DRAW_7A),
    ...     tpb.HandStarted(seats=[tpb.SeatView(seat=4), tpb.SeatView(seat=2)]))
    >>> rules.game.value, rules.players, rules.burn_before_draw, len(rules.deck)
    ('draw_7a', (4, 2), True, 32)
    """
    game = GAMES.get(config.game)
    if game is None:
        raise ValueError(f"the hand's game {config.game} is not one of the room's")
    return DealRules(
        game=game,
        players=tuple(s.seat for s in started.seats),
        burn_before_third=config.burn_before_third,
        burn_before_draw=(not config.HasField("burn_before_draw")) or config.burn_before_draw,
        river_shortage=RIVER_SHORTAGES.get(config.river_shortage, RIVER_SHORTAGES[0]),
    )


def _flat(events: Iterable[tpb.TableEvent]) -> Iterable[tpb.TableEvent]:
    for event in events:
        if event.WhichOneof("event") == "batch":
            yield from _flat(event.batch.events)
        else:
            yield event


def view_of(
    events: Iterable[tpb.TableEvent],
) -> tuple[tpb.HandStarted | None, list[Delivery], Shown]:
    """One hand as a viewer's events show it: its ``HandStarted``, every delivery
    (cards where the viewer saw them, else only how many) and the showdown hands
    with cards (a mucked hand it may not see has none).

    >>> events = [
    ...     tpb.TableEvent(hand_started=tpb.HandStarted(seats=[tpb.SeatView(seat=1)])),
    ...     tpb.TableEvent(street_started=tpb.StreetStarted(street=0, name="third")),
    ...     tpb.TableEvent(cards_dealt=tpb.CardsDealt(seat=1, cards=["As", "Kd"])),
    ...     tpb.TableEvent(cards_dealt=tpb.CardsDealt(seat=2, hidden_count=2)),
    ...     tpb.TableEvent(showdown=tpb.ShowdownEvent(hands=[tpb.ShownHand(seat=2, mucked=True)])),
    ... ]
    >>> started, seen, shown = view_of(events)
    >>> [(d.seat, d.street, d.count, d.cards) for d in seen], shown
    ([(1, 'third', 2, ('As', 'Kd')), (2, 'third', 2, ())], [])
    """
    started: tpb.HandStarted | None = None
    street = ""
    seen: list[Delivery] = []
    shown: Shown = []
    for event in _flat(events):
        kind = event.WhichOneof("event")
        if kind == "hand_started":
            started = event.hand_started
        elif kind == "street_started":
            street = event.street_started.name
        elif kind == "cards_dealt":
            dealt = event.cards_dealt
            if dealt.community_card:
                seen.append(Delivery(0, street, 1, (dealt.community_card,), up=True))
            else:
                count = len(dealt.cards) or dealt.hidden_count
                seen.append(Delivery(dealt.seat, street, count, tuple(dealt.cards), up=dealt.up))
        elif kind == "draw_taken":
            draw = event.draw_taken
            seen.append(Delivery(draw.seat, street, draw.count, tuple(draw.received)))
        elif kind == "showdown":
            shown.extend((h.seat, tuple(h.cards)) for h in event.showdown.hands if h.cards)
    return started, seen, shown


def proof_message(
    table_id: str,
    hand_id: str,
    scheme: str,
    commitment: bytes,
    entries: Sequence[Entry],
    reshuffled: Sequence[str],
) -> tpb.DeckProof:
    """The ``DeckProof`` of the scheme's entries.

    >>> proof = proof_message("t-1", "h-1", "cardroom-cards-v1", bytes(32),
    ...     [Opened(0, "As", bytes(32)), Sealed(1, bytes(32))], ["Kd"])
    >>> proof.positions[0].card, len(proof.positions[1].leaf), list(proof.reshuffled)
    ('As', 32, ['Kd'])
    """
    message = tpb.DeckProof(
        table_id=table_id,
        hand_id=hand_id,
        scheme=scheme,
        card_commitment=commitment,
        reshuffled=reshuffled,
    )
    for entry in entries:
        if isinstance(entry, Opened):
            message.positions.add(position=entry.position, card=entry.card, nonce=entry.nonce)
        else:
            message.positions.add(position=entry.position, leaf=entry.leaf)
    return message


def card_proof(message: tpb.DeckProof) -> CardProof:
    """The scheme's view of a ``DeckProof``: a position with a card is opened, any
    other sealed.

    >>> proof = card_proof(tpb.DeckProof(scheme="cardroom-cards-v1", positions=[
    ...     tpb.DeckProofPosition(position=0, card="As", nonce=bytes(32)),
    ...     tpb.DeckProofPosition(position=1, leaf=bytes(32))]))
    >>> [type(e).__name__ for e in proof.entries]
    ['Opened', 'Sealed']
    """
    entries: list[Entry] = [
        Opened(p.position, p.card, p.nonce) if p.card else Sealed(p.position, p.leaf)
        for p in message.positions
    ]
    return CardProof(
        message.scheme, message.card_commitment, tuple(entries), tuple(message.reshuffled)
    )


def check_proof(
    proof: tpb.DeckProof, history: tpb.HandHistory, published: bytes | None = None
) -> Verdict:
    """A viewer's whole check of one hand: ``proof`` against the card commitment
    ``published`` in the ``HandStarted`` it received live (default: the one in
    ``history``) and against the hand as ``history`` (its own view) shows it.

    >>> check_proof(tpb.DeckProof(), tpb.HandHistory()).problems
    ('the hand history has no HandStarted',)
    """
    started, seen, shown = view_of(history.events)
    if started is None:
        return Verdict(("the hand history has no HandStarted",))
    if published is None:
        published = started.card_commitment
    if not published:
        return Verdict(("no card commitment was published when the hand started",))
    if started.card_commitment != published:
        return Verdict(("the hand history carries another card commitment than HandStarted",))
    try:
        rules = deal_rules(history.config, started)
    except ValueError as error:
        return Verdict((str(error),))
    if proof.hand_id and proof.hand_id != history.hand_id:
        return Verdict((f"the proof is of hand {proof.hand_id}, not {history.hand_id}",))
    return verify_deal(published, card_proof(proof), rules, seen, shown)


__all__ = ["card_proof", "check_proof", "deal_rules", "proof_message", "view_of"]
