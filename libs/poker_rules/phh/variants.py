"""The PHH variant codes of this card room's games, and the type of a PHH value.

Shared by the writer, the reader and the players' histories (``poker_wire.phh_view``),
so every PHH file the room writes names its game the same way.
"""

from __future__ import annotations

from typing import TypeAlias

from ..config import Structure

PhhValue: TypeAlias = "str | int | bool | list[PhhValue]"
"""A value that can be written to a PHH (TOML) file."""

STUD_VARIANT = "F7S"
STUD_HILO_VARIANT = "F7S/8"
DRAW_VARIANTS = {
    # Five Card Draw 7-A has no PHH variant; these codes are its own (see the
    # ``poker_rules.phh`` docstring): a reader that does not know them refuses the file.
    Structure.FIXED_LIMIT: "F7A1D",
    Structure.POT_LIMIT: "P7A1D",
    Structure.NO_LIMIT: "N7A1D",
}
LEGACY_DRAW_VARIANT = "N2L1D"  # how 7-A hands were written before: read, never written
DRAW_STRUCTURES = {code: structure for structure, code in DRAW_VARIANTS.items()}
