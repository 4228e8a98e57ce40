"""poker_wire: between the protos (poker.*.v1) and the rules library.

Every request field a service reads passes through here first: cards from
``"As"`` strings, enums, game configurations, ids and amounts.  A bad value raises
``poker_wire.WireError`` whose message names the field and says what is allowed;
every service reports it the same way (INVALID_ARGUMENT) before the library sees
the value.  Client-side code (bots, the CLI) uses the same checks, so nothing here
imports server plumbing.
"""

from .cards import card_list, card_strs, one_card
from .checks import MAX_CHIPS, MAX_ID_LENGTH, check_chips, check_count, check_id
from .config import game_config
from .enums import game_of, river_shortage_of
from .errors import WireError

__all__ = [
    "MAX_CHIPS",
    "MAX_ID_LENGTH",
    "WireError",
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
