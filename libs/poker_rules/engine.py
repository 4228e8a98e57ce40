"""The betting core shared by every game: one explicit state machine.

``BettingHand`` owns the chips: stacks, the bets of the current street, each
player's total for the hand, dead money, folds and all-ins.  It knows how a
betting round runs (who must still act, the cap of S8 and D2, minimum and maximum
raises, short all-ins that do not reopen the betting) and how a hand ends (uncalled
bet returned, G6; side pots; showdown delegated to the game).  The games
(``stud.StudHand``, ``draw.DrawHand``) add dealing, forced bets, who opens each
street, the draw and the evaluation.

Players are indexes ``0..n-1`` in clockwise order: for stud, index 0 is the first
seat left of the dealer (G5); for draw, index 0 is the first player left of the
button.  Seat numbers are the table's business.

Every mutation goes through ``act`` or ``timeout``, which validate first and only
then change state, so a rejected action leaves the hand exactly as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .actions import Action, ActionKind, LegalActions
from .config import Structure, TimeoutPolicy
from .errors import HandOverError, IllegalActionError, InvalidConfigError, NotYourTurnError
from .events import Act, Ante, Blind, DeadBlind, Event, Timeout, Uncalled, Win
from .pots import Pot, side_pots, uncalled_bet

FOLD, CHECK, CALL, BRING_IN, COMPLETE, BET, RAISE, DISCARD = (
    ActionKind.FOLD,
    ActionKind.CHECK,
    ActionKind.CALL,
    ActionKind.BRING_IN,
    ActionKind.COMPLETE,
    ActionKind.BET,
    ActionKind.RAISE,
    ActionKind.DISCARD,
)


class Phase(StrEnum):
    """Where the hand is."""

    BETTING = "betting"
    DRAWING = "drawing"
    COMPLETE = "complete"


@dataclass(frozen=True, slots=True)
class Award:
    """Chips from one pot (or half of one) to one player."""

    pot: int  # index of the pot, 0 = main
    player: int
    amount: int
    half: str = "all"  # "all", "high" or "low"


@dataclass(slots=True)
class HandResult:
    """How the hand ended: pots, who won what, who showed, final stacks."""

    pots: list[Pot]
    awards: list[Award]
    uncalled: tuple[int, int] | None
    shown: list[int]
    mucked: list[int]
    final_stacks: list[int]
    contributed: list[int] = field(default_factory=list)  # live chips each put in
    dead: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def net(self, starting_stacks: Sequence[int]) -> list[int]:
        """Each player's win (+) or loss (-) for the hand.

        G6: an uncalled bet goes back before the pot is won.

        >>> from poker_rules import Action, StudConfig, StudHand
        >>> hand = StudHand(StudConfig(), [1000, 1000], seed=5)
        >>> hand.act(Action.bring_in())
        >>> hand.act(Action.fold())
        >>> hand.result.net(hand.starting_stacks)
        [-25, 25]
        """
        return [f - s for f, s in zip(self.final_stacks, starting_stacks, strict=True)]


def check_stacks(stacks: Sequence[object], fewest: int, most: int, game: str) -> None:
    """Refuse a starting position the rules do not allow, before anything is dealt.

    Typed ``object`` on purpose: a float or a bool stack must get this clear error,
    not a TypeError from deeper down (money is whole chips).
    """
    if not fewest <= len(stacks) <= most:
        raise InvalidConfigError(f"{game} is for {fewest} to {most} players, got {len(stacks)}")
    for s in stacks:
        if type(s) is not int:
            raise InvalidConfigError(f"stacks are whole chips (int), got {s!r}")
        if s <= 0:
            raise InvalidConfigError(f"every player dealt in needs chips, got a stack of {s}")


class BettingHand:
    """Chips and betting rounds.  Games subclass it; see the module docstring."""

    structure: Structure = Structure.FIXED_LIMIT
    max_raises: int = 3
    timeout_policy: TimeoutPolicy = TimeoutPolicy.ALL_IN_PROTECTION

    def __init__(self, stacks: Sequence[int]) -> None:
        if any(type(s) is not int or s < 0 for s in stacks):
            raise InvalidConfigError("stacks must be non-negative integers")
        n = len(stacks)
        self.n = n
        self.starting_stacks: tuple[int, ...] = tuple(stacks)
        self.stacks: list[int] = list(stacks)
        self.bets: list[int] = [0] * n  # this street
        self.totals: list[int] = [0] * n  # this hand, live money only
        self.dead = 0  # dead money in the pot (B3, B4)
        self.folded: list[bool] = [False] * n
        self.n_in = n  # players not folded
        self.n_live = n  # players not folded and not all-in
        self.all_in: list[bool] = [False] * n  # cannot act again this hand
        self.protected: list[bool] = [False] * n  # all-in by timeout protection (S10)
        self.voluntary: list[bool] = [False] * n  # put chips in by choice (S10)
        self.pending: list[bool] = [False] * n  # must still act this round
        self.acted_at: list[int] = [-1] * n  # current_bet when last acted; -1 = not yet
        self.events: list[Event] = []
        # The replay log: (player, action), or (player, None) for a timeout (S10).
        self.actions: list[tuple[int, Action | None]] = []
        self.phase = Phase.BETTING
        self.street = 0
        self.to_act: int | None = None
        self.current_bet = 0
        self.raise_size = 0  # size of the last full bet or raise this round
        self.bet_unit = 0  # fixed limit: this street's increment
        self.bet_count = 0  # bets and full raises this round (completion counts, S5)
        self.capped = False
        self.last_aggressor: int | None = None
        self.round_opener: int | None = None  # first player asked to act this round
        self.result: HandResult | None = None
        self._legal_cache: LegalActions | None = None

    # ------------------------------------------------------------------ queries

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.COMPLETE

    def pot_total(self) -> int:
        """All chips in the middle: every bet and total, plus dead money."""
        return sum(self.totals) + self.dead

    def in_hand(self) -> list[int]:
        """Players who have not folded."""
        return [i for i in range(self.n) if not self.folded[i]]

    def can_act(self, i: int) -> bool:
        return not self.folded[i] and not self.all_in[i]

    def legal_actions(self) -> LegalActions:
        """The menu for the player to act (see ``LegalActions``).

        S5: the lowest door card must bring in, or may complete to the small bet.

        >>> from poker_rules import StudConfig, StudHand
        >>> menu = StudHand(StudConfig(), [1000, 1000, 1000], seed=7).legal_actions()
        >>> menu.player, menu.bring_in_amount, menu.raise_kind.value, menu.to_choices
        (0, 50, 'complete', (100,))
        """
        if self.phase is Phase.COMPLETE or self.to_act is None:
            raise HandOverError("the hand is over; no action is possible")
        cached = self._legal_cache
        if cached is None:
            cached = self._legal_cache = self._compute_legal(self.to_act)
        return cached

    # ------------------------------------------------------------ chip movement

    def _mark_all_in(self, i: int) -> None:
        if not self.all_in[i]:
            self.all_in[i] = True
            if not self.folded[i]:
                self.n_live -= 1

    def _put(self, i: int, amount: int, live: bool = True) -> int:
        """Move up to ``amount`` from player i's stack into the pot; return it."""
        stack = self.stacks[i]
        if amount >= stack:
            amount = stack
            self._mark_all_in(i)
        self.stacks[i] = stack - amount
        if live:
            self.bets[i] += amount
            self.totals[i] += amount
        else:
            self.dead += amount
        return amount

    def post_ante(self, i: int, amount: int) -> int:
        """Antes are live money for side pots but not part of the street's bet."""
        stack = self.stacks[i]
        if amount >= stack:
            amount = stack
            self._mark_all_in(i)
        self.stacks[i] = stack - amount
        self.totals[i] += amount
        self.events.append(Ante(i, amount))
        return amount

    def post_blind(self, i: int, amount: int, *, live: bool = True) -> int:
        """A forced bet: live (counts as the player's bet) or dead (B3, B4)."""
        posted = self._put(i, amount, live)
        if live and self.bets[i] > self.current_bet:
            self.current_bet = self.bets[i]
        self.events.append(Blind(i, posted) if live else DeadBlind(i, posted))
        return posted

    # ------------------------------------------------------------ rounds

    def _start_round(self, first: int, unit: int, *, keep_bets: bool = False) -> None:
        """Open a betting round; ``first`` is the player who acts first (if able)."""
        n = self.n
        if not keep_bets:
            self.bets = [0] * n
            self.current_bet = 0
        self.bet_unit = unit
        self.raise_size = unit
        self.bet_count = 0
        self.capped = False
        self.last_aggressor = None
        self.acted_at = [-1] * n
        folded, all_in = self.folded, self.all_in
        pending = [not folded[i] and not all_in[i] for i in range(n)]
        live = sum(pending)
        if live == 0 or (live == 1 and self._matches_everyone(pending.index(True))):
            # Nobody (or only one player, who owes nothing) can act: no betting.
            pending = [False] * n
        self.pending = pending
        self.round_opener = None
        self.to_act = self._next_pending(first, inclusive=True)
        self.round_opener = self.to_act
        self._legal_cache = None

    def _next_pending(self, start: int, *, inclusive: bool = False) -> int | None:
        n, pending = self.n, self.pending
        i = start if inclusive else start + 1
        for _ in range(n):
            i %= n
            if pending[i]:
                return i
            i += 1
        return None

    def _matches_everyone(self, i: int) -> bool:
        """True when player i's bet this street is at least that of every other
        player still in the hand.  Used when i is the only player who can still
        bet: then i owes nothing and has no decision, even when ``current_bet`` is
        higher (a big blind all-in for less than the full blind still makes the
        others call the full blind, D3, but the small blind alone against it has
        already covered it and is not asked to put in more or fold, S12)."""
        bets, folded = self.bets, self.folded
        top = 0
        for j in range(self.n):
            if j != i and not folded[j] and bets[j] > top:
                top = bets[j]
        return bets[i] >= top

    def _live_players(self) -> int:
        """Players who are in the hand and can still bet (not folded, not all-in)."""
        return self.n_live

    def _increments(self, i: int) -> tuple[int, ...]:
        """Fixed-limit raise increments available to player i (S7, S7a hook)."""
        return (self.bet_unit,)

    def _may_raise(self, i: int) -> bool:
        """Cap (S8, D2), reopening after short all-ins (S8, D2) and opponents left."""
        acted = self.acted_at[i]
        if acted >= 0 and self.current_bet - acted < self.raise_size:
            return False  # already acted and not facing a full raise since
        live = self._live_players()
        if live < 2:
            return False  # nobody left to call a raise
        if self.structure is Structure.FIXED_LIMIT:
            if self.capped:
                return False
            if self.bet_count >= 1 + self.max_raises and live >= 3:
                return False
        return True

    def _compute_legal(self, i: int) -> LegalActions:
        """Betting menu for player i (games override for bring-in and draws)."""
        stack, bet, current = self.stacks[i], self.bets[i], self.current_bet
        owe = current - bet
        kinds: list[ActionKind] = []
        call_amount: int | None = None
        can_check = owe <= 0
        if can_check:
            kinds.append(CHECK)
        else:
            kinds.append(FOLD)
            kinds.append(CALL)
            call_amount = owe if owe < stack else stack
        raise_kind: ActionKind | None = None
        min_to = max_to = None
        choices: tuple[int, ...] = ()
        if stack > owe and self._may_raise(i):
            raise_kind = self._aggressive_kind()
            min_to, max_to, choices = self._raise_bounds(i)
            kinds.append(raise_kind)
        return LegalActions(
            player=i,
            can_fold=not can_check,
            can_check=can_check,
            call_amount=call_amount,
            raise_kind=raise_kind,
            min_to=min_to,
            max_to=max_to,
            to_choices=choices,
            kinds=tuple(kinds),
        )

    def _aggressive_kind(self) -> ActionKind:
        return BET if self.current_bet == 0 else RAISE

    def _raise_bounds(self, i: int) -> tuple[int, int, tuple[int, ...]]:
        """Minimum and maximum *to* amounts, and the exact choices in fixed limit."""
        all_in_to = self.bets[i] + self.stacks[i]
        current = self.current_bet
        if self.structure is Structure.FIXED_LIMIT:
            increments = self._increments(i)
            if len(increments) == 1:
                to = current + increments[0]
                to = min(to, all_in_to)
                return to, to, (to,)
            choices = sorted({min(current + inc, all_in_to) for inc in increments})
            return choices[0], choices[-1], tuple(choices)
        min_to = min(current + self.raise_size, all_in_to)
        if self.structure is Structure.NO_LIMIT:
            return min_to, all_in_to, ()
        # Pot limit (D2): raise by at most the pot after the call.
        pot_after_call = self.pot_total() + (current - self.bets[i])
        max_to = min(current + pot_after_call, all_in_to)
        return min_to, max(min_to, max_to), ()

    # ------------------------------------------------------------ applying

    def act(self, action: Action, player: int | None = None) -> None:
        """Apply ``action`` for the player to act.  Validates fully first.

        ``player`` (optional) must be the player to act; a mismatch raises
        ``NotYourTurnError`` and changes nothing.  S7: each fixed-limit bet and raise
        is one step of exactly the street's size, so the menu names that amount.

        >>> from poker_rules import Action, StudConfig, StudHand
        >>> hand = StudHand(StudConfig(), [1000, 1000, 1000], seed=7)
        >>> hand.act(Action.bring_in())
        >>> hand.act(Action.raise_to(500))
        Traceback (most recent call last):
        ...
        poker_rules.errors.IllegalActionError: raise is not allowed now; allowed: fold, call 50, ...
        >>> hand.act(Action.call(), player=0)
        Traceback (most recent call last):
        ...
        poker_rules.errors.NotYourTurnError: it is player 1's turn, not player 0's
        >>> hand.act(Action.complete(100), player=1)
        >>> hand.to_act, hand.current_bet
        (2, 100)
        """
        if self.phase is Phase.COMPLETE or self.to_act is None:
            raise HandOverError("the hand is over; no action is possible")
        i = self.to_act
        if player is not None and player != i:
            raise NotYourTurnError(f"it is player {i}'s turn, not player {player}'s")
        legal = self.legal_actions()
        problem = legal.problem(action)
        if problem is not None:
            raise IllegalActionError(problem)
        self.actions.append((i, action))
        self._apply(i, action)

    def _apply(self, i: int, action: Action) -> None:
        """Apply a validated action (games extend this for bring-in and draws)."""
        self.events.append(Act(i, action, action.amount, self.street))
        kind = action.kind
        self._legal_cache = None
        if kind is FOLD:
            self.folded[i] = True
            self.n_in -= 1
            if not self.all_in[i]:
                self.n_live -= 1
            self.pending[i] = False
        elif kind is CHECK:
            self.pending[i] = False
            self.acted_at[i] = self.current_bet
        elif kind is CALL:
            self._put(i, self.current_bet - self.bets[i])
            self.voluntary[i] = True
            self.pending[i] = False
            self.acted_at[i] = self.current_bet
        else:  # BET, RAISE, COMPLETE: to ``action.amount``
            self._raise_to(i, action.amount)
        self._advance(i)

    def _raise_to(self, i: int, to: int) -> None:
        previous = self.current_bet
        self._put(i, to - self.bets[i])
        self.voluntary[i] = True
        full = self._is_full_raise(previous, to)
        self.current_bet = to
        self.acted_at[i] = to
        self.pending[i] = False
        self.last_aggressor = i
        acted_at = self.acted_at
        if full:
            self.bet_count += 1
            self.raise_size = self._raise_size_after(to - previous)
            for j in range(self.n):  # everyone may raise again after a full raise
                acted_at[j] = -1
            acted_at[i] = to
            if (
                self.structure is Structure.FIXED_LIMIT
                and self.bet_count >= 1 + self.max_raises
                and self._live_players() >= 3
            ):
                self.capped = True
        folded, all_in, pending, bets = self.folded, self.all_in, self.pending, self.bets
        for j in range(self.n):
            if j != i and not folded[j] and not all_in[j] and bets[j] < to:
                pending[j] = True

    def _is_full_raise(self, previous: int, to: int) -> bool:
        """A full bet or raise reopens the betting and counts for the cap (S8, D2)."""
        return to - previous >= self.raise_size

    def _raise_size_after(self, size: int) -> int:
        """The round's full raise once a full bet or raise of ``size`` is made: the
        largest so far (D2: a no-limit raise sets the next one's minimum).  Stud's
        open pair overrides it (S7a)."""
        return max(self.raise_size, size)

    def _advance(self, i: int) -> None:
        """After player i acted: next player, next street, or the end."""
        if self.n_in == 1:
            self._finish_uncontested(self.folded.index(False))
            return
        nxt = self._next_pending(i)
        if nxt is not None and self._live_players() <= 1 and self._matches_everyone(nxt):
            # Everyone else has folded or is all-in and nxt owes nothing: no decision
            # is left (S12: no more betting can happen).  Asking anyway would let the
            # clock fold a hand that is already in for every chip it owes (S10).
            nxt = None
        if nxt is not None:
            self.to_act = nxt
            return
        self.to_act = None
        self._end_round()

    def _betting_closed(self) -> bool:
        """True when no further betting can happen this hand (all-ins)."""
        return self._live_players() <= 1

    # ------------------------------------------------------------ timeouts

    def timeout(self) -> Action | None:
        """The action clock ran out for the player to act (S10).

        Returns the action applied on the player's behalf, or ``None`` when the
        player was made all-in by ALL_IN_PROTECTION.  A bring-in posts itself (S5);
        a player with no chips in by choice is folded.

        >>> from poker_rules import StudConfig, StudHand
        >>> hand = StudHand(StudConfig(), [1000, 1000, 1000], seed=7)
        >>> hand.timeout().kind.value, hand.timeout().kind.value, hand.to_act
        ('bring_in', 'fold', 2)
        """
        if self.phase is Phase.COMPLETE or self.to_act is None:
            raise HandOverError("the hand is over; nobody is on the clock")
        i = self.to_act
        self.actions.append((i, None))
        forced = self._forced_timeout_action(i)
        if forced is None:
            legal = self.legal_actions()
            if self.timeout_policy is TimeoutPolicy.ALL_IN_PROTECTION and self.voluntary[i]:
                self._protect(i)
                return None
            if self.timeout_policy is TimeoutPolicy.CHECK_OR_FOLD and legal.can_check:
                forced = Action.check()
            else:  # S10: otherwise the hand is folded
                forced = Action.fold()
        self.events.append(Timeout(i, self.street))
        self._apply(i, forced)
        return forced

    def _forced_timeout_action(self, i: int) -> Action | None:
        """Games override: bring-in posts itself, a draw stands pat."""
        return None

    def _protect(self, i: int) -> None:
        """S10 all-in protection: play on for what is committed, act no more."""
        self.events.append(Timeout(i, self.street, all_in_protection=True))
        self._mark_all_in(i)
        self.protected[i] = True
        self.pending[i] = False
        self._legal_cache = None
        self._advance(i)

    # ------------------------------------------------------------ the end

    def _finish_uncontested(self, winner: int) -> None:
        """Everyone else folded: return the uncalled bet, award without showing."""
        self._settle(showdown=False, winner=winner)

    def _settle(self, *, showdown: bool, winner: int | None = None) -> None:
        totals = list(self.totals)
        uncalled = uncalled_bet(totals)
        if uncalled is not None:
            p, amount = uncalled
            totals[p] -= amount
            self.stacks[p] += amount
            self.events.append(Uncalled(p, amount))
        shown: list[int] = []
        mucked: list[int] = []
        if showdown:
            pots = side_pots(totals, self.folded, self.dead)
            awards, shown, mucked = self._showdown(pots)
        else:
            if winner is None:
                raise IllegalActionError("a hand settled without a showdown needs its winner")
            # Everyone else folded: every layer has the winner as its only eligible
            # player, so side_pots would merge them into this one pot anyway.
            in_pot = sum(totals) + self.dead
            pots = [Pot(in_pot, (winner,))] if in_pot else []
            awards = [Award(k, winner, pot.amount) for k, pot in enumerate(pots)]
        for a in awards:
            self.stacks[a.player] += a.amount
            self.events.append(Win(a.player, a.amount, a.pot, a.half))
        self.to_act = None
        self.pending = [False] * self.n
        contributed = list(self.totals)
        self.totals = [0] * self.n  # the pot is empty now: every chip is in a stack
        self.bets = [0] * self.n
        dead, self.dead = self.dead, 0
        self.phase = Phase.COMPLETE
        self._legal_cache = None
        self.result = HandResult(
            pots=pots,
            awards=awards,
            uncalled=uncalled,
            shown=shown,
            mucked=mucked,
            final_stacks=list(self.stacks),
            contributed=contributed,
            dead=dead,
        )

    # ------------------------------------------------------------ game hooks

    def _end_round(self) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _showdown(self, pots: list[Pot]) -> tuple[list[Award], list[int], list[int]]:
        raise NotImplementedError  # pragma: no cover - abstract
