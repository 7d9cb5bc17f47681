"""The drawing kit games draw their boards with (``from pbem.game import kit``).

One place for what every board needs, so a game's ``svg.py`` draws only that game:

- canvas: the SVG element list (``Canvas``), escaping of every string from a save
  (``esc``, ``attr``, ``ident``), text measures (``fit``, ``wrap``), the page size;
- colours: ink that reads on a fill, colours by name with spares for unknown names;
- goods: cubes and cargo in a fill and a shape of their own (told apart without colour),
  rows of them, and their key;
- panels: boxes, the status block, notes, a player's card, empty slots, cards with a
  band, and the final result of a complete, audited game (``result_panel``).

Turning the SVG into a PNG is not for games: see :mod:`pbem.drawing.png`.
"""

from pbem.drawing.canvas import FONT, PAGE_WIDTH, Canvas, attr, clean, esc, fit, ident, text_width, wrap
from pbem.drawing.colours import ALERT, DARK_INK, LINE, MUTED, SPARE, by_name, ink_on, seat_colour
from pbem.drawing.goods import SHAPES, Goods, outline
from pbem.drawing.panels import (
    BOX_FILL,
    GOLD_RIM,
    box,
    card_frame,
    empty_slot,
    notes_block,
    player_card,
    result_lines,
    result_panel,
    result_places,
    result_section,
    seat_marks,
    seat_name,
    status_block,
    winner_words,
    write_lines,
)

__all__ = [
    "ALERT", "BOX_FILL", "DARK_INK", "FONT", "GOLD_RIM", "LINE", "MUTED", "PAGE_WIDTH",
    "SHAPES", "SPARE", "attr", "box", "by_name", "Canvas", "card_frame", "clean",
    "empty_slot", "esc", "fit", "Goods", "ident", "ink_on", "notes_block", "outline",
    "player_card", "result_lines", "result_panel", "result_places", "result_section",
    "seat_colour", "seat_marks", "seat_name", "status_block", "text_width", "winner_words", "wrap",
    "write_lines",
]
