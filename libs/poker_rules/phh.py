"""Hand histories in the PHH format (Poker Hand History, the TOML format PokerKit reads).

Why PHH: it is the one open, machine-readable hand-history standard, and PokerKit
(``pokerkit.notation.HandHistory``) can step through a PHH file with its own rules
engine.  That gives us an independent cross-check of our stud engines (the
``tests/test_phh_pokerkit.py`` suite) and a format auditors and players' tools can
read without knowing our internals.

What is written, from a finished (or partial) ``StudHand``/``DrawHand``:

- the standard fields: ``variant``, ``ante_trimming_status``, ``antes``,
  ``bring_in``/``small_bet``/``big_bet`` (stud) or ``blinds_or_straddles`` and
  ``small_bet``/``big_bet`` or ``min_bet`` (draw, by structure), ``starting_stacks``,
  ``actions``, and when the hand is over ``finishing_stacks`` and ``winnings``;
- ``actions`` in PHH notation: ``d dh pN CARDS`` (cards dealt to a player, grouped
  per street), ``d db CARD`` (the stud community river card, S11), ``pN pb``
  (bring-in), ``pN cbr TO`` (complete/bet/raise *to*), ``pN cc`` (check/call),
  ``pN f``, ``pN sd CARDS`` (draw discards), ``pN sm CARDS`` (show) and ``pN sm``
  (muck).  As PHH requires, the hands are shown as soon as betting is closed by
  all-ins (before the rest is dealt) and again, seven cards, at the showdown.
  Timeouts (S10) and reshuffles (S11, D6) have no PHH verb: they are written as
  commentaries (``... # timeout (S10)``) or commentary-only no-ops;
- what PHH cannot express, in user-defined fields (keys starting with ``_``, which
  PHH readers must ignore): ``_game``, ``_deck``, ``_structure``, the configurable
  rules in force, timeouts, the river procedure, dead blinds.

``replay_phh`` reads such a file back: configuration, stacks and actions from the
text, the deck from the seed, through ``poker_rules.replay``.

This is the **house record**: every card dealt is written at face value, including
folded players' cards (PHH writes ``??`` only for cards nobody knows, and the house
knows them all).  Burned cards are left out unless ``include_burns=True`` (G4:
burns are never shown to players).  A view for players must be derived separately.

Players are ``p1``..``pN`` in our index order: for stud ``p1`` is the first seat
left of the dealer (G5), as in PHH; for draw ``p1`` is the first player left of the
button, which is PHH's order for button games (``p1`` small blind; heads-up PHH
reverses the blinds, so ``p1`` posts the big blind, as in D3).

The 7-A draw game has no PHH variant, and no PHH variant's rules would pay the
right hand: the one single-draw variant, ``N2L1D``, is deuce-to-seven lowball, so a
reader of a 7-A hand written that way (as this module once did) pays the *low*
hand.  It is written under variant codes of its own, as the PHH specification
says variants it does not list are added: ``F7A1D``, ``P7A1D`` and ``N7A1D``
(fixed-, pot- and no-limit seven-to-ace single draw, ``DRAW_VARIANTS``), with the
standard betting fields of the structure (``small_bet``/``big_bet`` in fixed limit,
``min_bet`` otherwise).  A PHH reader that does not know the code refuses the file
instead of paying someone else (PokerKit 0.7.7: ``KeyError: 'N7A1D'``, an unknown
variant); ``_game = "draw_7a"``, ``_deck``, ``_hand_ranking`` and ``_structure`` say
what was played, and ``finishing_stacks`` and ``winnings`` what the table paid, for
a reader that implements the game to check its own result against.  ``replay_phh``
is such a reader (it also reads the old ``N2L1D`` files, by their ``_game``).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from typing import Any, TypeAlias

from .actions import Action, ActionKind
from .cards import cards_str, parse_cards
from .config import (
    DrawConfig,
    RiverShortage,
    Structure,
    StudConfig,
    TimeoutPolicy,
)
from .draw import DrawHand, Post
from .engine import Event
from .errors import RulesError
from .replay import apply_all, new_hand
from .stud import STREET_NAMES, StudHand

PhhValue: TypeAlias = "str | int | bool | list[PhhValue]"
"""A value that can be written to a PHH (TOML) file."""

STUD_VARIANT = "F7S"
STUD_HILO_VARIANT = "F7S/8"
DRAW_VARIANTS = {
    # Five Card Draw 7-A has no PHH variant; these codes are its own (see the module
    # docstring): a reader that does not know them refuses the file.
    Structure.FIXED_LIMIT: "F7A1D",
    Structure.POT_LIMIT: "P7A1D",
    Structure.NO_LIMIT: "N7A1D",
}
LEGACY_DRAW_VARIANT = "N2L1D"  # how 7-A hands were written before: read, never written
_DRAW_STRUCTURES = {code: structure for structure, code in DRAW_VARIANTS.items()}

_DRAW_STREET_NAMES = ("before the draw", "after the draw")


def to_phh(
    hand: StudHand | DrawHand,
    *,
    include_burns: bool = False,
    hand_id: str | int | None = None,
    seats: Sequence[int] | None = None,
    players: Sequence[str] | None = None,
    extra: Mapping[str, PhhValue] | None = None,
) -> str:
    """The hand as PHH text (TOML), with street comments for human readers.

    ``hand_id``, ``seats`` and ``players`` fill the optional PHH fields ``hand``,
    ``seats`` and ``players`` (the table knows them; the rules library does not).
    ``extra`` adds user-defined fields; their names must start with ``_``.
    """
    fields = to_phh_dict(
        hand,
        include_burns=include_burns,
        hand_id=hand_id,
        seats=seats,
        players=players,
        extra=extra,
    )
    return write_phh(fields, _annotated_actions(hand))


def write_phh(fields: Mapping[str, PhhValue], annotated_actions: Sequence[tuple[str, str]]) -> str:
    """PHH text (TOML) of ``fields`` in their order, the ``actions`` field written
    from ``annotated_actions``: ``(comment, action)`` pairs, a non-empty comment
    becoming a ``# comment`` line above its action (street names, for people).
    Shared by the house record here and the players' histories the table serves
    (``poker_wire.phh_view``), so both are the same dialect."""
    lines: list[str] = []
    for key, value in fields.items():
        if key == "actions":
            lines.append("actions = [")
            for comment, action in annotated_actions:
                if comment:
                    lines.append(f"  # {comment}")
                lines.append(f"  {_toml_value(action)},")
            lines.append("]")
        else:
            lines.append(f"{_toml_key(key)} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def to_phh_dict(
    hand: StudHand | DrawHand,
    *,
    include_burns: bool = False,
    hand_id: str | int | None = None,
    seats: Sequence[int] | None = None,
    players: Sequence[str] | None = None,
    extra: Mapping[str, PhhValue] | None = None,
) -> dict[str, PhhValue]:
    """The PHH fields of the hand, in file order (what ``tomllib`` would read back)."""
    n = hand.n
    fields: dict[str, PhhValue] = {}
    user: dict[str, PhhValue] = {}
    if isinstance(hand, StudHand):
        cfg = hand.config
        fields["variant"] = STUD_HILO_VARIANT if cfg.hi_lo else STUD_VARIANT
        # Antes are live money (our side pots): a player short of the ante can win
        # only what they matched, which is PHH's ante trimming.
        fields["ante_trimming_status"] = True
        fields["antes"] = [cfg.ante] * n
        fields["bring_in"] = cfg.bring_in
        fields["small_bet"] = cfg.small_bet
        fields["big_bet"] = cfg.big_bet
        user["_game"] = cfg.game.value
        user["_deck"] = "standard_52"
        user["_structure"] = Structure.FIXED_LIMIT.value
        user["_max_raises"] = cfg.max_raises
        user["_burn_before_third"] = cfg.burn_before_third
        user["_fourth_street_open_pair_big_bet"] = not cfg.hi_lo  # S7a
        user["_timeout_policy"] = cfg.timeout_policy.value
        user["_river_shortage"] = cfg.river_shortage.value
        if hand.river_outcome != "normal":
            user["_river"] = hand.river_outcome
        if hand.community is not None:
            user["_community_card"] = cards_str((hand.community,))
    else:
        dcfg = hand.config
        fields["variant"] = DRAW_VARIANTS[dcfg.structure]
        fields["ante_trimming_status"] = True
        fields["antes"] = [dcfg.ante] * n
        fields["blinds_or_straddles"] = _draw_blinds(hand)
        fields.update(draw_bet_fields(dcfg.structure, dcfg.small_bet, dcfg.big_bet))
        user["_game"] = dcfg.game.value
        user["_deck"] = "6-A_36" if hand.with_sixes else "7-A_32"
        user["_hand_ranking"] = "7-A: flush beats full house; A-7-8-9-T lowest straight (D8)"
        user["_structure"] = dcfg.structure.value
        user["_small_bet"] = dcfg.small_bet
        user["_big_bet"] = dcfg.big_bet
        if dcfg.structure is Structure.FIXED_LIMIT:
            user["_max_raises"] = dcfg.max_raises
        user["_burn_before_draw"] = dcfg.burn_before_draw
        user["_timeout_policy"] = dcfg.timeout_policy.value
        user["_big_blind_player"] = hand.big_blind_player + 1
        dead = [0] * n
        for e in hand.events:
            if e.kind == "dead":
                dead[e.player] += e.amount
        if any(dead):
            user["_dead_blinds"] = list(dead)  # B3/B4: in the pot, part of nobody's bet
    fields["starting_stacks"] = list(hand.starting_stacks)
    fields["actions"] = [action for _, action in _annotated_actions(hand)]
    if hand_id is not None:
        fields["hand"] = hand_id
    if seats is not None:
        fields["seats"] = list(seats)
    if players is not None:
        fields["players"] = list(players)
    if hand.result is not None:
        fields["finishing_stacks"] = list(hand.result.final_stacks)
        winnings = [0] * n
        for award in hand.result.awards:
            winnings[award.player] += award.amount
        fields["winnings"] = list(winnings)
    timeouts = [e.player + 1 for e in hand.events if e.kind == "timeout"]
    if timeouts:
        user["_timeouts"] = list(timeouts)
    if include_burns:
        user["_burned"] = [cards_str(e.cards) for e in hand.events if e.kind == "burn"]
    for key, value in (extra or {}).items():
        if not key.startswith("_"):
            raise ValueError(f"user-defined PHH fields must start with '_', got {key!r}")
        user[key] = value
    fields.update(user)
    return fields


def draw_bet_fields(structure: Structure, small_bet: int, big_bet: int) -> dict[str, PhhValue]:
    """PHH's betting fields of a 7-A draw hand: fixed limit has a small and a big
    bet, pot and no limit a minimum bet (the big blind), as PHH's variants do."""
    if structure is Structure.FIXED_LIMIT:
        return {"small_bet": small_bet, "big_bet": big_bet}
    return {"min_bet": small_bet}


# ---------------------------------------------------------------- actions


def _draw_blinds(hand: DrawHand) -> list[PhhValue]:
    """Live blinds per player; PHH reverses them heads-up, so we pre-reverse."""
    blinds = [0] * hand.n
    for e in hand.events:
        if e.kind == "blind":
            blinds[e.player] += e.amount
    if hand.n == 2:
        blinds.reverse()
    return list(blinds)


def _action_str(player: int, action: Action) -> str:
    p = f"p{player + 1}"
    kind = action.kind
    if kind is ActionKind.BRING_IN:
        return f"{p} pb"
    if kind is ActionKind.FOLD:
        return f"{p} f"
    if kind in (ActionKind.CHECK, ActionKind.CALL):
        return f"{p} cc"
    if kind is ActionKind.DISCARD:
        return f"{p} sd {cards_str(action.cards)}" if action.cards else f"{p} sd"
    return f"{p} cbr {action.amount}"  # BET, RAISE, COMPLETE: a *to* amount


def _street_name(hand: StudHand | DrawHand, street: int) -> str:
    if isinstance(hand, StudHand):
        return f"{STREET_NAMES[street]} street"
    return _DRAW_STREET_NAMES[street]


def _annotated_actions(hand: StudHand | DrawHand) -> list[tuple[str, str]]:
    """``(toml_comment, action)`` pairs; the comment ('' for none) names the street.

    Dealing is grouped per player and street, as PHH writes it.  In the draw our
    engine serves each player right after their discard (D6); PHH (and PokerKit)
    take every discard first and then the new cards, so the draw is written that
    way, in draw order, with any reshuffle noted where it happened.
    """
    out: list[tuple[str, str]] = []
    table = _Table(hand.starting_stacks)
    held: list[list[int]] = [[] for _ in range(hand.n)]  # stud: cards dealt so far
    shown_all_in = False
    is_draw = isinstance(hand, DrawHand)
    current_section = _street_name(hand, 0)
    pending_comment = current_section
    dealt: dict[int, list[int]] = {}  # player -> cards, in first-dealt order
    draw_deals: list[str] = []  # new cards of the draw, written after all discards
    timed_out = False

    def section(name: str) -> None:
        """Draw hands log no ``street`` events: name a section when it starts."""
        nonlocal pending_comment, current_section
        if current_section != name:
            current_section = name
            pending_comment = name

    def emit(action: str) -> None:
        nonlocal pending_comment
        out.append((pending_comment, action))
        pending_comment = ""

    def flush_deals() -> None:
        for player, cards in dealt.items():
            emit(f"d dh p{player + 1} {cards_str(cards)}")
        dealt.clear()

    def flush_draw() -> None:
        for line in draw_deals:
            emit(line)
        draw_deals.clear()

    for e in hand.events:
        kind = e.kind
        table.apply(e)
        if kind == "deal":
            dealt.setdefault(e.player, []).extend(e.cards)
            held[e.player].extend(e.cards)
            continue
        if kind == "timeout" and e.note != "all_in_protection":
            # The forced action follows as its own event and is written with a
            # comment; the timeout writes nothing, so it must not flush either: in
            # the draw it comes between two discards, and flushing there wrote the
            # earlier drawers' new cards before the timed-out player's ``sd``.
            timed_out = True
            continue
        flush_deals()
        if kind not in {"draw", "reshuffle"}:
            flush_draw()
        if kind == "street":
            if not shown_all_in and table.betting_closed():
                # PHH (and PokerKit) turn the hands up as soon as the players are
                # all-in, before the remaining streets are dealt (S12: all show).
                shown_all_in = True
                for i in table.alive():
                    emit(f"p{i + 1} sm {cards_str(held[i])} # all-in (S12)")
            pending_comment = _street_name(hand, e.street)
        elif kind == "action":
            assert e.action is not None
            if is_draw and e.street == 1:
                section("after the draw")
            text = _action_str(e.player, e.action)
            if timed_out:
                text += " # timeout (S10)"
                timed_out = False
            emit(text)
        elif kind == "timeout":  # all-in protection (the others are handled above)
            emit(
                f"# p{e.player + 1} timeout: all-in protection (S10), plays on for "
                "the chips already committed"
            )
        elif kind == "draw":
            section("the draw")
            text = _action_str(e.player, Action(ActionKind.DISCARD, 0, e.cards))
            if timed_out:
                text += " # timeout (S10): stands pat"
                timed_out = False
            emit(text)
            if e.new_cards:
                draw_deals.append(f"d dh p{e.player + 1} {cards_str(e.new_cards)}")
        elif kind == "reshuffle":
            note = {
                "river": "stub and burns reshuffled for seventh street (S11)",
                "stub_first": "stub served, last card reshuffled with the burns (S11)",
                "draw": "stub, burns and earlier discards reshuffled for the draw (D6)",
            }.get(e.note, e.note)
            line = f"# reshuffle: {note}"
            if draw_deals:
                draw_deals.append(line)
            else:
                emit(line)
        elif kind == "community":
            emit(f"d db {cards_str(e.cards)} # community card, every player's seventh (S11)")
        elif kind == "show":
            emit(f"p{e.player + 1} sm {cards_str(e.cards)}")
        elif kind == "muck":
            emit(f"p{e.player + 1} sm # mucks a beaten hand (S12)")
        # ante, blind, dead, burn, return, win: implied by the fields (PHH automates
        # antes, blinds, burns, uncalled bets and the pot); see finishing_stacks.
    flush_deals()
    flush_draw()
    return out


class _Table:
    """Just enough chip tracking over the event log to know who is all-in.

    PHH shows the hands when betting is closed by all-ins (before the rest is
    dealt), a moment the event log does not mark; it follows from the stacks.
    """

    __slots__ = ("all_in", "bets", "folded", "stacks", "street")

    def __init__(self, stacks: Sequence[int]) -> None:
        n = len(stacks)
        self.stacks = list(stacks)
        self.bets = [0] * n
        self.folded = [False] * n
        self.all_in = [False] * n
        self.street = 0

    def _put(self, i: int, amount: int, *, live: bool = True) -> None:
        amount = min(amount, self.stacks[i])
        self.stacks[i] -= amount
        if live:
            self.bets[i] += amount
        if self.stacks[i] == 0:
            self.all_in[i] = True

    def apply(self, e: Event) -> None:
        kind = e.kind
        if kind in {"ante", "dead"}:
            self._put(e.player, e.amount, live=False)
        elif kind == "blind":
            self._put(e.player, e.amount)
        elif kind == "timeout" and e.note == "all_in_protection":
            self.all_in[e.player] = True
        elif kind == "action":
            if e.street != self.street:
                self.street = e.street
                self.bets = [0] * len(self.bets)
            action = e.action
            assert action is not None
            i, k = e.player, action.kind
            if k is ActionKind.FOLD:
                self.folded[i] = True
            elif k is ActionKind.CALL:
                self._put(i, max(self.bets) - self.bets[i])
            elif k is ActionKind.BRING_IN:
                self._put(i, e.amount)
            elif k in (ActionKind.BET, ActionKind.RAISE, ActionKind.COMPLETE):
                self._put(i, action.amount - self.bets[i])

    def alive(self) -> list[int]:
        return [i for i, f in enumerate(self.folded) if not f]

    def betting_closed(self) -> bool:
        """Two or more players left and at most one of them can still bet."""
        alive = self.alive()
        return len(alive) >= 2 and sum(1 for i in alive if not self.all_in[i]) <= 1


# ---------------------------------------------------------------- reading back


def config_from_phh(fields: Mapping[str, Any]) -> StudConfig | DrawConfig:
    """The table configuration a PHH file written by ``to_phh`` describes."""
    variant = fields["variant"]
    antes = fields.get("antes") or [0]
    if variant in (STUD_VARIANT, STUD_HILO_VARIANT):
        return StudConfig(
            hi_lo=variant == STUD_HILO_VARIANT,
            ante=int(antes[0]),
            bring_in=int(fields["bring_in"]),
            small_bet=int(fields["small_bet"]),
            big_bet=int(fields["big_bet"]),
            max_raises=int(fields.get("_max_raises", 3)),
            burn_before_third=bool(fields.get("_burn_before_third", False)),
            timeout_policy=TimeoutPolicy(fields.get("_timeout_policy", "all_in_protection")),
            river_shortage=RiverShortage(fields.get("_river_shortage", "reshuffle_burns")),
        )
    if variant in DRAW_VARIANTS.values() or (
        variant == LEGACY_DRAW_VARIANT and fields.get("_game") == "draw_7a"
    ):
        small = int(fields.get("_small_bet", fields.get("min_bet", fields.get("small_bet", 0))))
        return DrawConfig(
            structure=Structure(fields["_structure"])
            if "_structure" in fields
            else _DRAW_STRUCTURES.get(variant, Structure.NO_LIMIT),
            small_bet=small,
            big_bet=int(fields.get("_big_bet", fields.get("big_bet", small))),
            ante=int(antes[0]),
            max_raises=int(fields.get("_max_raises", 3)),
            burn_before_draw=bool(fields.get("_burn_before_draw", True)),
            timeout_policy=TimeoutPolicy(fields.get("_timeout_policy", "all_in_protection")),
        )
    raise ValueError(f"not a hand of this card room's games: variant {variant!r}")


def replay_phh(text: str, seed: int) -> StudHand | DrawHand:
    """Rebuild a hand from its PHH history and the deck seed (``poker_rules.replay``).

    The configuration, stacks and player actions come from the PHH text; the deck
    comes from ``seed`` (PHH records the cards dealt, not the deck order).  The
    rebuilt hand must write back exactly the same actions, dealt cards included,
    otherwise ``ValueError`` (wrong seed, or a history that is not ours).
    """
    fields = tomllib.loads(text)
    config = config_from_phh(fields)
    stacks = [int(s) for s in fields["starting_stacks"]]
    hand: StudHand | DrawHand
    if isinstance(config, DrawConfig) and (
        "_dead_blinds" in fields or "_big_blind_player" in fields
    ):
        hand = DrawHand(config, stacks, seed=seed, **_draw_posts(fields, len(stacks)))
    else:
        hand = new_hand(config, stacks, seed)
    try:
        _apply_phh_actions(hand, fields["actions"])
    except RulesError as exc:
        raise ValueError(f"the hand rebuilt from this seed cannot play {exc}") from exc
    if to_phh_dict(hand)["actions"] != list(fields["actions"]):
        raise ValueError("the hand rebuilt from this seed deals or plays differently")
    return hand


def _apply_phh_actions(hand: StudHand | DrawHand, actions: Sequence[str]) -> None:
    for line in actions:
        words, _, comment = str(line).partition("#")
        parts = words.split()
        if not parts:
            if "timeout" in comment:  # all-in protection (S10) has no PHH verb
                apply_all(hand, [(_player(comment.split()[0]), None)])
            continue
        if parts[0] == "d":
            continue  # dealing: checked below by writing the hand back
        player, verb = _player(parts[0]), parts[1]
        if verb == "sm":
            continue  # the showdown follows from the rules (S12)
        if "timeout" in comment:
            apply_all(hand, [(player, None)])
            continue
        apply_all(hand, [(player, _action(hand, verb, parts[2:]))])


def _player(word: str) -> int:
    if not (word.startswith("p") and word[1:].isdigit()):
        raise ValueError(f"not a PHH player: {word!r}")
    return int(word[1:]) - 1


def _action(hand: StudHand | DrawHand, verb: str, args: list[str]) -> Action:
    """A PHH verb as our action; ``cc`` and ``cbr`` need the menu to be precise."""
    if verb == "f":
        return Action.fold()
    if verb == "pb":
        return Action.bring_in()
    if verb == "sd":
        return Action.discard(parse_cards(args[0]) if args else ())
    legal = hand.legal_actions()
    if verb == "cc":
        return Action.check() if legal.can_check else Action.call()
    if verb == "cbr" and legal.raise_kind is not None:
        return Action(legal.raise_kind, int(args[0]))
    raise ValueError(f"cannot apply PHH action {verb!r} {args} here")


def _draw_posts(fields: Mapping[str, Any], n: int) -> dict[str, Any]:
    """``posts`` and ``big_blind_player`` for ``DrawHand`` from the PHH fields."""
    live = [int(b) for b in fields["blinds_or_straddles"]]
    if n == 2:
        live.reverse()  # PHH reverses heads-up blinds; we wrote them pre-reversed
    dead = [int(d) for d in fields.get("_dead_blinds", [0] * n)]
    posts = [Post(i, a) for i, a in enumerate(live) if a]
    posts += [Post(i, a, live=False) for i, a in enumerate(dead) if a]
    return {"posts": posts, "big_blind_player": int(fields["_big_blind_player"]) - 1}


# ---------------------------------------------------------------- TOML


def _toml_key(key: str) -> str:
    if key and all(c.isascii() and (c.isalnum() or c in "_-") for c in key):
        return key
    return _toml_str(key)


def _toml_str(s: str) -> str:
    """A TOML basic string (escapes quote, backslash and control characters)."""
    parts: list[str] = ['"']
    for ch in s:
        code = ord(ch)
        if ch == '"':
            parts.append('\\"')
        elif ch == "\\":
            parts.append("\\\\")
        elif ch == "\n":
            parts.append("\\n")
        elif ch == "\t":
            parts.append("\\t")
        elif code < 0x20 or code == 0x7F:
            parts.append(f"\\u{code:04x}")
        else:
            parts.append(ch)
    parts.append('"')
    return "".join(parts)


def _toml_value(value: PhhValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return _toml_str(value)
    return "[" + ", ".join(_toml_value(v) for v in value) + "]"


__all__ = [
    "DRAW_VARIANTS",
    "LEGACY_DRAW_VARIANT",
    "STUD_HILO_VARIANT",
    "STUD_VARIANT",
    "PhhValue",
    "config_from_phh",
    "draw_bet_fields",
    "replay_phh",
    "to_phh",
    "to_phh_dict",
    "write_phh",
]
