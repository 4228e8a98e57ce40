"""poker.betting.v1 messages to ``poker_rules.betting`` and back, with validation.

A state from the wire is checked field by field and for consistency (lists that
agree, a player to act who can act, flags of the right game) before the library
sees it: anything malformed is INVALID_ARGUMENT with the field named.  Whether an
action is legal is the library's answer (FAILED_PRECONDITION in the service).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from poker.betting.v1 import betting_pb2 as pb
from poker.common.v1 import common_pb2 as common
from poker_rules.actions import Action, ActionKind, LegalActions
from poker_rules.betting import BettingOutcome, BettingState, PlayerBetting
from poker_rules.cards import Card, card_str
from poker_rules.config import DrawConfig, Game, RiverShortage, Structure, StudConfig
from poker_rules.engine import Award, Phase
from poker_rules.pots import Pot

from .cards import card_list
from .checks import MAX_CHIPS, check_chips, check_count
from .config import game_config
from .enums import GAME_VALUES, RIVER_SHORTAGES, STRUCTURES, TIMEOUT_POLICIES, enum_value
from .errors import WireError

MAX_SEAT = 10
MAX_BET_COUNT = 1_000
PLAYERS = {Game.STUD: 8, Game.STUD_HILO: 8, Game.DRAW_7A: 5}  # S1, D1
STREETS = {Game.STUD: 4, Game.STUD_HILO: 4, Game.DRAW_7A: 1}

PHASES: Mapping[int, Phase] = {
    pb.PHASE_BETTING: Phase.BETTING,
    pb.PHASE_DRAWING: Phase.DRAWING,
    pb.PHASE_COMPLETE: Phase.COMPLETE,
}
PHASE_VALUES = {v: k for k, v in PHASES.items()}

ACTION_KINDS: Mapping[int, ActionKind] = {
    common.ACTION_KIND_FOLD: ActionKind.FOLD,
    common.ACTION_KIND_CHECK: ActionKind.CHECK,
    common.ACTION_KIND_CALL: ActionKind.CALL,
    common.ACTION_KIND_BRING_IN: ActionKind.BRING_IN,
    common.ACTION_KIND_COMPLETE: ActionKind.COMPLETE,
    common.ACTION_KIND_BET: ActionKind.BET,
    common.ACTION_KIND_RAISE: ActionKind.RAISE,
    common.ACTION_KIND_DISCARD: ActionKind.DISCARD,
}
ACTION_KIND_VALUES = {v: k for k, v in ACTION_KINDS.items()}
AGGRESSIVE = (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE)
SHARES = {"all": common.POT_SHARE_WHOLE, "high": common.POT_SHARE_HIGH, "low": common.POT_SHARE_LOW}


def _names(items: Sequence[tuple[str, int]]) -> Mapping[int, str]:
    return {number: name for name, number in items}


PHASE_NAMES = _names(pb.Phase.items())
ACTION_KIND_NAMES = _names(common.ActionKind.items())


def _index(value: int, field: str, n: int, *, optional_minus_one: bool = False) -> int:
    lowest = -1 if optional_minus_one else 0
    return check_count(value, field, lowest, n - 1)


def state_from_pb(msg: pb.BettingState, field: str = "state") -> tuple[BettingState, list[int]]:
    """The library state and the seat of each player index, validated.

    Every betting call carries the whole state, so the usual case (a valid state)
    is checked in a few combined tests here; anything they do not pass goes to
    ``_checked_state_from_pb``, which checks field by field and names what is
    wrong (or, when nothing is, returns the same state).
    """
    if not msg.HasField("config"):
        return _checked_state_from_pb(msg, field)
    config = game_config(msg.config, f"{field}.config")
    game = config.game
    phase = PHASES.get(msg.phase)
    n = len(msg.players)
    street = msg.street
    if phase is None or not 2 <= n <= PLAYERS[game] or not 0 <= street <= STREETS[game]:
        return _checked_state_from_pb(msg, field)
    seats: list[int] = []
    players: list[PlayerBetting] = []
    in_hand = False
    for p in msg.players:
        seat, stack, bet, total, acted_at = p.seat, p.stack, p.bet, p.total, p.acted_at
        folded, all_in, protected, pending = p.folded, p.all_in, p.protected, p.pending
        if (
            not (
                1 <= seat <= MAX_SEAT
                and 0 <= stack <= MAX_CHIPS
                and 0 <= bet <= total <= MAX_CHIPS
                and -1 <= acted_at <= MAX_CHIPS
            )
            or (pending and (folded or all_in))
            or (protected and not all_in)
            or seat in seats
        ):
            return _checked_state_from_pb(msg, field)
        in_hand = in_hand or not folded
        seats.append(seat)
        flags = (folded, all_in, protected, p.voluntary, pending)
        players.append(PlayerBetting(stack, bet, total, *flags, acted_at))
    to_act = msg.to_act if msg.HasField("to_act") else None
    last_aggressor = msg.last_aggressor if msg.HasField("last_aggressor") else None
    round_opener = msg.round_opener if msg.HasField("round_opener") else None
    stud = isinstance(config, StudConfig)
    bring_in_player = msg.bring_in_player
    if (
        not in_hand
        or (to_act is not None and not _may_act(players, to_act, phase))
        or (phase is Phase.DRAWING and game is not Game.DRAW_7A)
        or not 0 <= msg.current_bet <= MAX_CHIPS
        or not 0 <= msg.raise_size <= MAX_CHIPS
        or not 0 <= msg.bet_unit <= MAX_CHIPS
        or not 0 <= msg.dead <= MAX_CHIPS
        or not 0 <= msg.bet_count <= MAX_BET_COUNT
        or (last_aggressor is not None and not 0 <= last_aggressor < n)
        or (round_opener is not None and not 0 <= round_opener < n)
        or msg.version < 0
    ):
        return _checked_state_from_pb(msg, field)
    if stud:
        if (
            not -1 <= bring_in_player < n
            or (msg.bring_in_due and (street != 0 or bring_in_player < 0))
            or (msg.open_pair and (street != 1 or game is Game.STUD_HILO))
        ):
            return _checked_state_from_pb(msg, field)
    elif msg.bring_in_due or msg.open_pair or bring_in_player not in (0, -1):
        return _checked_state_from_pb(msg, field)
    else:
        bring_in_player = -1
    state = _state_of(
        msg, config, players, phase, street, to_act, last_aggressor, round_opener, bring_in_player
    )
    return state, seats


def _may_act(players: Sequence[PlayerBetting], to_act: int, phase: Phase) -> bool:
    """Whether ``to_act`` names a player who can be the one to act (as
    ``_checked_state_from_pb`` requires)."""
    if not 0 <= to_act < len(players) or phase is Phase.COMPLETE:
        return False
    actor = players[to_act]
    if actor.folded or (actor.all_in and phase is not Phase.DRAWING):
        return False
    return phase is not Phase.BETTING or actor.pending


def _checked_state_from_pb(
    msg: pb.BettingState, field: str = "state"
) -> tuple[BettingState, list[int]]:
    """``state_from_pb`` field by field: the first thing wrong is named."""
    if not msg.HasField("config"):
        raise WireError(f"{field}.config is required")
    config = game_config(msg.config, f"{field}.config")
    game = config.game
    n = check_count(len(msg.players), f"{field}.players", 2, PLAYERS[game])
    phase = enum_value(msg.phase, PHASES, f"{field}.phase", PHASE_NAMES)
    street = check_count(msg.street, f"{field}.street", 0, STREETS[game])
    seats: list[int] = []
    players: list[PlayerBetting] = []
    for k, p in enumerate(msg.players):
        where = f"{field}.players[{k}]"
        seat = check_count(p.seat, f"{where}.seat", 1, MAX_SEAT)
        if seat in seats:
            raise WireError(f"{where}.seat: seat {seat} is listed twice")
        seats.append(seat)
        stack = check_chips(p.stack, f"{where}.stack")
        bet = check_chips(p.bet, f"{where}.bet")
        total = check_chips(p.total, f"{where}.total")
        if bet > total:
            raise WireError(f"{where}: bet {bet} exceeds the hand's total {total}")
        if not -1 <= p.acted_at <= MAX_CHIPS:
            raise WireError(f"{where}.acted_at must be -1..{MAX_CHIPS}, got {p.acted_at}")
        if p.pending and (p.folded or p.all_in):
            raise WireError(f"{where}: a folded or all-in player cannot be pending")
        if p.protected and not p.all_in:
            raise WireError(f"{where}: a protected player (S10) is all-in")
        flags = (p.folded, p.all_in, p.protected, p.voluntary, p.pending)
        players.append(PlayerBetting(stack, bet, total, *flags, p.acted_at))
    if all(p.folded for p in players):
        raise WireError(f"{field}.players: somebody must still be in the hand")
    to_act: int | None = None
    if msg.HasField("to_act"):
        to_act = _index(msg.to_act, f"{field}.to_act", n)
        actor = players[to_act]
        if actor.folded or (actor.all_in and phase is not Phase.DRAWING):
            # D6: an all-in player still draws; nobody else who is all-in acts.
            raise WireError(f"{field}.to_act: player {to_act} is folded or all-in")
        if phase is Phase.BETTING and not actor.pending:
            raise WireError(f"{field}.to_act: player {to_act} is not pending")
        if phase is Phase.COMPLETE:
            raise WireError(f"{field}.to_act: nobody acts in a complete hand")
    if phase is Phase.DRAWING and game is not Game.DRAW_7A:
        raise WireError(f"{field}.phase: only 7-A draw has a draw (D6)")
    for name in ("current_bet", "raise_size", "bet_unit", "dead"):
        check_chips(getattr(msg, name), f"{field}.{name}")
    check_count(msg.bet_count, f"{field}.bet_count", 0, MAX_BET_COUNT)
    last_aggressor = (
        _index(msg.last_aggressor, f"{field}.last_aggressor", n)
        if msg.HasField("last_aggressor")
        else None
    )
    round_opener = (
        _index(msg.round_opener, f"{field}.round_opener", n)
        if msg.HasField("round_opener")
        else None
    )
    stud = isinstance(config, StudConfig)
    if not stud and (msg.bring_in_due or msg.open_pair or msg.bring_in_player not in (0, -1)):
        raise WireError(f"{field}: bring-in and open pair are stud fields (S5, S7a)")
    bring_in_player = -1
    if stud:
        bring_in_player = _index(
            msg.bring_in_player, f"{field}.bring_in_player", n, optional_minus_one=True
        )
        if msg.bring_in_due and (street != 0 or bring_in_player < 0):
            raise WireError(
                f"{field}.bring_in_due: only on third street, with the bring_in_player (S5)"
            )
        if msg.open_pair and (street != 1 or game is Game.STUD_HILO):
            raise WireError(f"{field}.open_pair: stud high fourth street only (S7a)")
    if msg.version < 0:
        raise WireError(f"{field}.version must not be negative, got {msg.version}")
    state = _state_of(
        msg, config, players, phase, street, to_act, last_aggressor, round_opener, bring_in_player
    )
    return state, seats


def _state_of(
    msg: pb.BettingState,
    config: StudConfig | DrawConfig,
    players: Sequence[PlayerBetting],
    phase: Phase,
    street: int,
    to_act: int | None,
    last_aggressor: int | None,
    round_opener: int | None,
    bring_in_player: int,
) -> BettingState:
    """The library state of a checked ``msg`` (the fields taken as they are, and
    those the checks derived)."""
    return BettingState(
        config=config,
        players=tuple(players),
        phase=phase,
        street=street,
        to_act=to_act,
        current_bet=msg.current_bet,
        raise_size=msg.raise_size,
        bet_unit=msg.bet_unit,
        bet_count=msg.bet_count,
        capped=msg.capped,
        last_aggressor=last_aggressor,
        round_opener=round_opener,
        dead=msg.dead,
        bring_in_due=msg.bring_in_due,
        bring_in_player=bring_in_player,
        open_pair=msg.open_pair,
        version=msg.version,
    )


_CONFIG_PB: dict[StudConfig | DrawConfig, common.GameConfig] = {}


def config_to_pb(config: StudConfig | DrawConfig) -> common.GameConfig:
    """The wire form of a configuration (remembered: configurations are immutable
    and every state sent back carries one; callers copy, never change, it)."""
    msg = _CONFIG_PB.get(config)
    if msg is None:
        if len(_CONFIG_PB) >= 4_096:
            _CONFIG_PB.clear()
        msg = _CONFIG_PB[config] = _config_to_pb(config)
    return msg


def _config_to_pb(config: StudConfig | DrawConfig) -> common.GameConfig:
    def value_of(table: Mapping[int, object], value: object) -> int:
        return next(k for k, v in table.items() if v == value and k)

    msg = common.GameConfig(
        game=GAME_VALUES[config.game],  # type: ignore[arg-type]
        ante=config.ante,
        small_bet=config.small_bet,
        big_bet=config.big_bet,
        max_raises=config.max_raises,
        timeout_policy=value_of(TIMEOUT_POLICIES, config.timeout_policy),  # type: ignore[arg-type]
    )
    if isinstance(config, DrawConfig):
        msg.structure = value_of(STRUCTURES, config.structure)  # type: ignore[assignment]
        msg.burn_before_draw = config.burn_before_draw
    else:
        msg.structure = value_of(STRUCTURES, Structure.FIXED_LIMIT)  # type: ignore[assignment]
        msg.bring_in = config.bring_in
        msg.burn_before_third = config.burn_before_third
        river: RiverShortage = config.river_shortage
        msg.river_shortage = value_of(RIVER_SHORTAGES, river)  # type: ignore[assignment]
    return msg


def state_to_pb(state: BettingState, seats: Sequence[int]) -> pb.BettingState:
    msg = pb.BettingState()
    fill_state(msg, state, seats)
    return msg


def fill_state(msg: pb.BettingState, state: BettingState, seats: Sequence[int]) -> None:
    """Write ``state`` into an empty ``msg`` in place (a reply's state is built
    where it goes, not built and then copied: every betting call sends one)."""
    msg.config.CopyFrom(config_to_pb(state.config))
    msg.phase = PHASE_VALUES[state.phase]  # type: ignore[assignment]
    msg.street = state.street
    add = msg.players.add
    for seat, p in zip(seats, state.players, strict=True):
        add(
            seat=seat,
            stack=p.stack,
            bet=p.bet,
            total=p.total,
            folded=p.folded,
            all_in=p.all_in,
            protected=p.protected,
            voluntary=p.voluntary,
            pending=p.pending,
            acted_at=p.acted_at,
        )
    msg.current_bet = state.current_bet
    msg.raise_size = state.raise_size
    msg.bet_unit = state.bet_unit
    msg.bet_count = state.bet_count
    msg.capped = state.capped
    msg.dead = state.dead
    msg.bring_in_due = state.bring_in_due
    msg.bring_in_player = state.bring_in_player
    msg.open_pair = state.open_pair
    msg.version = state.version
    if state.to_act is not None:
        msg.to_act = state.to_act
    if state.last_aggressor is not None:
        msg.last_aggressor = state.last_aggressor
    if state.round_opener is not None:
        msg.round_opener = state.round_opener


def action_from_pb(msg: common.Action, field: str = "action") -> Action:
    kind = enum_value(msg.kind, ACTION_KINDS, f"{field}.kind", ACTION_KIND_NAMES)
    amount = check_chips(msg.amount, f"{field}.amount")
    if amount and kind not in AGGRESSIVE:
        raise WireError(f"{field}.amount is for bet, raise and complete only")
    cards: list[Card] = []
    if kind is ActionKind.DISCARD:
        cards = card_list(msg.cards, f"{field}.cards", most=5)
    elif msg.cards:
        raise WireError(f"{field}.cards are for a discard only")
    return Action(kind, amount, tuple(cards))


def action_to_pb(action: Action) -> common.Action:
    return common.Action(
        kind=ACTION_KIND_VALUES[action.kind],  # type: ignore[arg-type]
        amount=action.amount,
        cards=[card_str(c) for c in action.cards],
    )


def legal_to_pb(legal: LegalActions, seats: Sequence[int]) -> common.LegalActions:
    msg = common.LegalActions(
        seat=seats[legal.player],
        can_fold=legal.can_fold,
        can_check=legal.can_check,
        to_choices=list(legal.to_choices),
        kinds=[ACTION_KIND_VALUES[k] for k in legal.kinds],  # type: ignore[misc]
        description=legal.describe(),
    )
    if legal.call_amount is not None:
        msg.call_amount = legal.call_amount
    if legal.bring_in_amount is not None:
        msg.bring_in_amount = legal.bring_in_amount
    if legal.raise_kind is not None:
        msg.raise_kind = ACTION_KIND_VALUES[legal.raise_kind]  # type: ignore[assignment]
    if legal.min_to is not None:
        msg.min_to = legal.min_to
    if legal.max_to is not None:
        msg.max_to = legal.max_to
    if legal.max_discards is not None:
        msg.max_discards = legal.max_discards
    return msg


def pots_to_pb(pots: Sequence[Pot], seats: Sequence[int]) -> list[common.Pot]:
    return [
        common.Pot(amount=p.amount, eligible_seats=[seats[i] for i in p.eligible]) for p in pots
    ]


def awards_to_pb(awards: Sequence[Award], seats: Sequence[int]) -> list[common.Award]:
    return [
        common.Award(
            pot_index=a.pot,
            seat=seats[a.player],
            amount=a.amount,
            share=SHARES[a.half],
        )
        for a in awards
    ]


def outcome_to_pb(outcome: BettingOutcome, seats: Sequence[int]) -> pb.ApplyActionResponse:
    msg = pb.ApplyActionResponse(
        round_complete=outcome.round_complete,
        betting_closed=outcome.betting_closed,
        hand_complete=outcome.hand_complete,
        pots=pots_to_pb(outcome.pots, seats),
        awards=awards_to_pb(outcome.awards, seats),
    )
    fill_state(msg.state, outcome.state, seats)
    if outcome.applied is not None:
        msg.applied.CopyFrom(action_to_pb(outcome.applied))
    if outcome.legal is not None:
        msg.legal.CopyFrom(legal_to_pb(outcome.legal, seats))
        msg.legal.closes_round.extend(
            ACTION_KIND_VALUES[k]  # type: ignore[misc]
            for k in outcome.closes_round
        )
    if outcome.uncalled is not None:
        msg.uncalled_seat = seats[outcome.uncalled[0]]
        msg.uncalled_amount = outcome.uncalled[1]
    return msg
