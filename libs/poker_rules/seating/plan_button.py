"""Button games (7-A draw): the dead button and the blinds (B1, D3), and a new game.

The big blind moves one ready player clockwise every hand; the small blind is the
previous big blind's seat and the button the previous small blind's seat, even
when those seats are empty or their players away (B1's dead button).  Heads-up the
button posts the small blind (D3).  Everyone else is dealt in or not by the entry
rules (``entry``); the draft then becomes a ``HandPlan`` in the engine's order.
"""

from __future__ import annotations

from collections.abc import Sequence

from .entry import EntryRules
from .model import Forced, HandPlan, PostKind, Waiting
from .state import Draft


class ButtonPlanning(EntryRules):
    """The plan of a button game's next hand."""

    def _walk_big_blind(self, prev_bb: int) -> tuple[int | None, list[int]]:
        """B1: the big blind moves to the next ready player clockwise, never back to
        the previous big blind's seat.  Returns it and the occupied seats passed."""
        passed: list[int] = []
        s = self._next(prev_bb)
        while s != prev_bb:
            if self._ready(s):
                return s, passed
            if s in self._seats:
                passed.append(s)
            s = self._next(s)
        return None, passed

    def _plan_button(self, first_button: int | None) -> HandPlan | None:
        ready = [s for s in sorted(self._seats) if self._ready(s)]
        if len(ready) < 2:
            return None
        last = self._last
        if last is None:
            return self._new_game(ready, first_button, None, [], [])
        bb, passed = self._walk_big_blind(last.big_blind)
        assert bb is not None  # two ready players: one is not the last big blind's seat
        # B3: players away (or busted, Robert's) when the big blind passes are marked
        # ML; a new player who never played owes no missed blind (Robert's: no blind
        # is due before the big blind first reaches a new player).
        missed_big = [s for s in passed if not self._seats[s].new]
        sb_pos = last.big_blind
        sb_player = self._seats.get(sb_pos)
        sb_is_last_bb = (
            sb_player is not None
            and sb_player.player_id == last.big_blind_player
            and not sb_player.new
        )
        missed_small = [sb_pos] if sb_is_last_bb and not self._ready(sb_pos) else []

        # B1: the button goes to the last small blind's position.  After heads-up
        # (where that is the button itself) or on a tiny table it can land on this
        # hand's blinds; then it goes dead right of the small blind (house).
        btn = last.small_blind_position
        if btn in (bb, sb_pos):
            btn = self._prev(sb_pos)
        d = Draft(big_blind=bb, small_blind_position=sb_pos, button=btn)
        d.dealt[bb] = [self._forced(bb, PostKind.BIG_BLIND)]
        if sb_is_last_bb and self._ready(sb_pos):
            d.dealt[sb_pos] = [self._forced(sb_pos, PostKind.SMALL_BLIND)]
            d.small_blind = sb_pos
        for s in sorted(self._seats):
            if s in d.dealt:
                continue
            self._entry(s, d, last.button)

        if len(d.dealt) < 2:
            # Nobody else may play under the entry rules (new players waiting, a
            # missed small blind waiting for a button that cannot move): start the
            # game afresh rather than stall (house; Robert's "newly started game").
            return self._new_game(ready, None, bb, missed_big, missed_small, passed)
        if len(d.dealt) == 2:
            self._heads_up(d)
        self._avoid_repeat_button(d)
        return self._make_plan(d, missed_big, missed_small, passed, new_game=False)

    def _heads_up(self, d: Draft) -> None:
        """D3: two players dealt in: the other player has the button and posts the
        small blind.  Anything else they owed is waived (house): heads-up each
        player posts a blind every hand, so nobody can dodge one."""
        other = next(s for s in d.dealt if s != d.big_blind)
        d.dealt[other] = [self._forced(other, PostKind.SMALL_BLIND)]
        d.dealt[d.big_blind] = [self._forced(d.big_blind, PostKind.BIG_BLIND)]
        d.button = d.small_blind = d.small_blind_position = other

    def _avoid_repeat_button(self, d: Draft) -> None:
        """B1: nobody gets the button twice in a row.

        Only around heads-up play, where the button posts the small blind (D3), can
        B1's "the button goes to the last small blind" give it back to the same
        player: going from two players to three, or from one heads-up opponent to
        another when the big blind sits out.  Then the button is dead (B1's own
        remedy).  With three or more players it goes on the seat just right of the
        small blind when nobody plays from it; when the last holder sits there (no
        seat between them and the small blind), it lies dead between the two.
        Heads-up, the same player still posts the small blind in the button's
        place and acts as D3 says, without holding it.  Either way nobody holds
        it, the same player acts last, as a dead button always allows (Robert's),
        and the order of play, the deal and D9's odd chip are unchanged.  docs/rules.md
        does not say how B1's procedure and its "never twice in a row" meet here;
        every other sentence of B1 and D3 holds (docs/rule-decisions.md#button-heads-up)."""
        last = self._last
        if last is None or last.button_player is None:
            return
        holder = self._seats.get(d.button)
        if holder is None or d.button not in d.dealt or holder.player_id != last.button_player:
            return
        s = self._prev(d.small_blind_position)
        if len(d.dealt) > 2 and s != d.button and s not in d.dealt:
            d.button = s
        else:
            d.button_dead = True

    def _new_game(
        self,
        ready: list[int],
        first_button: int | None,
        bb: int | None,
        missed_big: list[int],
        missed_small: list[int],
        passed: Sequence[int] = (),
    ) -> HandPlan:
        """Positions drawn afresh: everyone sitting in with chips is dealt in and
        owes nothing (Robert's newly started game).  With history the big blind
        still moves one player on (nobody skips it or takes it twice running) and
        the small blind and button are the ready players right of it; for the very
        first hand the button is ``first_button`` (or the first ready seat) and the
        blinds follow it."""
        n = len(ready)
        if bb is None:
            btn = first_button if first_button is not None else ready[0]
            after = [s for s in self._clockwise_from(btn) if s in ready]
            if n == 2:
                sb = btn if btn in ready else after[0]
                bb = next(s for s in ready if s != sb)
                btn = sb
            else:
                sb, bb = after[0], after[1]
        else:
            before = [s for s in reversed(self._clockwise_from(bb)) if s in ready and s != bb]
            sb = before[0]
            btn = sb if n == 2 else before[1]
        d = Draft(big_blind=bb, small_blind_position=sb, button=btn, small_blind=sb)
        for s in ready:
            d.dealt[s] = []
        d.dealt[sb] = [self._forced(sb, PostKind.SMALL_BLIND)]
        d.dealt[bb] = [self._forced(bb, PostKind.BIG_BLIND)]
        for s in self._seats:
            if s not in d.dealt:
                p = self._seats[s]
                d.waiting[s] = Waiting.AWAY if p.away else Waiting.NO_CHIPS
        self._avoid_repeat_button(d)
        return self._make_plan(d, missed_big, missed_small, passed, new_game=True)

    def _make_plan(
        self,
        d: Draft,
        missed_big: Sequence[int],
        missed_small: Sequence[int],
        passed: Sequence[int],
        *,
        new_game: bool,
    ) -> HandPlan:
        order = [s for s in self._clockwise_from(d.button) if s in d.dealt]
        posts: list[Forced] = []
        if self.config.ante:
            posts += [self._forced(s, PostKind.ANTE) for s in order]
        for s in order:
            posts += d.dealt[s]
        return HandPlan(
            hand_number=self.hands_played + 1,
            game=self.config.game,
            seats=tuple(order),
            players=tuple(self._seats[s].player_id for s in order),
            stacks=tuple(self._seats[s].chips for s in order),
            posts=tuple(posts),
            button=d.button,
            button_dead=d.button_dead or d.button not in d.dealt,
            small_blind=d.small_blind,
            small_blind_position=d.small_blind_position,
            big_blind=d.big_blind,
            heads_up=len(order) == 2,
            new_game=new_game,
            waiting=tuple(sorted(d.waiting.items())),
            missed_big=tuple(missed_big),
            missed_small=tuple(missed_small),
            passed_away=tuple(passed),
            seated=tuple((s, p.player_id) for s, p in sorted(self._seats.items())),
        )
