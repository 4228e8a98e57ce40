"""Reading PHH back: the configuration a file describes, and the hand rebuilt from
its actions and the deck seed."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

from ..actions import Action
from ..cards import parse_cards
from ..config import DrawConfig, RiverShortage, Structure, StudConfig, TimeoutPolicy
from ..draw import DrawHand, Post
from ..errors import RulesError
from ..replay import apply_all, new_hand
from ..stud import StudHand
from .variants import (
    DRAW_STRUCTURES,
    DRAW_VARIANTS,
    LEGACY_DRAW_VARIANT,
    STUD_HILO_VARIANT,
    STUD_VARIANT,
)
from .writer import to_phh_dict


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
            else DRAW_STRUCTURES.get(variant, Structure.NO_LIMIT),
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

    >>> from poker_rules import Action, StudConfig, StudHand
    >>> from poker_rules.phh import to_phh
    >>> hand = StudHand(StudConfig(), [1000, 1000], seed=5)
    >>> hand.act(Action.bring_in())
    >>> hand.act(Action.fold())
    >>> replay_phh(to_phh(hand), seed=5).actions == hand.actions
    True
    >>> replay_phh(to_phh(hand), seed=6)
    Traceback (most recent call last):
    ...
    ValueError: ...
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
