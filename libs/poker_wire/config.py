"""GameConfig (poker.common.v1) to the library's StudConfig / DrawConfig.

The conversion is strict: a field that does not apply to the game (a bring-in in
draw, pot limit in stud) is refused rather than ignored, because a table created
with it would not play the game its creator meant.  The library's own ``validate``
then checks the stakes (0 < bring-in <= small bet <= big bet, ...).
"""

from __future__ import annotations

from poker.common.v1 import common_pb2 as pb
from poker_rules.config import DrawConfig, Game, Structure, StudConfig
from poker_rules.errors import InvalidConfigError

from .checks import check_chips, check_count
from .enums import game_of, river_shortage_of, structure_of, timeout_policy_of
from .errors import WireError

MAX_RAISES_LIMIT = 100
"""Largest fixed-limit cap accepted (the rule book's is 3)."""


_CACHE: dict[bytes, StudConfig | DrawConfig] = {}
_CACHE_SIZE = 4_096


def game_config(msg: pb.GameConfig, field: str = "config") -> StudConfig | DrawConfig:
    """The library configuration of ``msg``, validated.

    Every betting call carries its table's configuration, so the valid ones are
    remembered by their bytes (the configurations are immutable): a hand's
    decisions parse and validate it once, not at every call.
    """
    key = msg.SerializeToString(deterministic=True)
    config = _CACHE.get(key)
    if config is None:
        config = _game_config(msg, field)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = config
    return config


def _game_config(msg: pb.GameConfig, field: str) -> StudConfig | DrawConfig:
    game = game_of(msg.game, f"{field}.game")
    for name in ("ante", "bring_in", "small_bet", "big_bet"):
        check_chips(getattr(msg, name), f"{field}.{name}")
    max_raises = 3
    if msg.HasField("max_raises"):
        max_raises = check_count(msg.max_raises, f"{field}.max_raises", 1, MAX_RAISES_LIMIT)
    timeout_policy = timeout_policy_of(msg.timeout_policy, f"{field}.timeout_policy")
    structure = structure_of(msg.structure, f"{field}.structure")
    river = river_shortage_of(msg.river_shortage, f"{field}.river_shortage")
    config: StudConfig | DrawConfig
    if game is Game.DRAW_7A:
        for name in ("bring_in", "burn_before_third", "river_shortage"):
            if getattr(msg, name):
                raise WireError(f"{field}.{name} is for the stud games, not 7-A draw")
        config = DrawConfig(
            structure=structure,
            small_bet=msg.small_bet,
            big_bet=msg.big_bet,
            ante=msg.ante,
            max_raises=max_raises,
            burn_before_draw=msg.burn_before_draw if msg.HasField("burn_before_draw") else True,
            timeout_policy=timeout_policy,
        )
    else:
        if structure is not Structure.FIXED_LIMIT:
            raise WireError(f"{field}.structure: the stud games are fixed limit (S1)")
        if msg.HasField("burn_before_draw"):
            raise WireError(f"{field}.burn_before_draw is for 7-A draw, not stud")
        config = StudConfig(
            hi_lo=game is Game.STUD_HILO,
            ante=msg.ante,
            bring_in=msg.bring_in,
            small_bet=msg.small_bet,
            big_bet=msg.big_bet,
            max_raises=max_raises,
            burn_before_third=msg.burn_before_third,
            timeout_policy=timeout_policy,
            river_shortage=river,
        )
    try:
        config.validate()
    except InvalidConfigError as error:
        raise WireError(f"{field}: {error}") from None
    return config
