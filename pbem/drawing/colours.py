"""Colours shared by the boards: ink that reads on a fill, and colours looked up by name
with spare colours for names the installed palette does not know (owner-edited data)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

DARK_INK = "#111111"
LIGHT_INK = "#ffffff"
LINE = "#222222"  # outlines of pieces
MUTED = "#777777"  # words for what is empty or still to come
ALERT = "#a61c3c"  # words that warn (last turns, an owed move, a failed audit)
# Spare fills for names a palette does not list, told apart from one another.
SPARE = ("#17becf", "#bcbd22", "#e377c2", "#7f7f7f", "#9edae5", "#c5b0d5")

_HEX = re.compile(r"#[0-9a-fA-F]{6}")


def ink_on(fill: str) -> str:
    """Black or white letters, whichever reads on ``fill`` (a #rrggbb colour; anything
    else is taken as a light fill)."""
    value = int(fill[1:], 16) if _HEX.fullmatch(fill) else 0xFFFFFF
    red, green, blue = value >> 16, (value >> 8) & 0xFF, value & 0xFF
    return DARK_INK if red * 299 + green * 587 + blue * 114 > 150_000 else LIGHT_INK


def by_name(name: str, named: Mapping[str, str], order: Sequence[str] = (),
            spare: Sequence[str] = SPARE) -> str:
    """``named[name]``, else a spare colour chosen by the name's place among the names of
    ``order`` that ``named`` lacks (so two unknown names get two colours)."""
    if name in named:
        return named[name]
    unknown = [n for n in order if n not in named]
    index = unknown.index(name) if name in unknown else 0
    return spare[index % len(spare)]


def seat_colour(palette: Sequence[str], seat: int) -> str:
    return palette[seat % len(palette)]
