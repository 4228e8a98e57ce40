"""Writing PHH: the fields of a hand and the text of the file (the house record).

``write_phh`` and ``draw_bet_fields`` are also what the players' histories
(``poker_wire.phh_view``) are written with, so the house record and the players'
views are the same dialect.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..cards import cards_str
from ..config import Structure
from ..draw import DrawHand
from ..events import Blind, Burn, DeadBlind, Timeout
from ..stud import StudHand
from .actions import annotated_actions
from .toml_text import toml_key, toml_value
from .variants import DRAW_VARIANTS, STUD_HILO_VARIANT, STUD_VARIANT, PhhValue


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

    >>> from poker_rules import Action, StudConfig, StudHand
    >>> from poker_rules.phh import replay_phh
    >>> hand = StudHand(StudConfig(), [1000, 1000], seed=5)
    >>> hand.act(Action.bring_in())
    >>> hand.act(Action.fold())
    >>> text = to_phh(hand)
    >>> print(text[text.index("actions"):text.index("finishing")].strip())
    actions = [
      # third street
      "d dh p1 Js8sJh",
      "d dh p2 4sKh8d",
      "p2 pb",
      "p1 f",
    ]
    >>> replay_phh(text, seed=5).stacks == hand.stacks  # read back: the same hand
    True
    """
    fields = to_phh_dict(
        hand,
        include_burns=include_burns,
        hand_id=hand_id,
        seats=seats,
        players=players,
        extra=extra,
    )
    return write_phh(fields, annotated_actions(hand))


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
                lines.append(f"  {toml_value(action)},")
            lines.append("]")
        else:
            lines.append(f"{toml_key(key)} = {toml_value(value)}")
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
            if isinstance(e, DeadBlind):
                dead[e.player] += e.amount
        if any(dead):
            user["_dead_blinds"] = list(dead)  # B3/B4: in the pot, part of nobody's bet
    fields["starting_stacks"] = list(hand.starting_stacks)
    fields["actions"] = [action for _, action in annotated_actions(hand)]
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
    timeouts = [e.player + 1 for e in hand.events if isinstance(e, Timeout)]
    if timeouts:
        user["_timeouts"] = list(timeouts)
    if include_burns:
        user["_burned"] = [cards_str(e.cards) for e in hand.events if isinstance(e, Burn)]
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


def _draw_blinds(hand: DrawHand) -> list[PhhValue]:
    """Live blinds per player; PHH reverses them heads-up, so we pre-reverse."""
    blinds = [0] * hand.n
    for e in hand.events:
        if isinstance(e, Blind):
            blinds[e.player] += e.amount
    if hand.n == 2:
        blinds.reverse()
    return list(blinds)
