"""Five Card Draw 7-A: the short-deck draw game of rules D1-D9.

``DrawHand`` is the hand state machine: blinds (D3), the deal (D4), the first
betting round with the big blind's option (D5), the draw with its burn and the
reshuffle when the stub runs short (D6), the second round (D7) and the showdown
with the 7-A ranking (D8) and odd chips clockwise from the button (D9).  Betting is
fixed limit, pot limit or no limit (D2).

Players are indexes in clockwise order starting with the first player left of the
button, so the button is the last index (with two players the button is index 1 and
posts the small blind, D3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .actions import Action, LegalActions
from .cards import Card, short_deck
from .config import DrawConfig, Structure
from .deck import Deck
from .engine import DISCARD, Award, BettingHand, Phase, check_stacks
from .errors import IllegalActionError, InvalidConfigError
from .evaluate import short_deck_rank
from .events import Burn, Deal, Draw, Muck, Reshuffle, Show
from .pots import Pot
from .showdown import award_pots, show_order, shows_or_mucks

PRE_DRAW, POST_DRAW = 0, 1


@dataclass(frozen=True, slots=True)
class Post:
    """A forced bet the lobby asks for (B1-B4): live blinds count as the player's
    bet; dead money (a dead small blind owed after missing it) does not."""

    player: int
    amount: int
    live: bool = True


def default_blinds(config: DrawConfig, n: int) -> tuple[list[Post], int]:
    """D3: small blind left of the button, big blind next; heads-up the button
    (index 1) posts the small blind.  Returns the posts and the big blind player."""
    if n == 2:
        return [Post(1, config.small_blind), Post(0, config.big_blind)], 0
    return [Post(0, config.small_blind), Post(1, config.big_blind)], 1


class DrawBetting(BettingHand):
    """The betting of a 7-A draw hand without its cards: antes and blinds (D3), the
    first round with the big blind's option (D5), the turn order of the draw (D6),
    the second round where a player may fold even when checking is free (D7), and
    the structures of D2.  ``DrawHand`` adds the deck, the cards and the showdown;
    on its own (``poker_rules.betting``) a DISCARD only passes the turn (the
    dealer replaces the cards) and the hand stops where the showdown would start.
    """

    def __init__(self, config: DrawConfig, stacks: Sequence[int]) -> None:
        super().__init__(stacks)
        self.config = config
        self.structure = config.structure
        self.max_raises = config.max_raises
        self.timeout_policy = config.timeout_policy
        self.final_round_opener: int | None = None

    def _post_forced(self, posts: Sequence[Post]) -> None:
        cfg = self.config
        if cfg.ante:
            for i in range(self.n):
                self.post_ante(i, cfg.ante)
        for post in posts:
            if not 0 <= post.player < self.n or post.amount < 0:
                raise InvalidConfigError(f"invalid forced bet {post}")
            if post.amount:
                self.post_blind(post.player, post.amount, live=post.live)
        # Everyone must at least match the full big blind, even after a short one.
        self.current_bet = max(self.current_bet, cfg.big_blind)

    def _open_first_round(self, big_blind_player: int) -> None:
        """D5: the first round starts left of the big blind; the blinds are bets."""
        self._start_round(big_blind_player + 1, self.config.small_bet, keep_bets=True)
        if self.config.structure is Structure.FIXED_LIMIT:
            self.bet_count = 1  # the big blind is the round's opening bet (D2 cap)
        if self.to_act is None:
            self._end_round()

    # ------------------------------------------------------------ rounds

    def _end_round(self) -> None:
        if self.street == PRE_DRAW:
            self._start_draw()
        else:
            self._to_showdown()

    def _to_showdown(self) -> None:
        """The betting is over: ``DrawHand`` settles; standalone, nothing is to act."""
        self.to_act = None

    def _start_draw(self) -> None:
        """D6: each active player draws in turn, from the left of the button."""
        self.street = POST_DRAW
        self.phase = Phase.DRAWING
        self._burn_before_draw()
        self.to_act = self.folded.index(False)
        self._legal_cache = None

    def _burn_before_draw(self) -> None:
        """Hook: the dealer burns one (D6); nothing to do without a deck."""

    def _start_post_draw_betting(self) -> None:
        """D7: the first active player left of the button opens."""
        self.phase = Phase.BETTING
        unit = (
            self.config.big_bet
            if self.structure is Structure.FIXED_LIMIT
            else self.config.small_bet
        )
        self._start_round(0, unit)
        self.final_round_opener = self.to_act
        if self.to_act is None:
            self._to_showdown()

    # ------------------------------------------------------------ menus

    def _compute_legal(self, i: int) -> LegalActions:
        if self.phase is Phase.DRAWING:
            return LegalActions(player=i, max_discards=5, kinds=(DISCARD,))
        legal = super()._compute_legal(i)
        if self.street == POST_DRAW and legal.can_check:
            # D7: after the draw a player may fold, check or bet (fold even when free).
            legal = legal.with_fold()
        return legal

    def _apply(self, i: int, action: Action) -> None:
        if action.kind is DISCARD:
            self._legal_cache = None
            self._draw(i, action.cards)
            self._next_drawer(i)
            return
        super()._apply(i, action)

    def _draw(self, i: int, thrown: tuple[Card, ...]) -> None:
        """Hook: replace the discards (``DrawHand``); standalone the dealer does."""

    def _next_drawer(self, i: int) -> None:
        """After player i drew: the next active player draws, or the draw is over."""
        folded = self.folded
        for j in range(i + 1, self.n):
            if not folded[j]:
                self.to_act = j
                return
        self.to_act = None
        if self._betting_closed():
            self.phase = Phase.BETTING
            self._to_showdown()
        else:
            self._start_post_draw_betting()

    def _forced_timeout_action(self, i: int) -> Action | None:
        if self.phase is Phase.DRAWING:
            return Action.discard(())  # a player out of time stands pat
        return None


class DrawHand(DrawBetting):
    """One hand of Five Card Draw 7-A.

    ``posts`` and ``big_blind_player`` let the lobby apply dead-button and
    missed-blind decisions (B1-B5); by default the blinds are those of D3.

    D3: the small and big blind sit left of the button; D5: the player left of the
    big blind opens; D6: after the first round the players draw, from the left.

    >>> from poker_rules import Action, DrawConfig, DrawHand
    >>> hand = DrawHand(DrawConfig(), [1000, 1000, 1000], seed=3)
    >>> hand.bets
    [50, 100, 0]
    >>> hand.to_act, hand.legal_actions().describe()
    (2, 'fold, call 100, raise to 200')
    >>> hand.act(Action.call())
    >>> hand.act(Action.call())
    >>> hand.act(Action.check())
    >>> hand.phase.value, hand.to_act, hand.legal_actions().describe()
    ('drawing', 0, 'discard 0..5 cards')
    """

    def __init__(
        self,
        config: DrawConfig,
        stacks: Sequence[int],
        *,
        seed: int | None = None,
        deck: Deck | None = None,
        posts: Sequence[Post] | None = None,
        big_blind_player: int | None = None,
    ) -> None:
        config.validate()
        check_stacks(stacks, 2, 5, "7-A draw (D1)")
        n = len(stacks)
        super().__init__(config, stacks)
        self.with_sixes = n == 5  # G1: five players dealt in add the sixes
        self.deck = deck if deck is not None else Deck(short_deck(self.with_sixes), seed)
        self.hands: list[list[Card]] = [[] for _ in range(n)]
        self.draw_counts: list[int | None] = [None] * n  # public until D7's first action
        self.draw_order: list[int] = []
        self._burn_owed = False  # D6: set when the draw starts, spent by its first discard
        if posts is None:
            posts, big_blind_player = default_blinds(config, n)
        elif big_blind_player is None:
            raise InvalidConfigError("custom posts need the big_blind_player")
        if not 0 <= big_blind_player < n:
            raise InvalidConfigError(f"big_blind_player {big_blind_player} is not a player")
        self.big_blind_player = big_blind_player
        self._post_forced(posts)
        self._deal()
        self._open_first_round(big_blind_player)

    def _deal(self) -> None:
        """D4: five cards each, one at a time, from the player left of the button."""
        for _ in range(5):
            for i in range(self.n):
                card = self.deck.deal()
                self.hands[i].append(card)
                self.events.append(Deal(i, (card,), False, self.street))

    # ------------------------------------------------------------ the draw

    def _to_showdown(self) -> None:
        self._settle(showdown=True)

    def _start_draw(self) -> None:
        super()._start_draw()
        self.draw_order = [i for i in range(self.n) if not self.folded[i]]

    def _burn_before_draw(self) -> None:
        """D6 (rule-decisions, draw-burn): the burn is owed to the first draw that
        replaces cards, so it is taken there, not when the draw starts: when every
        player stands pat no card is burned (nothing dealt, nothing to protect), as
        the dealer service does (``burn_first`` on the first replacing draw)."""
        self._burn_owed = self.config.burn_before_draw

    def act(self, action: Action, player: int | None = None) -> None:
        if (
            self.phase is Phase.DRAWING
            and action.kind is DISCARD
            and self.to_act is not None
            and (player is None or player == self.to_act)
        ):
            hand = self.hands[self.to_act]
            strangers = [c for c in action.cards if c not in hand]
            if strangers:
                raise IllegalActionError(
                    f"can only discard cards from your hand; not held: {strangers}"
                )
        super().act(action, player)

    def _apply(self, i: int, action: Action) -> None:
        if (
            action.kind is not DISCARD
            and self.street == POST_DRAW
            and any(c is not None for c in self.draw_counts)
        ):
            self.draw_counts = [None] * self.n  # D7: counts shown until first action
        super()._apply(i, action)

    def _draw(self, i: int, thrown: tuple[Card, ...]) -> None:
        """D6: replace the discards; the stub's last card is never dealt."""
        k = len(thrown)
        if k and self._burn_owed:
            self._burn_owed = False
            card = self.deck.burn()
            self.events.append(Burn((card,), self.street))
        new, reshuffled = self.deck.draw(thrown)
        if reshuffled:
            self.events.append(Reshuffle("draw", self.street, i))
        hand = self.hands[i]
        for c in thrown:
            hand.remove(c)
        hand.extend(new)
        self.draw_counts[i] = k
        self.events.append(Draw(i, tuple(thrown), tuple(new), self.street))

    @property
    def discards(self) -> list[Card]:
        """Discards of the players who have drawn, kept by the dealer (D6)."""
        return self.deck.discards

    # ------------------------------------------------------------ showdown

    def _showdown(self, pots: list[Pot]) -> tuple[list[Award], list[int], list[int]]:
        n = self.n
        values: list[int | None] = [None] * n
        contenders = [i for i in range(n) if not self.folded[i]]
        for i in contenders:
            values[i] = short_deck_rank(self.hands[i], self.with_sixes)
        awards = award_pots(pots, values, sorted)  # D9: clockwise from the button
        mucked: list[int] = []
        if self.final_round_opener is None:
            shown = list(contenders)
        else:
            first = self.final_round_opener
            if self.last_aggressor is not None and not self.folded[self.last_aggressor]:
                first = self.last_aggressor
            elif self.folded[first]:
                first = contenders[0]
            order = show_order(first, contenders, n)
            # D9 as S12: with a player all-in every hand is shown (as in stud).
            all_show = any(self.all_in[i] for i in contenders)
            shown, mucked = shows_or_mucks(order, pots, values, None, all_show=all_show)
        for i in shown:
            self.events.append(Show(i, tuple(self.hands[i])))
        for i in mucked:
            self.events.append(Muck(i, tuple(self.hands[i])))
        return awards, shown, mucked

    def hand_cards(self, i: int) -> list[Card]:
        return self.hands[i]
