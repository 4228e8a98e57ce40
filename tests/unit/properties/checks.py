"""Properties 1-4 and the rule-book facts checked after every action: chips
conserved, pots and awards exact, eligibility, one player to act, the menu
consistent with the state (S5-S7a, D2), who opens (S5, S6), the clock (S10) and
the cards (G1, G4).
"""

from __future__ import annotations

import pytest

from poker_rules import (
    Action,
    BettingHand,
    DrawHand,
    HandOverError,
    LegalActions,
    Phase,
    Structure,
    StudHand,
    TimeoutPolicy,
)
from poker_rules.evaluate import board_rank

from .setups import AGGRESSIVE, BRING_IN, CALL, CHECK, COMPLETE, DISCARD, FOLD


def check_state(hand: BettingHand, total: int) -> None:
    """Properties 1 and 4 on any hand state."""
    n = hand.n
    for name in ("stacks", "bets", "totals"):
        values = getattr(hand, name)
        assert len(values) == n
        for v in values:
            assert type(v) is int, f"{name} holds {v!r}"
            assert v >= 0, f"{name} holds {v}"
    assert type(hand.dead) is int and hand.dead >= 0
    assert sum(hand.stacks) + hand.pot_total() == total, "chips created or destroyed"
    if hand.is_over:
        assert hand.to_act is None
        assert hand.result is not None
        assert hand.pot_total() == 0
        return
    assert hand.result is None
    i = hand.to_act
    assert i is not None, "hand not over, but nobody to act"
    assert type(i) is int and 0 <= i < n
    assert not hand.folded[i], "a folded player is to act"
    if hand.phase is Phase.BETTING:
        assert not hand.all_in[i], "an all-in player is to act"
        assert hand.stacks[i] > 0
    else:  # the draw: all-in players draw too (D6)
        assert hand.phase is Phase.DRAWING
    assert len(hand.in_hand()) >= 2, "one player left, yet the hand goes on"
    # The engine's running counts agree with the flags they summarise.
    assert hand.n_in == len(hand.in_hand())
    assert hand.n_live == sum(1 for j in range(n) if hand.can_act(j))
    for j in range(n):
        assert hand.bets[j] <= hand.totals[j]
        if not hand.folded[j] and hand.stacks[j] == 0:
            assert hand.all_in[j], f"player {j} has no chips but is not all-in"


def check_menu(hand: BettingHand, legal: LegalActions) -> None:
    """The menu is consistent with the state (D2, S5, S7)."""
    i = hand.to_act
    assert i is not None
    assert legal.player == i
    kinds = legal.kinds
    assert kinds and len(set(kinds)) == len(kinds)
    for value in (legal.call_amount, legal.bring_in_amount, legal.min_to, legal.max_to):
        assert value is None or (type(value) is int and value > 0)
    assert all(type(v) is int for v in legal.to_choices)
    if hand.phase is Phase.DRAWING:
        assert kinds == (DISCARD,)
        assert legal.max_discards == 5
        return
    assert DISCARD not in kinds and legal.max_discards is None
    stack, bet = hand.stacks[i], hand.bets[i]
    owe = hand.current_bet - bet
    assert (FOLD in kinds) == legal.can_fold
    assert (CHECK in kinds) == legal.can_check
    if isinstance(hand, StudHand) and hand.bring_in_due:
        assert BRING_IN in kinds and not legal.can_check
        assert set(kinds) <= {FOLD, BRING_IN, COMPLETE}
        assert legal.bring_in_amount == min(hand.config.bring_in, stack)
        assert legal.can_fold == (i != hand.bring_in_player)  # S5
    else:
        assert BRING_IN not in kinds and legal.bring_in_amount is None
        assert legal.can_check == (owe <= 0)
        if isinstance(hand, DrawHand) and hand.street == 1:
            assert legal.can_fold  # D7: fold, check or bet
        else:
            assert legal.can_fold == (owe > 0)
        assert (CALL in kinds) == (owe > 0)
        if owe > 0:
            assert legal.call_amount == min(owe, stack)
        else:  # S12: with nobody left to bet against, nothing is left to decide
            assert any(hand.can_act(j) for j in range(hand.n) if j != i), "pointless turn"
    aggressive = [k for k in kinds if k in AGGRESSIVE]
    if legal.raise_kind is None:
        assert not aggressive and legal.min_to is None and legal.max_to is None
        return
    assert aggressive == [legal.raise_kind]
    lo, hi = legal.min_to, legal.max_to
    assert lo is not None and hi is not None
    all_in_to = bet + stack
    assert hand.current_bet < lo <= hi <= all_in_to
    structure = hand.structure
    if structure is Structure.FIXED_LIMIT:
        choices = legal.to_choices
        assert choices and list(choices) == sorted(set(choices))
        assert (choices[0], choices[-1]) == (lo, hi)
        for to in choices:
            assert to == all_in_to or to - hand.current_bet in fixed_limit_sizes(hand)
        return
    assert not legal.to_choices
    assert isinstance(hand, DrawHand)
    assert lo == all_in_to or lo - hand.current_bet >= hand.config.big_blind  # D2
    if structure is Structure.NO_LIMIT:
        assert hi == all_in_to
    else:  # D2: a pot-limit raise is at most the pot after the call
        pot_raise_to = hand.current_bet + hand.pot_total() + owe
        assert hi == max(lo, min(pot_raise_to, all_in_to))


def fixed_limit_sizes(hand: BettingHand) -> set[int]:
    """Bet and raise sizes S7/S7a (stud) or D2 (draw) allow on this street."""
    if isinstance(hand, StudHand):
        cfg = hand.config
        if hand.street == 0 and hand.bet_count == 0:
            return {cfg.small_bet - hand.current_bet}  # the completion (S5)
        if hand.street == 0:
            return {cfg.small_bet}
        if hand.street == 1:
            return {cfg.small_bet, cfg.big_bet} if hand.open_pair else {cfg.small_bet}
        return {cfg.big_bet}
    assert isinstance(hand, DrawHand)
    draw = hand.config
    return {draw.small_bet if hand.street == 0 else draw.big_bet}


class RoundCount:
    """S8 kept apart from the engine, for a fixed-limit betting round: the full-size
    bets and raises counted from the actions alone, and who may raise again.

    A full size is the street's increment (S7); with an open pair on fourth street
    the small bet until a big-bet-sized one is made (S7a); the stud completion is
    the round's bet (S5) and a draw's big blind counts as it (D2).  A full bet or
    raise reopens the betting for everyone; a short all-in does not, but short
    all-ins add up: a player who acted may raise again once what they face since
    their action is a full raise (docs/rule-decisions.md, short all-ins).  Once a
    bet and ``max_raises`` raises are made while three players have chips, no
    raise is offered for the rest of the round."""

    def __init__(self, hand: BettingHand) -> None:
        self.full = 1 if isinstance(hand, DrawHand) and hand.street == 0 else 0
        self.big_made = False
        self.capped = False
        self.acted: dict[int, int] = {}  # player -> the bet they last acted at

    def full_size_now(self, hand: BettingHand) -> int:
        if isinstance(hand, StudHand):
            small, big = hand.config.small_bet, hand.config.big_bet
            if hand.street == 1 and hand.open_pair:  # S7a
                return big if self.big_made else small
            return small if hand.street <= 1 else big
        assert isinstance(hand, DrawHand)
        return hand.config.small_bet if hand.street == 0 else hand.config.big_bet

    def offered(self, hand: BettingHand, legal: LegalActions) -> None:
        """At a turn: a raise is on the menu exactly when the rules allow one."""
        if hand.structure is not Structure.FIXED_LIMIT:
            return
        if isinstance(hand, StudHand) and hand.bring_in_due:
            return
        i = hand.to_act
        assert i is not None
        live = live_players(hand)
        reasons = []
        if i in self.acted and hand.current_bet - self.acted[i] < self.full_size_now(hand):
            reasons.append("acted and faces less than a full raise since")
        if live < 2:
            reasons.append("nobody with chips to call a raise")
        if self.capped or (self.full >= 1 + hand.max_raises and live >= 3):
            reasons.append(f"capped after {self.full} full bets and raises")
        if hand.stacks[i] <= hand.current_bet - hand.bets[i]:
            reasons.append("no chips beyond the call")
        offered = legal.raise_kind is not None
        assert offered == (not reasons), (
            f"player {i}: raise offered {offered}, the rules say {reasons or 'may raise'} "
            f"(S8; street {hand.street}, bet {hand.current_bet}, acted {self.acted})"
        )

    def full_size(self, hand: BettingHand, action: Action | None, legal: LegalActions) -> bool:
        """Before ``action`` is applied: whether it is a full-size bet or raise (a
        bring-in of the whole small bet is the round's bet, S5)."""
        if hand.structure is not Structure.FIXED_LIMIT or action is None:
            return False
        if action.kind is BRING_IN and isinstance(hand, StudHand):
            assert legal.bring_in_amount is not None
            return legal.bring_in_amount >= hand.config.small_bet
        if action.kind not in AGGRESSIVE:
            return False
        size = action.amount - hand.current_bet
        if isinstance(hand, StudHand):
            if action.kind is COMPLETE:
                return action.amount >= hand.config.small_bet  # S5: the round's bet
            full = size >= self.full_size_now(hand)
            if hand.street == 1 and hand.open_pair:
                self.big_made = self.big_made or size >= hand.config.big_bet
            return full
        return size >= self.full_size_now(hand)

    def applied(self, hand: BettingHand, player: int, action: Action | None, full: bool) -> None:
        """After ``player``'s action (or clock): a full one counted and reopening
        the betting, the round capped if it was the last one allowed with three
        players who have chips.  The bring-in is a forced bet, as a blind is: its
        player has not acted yet (docs/rule-decisions.md, the bring-in; PokerKit
        likewise)."""
        if full:
            self.full += 1
            self.acted = {}
            if self.full >= 1 + hand.max_raises and live_players(hand) >= 3:
                self.capped = True
        if action is None or action.kind is not BRING_IN:
            self.acted[player] = hand.current_bet


def live_players(hand: BettingHand) -> int:
    """In the hand with chips behind."""
    return sum(1 for j in range(hand.n) if not hand.folded[j] and not hand.all_in[j])


def expected_opener(hand: BettingHand) -> int:
    """Who opens a betting round: S5 (lowest door card), S6 (best board, ties to
    the dealer's left), D5 (left of the big blind), D7 (left of the button); a
    player who cannot act is skipped clockwise."""
    n = hand.n
    if isinstance(hand, StudHand):
        if hand.street == 0:
            start = min(range(n), key=lambda j: hand.cards[j][2])
            assert start == hand.bring_in_player
        else:
            start = max(hand.in_hand(), key=lambda j: (board_rank(hand.upcards(j)), -j))
    else:
        assert isinstance(hand, DrawHand)
        start = hand.big_blind_player + 1 if hand.street == 0 else 0
    return next(p for p in ((start + k) % n for k in range(n)) if hand.can_act(p))


def chips_put(legal: LegalActions, before: BettingHand, action: Action) -> int:
    """Chips ``action`` moves from the player's stack into the pot."""
    if action.kind is CALL:
        assert legal.call_amount is not None
        return legal.call_amount
    if action.kind is BRING_IN:
        assert legal.bring_in_amount is not None
        return legal.bring_in_amount
    if action.kind in AGGRESSIVE:
        assert before.to_act is not None
        return action.amount - before.bets[before.to_act]
    return 0


def check_applied(
    after: BettingHand,
    player: int,
    action: Action,
    *,
    before: tuple[list[int], int],
    put: int,
    total: int,
    timed_out: bool = False,
) -> None:
    """After an accepted action: logged, and exactly the right chips moved."""
    before_totals, before_stack = before
    check_state(after, total)
    assert after.actions[-1] == (player, None if timed_out else action)
    if not after.is_over:
        assert after.totals[player] - before_totals[player] == put
        assert after.stacks[player] == before_stack - put
        if action.kind is FOLD:
            assert after.folded[player]


def hand_cards(hand: BettingHand, i: int) -> list[int]:
    if isinstance(hand, DrawHand):
        return hand.hands[i]
    assert isinstance(hand, StudHand)
    return hand.cards[i]


def expected_timeout(hand: BettingHand, legal: LegalActions, voluntary: bool) -> Action | None:
    """S10 (with S5's forced bring-in and D6's standing pat)."""
    i = hand.to_act
    if isinstance(hand, StudHand) and hand.bring_in_due and i == hand.bring_in_player:
        return Action.bring_in()
    if hand.phase is Phase.DRAWING:
        return Action.discard(())
    if hand.timeout_policy is TimeoutPolicy.ALL_IN_PROTECTION:
        return None if voluntary else Action.fold()
    return Action.check() if legal.can_check else Action.fold()


def check_result(hand: BettingHand, total: int) -> None:
    """Properties 1-3 on the result of a finished hand."""
    res = hand.result
    assert res is not None
    n = hand.n
    final = res.final_stacks
    assert final == hand.stacks
    assert all(type(s) is int and s >= 0 for s in final)
    assert sum(final) == total
    contributed = res.contributed
    assert len(contributed) == n
    assert all(type(c) is int and c >= 0 for c in contributed)
    assert type(res.dead) is int and res.dead >= 0
    returned = [0] * n
    if res.uncalled is not None:  # G6
        who, amount = res.uncalled
        assert type(amount) is int and amount > 0
        others = [c for j, c in enumerate(contributed) if j != who]
        assert contributed[who] - max(others) == amount
        returned[who] = amount
    else:
        top = max(contributed)
        assert top == 0 or contributed.count(top) >= 2
    live = [c - r for c, r in zip(contributed, returned, strict=True)]
    pots = res.pots
    assert all(type(p.amount) is int and p.amount > 0 for p in pots)
    # 2. the pots hold what was put in, less the uncalled bet
    assert sum(p.amount for p in pots) + sum(returned) == sum(contributed) + res.dead
    # 2. the awards are the pots
    won = [0] * n
    for k, pot in enumerate(pots):
        awards = [a for a in res.awards if a.pot == k]
        assert sum(a.amount for a in awards) == pot.amount
        for a in awards:
            assert type(a.amount) is int and a.amount > 0
            assert a.player in pot.eligible
            won[a.player] += a.amount
        for half in ("all", "high", "low"):
            shares = [a.amount for a in awards if a.half == half]
            if shares:  # S13/H5: equal shares, odd chips one each
                assert max(shares) - min(shares) <= 1
        high = sum(a.amount for a in awards if a.half == "high")
        low = sum(a.amount for a in awards if a.half == "low")
        if low:  # H1/H5: halved, the odd chip plays high
            assert isinstance(hand, StudHand) and hand.config.hi_lo
            assert high - low == pot.amount % 2
        else:
            assert high == 0
    assert all(0 <= a.pot < len(pots) for a in res.awards)
    for j in range(n):
        assert final[j] == hand.starting_stacks[j] - contributed[j] + returned[j] + won[j]
    # 3. eligibility, and the layers an independent computation gives
    folded = hand.folded
    alive = [j for j in range(n) if not folded[j]]
    assert alive
    live_levels = sorted({live[j] for j in alive if live[j] > 0})
    if not live_levels:
        assert len(pots) <= 1
    else:
        assert len(pots) == len(live_levels)
        previous = 0
        for k, (pot, level) in enumerate(zip(pots, live_levels, strict=True)):
            assert pot.eligible == tuple(j for j in alive if live[j] >= level)
            expected = sum(min(c, level) - min(c, previous) for c in live)
            if k == 0:
                expected += res.dead
            if k == len(pots) - 1:
                expected += sum(max(0, c - level) for c in live)
            assert pot.amount == expected
            previous = level
    for pot in pots:
        assert not any(folded[j] for j in pot.eligible), "a folded player is eligible"
    # G6, S12: who showed
    winners = {a.player for a in res.awards}
    if len(alive) == 1:
        assert winners <= {alive[0]}
        assert res.shown == [] and res.mucked == []
    else:
        assert sorted(res.shown + res.mucked) == alive
        assert winners <= set(res.shown), "a mucked hand won chips"
    for e in hand.events:
        amount = getattr(e, "amount", 0)  # the entries that move chips carry one
        assert type(amount) is int and amount >= 0, e


def check_cards(hand: BettingHand) -> None:
    """G1/G4: no card is held twice; folded cards never come back."""
    if isinstance(hand, StudHand):
        held = [c for cards in hand.cards for c in cards]
        if hand.community is not None:
            held.append(hand.community)
        assert len(held) == len(set(held))
        for j in hand.in_hand():
            assert len(hand.hand_cards(j)) == 7 or hand.street < 4
    else:
        assert isinstance(hand, DrawHand)
        held = [c for cards in hand.hands for c in cards]
        assert len(held) == len(set(held)) == 5 * hand.n
        low = 16 if hand.with_sixes else 20  # G1: 7..A, plus the sixes with five
        assert all(low <= c < 52 for c in held)


def check_over(hand: BettingHand) -> None:
    """Property 4: after the end nothing is accepted."""
    with pytest.raises(HandOverError):
        hand.legal_actions()
    with pytest.raises(HandOverError):
        hand.act(Action.fold())
    with pytest.raises(HandOverError):
        hand.act(Action.check(), 0)
    with pytest.raises(HandOverError):
        hand.timeout()
