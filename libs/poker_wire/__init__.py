"""poker_wire: between the protos (poker.*.v1) and the rules library.

Every request field a service reads passes through here first: cards from
``"As"`` strings, enums, game configurations, ids and amounts.  A bad value raises
``service_kit.InvalidArgumentError`` whose message names the field and says what is
allowed, so every service rejects malformed input the same way (INVALID_ARGUMENT)
before the library sees it.
"""

from .cards import card_list, card_strs, one_card
from .checks import MAX_CHIPS, MAX_ID_LENGTH, check_chips, check_count, check_id
from .config import game_config
from .enums import game_of, river_shortage_of

__all__ = [
    "MAX_CHIPS",
    "MAX_ID_LENGTH",
    "card_list",
    "card_strs",
    "check_chips",
    "check_count",
    "check_id",
    "game_config",
    "game_of",
    "one_card",
    "river_shortage_of",
]
