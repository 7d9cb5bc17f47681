"""What the board and the side panel of Red Dog Junction's picture share: the page's two
columns, each owner's colour, each good's colour and shape, and goods as words."""

from __future__ import annotations

from pbem.game import kit

from .constants import GOODS, JUSTIN

WIDTH = kit.PAGE_WIDTH
BOARD_W = 880  # the left column: places, ships and the market
PANEL_X = BOARD_W + 10
PANEL_W = WIDTH - PANEL_X - 10

PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e")  # seats 0..4
JUSTIN_COLOUR = "#37474f"
GOOD_COLOURS = {"gold": "#f2c12e", "whiskey": "#a0522d", "scrap": "#8c8c8c",
                "gas": "#9ccc65", "ice": "#d6eaf8", "ruby": "#c2185b", "oxygen": "#26c6da"}
GOODS_KEY = kit.Goods(GOODS, GOOD_COLOURS)  # each good's fill and shape


def owner_colour(key: str) -> str:
    """A ship owner's colour: a seat's by its number, Justin's slate grey."""
    if key == JUSTIN or not key.isdigit():
        return JUSTIN_COLOUR
    return PLAYER_COLOURS[int(key) % len(PLAYER_COLOURS)]


def in_order(goods: dict[str, int], zeros: bool = False) -> list[tuple[str, int]]:
    """A view's goods with a count (or every one listed, with ``zeros``), the rules'
    goods first in their order."""
    known = [(g, int(goods[g])) for g in GOODS if g in goods and (zeros or goods[g])]
    return known + [(g, int(n)) for g, n in goods.items() if g not in GOODS and (zeros or n)]


def goods_words(goods: dict[str, int]) -> str:
    return ", ".join(f"{g} {n}" for g, n in in_order(goods)) or "nothing"
