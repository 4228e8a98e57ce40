# ruff: noqa: N802  (test names end with the docs/rules.md rule ID, e.g. __S11)
"""The dealer service over real gRPC: commitments, streets, S11, D6, presets, errors."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from poker.common.v1 import common_pb2 as common
from poker.common.v1.batch_pb2 import CallBatch
from poker.dealer.v1 import dealer_pb2 as pb
from poker_rules.card_commitment import commit_cards
from poker_rules.cards import card_str, parse_cards, short_deck, standard_deck
from poker_rules.commitment import verify
from services.dealer.audit import audit_reveal
from tests.support.batching import call, response

from .conftest import AuditingDealer

STANDARD = [card_str(c) for c in standard_deck()]  # 2c 2d 2h 2s 3c ... As


def preset(first: str = "", cards: list[str] | None = None) -> list[str]:
    """A full deck order: the ``first`` cards in that order, then the rest in order."""
    deck = STANDARD if cards is None else cards
    head = [card_str(c) for c in parse_cards(first)] if first else []
    return head + [c for c in deck if c not in head]


def code_of(call: Any) -> grpc.StatusCode:
    with pytest.raises(grpc.RpcError) as info:
        call()
    error = info.value
    assert isinstance(error, grpc.Call)
    assert error.details(), "every refusal says why"
    return error.code()


# ---------------------------------------------------------------- commitment (G4)


def test_dealer_commitment_verifies_against_reveal__G4(dealer: AuditingDealer) -> None:
    opened = dealer.open(game=common.GAME_STUD, players=4, hand_id="h-1", table_id="t-1")
    assert opened.scheme == "cardroom-deck-v1" and len(opened.commitment) == 32
    assert opened.cards == 52 and not opened.preset
    dealt = dealer.stub.Deal(pb.DealRequest(deck_id=opened.deck_id, count=12))
    assert len(dealt.cards) == 12 and dealt.remaining == 40
    reveal = dealer.close(opened.deck_id)  # audits: commitment and replay
    assert reveal.commitment == opened.commitment and reveal.hand_id == "h-1"
    assert list(reveal.order[:12]) == list(dealt.cards)  # first dealt first
    assert sorted(reveal.order) == sorted(STANDARD)
    order = parse_cards(list(reveal.order))
    assert verify(opened.commitment, order, reveal.salt, reveal.reshuffle_seed)
    swapped = [order[1], order[0], *order[2:]]
    assert not verify(opened.commitment, swapped, reveal.salt, reveal.reshuffle_seed)
    assert not verify(opened.commitment, order, bytes(32), reveal.reshuffle_seed)


def test_dealer_commits_card_by_card_before_the_first_card__G4a(dealer: AuditingDealer) -> None:
    """OpenDeck returns the per-card commitment beside the deck's (scheme
    cardroom-cards-v1), before any card; CloseDeck repeats it; the audit checks it
    against the revealed order and salt, and refuses a reveal where it does not
    match."""
    opened = dealer.open(game=common.GAME_DRAW_7A, players=5, hand_id="h-2")
    assert opened.card_scheme == "cardroom-cards-v1" and len(opened.card_commitment) == 32
    assert opened.card_commitment != opened.commitment
    reveal = dealer.close(opened.deck_id)  # audited (AuditingDealer)
    assert reveal.card_commitment == opened.card_commitment
    assert commit_cards(list(reveal.order), reveal.salt) == opened.card_commitment
    assert len(reveal.order) == 36  # G1: the sixes with five players
    tampered = pb.CloseDeckResponse()
    tampered.CopyFrom(reveal)
    tampered.card_commitment = commit_cards(list(reveal.order), bytes(32))
    assert audit_reveal(tampered) == [
        "the per-card commitment does not match the revealed order and salt (G4a)"
    ]


def test_dealer_every_hand_has_a_fresh_shuffle__G4(dealer: AuditingDealer) -> None:
    first = dealer.open(game=common.GAME_STUD, players=2)
    second = dealer.open(game=common.GAME_STUD, players=2)
    assert first.commitment != second.commitment
    a, b = dealer.close(first.deck_id), dealer.close(second.deck_id)
    assert list(a.order) != list(b.order) and a.salt != b.salt


def test_dealer_closed_deck_is_gone(dealer: AuditingDealer) -> None:
    opened = dealer.open(game=common.GAME_STUD_HILO, players=3)
    dealer.close(opened.deck_id)
    request = pb.DealRequest(deck_id=opened.deck_id, count=1)
    assert code_of(lambda: dealer.stub.Deal(request)) == grpc.StatusCode.NOT_FOUND
    close = pb.CloseDeckRequest(deck_id=opened.deck_id)
    assert code_of(lambda: dealer.stub.CloseDeck(close)) == grpc.StatusCode.NOT_FOUND


# ---------------------------------------------------------------- decks (G1)


def test_dealer_draw_deck_adds_sixes_with_five_players__G1(dealer: AuditingDealer) -> None:
    four = dealer.open(game=common.GAME_DRAW_7A, players=4)
    five = dealer.open(game=common.GAME_DRAW_7A, players=5)
    assert (four.cards, five.cards) == (32, 36)
    assert sorted(dealer.close(five.deck_id).order) == sorted(
        card_str(c) for c in short_deck(with_sixes=True)
    )


# ---------------------------------------------------------------- presets


def test_dealer_refuses_preset_decks_without_the_flag(strict_dealer: AuditingDealer) -> None:
    request = pb.OpenDeckRequest(game=common.GAME_STUD, players=2, preset_order=preset())
    code = code_of(lambda: strict_dealer.stub.OpenDeck(request))
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert strict_dealer.open(game=common.GAME_STUD, players=2).cards == 52  # shuffles still work


def test_dealer_deals_a_preset_deck_in_order_with_the_flag(dealer: AuditingDealer) -> None:
    order = preset("As Ks Qs Js Ts 9s")
    opened = dealer.open(game=common.GAME_STUD, players=2, preset_order=order)
    assert opened.preset
    first = dealer.stub.Deal(pb.DealRequest(deck_id=opened.deck_id, count=2))
    assert list(first.cards) == ["As", "Ks"]
    second = dealer.stub.Deal(pb.DealRequest(deck_id=opened.deck_id, burn_first=True, count=2))
    assert list(second.cards) == ["Js", "Ts"]  # Qs was burned and never shown
    reveal = dealer.close(opened.deck_id)
    assert list(reveal.order) == order and reveal.preset
    assert list(reveal.log[1].burned) == ["Qs"]


# ------------------------------------------------- a street dealt ahead (S4, return_unused)


def test_dealer_return_unused_deals_on_as_if_never_dealt__S4(dealer: AuditingDealer) -> None:
    """A street dealt ahead for three players, of whom one folded before it was
    dealt: the two still in keep its first two cards, the third goes back on top of
    the stub with the next deal, and every card from there is the one a deal to two
    players would have given (burn one, one card each, S4)."""
    order = preset("2c 3c 4c 5c 6c 7c 8c 9c Tc Jc Qc Kc Ac")
    opened = dealer.open(game=common.GAME_STUD, players=3, preset_order=order)
    deck_id = opened.deck_id
    dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, count=9))  # third street: 2c..Tc
    ahead = dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, burn_first=True, count=3))
    assert list(ahead.cards) == ["Qc", "Kc", "Ac"]  # Jc burned; Ac is left unused
    fifth = dealer.stub.Deal(
        pb.DealRequest(deck_id=deck_id, burn_first=True, count=2, return_unused=1)
    )
    assert list(fifth.cards) == [order[13], order[14]]  # Ac, given back, was the burn
    reveal = dealer.close(deck_id)  # the audit replays the return (AuditingDealer)
    assert list(reveal.log[2].burned) == ["Ac"]
    assert reveal.log[2].deal.return_unused == 1
    # The audit replays the return: a log that hides it does not verify.
    tampered = pb.CloseDeckResponse()
    tampered.CopyFrom(reveal)
    tampered.log[2].deal.return_unused = 0
    assert audit_reveal(tampered) != []


def test_dealer_return_unused_before_the_river__S4_S11(dealer: AuditingDealer) -> None:
    """Sixth street dealt ahead for four players, one of whom folded: the unused
    card goes back before S11 counts the stub, so seventh street is what a sixth
    street dealt to three would have led to: the returned card is its burn."""
    opened = dealer.open(game=common.GAME_STUD, players=4, preset_order=preset())
    deck_id = opened.deck_id
    dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, count=12))  # third street: 0..11
    for _ in range(3):  # fourth to sixth street for four: burns 12, 17, 22
        dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, burn_first=True, count=4))
    river = dealer.stub.DealRiver(pb.DealRiverRequest(deck_id=deck_id, players=3, return_unused=1))
    assert river.outcome == pb.RIVER_OUTCOME_NORMAL
    assert list(river.cards) == STANDARD[27:30]
    assert river.remaining == 52 - 30
    reveal = dealer.close(deck_id)
    assert list(reveal.log[-1].burned) == [STANDARD[26]]  # the card nobody got
    assert reveal.log[-1].river.return_unused == 1


def test_dealer_return_unused_refusals_change_nothing(dealer: AuditingDealer) -> None:
    """return_unused gives back only cards of the previous Deal, at most as many as
    it served; negative is malformed.  A refusal deals nothing."""
    opened = dealer.open(game=common.GAME_STUD, players=2, preset_order=preset())
    deck_id = opened.deck_id
    assert (
        code_of(lambda: dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, count=1, return_unused=1)))
        == grpc.StatusCode.FAILED_PRECONDITION
    )  # nothing dealt yet
    dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, count=2))
    for bad, code in (
        (3, grpc.StatusCode.FAILED_PRECONDITION),  # the previous deal served 2
        (-1, grpc.StatusCode.INVALID_ARGUMENT),
    ):
        request = pb.DealRequest(deck_id=deck_id, burn_first=True, count=1, return_unused=bad)
        assert code_of(lambda r=request: dealer.stub.Deal(r)) == code
    after = dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, count=1))
    assert list(after.cards) == [STANDARD[2]]  # the refusals dealt nothing
    reveal = dealer.close(deck_id)
    assert [op.deal.return_unused for op in reveal.log] == [0, 0]


# ---------------------------------------------------------------- river shortage (S11)


def _stud_to_sixth_street(dealer: AuditingDealer, players: int) -> str:
    """Open a preset stud deck and deal third to sixth street to ``players``."""
    opened = dealer.open(game=common.GAME_STUD, players=players, preset_order=preset())
    deck_id = opened.deck_id
    dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, count=3 * players))  # S4 third street
    for _ in range(3):  # fourth, fifth, sixth: burn one, one card each
        dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, burn_first=True, count=players))
    return deck_id


def test_dealer_river_community_card_eight_players__S11(dealer: AuditingDealer) -> None:
    deck_id = _stud_to_sixth_street(dealer, 8)  # 24 + 3 * (1 + 8) = 51 used: R = 1, B = 3
    river = dealer.stub.DealRiver(pb.DealRiverRequest(deck_id=deck_id, players=8))
    assert river.outcome == pb.RIVER_OUTCOME_COMMUNITY
    assert list(river.cards) == []
    # R + B = 4 < 8: burns and stub are shuffled and one card is turned up for all.
    burns_and_stub = {STANDARD[24], STANDARD[33], STANDARD[42], STANDARD[51]}
    assert river.community_card in burns_and_stub
    reveal = dealer.close(deck_id)
    assert reveal.log[-1].river_outcome == pb.RIVER_OUTCOME_COMMUNITY


def test_dealer_river_reshuffled_burns_seven_players__S11(dealer: AuditingDealer) -> None:
    deck_id = _stud_to_sixth_street(dealer, 7)  # 21 + 3 * (1 + 7) = 45 used: R = 7, B = 3
    request = pb.DealRiverRequest(
        deck_id=deck_id, players=7, procedure=common.RIVER_SHORTAGE_RESHUFFLE_BURNS
    )
    river = dealer.stub.DealRiver(request)
    assert river.outcome == pb.RIVER_OUTCOME_RESHUFFLED
    # R = 7 < N + 1 but R + B = 10 >= 7: reshuffle, one down card each, no burn.
    pool = set(STANDARD[45:]) | {STANDARD[21], STANDARD[29], STANDARD[37]}
    assert len(set(river.cards)) == 7 and set(river.cards) <= pool
    assert not river.community_card and river.remaining == 3
    reveal = dealer.close(deck_id)
    assert list(reveal.log[-1].burned) == []


def test_dealer_river_stub_first_procedure__S11(dealer: AuditingDealer) -> None:
    deck_id = _stud_to_sixth_street(dealer, 7)
    request = pb.DealRiverRequest(
        deck_id=deck_id, players=7, procedure=common.RIVER_SHORTAGE_STUB_FIRST
    )
    river = dealer.stub.DealRiver(request)
    assert river.outcome == pb.RIVER_OUTCOME_STUB_FIRST
    # Six players from the stub, keeping its last card; that card and the burns are
    # shuffled, one is burned, the seventh player gets the next.
    assert river.served_from_stub == 6 and list(river.cards[:6]) == STANDARD[45:51]
    assert river.cards[6] in {STANDARD[51], STANDARD[21], STANDARD[29], STANDARD[37]}
    dealer.close(deck_id)


def test_dealer_river_normal_when_the_stub_suffices__S11(dealer: AuditingDealer) -> None:
    deck_id = _stud_to_sixth_street(dealer, 5)  # 15 + 18 = 33 used: R = 19 >= 6
    river = dealer.stub.DealRiver(pb.DealRiverRequest(deck_id=deck_id, players=5))
    assert river.outcome == pb.RIVER_OUTCOME_NORMAL
    assert list(river.cards) == STANDARD[34:39]  # STANDARD[33] was burned
    dealer.close(deck_id)


# ---------------------------------------------------------------- draw (D6)


def test_dealer_draw_reshuffles_without_own_discards__D6(dealer: AuditingDealer) -> None:
    deck = [card_str(c) for c in short_deck(with_sixes=True)]
    opened = dealer.open(game=common.GAME_DRAW_7A, players=5, preset_order=deck)
    deck_id = opened.deck_id
    hands = dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, count=25)).cards  # D4
    dealer.stub.Deal(pb.DealRequest(deck_id=deck_id, burn_first=True, count=0))  # D6 burn
    first = hands[0:5]
    drawn = dealer.stub.Draw(pb.DrawRequest(deck_id=deck_id, discards=first))
    assert not drawn.reshuffled and list(drawn.cards) == deck[26:31] and drawn.remaining == 5
    second = hands[5:10]
    redrawn = dealer.stub.Draw(pb.DrawRequest(deck_id=deck_id, discards=second))
    # 5 > R - 1 = 4: the stub, the burn and the first player's discards are shuffled;
    # the second player's own discards are not in the new stub.
    assert redrawn.reshuffled
    pool = set(deck[31:]) | {deck[25]} | set(first)
    assert set(redrawn.cards) <= pool and not set(redrawn.cards) & set(second)
    stand_pat = dealer.stub.Draw(pb.DrawRequest(deck_id=deck_id, discards=[]))
    assert list(stand_pat.cards) == [] and not stand_pat.reshuffled
    dealer.close(deck_id)


def test_dealer_draw_refuses_cards_not_dealt__D6(dealer: AuditingDealer) -> None:
    opened = dealer.open(
        game=common.GAME_DRAW_7A,
        players=2,
        preset_order=preset(cards=[card_str(c) for c in short_deck()]),
    )
    dealer.stub.Deal(pb.DealRequest(deck_id=opened.deck_id, count=10))
    request = pb.DrawRequest(deck_id=opened.deck_id, discards=["As"])  # still in the stub
    assert code_of(lambda: dealer.stub.Draw(request)) == grpc.StatusCode.FAILED_PRECONDITION


def test_dealer_refuses_a_deal_past_the_stub(dealer: AuditingDealer) -> None:
    opened = dealer.open(game=common.GAME_STUD, players=2)
    request = pb.DealRequest(deck_id=opened.deck_id, burn_first=True, count=52)
    assert code_of(lambda: dealer.stub.Deal(request)) == grpc.StatusCode.FAILED_PRECONDITION
    assert dealer.stub.Deal(pb.DealRequest(deck_id=opened.deck_id, count=52)).remaining == 0


def test_dealer_open_deck_deals_the_first_street_in_the_same_call__S4(
    dealer: AuditingDealer,
) -> None:
    order = preset("2c 3c 4c 5c 6c 7c 8c")
    first = pb.DealRequest(burn_first=True, count=6)  # S4 with the house burn
    opened = dealer.open(game=common.GAME_STUD, players=2, preset_order=order, first_deal=first)
    assert list(opened.first_deal.cards) == order[1:7] and opened.first_deal.remaining == 45
    reveal = dealer.close(opened.deck_id)  # the audit replays it as a Deal
    assert list(reveal.log[0].burned) == ["2c"] and reveal.log[0].deal.count == 6


def test_dealer_open_deck_refuses_a_first_deal_past_the_deck(dealer: AuditingDealer) -> None:
    request = pb.OpenDeckRequest(
        game=common.GAME_STUD, players=2, first_deal=pb.DealRequest(burn_first=True, count=52)
    )
    assert code_of(lambda: dealer.stub.OpenDeck(request)) == grpc.StatusCode.FAILED_PRECONDITION
    request.first_deal.count = 53
    assert code_of(lambda: dealer.stub.OpenDeck(request)) == grpc.StatusCode.INVALID_ARGUMENT


def test_dealer_draw_burns_first_when_asked__D6(dealer: AuditingDealer) -> None:
    deck = [card_str(c) for c in short_deck()]
    opened = dealer.open(
        game=common.GAME_DRAW_7A,
        players=2,
        preset_order=deck,
        first_deal=pb.DealRequest(count=10),
    )
    hands = list(opened.first_deal.cards)
    drawn = dealer.stub.Draw(
        pb.DrawRequest(deck_id=opened.deck_id, discards=hands[:2], burn_first=True)
    )
    assert list(drawn.cards) == deck[11:13]  # deck[10] burned, never shown
    reveal = dealer.close(opened.deck_id)  # the audit replays the burn
    assert list(reveal.log[1].burned) == [deck[10]] and reveal.log[1].draw.burn_first


# ---------------------------------------------------------------- malformed requests

LONG = "x" * 65
MALFORMED: list[tuple[str, str, Any]] = [
    ("missing game", "OpenDeck", pb.OpenDeckRequest(players=2)),
    ("unknown game", "OpenDeck", pb.OpenDeckRequest(game=common.Game.ValueType(99), players=2)),
    ("negative players", "OpenDeck", pb.OpenDeckRequest(game=common.GAME_STUD, players=-1)),
    ("nine stud players", "OpenDeck", pb.OpenDeckRequest(game=common.GAME_STUD, players=9)),
    ("six draw players", "OpenDeck", pb.OpenDeckRequest(game=common.GAME_DRAW_7A, players=6)),
    (
        "oversized hand id",
        "OpenDeck",
        pb.OpenDeckRequest(game=common.GAME_STUD, players=2, hand_id=LONG),
    ),
    (
        "short preset",
        "OpenDeck",
        pb.OpenDeckRequest(game=common.GAME_STUD, players=2, preset_order=["As"]),
    ),
    (
        "preset of the wrong deck",
        "OpenDeck",
        pb.OpenDeckRequest(game=common.GAME_DRAW_7A, players=2, preset_order=preset()[:32]),
    ),
    ("missing deck id", "Deal", pb.DealRequest(count=1)),
    ("oversized deck id", "Deal", pb.DealRequest(deck_id="d" * 10_000, count=1)),
    ("negative count", "Deal", pb.DealRequest(deck_id="{deck}", count=-1)),
    ("huge count", "Deal", pb.DealRequest(deck_id="{deck}", count=2**31 - 1)),
    ("negative river players", "DealRiver", pb.DealRiverRequest(deck_id="{deck}", players=-3)),
    (
        "unknown river procedure",
        "DealRiver",
        pb.DealRiverRequest(
            deck_id="{deck}", players=2, procedure=common.RiverShortage.ValueType(42)
        ),
    ),
    ("not a card", "Draw", pb.DrawRequest(deck_id="{deck}", discards=["Zz"])),
    ("oversized card", "Draw", pb.DrawRequest(deck_id="{deck}", discards=["A" * 5000])),
    ("same card twice", "Draw", pb.DrawRequest(deck_id="{deck}", discards=["As", "As"])),
    ("six discards", "Draw", pb.DrawRequest(deck_id="{deck}", discards=STANDARD[:6])),
    ("missing deck id", "CloseDeck", pb.CloseDeckRequest()),
]


@pytest.mark.parametrize(("why", "method", "request_"), MALFORMED, ids=[m[0] for m in MALFORMED])
def test_dealer_malformed_requests_are_invalid_argument(
    dealer: AuditingDealer, why: str, method: str, request_: Any
) -> None:
    if getattr(request_, "deck_id", "") == "{deck}":
        request_.deck_id = dealer.open(game=common.GAME_STUD, players=2).deck_id
    call = getattr(dealer.stub, method)
    assert code_of(lambda: call(request_, timeout=5)) == grpc.StatusCode.INVALID_ARGUMENT, why


@pytest.mark.parametrize("method", ["Deal", "DealRiver", "Draw", "CloseDeck"])
def test_dealer_unknown_deck_is_not_found(dealer: AuditingDealer, method: str) -> None:
    request_type = {
        "Deal": pb.DealRequest,
        "DealRiver": pb.DealRiverRequest,
        "Draw": pb.DrawRequest,
        "CloseDeck": pb.CloseDeckRequest,
    }[method]
    request = request_type(deck_id="no-such-deck")
    if method == "DealRiver":
        request = pb.DealRiverRequest(deck_id="no-such-deck", players=2)
    call = getattr(dealer.stub, method)
    assert code_of(lambda: call(request, timeout=5)) == grpc.StatusCode.NOT_FOUND


def test_dealer_batches_answer_like_the_unary_calls__S4_G4(
    dealer: AuditingDealer,
) -> None:
    """The Batch stream: several calls per message, answered in order by one
    message; a refused call is its reply's error (the code the unary call would
    give) and the stream goes on; an empty batch is INVALID_ARGUMENT; the deck
    still verifies against its commitment (closed by the fixture)."""
    opened = dealer.open(game=common.GAME_STUD, players=3)
    deck_id = opened.deck_id
    batches = [
        CallBatch(
            calls=[
                call(1, "Deal", pb.DealRequest(deck_id=deck_id, count=9)),
                call(2, "Deal", pb.DealRequest(deck_id="no-such-deck", count=1)),
                call(3, "Deal", pb.DealRequest(deck_id=deck_id, count=99)),
                call(4),
            ]
        ),
        CallBatch(
            calls=[call(5, "Deal", pb.DealRequest(deck_id=deck_id, burn_first=True, count=3))]
        ),
    ]
    replies = list(dealer.stub.Batch(iter(batches), timeout=5))
    assert [[r.id for r in reply.replies] for reply in replies] == [[1, 2, 3, 4], [5]]
    dealt, unknown, too_many, empty = replies[0].replies
    first = response(dealt, pb.DealResponse)
    assert len(first.cards) == 9 and first.remaining == 52 - 9
    assert unknown.error.code == grpc.StatusCode.NOT_FOUND.value[0]
    assert too_many.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert empty.error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "call is required" in empty.error.message
    fourth = response(replies[1].replies[0], pb.DealResponse)
    assert len(fourth.cards) == 3 and fourth.remaining == 52 - 9 - 4  # burned one first
    assert not set(fourth.cards) & set(first.cards)

    with pytest.raises(grpc.RpcError) as error:
        list(dealer.stub.Batch(iter([CallBatch()]), timeout=5))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
