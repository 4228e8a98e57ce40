"""The betting of a hand on its own, from a serializable snapshot.

A ``BettingState`` is plain data: the configuration, where the hand is and every
player's chips and flags, the fields of ``engine.BettingHand`` plus the stud
bring-in and S7a flags.  It holds no cards and no deck, so a stateless betting
service can take it from the caller, answer, and give the next state back.

There is no second implementation of the rules here.  ``restore`` rebuilds the
state into the very classes the hands run on (``stud.StudBetting`` and
``draw.DrawBetting``, the betting parts that ``StudHand`` and ``DrawHand`` extend
with cards), and every function asks that object: the menu, an action, a timeout
(S10), the opening of a round.  ``snapshot`` reads a state back from any of them,
including a live ``StudHand`` or ``DrawHand``.

Without cards the state stops where cards are needed:

- stud: when a round ends nobody is to act (``to_act`` None); the caller deals
  the next street and calls ``start_round`` with the upcards, from which the
  library finds the bring-in (S5), the first to act (S6) and the open pair (S7a);
  seventh street's end (or ``betting_closed``) is the showdown;
- draw: the first round's end opens the draw (phase DRAWING, one DISCARD per
  active player in turn, D6: the dealer replaces the cards, here the DISCARD only
  passes the turn), the draw's end opens the second round (D7), and its end is the
  showdown;
- a hand won uncontested is settled here (G6: the uncalled bet returned, the pot
  awarded without a showdown).

``version`` counts the actions and timeouts applied to the hand (a live hand's is
``len(hand.actions)``): a client answers a state by its version, so a late or
repeated answer is recognised.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from .actions import Action, ActionKind, LegalActions
from .cards import Card
from .config import DrawConfig, Game, RiverShortage, Structure, StudConfig, TimeoutPolicy
from .draw import POST_DRAW, DrawBetting, Post, default_blinds
from .engine import Award, BettingHand, Phase
from .errors import HandOverError, IllegalActionError, InvalidConfigError
from .pots import Pot, side_pots, uncalled_bet
from .stud import SEVENTH, StudBetting, bring_in_player_of, first_to_act

__all__ = [
    "BettingOutcome",
    "BettingState",
    "PlayerBetting",
    "apply_action",
    "apply_timeout",
    "legal_actions",
    "new_state",
    "restore",
    "showdown_first",
    "showdown_start",
    "snapshot",
    "start_round",
]

GameConfig = StudConfig | DrawConfig


@dataclass(frozen=True, slots=True)
class PlayerBetting:
    """One player's chips and flags (``BettingHand``'s per-player lists)."""

    stack: int = 0  # chips behind
    bet: int = 0  # chips in front this street
    total: int = 0  # live chips put in this hand (antes and blinds included)
    folded: bool = False
    all_in: bool = False  # cannot act again this hand
    protected: bool = False  # all-in by timeout protection (S10)
    voluntary: bool = False  # has put chips in by choice (S10)
    pending: bool = False  # must still act this round
    acted_at: int = -1  # current bet when last acted this round; -1 = not yet


@dataclass(frozen=True, slots=True)
class BettingState:
    """Everything the betting of a hand depends on; see the module docstring."""

    config: GameConfig
    players: tuple[PlayerBetting, ...]
    phase: Phase = Phase.BETTING
    street: int = 0  # betting rounds from 0 (stud: 0 = third street)
    to_act: int | None = None
    current_bet: int = 0
    raise_size: int = 0  # size of the last full bet or raise this round
    bet_unit: int = 0  # fixed limit: this street's increment (S7)
    bet_count: int = 0  # bets and full raises this round (completion counts, S5, S8)
    capped: bool = False
    last_aggressor: int | None = None
    round_opener: int | None = None
    dead: int = 0  # dead money (B3, B4)
    bring_in_due: bool = False  # stud third street before the bring-in (S5)
    bring_in_player: int = -1  # stud: the lowest door card (S5)
    open_pair: bool = False  # stud high fourth street with an open pair (S7a)
    version: int = 0

    @property
    def game(self) -> Game:
        return self.config.game

    @property
    def fold_when_free(self) -> bool:
        """D7: after the draw a player may fold even when checking is free.  Follows
        from the game and the street, so it cannot disagree with them."""
        return self.game is Game.DRAW_7A and self.street == POST_DRAW

    @property
    def pot(self) -> int:
        return sum(p.total for p in self.players) + self.dead

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: enums as their values, the config with its ``game``."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "config":
                value = _config_dict(value)
            elif f.name == "players":
                value = [{g.name: getattr(p, g.name) for g in fields(p)} for p in value]
            elif f.name == "phase":
                value = value.value
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BettingState:
        values = dict(data)
        values["config"] = _config_from_dict(values["config"])
        values["players"] = tuple(PlayerBetting(**p) for p in values["players"])
        values["phase"] = Phase(values["phase"])
        return cls(**values)


def _config_dict(config: GameConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"game": config.game.value}
    for f in fields(config):
        value = getattr(config, f.name)
        out[f.name] = (
            value.value if isinstance(value, Structure | TimeoutPolicy | RiverShortage) else value
        )
    return out


def _config_from_dict(data: Mapping[str, Any]) -> GameConfig:
    values = dict(data)
    game = Game(values.pop("game"))
    values["timeout_policy"] = TimeoutPolicy(values["timeout_policy"])
    if game is Game.DRAW_7A:
        values["structure"] = Structure(values["structure"])
        return DrawConfig(**values)
    values["river_shortage"] = RiverShortage(values["river_shortage"])
    config = StudConfig(**values)
    if config.game is not game:
        raise InvalidConfigError(f"game {game.value} does not match hi_lo={config.hi_lo}")
    return config


@dataclass(frozen=True, slots=True)
class BettingOutcome:
    """The next state, and what the caller must do next.

    ``round_complete``: the betting round (or the draw) in progress ended: stud,
    deal the next street or show down; draw, the draw or the second round opened,
    or the showdown is due.
    ``betting_closed``: nobody can bet any more this hand (all-in, S12): deal the
    rest out and show down.  ``hand_complete``: everyone else folded; ``uncalled``
    (player, chips) was returned (G6) and ``awards`` paid without a showdown.
    ``pots`` are the pots as they stand once the uncalled bet is returned, given
    whenever a round ended.
    """

    state: BettingState
    applied: Action | None = None  # what was applied; None = timeout protection (S10)
    round_complete: bool = False
    betting_closed: bool = False
    hand_complete: bool = False
    uncalled: tuple[int, int] | None = None
    pots: list[Pot] = field(default_factory=list)
    awards: list[Award] = field(default_factory=list)
    final_stacks: list[int] = field(default_factory=list)
    legal: LegalActions | None = None  # the next player's menu, when someone is to act
    # Stud, third to sixth street: the kinds on ``legal`` (check, call, fold) that
    # would end this round with the hand going on, so that the next street is dealt
    # (``round_closers``).
    closes_round: tuple[ActionKind, ...] = ()


# ------------------------------------------------------------------ state <-> engine


def snapshot(hand: BettingHand, version: int | None = None) -> BettingState:
    """The betting state of a hand (a ``StudHand``/``DrawHand`` or a restored one)."""
    if not isinstance(hand, StudBetting | DrawBetting):
        raise TypeError(f"not a stud or draw betting hand: {type(hand).__name__}")
    players = tuple(
        PlayerBetting(
            stack=hand.stacks[i],
            bet=hand.bets[i],
            total=hand.totals[i],
            folded=hand.folded[i],
            all_in=hand.all_in[i],
            protected=hand.protected[i],
            voluntary=hand.voluntary[i],
            pending=hand.pending[i],
            acted_at=hand.acted_at[i],
        )
        for i in range(hand.n)
    )
    stud = hand if isinstance(hand, StudBetting) else None
    return BettingState(
        config=hand.config,
        players=players,
        phase=hand.phase,
        street=hand.street,
        to_act=hand.to_act,
        current_bet=hand.current_bet,
        raise_size=hand.raise_size,
        bet_unit=hand.bet_unit,
        bet_count=hand.bet_count,
        capped=hand.capped,
        last_aggressor=hand.last_aggressor,
        round_opener=hand.round_opener,
        dead=hand.dead,
        bring_in_due=stud.bring_in_due if stud is not None else False,
        bring_in_player=stud.bring_in_player if stud is not None else -1,
        open_pair=stud.open_pair if stud is not None else False,
        version=len(hand.actions) if version is None else version,
    )


def restore(state: BettingState) -> StudBetting | DrawBetting:
    """The engine object in ``state`` (no cards: see the module docstring)."""
    stacks = [p.stack for p in state.players]
    hand: StudBetting | DrawBetting
    if isinstance(state.config, DrawConfig):
        hand = DrawBetting(state.config, stacks)
    else:
        hand = StudBetting(state.config, stacks)
        hand.bring_in_due = state.bring_in_due
        hand.bring_in_player = state.bring_in_player
        hand.open_pair = state.open_pair
    players = state.players
    hand.bets = [p.bet for p in players]
    hand.totals = [p.total for p in players]
    hand.folded = [p.folded for p in players]
    hand.all_in = [p.all_in for p in players]
    hand.protected = [p.protected for p in players]
    hand.voluntary = [p.voluntary for p in players]
    hand.pending = [p.pending for p in players]
    hand.acted_at = [p.acted_at for p in players]
    hand.n_in = sum(not p.folded for p in players)
    hand.n_live = sum(not p.folded and not p.all_in for p in players)
    hand.dead = state.dead
    hand.phase = state.phase
    hand.street = state.street
    hand.to_act = state.to_act
    hand.current_bet = state.current_bet
    hand.raise_size = state.raise_size
    hand.bet_unit = state.bet_unit
    hand.bet_count = state.bet_count
    hand.capped = state.capped
    hand.last_aggressor = state.last_aggressor
    hand.round_opener = state.round_opener
    return hand


# ------------------------------------------------------------------ operations


def new_state(config: GameConfig, stacks: Sequence[int]) -> BettingState:
    """A hand before anything is posted (version 0): give it to ``start_round``.

    >>> from poker_rules import StudConfig
    >>> state = new_state(StudConfig(), [1000, 1000, 1000])
    >>> state.version, state.to_act, [p.stack for p in state.players]
    (0, None, [1000, 1000, 1000])
    """
    config.validate()
    return BettingState(config=config, players=tuple(PlayerBetting(stack=s) for s in stacks))


def legal_actions(state: BettingState) -> LegalActions:
    """The menu of the player to act (``HandOverError`` when nobody is)."""
    return restore(state).legal_actions()


def _outcome(
    before: BettingState, hand: StudBetting | DrawBetting, applied: Action | None, version: int
) -> BettingOutcome:
    state = snapshot(hand, version)
    complete = hand.phase is Phase.COMPLETE
    round_complete = (
        complete
        or state.to_act is None
        or state.phase is not before.phase
        or state.street != before.street
    )
    if complete:
        result = hand.result
        assert result is not None  # type narrowing: a complete hand always has its result
        return BettingOutcome(
            state,
            applied,
            round_complete=True,
            betting_closed=True,
            hand_complete=True,
            uncalled=result.uncalled,
            pots=list(result.pots),
            awards=list(result.awards),
            final_stacks=list(result.final_stacks),
        )
    uncalled: tuple[int, int] | None = None
    pots: list[Pot] = []
    if round_complete:
        uncalled, pots = pots_now(state)
    legal = hand.legal_actions() if state.to_act is not None else None
    return BettingOutcome(
        state,
        applied,
        round_complete=round_complete,
        betting_closed=hand._betting_closed(),
        uncalled=uncalled,
        pots=pots,
        legal=legal,
        closes_round=round_closers(state, legal),
    )


_PASSIVE = (ActionKind.CHECK, ActionKind.CALL, ActionKind.FOLD)


def round_closers(state: BettingState, legal: LegalActions | None) -> tuple[ActionKind, ...]:
    """Stud, third to sixth street: which of the player to act's check, call and
    fold would end the betting round with two or more players still in.

    Why: the next street is then dealt whatever else happens, so a caller that
    knows it in advance (the table service) can ask the dealer for that street
    while the action itself is being applied, instead of after.  Only the last
    player who must still act can close a round; for them each passive kind on the
    menu is tried on a copy of the hand (the answer is the engine's own, not a
    second rule book).  A raise never closes a round, and a fold that leaves one
    player ends the hand instead (nothing is dealt).
    """
    if legal is None or not isinstance(state.config, StudConfig) or state.street >= SEVENTH:
        return ()
    if state.phase is not Phase.BETTING or state.to_act is None:
        return ()
    actor = state.to_act
    if any(
        p.pending and not p.folded and not p.all_in
        for i, p in enumerate(state.players)
        if i != actor
    ):
        return ()
    closers = []
    for kind in _PASSIVE:
        if kind not in legal.kinds:
            continue
        trial = restore(state)
        trial.act(Action(kind), actor)
        if trial.phase is not Phase.COMPLETE and (
            trial.to_act is None or trial.street != state.street or trial.phase is not state.phase
        ):
            closers.append(kind)
    return tuple(closers)


def showdown_start(
    state: BettingState,
    final_round_opened: bool,
    upcards: Sequence[Sequence[Card]] = (),
) -> tuple[int, bool]:
    """S12 / D9: who shows first at the showdown, and whether every hand is shown.

    ``final_round_opened``: the last betting round (stud seventh street, the draw's
    second round) was opened with a player to act; ``upcards`` (stud): every
    player's upcards in dealt order, needed when no player of that round decides
    (``showdown_first`` returns None).

    Returns the index of the first player to show.  This is the decision
    ``StudHand`` and ``DrawHand`` make for their own showdowns, from a betting
    state: the services settle through it, so the two must never differ (the
    equivalence tests play the same hands both ways).
    """
    first, all_show = showdown_first(state, final_round_opened)
    if first is not None:
        return first, all_show
    players = state.players
    if len(upcards) != len(players):
        raise InvalidConfigError(
            f"stud needs every player's upcards to find the best board (S6): "
            f"{len(upcards)} given for {len(players)} players"
        )
    return first_to_act(upcards, [p.folded for p in players]), all_show


def showdown_first(state: BettingState, final_round_opened: bool) -> tuple[int | None, bool]:
    """``showdown_start`` as far as the betting decides it, without the cards.

    The order does not depend on all-ins: S12's all-in sentence says that every
    hand is shown, not that someone else shows first.  When the final round was
    opened, its last bettor or raiser shows first, or, checked through, its first
    player to act.  When the betting closed before it (all-ins), nobody acted on
    it, so the player who would have opened it shows first (docs/rule-decisions.md):
    stud, the best board showing (S6, all-in players included); draw, the first
    player still in left of the button (D7).  ``all_show``: every hand is shown
    (the final round was not opened, or a player still in is all-in); otherwise a
    beaten hand may be mucked.

    Returns the index of the first player to show, or None when the stud best
    board decides (S6 over the final upcards, ``stud.first_to_act``): the betting
    service answers before the rest of the board is dealt out, so the dealer of
    the board looks it up.
    """
    players = state.players
    folded = [p.folded for p in players]
    contenders = [i for i, p in enumerate(players) if not p.folded]
    if len(contenders) < 2:
        raise IllegalActionError(f"a showdown needs two players in, not {len(contenders)}")
    all_show = not final_round_opened or any(players[i].all_in for i in contenders)
    if final_round_opened:
        for first in (state.last_aggressor, state.round_opener):
            if first is not None and not folded[first]:
                return first, all_show
    if isinstance(state.config, DrawConfig):
        return contenders[0], all_show
    return None, all_show


def pots_now(state: BettingState) -> tuple[tuple[int, int] | None, list[Pot]]:
    """The uncalled bet (G6) and the side pots if the betting stopped here."""
    totals = [p.total for p in state.players]
    uncalled = uncalled_bet(totals)
    if uncalled is not None:
        totals[uncalled[0]] -= uncalled[1]
    return uncalled, side_pots(totals, [p.folded for p in state.players], state.dead)


def apply_action(state: BettingState, action: Action, player: int | None = None) -> BettingOutcome:
    """Apply ``action`` for the player to act (``player``, when given, must be them).

    Raises ``HandOverError``, ``NotYourTurnError`` or ``IllegalActionError`` (whose
    message says what is allowed) exactly as the hand does; ``state`` is never
    changed (it is immutable).

    S5: the bring-in posts 50 and passes the turn; the new state has the next
    version, and the old one is as it was.

    >>> from poker_rules import Action, StudConfig, parse_cards
    >>> doors = [[c] for c in parse_cards("6s 8d 9c")]
    >>> opened = start_round(new_state(StudConfig(), [1000, 1000, 1000]), 0, doors).state
    >>> after = apply_action(opened, Action.bring_in())
    >>> after.state.to_act, after.state.version, opened.version
    (1, 1, 0)
    >>> [p.stack for p in after.state.players]  # antes of 25 (S3), then the bring-in
    [925, 975, 975]
    """
    hand = restore(state)
    hand.act(action, player)
    return _outcome(state, hand, action, state.version + 1)


def apply_timeout(state: BettingState) -> BettingOutcome:
    """The action clock ran out for the player to act (S10)."""
    hand = restore(state)
    applied = hand.timeout()
    return _outcome(state, hand, applied, state.version + 1)


def start_round(
    state: BettingState,
    street: int,
    upcards: Sequence[Sequence[Card]] = (),
    posts: Sequence[Post] | None = None,
    big_blind: int | None = None,
) -> BettingOutcome:
    """Open betting round ``street`` once the caller has dealt it.

    Street 0 posts the forced bets first: stud antes (S3) then the bring-in of the
    lowest door card (S5, ``upcards[i]`` = player i's door card); draw antes and
    the blinds of D3, then the first round left of the big blind (D5).  Stud
    streets 1..4 take each player's upcards in dealt order: the best board opens
    (S6) and fourth street checks for an open pair (S7a).  A draw's second round
    opens by itself when the draw ends, so draw street 1 is never started here.

    ``posts`` / ``big_blind`` (draw street 0 only): the lobby's forced bets (B1-B4:
    blinds, entry and make-up blinds, dead money; player indexes) and the big
    blind's player (required with posts, as ``DrawHand`` takes them), instead of
    the default blinds of D3.

    >>> from poker_rules import StudConfig, parse_cards
    >>> state = new_state(StudConfig(), [1000, 1000, 1000])
    >>> opened = start_round(state, 0, [[c] for c in parse_cards("9c 8d 6s")])
    >>> opened.state.to_act, opened.state.bring_in_player  # S5: the 6s brings in
    (2, 2)
    """
    if state.phase is Phase.COMPLETE:
        raise HandOverError("the hand is over; no round can start")
    if state.to_act is not None:
        raise IllegalActionError(f"a round is in progress: player {state.to_act} is to act")
    hand = restore(state)
    n = hand.n
    if street == 0:
        if state.version or any(p.total or p.bet for p in state.players) or state.street:
            raise IllegalActionError("street 0 opens a fresh hand: nothing may be posted yet")
    elif street != state.street + 1:
        raise IllegalActionError(f"the next street is {state.street + 1}, not {street}")
    if isinstance(hand, DrawBetting):
        if street != 0:
            raise IllegalActionError("a draw hand's second round opens when the draw ends (D7)")
        if upcards:
            raise InvalidConfigError("7-A draw has no upcards")
        if posts is None:
            posts, big_blind = default_blinds(hand.config, n)
        else:
            for post in posts:
                if not 0 <= post.player < n or type(post.amount) is not int or post.amount <= 0:
                    raise InvalidConfigError(f"bad forced bet {post!r} for {n} players")
            if big_blind is None or not 0 <= big_blind < n:
                raise InvalidConfigError(f"big blind player {big_blind} is not in 0..{n - 1}")
        hand._post_forced(posts)
        hand._open_first_round(big_blind)
        return _outcome(state, hand, None, state.version)
    if len(upcards) != n:
        raise InvalidConfigError(f"upcards for {n} players are needed, got {len(upcards)}")
    if street == 0:
        if any(len(u) != 1 for u in upcards):
            raise InvalidConfigError("third street: each player shows exactly one door card")
        hand._post_antes()
        hand._open_third_street(bring_in_player_of([u[0] for u in upcards]))
        return _outcome(state, hand, None, state.version)
    if street > SEVENTH:
        raise InvalidConfigError(f"stud has streets 0..{SEVENTH}, not {street}")
    expected = min(street, 3) + 1  # seventh street is dealt down
    for i, u in enumerate(upcards):
        if not hand.folded[i] and len(u) != expected:
            raise InvalidConfigError(
                f"street {street}: player {i} must show {expected} upcards, got {len(u)}"
            )
    hand.street = street
    if not hand._betting_closed():
        hand._open_street(upcards)
    return _outcome(state, hand, None, state.version)
