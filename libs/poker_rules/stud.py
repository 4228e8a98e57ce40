"""Seven Card Stud and Seven Card Stud Hi-Lo eight-or-better (rules S1-S13, H1-H6).

``StudHand`` is the hand state machine: antes (S3), third street with the bring-in
and completion (S4, S5), fourth to seventh street opened by the best board (S6),
fixed-limit bets with the fourth-street open pair option of stud high (S7, S7a),
the cap (S8), the river shortage (S11) and the showdown (S12, S13, H1-H6).

Streets are numbered 0 (third street) .. 4 (seventh street, the river).
"""

from __future__ import annotations

from collections.abc import Sequence

from .actions import Action, ActionKind, LegalActions
from .cards import ACE, Card, standard_deck
from .config import StudConfig
from .deck import Deck
from .engine import BRING_IN, COMPLETE, FOLD, Award, BettingHand, Phase, check_stacks
from .evaluate import board_rank, high_rank, low_rank
from .events import Act, Burn, Community, Deal, Muck, NewStreet, Reshuffle, Show
from .pots import Pot
from .showdown import award_pots, show_order, shows_or_mucks

THIRD, FOURTH, FIFTH, SIXTH, SEVENTH = range(5)
STREET_NAMES = ("third", "fourth", "fifth", "sixth", "seventh")


_RANK_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_BOARD_RANKS: dict[int, tuple[int, ...]] = {}


def _board_rank(upcards: Sequence[Card]) -> tuple[int, ...]:
    """``board_rank`` memoised on the multiset of ranks: suits never matter for S6.

    The product of one prime per rank names the multiset without sorting, and
    there are only a few thousand boards of one to four upcards.
    """
    key = 1
    for c in upcards:
        key *= _RANK_PRIMES[c >> 2]
    rank = _BOARD_RANKS.get(key)
    if rank is None:
        rank = _BOARD_RANKS[key] = board_rank(upcards)
    return rank


def bring_in_player_of(door_cards: Sequence[Card]) -> int:
    """S5: the lowest door card brings in (card ints order rank, then suit G2)."""
    return min(range(len(door_cards)), key=lambda i: door_cards[i])


def first_to_act(boards: Sequence[Sequence[Card]], folded: Sequence[bool]) -> int:
    """S6: best board showing; equal boards, closest to the dealer's left."""
    best_i = -1
    best: tuple[int, ...] | None = None
    for i in range(len(boards)):
        if folded[i]:
            continue
        rank = _board_rank(boards[i])
        if best is None or rank > best:
            best, best_i = rank, i
    return best_i


def shows_open_pair(boards: Sequence[Sequence[Card]], folded: Sequence[bool]) -> bool:
    """S7a: a player still in shows a pair with their two fourth-street upcards."""
    return any(
        (b[0] >> 2) == (b[1] >> 2) for i, b in enumerate(boards) if not folded[i] and len(b) == 2
    )


class StudBetting(BettingHand):
    """The betting of a stud hand without its cards: antes, the bring-in and
    completion (S5), fixed-limit units per street (S7), the S7a open pair and the
    cap (S8).  ``StudHand`` adds the deck, the deal and the showdown; on its own
    (``poker_rules.betting``) a round stops when it ends, for the caller to deal
    the next street and open the next round with ``_open_street``.
    """

    def __init__(self, config: StudConfig, stacks: Sequence[int]) -> None:
        super().__init__(stacks)
        self.config = config
        self.max_raises = config.max_raises
        self.timeout_policy = config.timeout_policy
        self.bring_in_due = False
        self.bring_in_player = -1
        self.open_pair = False

    def _post_antes(self) -> None:
        """S3: antes before the cards."""
        ante = self.config.ante
        for i in range(self.n):
            if ante:
                self.post_ante(i, ante)

    def _open_third_street(self, low: int) -> None:
        """S5: the lowest door card (player ``low``) must bring in."""
        self.bring_in_player = low
        self.bring_in_due = True
        self._start_round(low, self.config.small_bet)
        if self.to_act is None:
            self.bring_in_due = False

    def _open_street(self, boards: Sequence[Sequence[Card]]) -> None:
        """Open fourth..seventh street's betting (``street`` already advanced)."""
        cfg = self.config
        unit = cfg.small_bet if self.street <= FOURTH else cfg.big_bet
        if self.street == FOURTH and not cfg.hi_lo:
            self.open_pair = shows_open_pair(boards, self.folded)
        else:
            self.open_pair = False
        # S6: the best board opens; on seventh street no new upcard is dealt to
        # a player (a community card is everyone's), so sixth street's order holds.
        self._start_round(first_to_act(boards, self.folded), unit)

    def _end_round(self) -> None:
        """The round is over: standalone, nobody is to act until the next opens."""
        self.bring_in_due = False

    # ------------------------------------------------------------ menus

    def _increments(self, i: int) -> tuple[int, ...]:
        cfg = self.config
        if self.open_pair and self.street == FOURTH and self.raise_size < cfg.big_bet:
            return (cfg.small_bet, cfg.big_bet)  # S7a: small or big bet
        return (self.raise_size,)

    def _aggressive_kind(self) -> ActionKind:
        if self.street == THIRD and self.bet_count == 0:
            return COMPLETE
        return super()._aggressive_kind()

    def _raise_bounds(self, i: int) -> tuple[int, int, tuple[int, ...]]:
        if self.street == THIRD and self.bet_count == 0:
            to = min(self.config.small_bet, self.bets[i] + self.stacks[i])
            return to, to, (to,)
        return super()._raise_bounds(i)

    def _is_full_raise(self, previous: int, to: int) -> bool:
        if self.street == THIRD and self.bet_count == 0:
            return to >= self.config.small_bet  # S5: the completion is the round's bet
        return super()._is_full_raise(previous, to)

    def _raise_size_after(self, size: int) -> int:
        """S7a: with an open pair on fourth street a raise is full at the small bet
        until one the size of a big bet is made.  An all-in between the two (a
        raise of 150 at 100/200) is a full small raise: it counts for the cap and
        reopens the betting (S8), and the next raise may still be by the small bet,
        which counts as fully as any (it set the full raise to 150 once, and a
        small raise after it neither counted for the cap nor reopened)."""
        cfg = self.config
        if self.open_pair and self.street == FOURTH and self.raise_size < cfg.big_bet:
            return cfg.big_bet if size >= cfg.big_bet else cfg.small_bet
        return super()._raise_size_after(size)

    def _compute_legal(self, i: int) -> LegalActions:
        if not self.bring_in_due:
            return super()._compute_legal(i)
        cfg = self.config
        stack = self.stacks[i]
        amount = min(cfg.bring_in, stack)
        kinds: list[ActionKind] = []
        substitute = i != self.bring_in_player  # S5: the low card is all-in
        if substitute:
            kinds.append(FOLD)
        kinds.append(BRING_IN)
        min_to = max_to = None
        choices: tuple[int, ...] = ()
        raise_kind = None
        if stack > amount and cfg.bring_in < cfg.small_bet:
            to = min(cfg.small_bet, stack)
            min_to = max_to = to
            choices = (to,)
            raise_kind = COMPLETE
            kinds.append(COMPLETE)
        return LegalActions(
            player=i,
            can_fold=substitute,
            bring_in_amount=amount,
            raise_kind=raise_kind,
            min_to=min_to,
            max_to=max_to,
            to_choices=choices,
            kinds=tuple(kinds),
        )

    def _apply(self, i: int, action: Action) -> None:
        if self.bring_in_due and action.kind is not FOLD:
            self.bring_in_due = False
            if action.kind is BRING_IN:
                self._post_bring_in(i, action)
                return
        super()._apply(i, action)

    def _post_bring_in(self, i: int, action: Action) -> None:
        """S5: a forced bet; it is not voluntary and the poster gets no option."""
        self._legal_cache = None
        posted = self._put(i, min(self.config.bring_in, self.stacks[i]))
        self.events.append(Act(i, action, posted, self.street))
        self.current_bet = max(self.current_bet, self.bets[i])
        self.pending[i] = False
        if posted >= self.config.small_bet:
            self.bet_count = 1  # a bring-in of a full bet is the round's bet
            self.last_aggressor = i
        for j in range(self.n):
            if j != i and self.can_act(j) and self.bets[j] < self.current_bet:
                self.pending[j] = True
        self._advance(i)

    def _forced_timeout_action(self, i: int) -> Action | None:
        if self.bring_in_due and i == self.bring_in_player:
            return Action.bring_in()  # the bring-in is forced (S5): it posts itself
        return None


class StudHand(StudBetting):
    """One hand of Seven Card Stud (``config.hi_lo`` False) or Stud Hi-Lo (True).

    ``stacks`` are the players dealt in, index 0 being the first seat left of the
    dealer (G5).  The deck is shuffled from ``seed`` (reproducible) or from the
    CSPRNG when ``seed`` is None; pass ``deck`` to deal a preset order.

    S5: the lowest door card brings in; when everyone else folds, the uncalled
    bring-in goes back and the antes are won without a showdown (G6).

    >>> from poker_rules import Action, StudConfig, StudHand, cards_str
    >>> hand = StudHand(StudConfig(), [1000, 1000, 1000], seed=7)
    >>> [cards_str(hand.upcards(i)) for i in range(3)]  # S4: two down, one up
    ['6s', '8d', '9c']
    >>> hand.to_act, hand.legal_actions().describe()
    (0, 'bring_in 50, complete to 100')
    >>> hand.act(Action.bring_in())
    >>> hand.act(Action.fold())
    >>> hand.act(Action.fold())
    >>> hand.is_over, hand.result.uncalled, hand.result.final_stacks
    (True, (0, 50), [1050, 975, 975])
    """

    def __init__(
        self,
        config: StudConfig,
        stacks: Sequence[int],
        *,
        seed: int | None = None,
        deck: Deck | None = None,
    ) -> None:
        config.validate()
        check_stacks(stacks, 2, 8, "stud (S1)")
        super().__init__(config, stacks)
        self.deck = deck if deck is not None else Deck(standard_deck(), seed)
        n = self.n
        self.cards: list[list[Card]] = [[] for _ in range(n)]
        self.up: list[list[bool]] = [[] for _ in range(n)]
        self.boards: list[list[Card]] = [[] for _ in range(n)]  # upcards, dealt order
        self.community: Card | None = None
        self.river_outcome = "normal"  # or "reshuffled", "stub_first", "community"
        self.final_street_opener: int | None = None
        self._deal_third_street()

    # ------------------------------------------------------------ dealing

    def _deal(self, i: int, up: bool) -> None:
        self._give(i, self.deck.deal(), up)

    def _give(self, i: int, card: Card, up: bool) -> None:
        self.cards[i].append(card)
        self.up[i].append(up)
        if up:
            self.boards[i].append(card)
        self.events.append(Deal(i, (card,), up, self.street))

    def _burn(self) -> None:
        card = self.deck.burn()
        self.events.append(Burn((card,), self.street))

    def upcards(self, i: int) -> list[Card]:
        """Player i's face-up cards (what everyone sees)."""
        return list(self.boards[i])

    def _deal_third_street(self) -> None:
        self._post_antes()  # S3: antes before the cards
        if self.config.burn_before_third:
            self._burn()
        for up in (False, False, True):  # S4: two down, then the door card
            for i in range(self.n):
                self._deal(i, up)
        # S5: the lowest door card brings in (card ints order rank, then suit G2).
        self._open_third_street(bring_in_player_of([c[2] for c in self.cards]))
        if self.to_act is None:
            self._end_round()

    def _deal_street(self) -> None:
        """Burn and deal fourth..sixth (one up) or seventh (S11 for the river)."""
        street = self.street
        alive = [i for i in range(self.n) if not self.folded[i]]
        if street == SEVENTH:
            self._deal_river(alive)
            return
        self._burn()
        for i in alive:
            self._deal(i, True)

    def _deal_river(self, alive: list[int]) -> None:
        """S11: the dealer deals the river, with the shortage procedures."""
        street = self.street
        deal = self.deck.deal_river(len(alive), self.config.river_shortage)
        self.river_outcome = deal.outcome
        events = self.events
        burned = deal.burned
        if deal.outcome == "normal":
            events.append(Burn((burned[0],), street))
        cards = deal.cards
        served = deal.served_from_stub
        for k, i in enumerate(alive[:served]):
            self._give(i, cards[k], False)
        if deal.outcome != "normal":
            note = "stub_first" if deal.outcome == "stub_first" else "river"
            events.append(Reshuffle(note, street))
        if deal.outcome == "stub_first":
            events.append(Burn((burned[0],), street))
        if deal.community is not None:
            self.community = deal.community
            events.append(Community((deal.community,), street))
            return
        for k in range(served, len(alive)):
            self._give(alive[k], cards[k], False)

    # ------------------------------------------------------------ rounds

    def _first_to_act(self) -> int:
        """S6: best board showing; equal boards, closest to the dealer's left."""
        return first_to_act(self.boards, self.folded)

    def _end_round(self) -> None:
        super()._end_round()
        while True:
            if self.street == SEVENTH:
                self._settle(showdown=True)
                return
            self.street += 1
            self.events.append(NewStreet(self.street))
            self._deal_street()
            if self._betting_closed():
                continue  # S12: all-in, deal the rest out without betting
            self._open_street(self.boards)
            if self.street == SEVENTH:
                self.final_street_opener = self.to_act
            if self.to_act is not None:
                return

    # ------------------------------------------------------------ showdown

    def hand_cards(self, i: int) -> list[Card]:
        """Player i's cards for the showdown, the community card included."""
        if self.community is None:
            return self.cards[i]
        return [*self.cards[i], self.community]

    def _high_odd_order(self, players: list[int]) -> list[int]:
        """S13: the highest card by rank then suit among all the player's cards."""
        return sorted(players, key=lambda p: max(self.cards[p]), reverse=True)

    def _low_odd_order(self, players: list[int]) -> list[int]:
        """H5: the lowest card (ace low) by suit, clubs lowest."""

        def lowest(p: int) -> tuple[int, int]:
            return min((0 if c >> 2 == ACE else (c >> 2) + 1, c & 3) for c in self.cards[p])

        return sorted(players, key=lowest)

    def _showdown(self, pots: list[Pot]) -> tuple[list[Award], list[int], list[int]]:
        n = self.n
        high: list[int | None] = [None] * n
        low: list[int | None] | None = [None] * n if self.config.hi_lo else None
        contenders = [i for i in range(n) if not self.folded[i]]
        for i in contenders:
            cards = self.hand_cards(i)
            high[i] = high_rank(cards)
            if low is not None:
                low[i] = low_rank(cards)
        awards = award_pots(
            pots,
            high,
            self._high_odd_order,
            low,
            self._low_odd_order if low is not None else None,
        )
        first = self._first_to_show(contenders)
        order = show_order(first, contenders, n)
        # S12: with a player all-in (at any point) every hand is shown, as it is
        # when the betting stopped before the river.
        all_show = self.final_street_opener is None or any(self.all_in[i] for i in contenders)
        shown, mucked = shows_or_mucks(order, pots, high, low, all_show=all_show)
        for i in shown:
            self.events.append(Show(i, tuple(self.cards[i])))
        for i in mucked:
            self.events.append(Muck(i, tuple(self.cards[i])))
        return awards, shown, mucked

    def _first_to_show(self, contenders: list[int]) -> int:
        """S12: last aggressor of the final round, else its first player to act."""
        if self.final_street_opener is not None:
            if self.last_aggressor is not None and not self.folded[self.last_aggressor]:
                return self.last_aggressor
            if not self.folded[self.final_street_opener]:
                return self.final_street_opener
        return self._first_to_act() if self.street >= FOURTH else contenders[0]

    # ------------------------------------------------------------ convenience

    @property
    def is_complete(self) -> bool:
        return self.phase is Phase.COMPLETE
