"""The board of a view as a standalone SVG 1.1 picture (``Game.render_svg``).

Left column, top to bottom: the Junction ring (six docks and six dice alternating, the
gold die in the centre) beside the four planets and Honest Jose's shop; space and the
goods lying there; one home base per owner with its storage; the bank, the deck and the
card display; the text of the commanders and boosts held; what happened since the
reader's last look; a key of the goods' colours. Every ship is drawn where it is (at its
dock, in space or at home) in its owner's colour, its cargo as coloured cubes. Right
column: the game's status and one card per player (and one for Justin in the solo game).

Every fact of this game is public, but the view is still the only source: nothing here
reads the rules tables, so a seat's picture shows what its view holds and nothing more.
The text is written directly (no dependencies), with integer coordinates only and a
fixed order for everything (the goods' order of the rules, the view's lists), so the
same view always gives the same bytes.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from pbem.game import rank_with_tiebreaks

from .constants import CREW_TYPES, GOODS, JUSTIN, JUSTIN_CAPACITY, PLANET_GOODS
from .state import place_label

WIDTH = 1240
BOARD_W = 880  # the left column: places, ships and the market
PANEL_X = BOARD_W + 10
PANEL_W = WIDTH - PANEL_X - 10
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"

PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e")  # seats 0..4
JUSTIN_COLOUR = "#37474f"
GOOD_COLOURS = {"gold": "#f2c12e", "whiskey": "#a0522d", "scrap": "#8c8c8c",
                "gas": "#9ccc65", "ice": "#d6eaf8", "ruby": "#c2185b", "oxygen": "#26c6da"}
OTHER_GOOD = "#bdbdbd"  # a good the view names that the rules do not (never, in practice)
KIND_COLOURS = {"crew": "#6d4c41", "commander": "#283593", "boost": "#00796b"}
BOARD_FILL = "#eef1f6"
BOX_FILL = "#fbfbfd"
SPACE_FILL = "#1b2340"
RING_FILL = "#dde3ee"
GOLD_RIM = "#b8860b"

# The Junction: twelve spots (dice and docks alternating) on a circle, clockwise from
# the top. Unit vectors in thousandths keep every coordinate an exact integer.
JUNCTION_BOX = (0, 0, 440, 452)
CX, CY = 220, 246
SPOT_R = 116  # dice and dock circles
LABEL_R = 74  # the dice's names, inside the ring
SHIP_R = 178  # docked ships, outside the ring
UNIT = ((0, -1000), (500, -866), (866, -500), (1000, 0), (866, 500), (500, 866),
        (0, 1000), (-500, 866), (-866, 500), (-1000, 0), (-866, -500), (-500, -866))
DIE = 40

PLANETS_BOX = (450, 0, 430, 272)
SHOP_BOX = (450, 282, 430, 170)
SPACE_BOX = (0, 462, BOARD_W, 150)
HOME_TOP = SPACE_BOX[1] + SPACE_BOX[3] + 10
HOME_H = 158
MARKET_TOP = HOME_TOP + HOME_H + 10
CARD_H = 178
DISPLAY_SLOTS = 6
CUBES_PER_ROW = 7  # cargo cubes under a ship: two rows of seven

# XML 1.0 forbids most control characters, even escaped; handles and data may hold them.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]")


def _clean(text: object) -> str:
    return _NOT_XML.sub("?", str(text))


def _esc(text: object) -> str:
    return escape(_clean(text))


def _attr(text: object) -> str:
    return quoteattr(_clean(text))


def _ident(prefix: str, name: object) -> str:
    """An XML id built from data (card and tile ids are owner-editable)."""
    return f"{prefix}-{_NOT_ID.sub('_', str(name))}"


def _fit(text: str, width: int, size: int) -> str:
    """Cut ``text`` to about ``width`` pixels at font ``size`` (0.6 em per character)."""
    most = max(1, width * 10 // (size * 6))
    return text if len(text) <= most else text[: most - 1] + "…"


def _wrap(text: str, width: int, size: int) -> list[str]:
    return textwrap.wrap(text, max(8, width * 10 // (size * 6))) or [""]


class _Svg:
    """The element list of one picture, with helpers that escape every text and value."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, element: str) -> None:
        self.parts.append(element)

    def open(self, element: str = "g", **attrs: object) -> None:
        self.add(f"<{element}{self._attrs(attrs)}>")

    def close(self, element: str = "g") -> None:
        self.add(f"</{element}>")

    def title(self, text: str) -> None:
        self.add(f"<title>{_esc(text)}</title>")

    @staticmethod
    def _attrs(attrs: dict[str, object]) -> str:
        # Python names stand for SVG's hyphenated ones: stroke_width -> stroke-width.
        return "".join(f" {k.rstrip('_').replace('_', '-')}={_attr(v)}"
                       for k, v in attrs.items() if v != "")

    def rect(self, x: int, y: int, w: int, h: int, fill: str, **attrs: object) -> None:
        self.add(f"<rect x=\"{x}\" y=\"{y}\" width=\"{w}\" height=\"{h}\" "
                 f"fill={_attr(fill)}{self._attrs(attrs)}/>")

    def circle(self, x: int, y: int, r: int, fill: str, **attrs: object) -> None:
        self.add(f"<circle cx=\"{x}\" cy=\"{y}\" r=\"{r}\" fill={_attr(fill)}"
                 f"{self._attrs(attrs)}/>")

    def line(self, x1: int, y1: int, x2: int, y2: int, stroke: str, **attrs: object) -> None:
        self.add(f"<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" "
                 f"stroke={_attr(stroke)}{self._attrs(attrs)}/>")

    def polygon(self, points: list[tuple[int, int]], fill: str, **attrs: object) -> None:
        text = " ".join(f"{x},{y}" for x, y in points)
        self.add(f"<polygon points=\"{text}\" fill={_attr(fill)}{self._attrs(attrs)}/>")

    def text(self, x: int, y: int, text: str, size: int = 12, **attrs: object) -> None:
        self.add(f"<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\"{self._attrs(attrs)}>"
                 f"{_esc(text)}</text>")


# ---- colours and words ---------------------------------------------------------------
def good_colour(good: str) -> str:
    return GOOD_COLOURS.get(good, OTHER_GOOD)


def owner_colour(key: str) -> str:
    """A ship owner's colour: a seat's by its number, Justin's slate grey."""
    if key == JUSTIN or not key.isdigit():
        return JUSTIN_COLOUR
    return PLAYER_COLOURS[int(key) % len(PLAYER_COLOURS)]


def _ink_on(fill: str) -> str:
    """Black or white letters, whichever reads on ``fill`` (a #rrggbb colour)."""
    value = int(fill.lstrip("#"), 16) if re.fullmatch(r"#[0-9a-fA-F]{6}", fill) else 0xFFFFFF
    red, green, blue = value >> 16, (value >> 8) & 0xFF, value & 0xFF
    return "#111111" if red * 299 + green * 587 + blue * 114 > 150_000 else "#ffffff"


def _in_order(goods: dict[str, int], zeros: bool = False) -> list[tuple[str, int]]:
    """A view's goods with a count (or every one listed, with ``zeros``), the rules'
    goods first in their order."""
    known = [(g, int(goods[g])) for g in GOODS if g in goods and (zeros or goods[g])]
    return known + [(g, int(n)) for g, n in goods.items() if g not in GOODS and (zeros or n)]


def _goods_words(goods: dict[str, int]) -> str:
    return ", ".join(f"{g} {n}" for g, n in _in_order(goods)) or "nothing"


def _cost_pairs(text: str) -> list[tuple[str, int]] | None:
    """'ruby 2 gas 3' as [(ruby, 2), (gas, 3)]; None for anything else (drawn as text)."""
    words = text.split()
    if not words or len(words) % 2:
        return None
    pairs = []
    for good, count in zip(words[0::2], words[1::2], strict=True):
        if not count.isdigit():
            return None
        pairs.append((good, int(count)))
    return pairs


def _owners(view: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every ship owner as (key, entry): seats "0".."n-1", then Justin in the solo game."""
    owners = [(str(i), p) for i, p in enumerate(view.get("players", []))]
    if view.get("solo") and isinstance(view.get("justin"), dict):
        owners.append((JUSTIN, view["justin"]))
    return owners


def _ring(view: dict[str, Any]) -> list[tuple[str, Any]]:
    """The Junction's spots in ring order from the die before dock 1: ("die", good) and
    ("dock", entry) alternating. The view lists docks by number with the dice before and
    after each; following those links walks the ring (a ring the data orders otherwise
    is drawn in its own order)."""
    docks = [d for d in view.get("docks", []) if len(d.get("dice", [])) == 2]
    after = {d["dice"][0]: d for d in docks}
    order: list[dict[str, Any]] = []
    here = docks[0] if docks else None
    while here is not None and here not in order:
        order.append(here)
        here = after.get(here["dice"][1])
    if len(order) != len(docks):  # the links do not close: keep the listed order
        order = docks
    spots: list[tuple[str, Any]] = []
    for dock in order:
        spots += [("die", dock["dice"][0]), ("dock", dock)]
    return spots


def _spot(spot: int, radius: int) -> tuple[int, int]:
    ux, uy = UNIT[spot % len(UNIT)]
    return CX + radius * ux // 1000, CY + radius * uy // 1000


# ---- shared pieces ------------------------------------------------------------------------
def _box(out: _Svg, box: tuple[int, int, int, int], heading: str, fill: str = BOX_FILL,
         ink: str = "#333") -> None:
    x, y, w, h = box
    out.rect(x, y, w, h, fill, stroke="#9aa3b5", stroke_width=1, rx=6)
    out.text(x + 10, y + 20, heading, 14, font_weight="bold", fill=ink)


def _cube(out: _Svg, x: int, y: int, size: int, good: str) -> None:
    out.rect(x, y, size, size, good_colour(good), stroke="#222", stroke_width=1,
             class_="cube")


def _chip_rows(out: _Svg, goods: list[tuple[str, int]], x: int, y: int, column: int,
               columns: int, ink: str = "#111", size: int = 11) -> int:
    """Goods as a cube and "good n" each, in ``columns`` columns; returns the rows used."""
    for i, (good, count) in enumerate(goods):
        gx = x + (i % columns) * column
        gy = y + (i // columns) * 15
        _cube(out, gx, gy - 9, 10, good)
        out.text(gx + 14, gy, _fit(f"{good} {count}", column - 16, size), size, fill=ink)
    return (len(goods) + columns - 1) // columns


def _free_slot(out: _Svg, x: int, y: int, words: str, ink: str = "#777") -> None:
    """A dashed outline where a ship would stand (centred on x, y like a ship)."""
    out.rect(x - 34, y - 13, 68, 26, "none", stroke=ink, stroke_width=1,
             stroke_dasharray="4 3", rx=4, class_="free-dock")
    out.text(x, y + 4, words, 11, text_anchor="middle", fill=ink, font_style="italic")


def _draw_ship(out: _Svg, key: str, owner: dict[str, Any], at: tuple[int, int],
               on_dark: bool) -> None:
    """A ship: a hull in its owner's colour with the name on it and its cargo as cubes
    (two rows of seven; "+n" when more) underneath; centred on ``at``."""
    x, y = at
    name = str(owner.get("name", key))
    cargo = _in_order(owner.get("ship", {}))
    load = sum(n for _, n in cargo)
    room = f" of {owner['capacity']}" if "capacity" in owner else ""
    colour = owner_colour(key)
    out.open("g", id=_ident("ship", key), class_="ship")
    out.title(f"{name}'s ship at {place_label(str(owner.get('at', '')))}: "
              f"{load}{room} aboard ({_goods_words(owner.get('ship', {}))})")
    hull = [(x - 33, y - 11), (x + 20, y - 11), (x + 34, y), (x + 20, y + 11), (x - 33, y + 11),
            (x - 27, y)]
    out.polygon(hull, colour, stroke="#ffffff" if on_dark else "#111111", stroke_width=1)
    out.text(x - 3, y + 4, _fit(name, 52, 11), 11, text_anchor="middle", font_weight="bold",
             fill=_ink_on(colour))
    cubes = [g for g, n in cargo for _ in range(n)]
    shown = cubes if len(cubes) <= 2 * CUBES_PER_ROW else cubes[: 2 * CUBES_PER_ROW - 2]
    for i, good in enumerate(shown):
        _cube(out, x - 31 + 9 * (i % CUBES_PER_ROW), y + 14 + 9 * (i // CUBES_PER_ROW), 8, good)
    if len(shown) < len(cubes):
        out.text(x + 32, y + 30, f"+{len(cubes) - len(shown)}", 10, text_anchor="end",
                 font_weight="bold", fill="#ffffff" if on_dark else "#111111")
    out.close()


# ---- the places ---------------------------------------------------------------------------
def _draw_junction(out: _Svg, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """The ring of dice and docks around the gold die; returns where each dock's ship
    stands ("junction N" -> point)."""
    dice = view.get("dice", {})
    out.open("g", id="junction", class_="place")
    out.title("The Junction: each dock trades at the rates of the two dice beside it and "
              "the gold die in the centre")
    _box(out, JUNCTION_BOX, "The Junction")
    out.circle(CX, CY, SPOT_R, RING_FILL, stroke="#8d99ae", stroke_width=12)
    ships: dict[str, tuple[int, int]] = {}
    for index, (kind, what) in enumerate(_ring(view)):
        x, y = _spot(index, SPOT_R)
        if kind == "die":
            _draw_die(out, str(what), int(dice.get(what, 0)), index, x, y)
        else:
            number = what["dock"]
            ships[f"junction {number}"] = _spot(index, SHIP_R)
            sx, sy = ships[f"junction {number}"]
            _draw_dock(out, dice, what, x, y, (sx, sy))
    _draw_gold_die(out, int(dice.get("gold", 0)))
    out.close()
    return ships


def _draw_die(out: _Svg, good: str, face: int, index: int, x: int, y: int) -> None:
    colour = good_colour(good)
    out.open("g", id=_ident("die", good), class_="die")
    out.title(f"the {good} die shows {face}")
    half = DIE // 2
    out.rect(x - half, y - half, DIE, DIE, colour, stroke="#222", stroke_width=2, rx=7)
    out.text(x, y + 8, str(face), 22, text_anchor="middle", font_weight="bold",
             fill=_ink_on(colour))
    lx, ly = _spot(index, LABEL_R)
    out.text(lx, ly + 4, good, 11, text_anchor="middle", font_weight="bold", fill="#333")
    out.close()


def _draw_dock(out: _Svg, dice: dict[str, int], dock: dict[str, Any], x: int, y: int,
               ship_at: tuple[int, int]) -> None:
    number = dock["dock"]
    left, right = dock["dice"]
    docked = str(dock.get("ship", ""))
    out.open("g", id=_ident("dock", number), class_="dock")
    out.title(f"Junction dock {number}: trades {left} at {dice.get(left, '?')}, {right} at "
              f"{dice.get(right, '?')} and gold at {dice.get('gold', '?')}; "
              + (f"{docked}'s ship is here" if docked else "free"))
    if docked:
        out.line(x, y, ship_at[0], ship_at[1], "#5c6b80", stroke_width=3)
    out.circle(x, y, 19, "#ffffff", stroke="#222" if docked else "#8d99ae",
               stroke_width=3 if docked else 2)
    out.text(x, y + 6, str(number), 16, text_anchor="middle", font_weight="bold", fill="#222")
    if not docked:
        out.text(ship_at[0], ship_at[1] + 4, "free", 11, text_anchor="middle", fill="#888",
                 font_style="italic", class_="free-dock")
    out.close()


def _draw_gold_die(out: _Svg, face: int) -> None:
    """The four-sided gold die: a triangle in the ring's centre."""
    out.open("g", id="die-gold", class_="die")
    out.title(f"the gold die shows {face}")
    out.polygon([(CX, CY - 36), (CX - 32, CY + 20), (CX + 32, CY + 20)], good_colour("gold"),
                stroke=GOLD_RIM, stroke_width=3, stroke_linejoin="round")
    out.text(CX, CY + 12, str(face), 22, text_anchor="middle", font_weight="bold",
             fill="#111111")
    out.text(CX, CY + 38, "gold", 11, text_anchor="middle", font_weight="bold", fill="#333")
    out.close()


def _draw_planets(out: _Svg, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    planets = view.get("planets", {})
    names = [p for p in PLANET_GOODS if p in planets] + [p for p in planets
                                                         if p not in PLANET_GOODS]
    x0, y0, _, _ = PLANETS_BOX
    _box(out, PLANETS_BOX, "Planets")
    ships: dict[str, tuple[int, int]] = {}
    for i, planet in enumerate(names):
        entry = planets[planet]
        cx, cy = x0 + 8 + (i % 2) * 212, y0 + 30 + (i // 2) * 120
        colour = good_colour(planet)
        docked = str(entry.get("ship", ""))
        out.open("g", id=_ident("planet", planet), class_="place planet")
        out.title(f"the {planet} planet: {entry.get('stock', 0)} {planet} left to mine; dock "
                  + (f"held by {docked}" if docked else "free"))
        out.circle(cx + 48, cy + 48, 38, colour, stroke="#333", stroke_width=2)
        out.text(cx + 48, cy + 56, str(entry.get("stock", 0)), 22, text_anchor="middle",
                 font_weight="bold", fill=_ink_on(colour))
        out.text(cx + 48, cy + 104, f"{planet} planet", 12, text_anchor="middle",
                 font_weight="bold", fill="#222")
        out.text(cx + 142, cy + 22, "dock", 10, text_anchor="middle", fill="#777")
        ships[planet] = (cx + 142, cy + 46)
        if not docked:
            _free_slot(out, cx + 142, cy + 46, "free")
        out.close()
    return ships


def _draw_shop(out: _Svg, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    shop = view.get("shop", {})
    x0, y0, w, _ = SHOP_BOX
    out.open("g", id="shop", class_="place")
    docked = str(shop.get("ship", ""))
    out.title(f"{shop.get('name', 'the shop')}: super deals, paid from the ship; dock "
              + (f"held by {docked}" if docked else "free"))
    _box(out, SHOP_BOX, _fit(str(shop.get("name", "The shop")), w - 20, 14))
    for i, (value, stack) in enumerate(shop.get("stacks", {}).items()):
        _draw_deal_stack(out, str(value), stack, x0 + 10 + 140 * i, y0 + 32)
    out.text(x0 + w - 50, y0 + 54, "dock", 10, text_anchor="middle", fill="#777")
    if not docked:
        _free_slot(out, x0 + w - 50, y0 + 78, "free")
    out.close()
    return {"shop": (x0 + w - 50, y0 + 78)}


def _draw_deal_stack(out: _Svg, value: str, stack: dict[str, Any], x: int, y: int) -> None:
    """A super deal stack: its top tile (gold paid, goods asked) and how many are left."""
    w, h = 128, 126
    left = int(stack.get("left", 0))
    out.open("g", id=_ident("deal", value), class_="deal-stack")
    if not stack.get("top"):
        out.title(f"the {value}-gold super deal stack is empty")
        out.rect(x, y, w, h, "none", stroke="#aaa", stroke_dasharray="4 3", rx=5)
        out.text(x + w // 2, y + h // 2, f"{value}-gold: empty", 12, text_anchor="middle",
                 fill="#777", font_style="italic")
        out.close()
        return
    out.title(f"super deal {stack['top']}: pay {stack.get('cost', '')} from your ship for "
              f"{value} gold; {left} tile(s) in this stack")
    for depth in range(min(left - 1, 2), 0, -1):  # the tiles under the top one
        out.rect(x + 3 * depth, y + 3 * depth, w, h, "#f5e6b8", stroke=GOLD_RIM, rx=5)
    out.rect(x, y, w, h, "#fff8e1", stroke=GOLD_RIM, stroke_width=2, rx=5)
    out.rect(x, y, w, 20, GOLD_RIM, rx=5)
    out.text(x + 6, y + 15, f"{value} gold", 13, font_weight="bold", fill="#ffffff")
    out.text(x + w - 6, y + 15, _fit(str(stack["top"]), 56, 11), 11, text_anchor="end",
             fill="#ffffff")
    out.text(x + 6, y + 34, "pay from ship:", 10, fill="#555")
    pairs = _cost_pairs(str(stack.get("cost", "")))
    if pairs is None:
        for j, part in enumerate(_wrap(str(stack.get("cost", "")), w - 12, 11)[:4]):
            out.text(x + 6, y + 50 + 15 * j, part, 11)
    else:
        _chip_rows(out, pairs[:5], x + 8, y + 50, w - 12, 1)
    out.text(x + 6, y + h - 6, f"{left} left in stack", 10, fill="#555")
    out.close()


def _draw_space(out: _Svg, view: dict[str, Any]) -> list[tuple[int, int]]:
    """Space: the goods lying there (count and a pile of cubes) and room for ships."""
    x0, y0, w, h = SPACE_BOX
    out.open("g", id="space", class_="place")
    lying = _in_order(view.get("space", {}))
    out.title(f"Space: {_goods_words(view.get('space', {}))} lying here")
    _box(out, SPACE_BOX, "Space", fill=SPACE_FILL, ink="#ffffff")
    for sx, sy in ((300, 20), (372, 128), (610, 16), (700, 138), (845, 40), (520, 132),
                   (180, 140), (790, 100)):  # a few fixed stars
        out.circle(x0 + sx, y0 + sy, 1, "#c5cae9")
    if not lying:
        out.text(x0 + 12, y0 + 44, "nothing lying in space", 12, fill="#c5cae9",
                 font_style="italic")
    for i, (good, count) in enumerate(lying[:7]):
        y = y0 + 40 + 16 * i
        out.open("g", id=_ident("space", good), class_="space-goods")
        _cube(out, x0 + 12, y - 10, 11, good)
        out.text(x0 + 28, y, f"{good} {count}", 12, fill="#ffffff", font_weight="bold")
        for j in range(min(count, 24)):
            _cube(out, x0 + 110 + 9 * j, y - 8, 7, good)
        if count > 24:
            out.text(x0 + 110 + 9 * 24 + 2, y, "…", 12, fill="#ffffff")
        out.close()
    out.text(x0 + 380, y0 + 20, "ships in space", 11, fill="#c5cae9", font_style="italic")
    out.close()
    return [(x0 + 420 + 86 * k, y0 + 64 + 58 * (k // 5)) for k in range(6)]


def _draw_homes(out: _Svg, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """One home base per ship owner: its storage and, when the ship is home, the ship."""
    owners = _owners(view)
    count = max(1, len(owners))
    width = (BOARD_W - 8 * (count - 1)) // count
    ships: dict[str, tuple[int, int]] = {}
    for i, (key, owner) in enumerate(owners):
        x, y = (width + 8) * i, HOME_TOP
        colour = owner_colour(key)
        name = str(owner.get("name", key))
        storage = _in_order(owner.get("storage", {}))
        out.open("g", id=_ident("home", key), class_="place home")
        out.title(f"{name}'s home base: storage {_goods_words(owner.get('storage', {}))}")
        out.rect(x, y, width, HOME_H, BOX_FILL, stroke=colour, stroke_width=2, rx=6)
        out.rect(x, y, width, 22, colour, rx=6)
        out.text(x + 8, y + 16, _fit(f"{name}'s home base", width - 16, 13), 13,
                 font_weight="bold", fill=_ink_on(colour))
        out.text(x + 8, y + 36, "storage", 10, fill="#666")
        if storage:
            _chip_rows(out, storage, x + 8, y + 52, (width - 12) // 2, 2)
        else:
            out.text(x + 8, y + 52, "empty", 11, fill="#888", font_style="italic")
        ships[key] = (x + width // 2, y + 126)
        if owner.get("at") != "home":
            _free_slot(out, x + width // 2, y + 126, "ship away")
        out.close()
    return ships


# ---- the market ---------------------------------------------------------------------------
def _pending_refill(view: dict[str, Any]) -> bool:
    return any("refill" in str(p) or "display" in str(p) for p in view.get("pending", []))


def _draw_market(out: _Svg, view: dict[str, Any], top: int) -> int:
    """The bank, the deck and the six display slots; returns the bottom."""
    y = top + 16
    out.open("g", id="deck")
    out.text(0, y, f"Market deck {view.get('deck', 0)} cards · discard pile "
             f"{view.get('discard', 0)}", 13, font_weight="bold")
    out.close()
    out.open("g", id="bank")
    out.title(f"the bank: {_goods_words(view.get('bank', {}))}"
              + (f"; in the box: {_goods_words(view['box'])}" if view.get("box") else ""))
    x = 330
    out.text(x, y, "Bank", 13, font_weight="bold")
    x += 40
    for good, count in _in_order(view.get("bank", {}), zeros=True):  # an empty bank matters
        _cube(out, x, y - 11, 12, good)
        out.text(x + 16, y, f"{good} {count}", 13)
        x += 34 + 8 * len(f"{good} {count}")
    if view.get("box"):
        out.text(x + 10, y, f"(box: {_goods_words(view['box'])}, out of play)", 12,
                 fill="#666")
    out.close()
    display = view.get("display", [])
    justin_next = str(view["justin"].get("next", "")) if view.get("solo") and \
        isinstance(view.get("justin"), dict) else ""
    width = (BOARD_W - 8 * (DISPLAY_SLOTS - 1)) // DISPLAY_SLOTS
    cy = y + 10
    out.open("g", id="display")
    for slot in range(max(DISPLAY_SLOTS, len(display))):
        cx = (width + 8) * (slot % DISPLAY_SLOTS)
        row = cy + (CARD_H + 8) * (slot // DISPLAY_SLOTS)
        if slot < len(display):
            _draw_card(out, display[slot], cx, row, width, display[slot].get("id") == justin_next)
        else:
            out.open("g", class_="card-slot")
            out.rect(cx, row, width, CARD_H, "none", stroke="#aaa", stroke_dasharray="5 4",
                     rx=6)
            out.text(cx + width // 2, row + CARD_H // 2, "refill coming"
                     if _pending_refill(view) else "(empty)", 12, text_anchor="middle",
                     fill="#777", font_style="italic")
            out.close()
    out.close()
    rows = (max(DISPLAY_SLOTS, len(display)) + DISPLAY_SLOTS - 1) // DISPLAY_SLOTS
    return cy + rows * (CARD_H + 8)


def _draw_card(out: _Svg, card: dict[str, Any], x: int, y: int, w: int, justin_next: bool
               ) -> None:
    """A display card: kind colour, name, points, cost (alternatives), text and id."""
    kind = str(card.get("kind", ""))
    colour = KIND_COLOURS.get(kind, "#555555")
    vp = int(card.get("vp", 0))
    out.open("g", id=_ident("card", card.get("id", "")), class_="card")
    out.title(f"{card.get('id', '')}: {kind} {card.get('name', '')}, "
              + (f"{vp} points, " if kind != "boost" else "")
              + f"costs {card.get('cost', '')}. {card.get('text', '')}")
    out.rect(x, y, w, CARD_H, "#ffffff", stroke=colour, stroke_width=2, rx=6)
    out.rect(x, y, w, 24, colour, rx=6)
    name = str(card.get("name", ""))
    size = next((n for n in (13, 12, 11) if _fit(name, w - 12, n) == name), 10)
    out.text(x + 6, y + 17, _fit(name, w - 12, size), size, font_weight="bold",
             fill="#ffffff")
    if kind != "boost":  # the points, as a coin under the name
        out.circle(x + w - 16, y + 37, 11, "#ffffff", stroke=GOLD_RIM, stroke_width=2)
        out.text(x + w - 16, y + 42, str(vp), 13, text_anchor="middle", font_weight="bold",
                 fill="#111")
    out.text(x + 7, y + 38, f"{kind} · {vp} VP" if kind != "boost" else "boost · no VP", 10,
             fill="#555", font_style="italic")
    row = y + 54
    alternatives = str(card.get("cost", "")).split(" or ")
    for i, alternative in enumerate(alternatives[:3]):
        pairs = _cost_pairs(alternative)
        lead = "cost" if i == 0 else "or"
        out.text(x + 7, row, lead, 10, fill="#555")
        if pairs is None:
            out.text(x + 34, row, _fit(alternative, w - 40, 11), 11)
        else:
            cx = x + 34
            for good, count in pairs:  # together; a chip that does not fit starts a row
                words = f"{good} {count}"
                if cx > x + 34 and cx + 14 + 7 * len(words) > x + w - 4:
                    cx, row = x + 34, row + 14
                _cube(out, cx, row - 9, 10, good)
                out.text(cx + 13, row, words, 11, font_weight="bold")
                cx += 20 + 7 * len(words)
        row += 15
    lines = _wrap(str(card.get("text", "")), w - 14, 10)
    room = (y + CARD_H - 22 - row) // 12 + 1
    for i, line in enumerate(lines[:room]):
        text = line if i < room - 1 or len(lines) <= room else _fit(line + " …", w - 14, 10)
        out.text(x + 7, row + 4 + 12 * i, text, 10, fill="#222")
    out.text(x + 7, y + CARD_H - 7, _fit(str(card.get("id", "")), w - 14, 11), 11,
             font_family="DejaVu Sans Mono, monospace", fill="#444")
    if justin_next:
        out.text(x + w - 7, y + CARD_H - 7, "Justin's next", 10, text_anchor="end",
                 fill=JUSTIN_COLOUR, font_weight="bold")
    out.close()


def _draw_lines(out: _Svg, ident: str, heading: str, lines: list[str], top: int) -> int:
    """A heading and wrapped lines across the left column; returns the bottom."""
    if not lines:
        return top
    out.open("g", id=ident)
    y = top + 18
    out.text(0, y, heading, 13, font_weight="bold")
    for line in lines:
        for part in _wrap(line, BOARD_W - 14, 12):
            y += 16
            out.text(10, y, part, 12, fill="#222")
    out.close()
    return y + 6


def _draw_key(out: _Svg, top: int) -> int:
    out.open("g", id="legend")
    y = top + 18
    out.text(0, y, "Goods", 12, font_weight="bold")
    x = 50
    for good in GOODS:
        _cube(out, x, y - 10, 11, good)
        out.text(x + 15, y, good, 12)
        x += 26 + 8 * len(good)
    out.close()
    return y + 6


# ---- the side panel ------------------------------------------------------------------------
def _final_places(view: dict[str, Any]) -> dict[int, int]:
    players = view.get("players", [])
    scores = {i: int(p.get("score", 0)) for i, p in enumerate(players)}
    ties = {i: [int(t) for t in p.get("tiebreaks", [])] for i, p in enumerate(players)}
    return {seat: place for place, group in enumerate(rank_with_tiebreaks(scores, ties), 1)
            for seat in group}


def _solo_verdict(view: dict[str, Any]) -> str:
    """Who won the solo game, as the outcome decides it: score, then unused boosts, then
    crew cards (Justin's boosts never stay unused)."""
    human, justin = view["players"][0], view["justin"]
    crews = sum(int(n) for t, n in justin.get("crew", {}).items() if t in CREW_TYPES)
    mine = (int(human.get("score", 0)), *[int(t) for t in human.get("tiebreaks", [])])
    his = (int(justin.get("score", 0)), 0, crews)
    name = str(human.get("name", ""))
    return (f"{name} beats Justin" if mine > his else
            "Justin wins" if his > mine else "a shared win with Justin")


def _status_lines(view: dict[str, Any]) -> list[str]:
    players = view.get("players", [])
    count = len(players)
    variant = "Trail Boss variant" if view.get("variant") == "trail-boss" else \
        f"{view.get('variant', 'standard')} game"
    lines = [f"{variant} · " + ("solo (Trailblazer) against Justin" if view.get("solo")
                                else f"{count} players")]
    phase = view.get("phase")
    turn = view.get("turn", 0)
    end = view.get("end", {})
    if phase == "over":
        why = "the deck ran out" if end.get("reason") == "deck" else "the bank's gold ran out"
        lines.append(f"GAME OVER after turn {turn}: {why}.")
        places = _final_places(view)
        order = sorted(places, key=lambda s: (places[s], s))
        lines.append("Final: " + ", ".join(
            f"{places[s]}. {players[s].get('name', s)} {players[s].get('score', 0)}"
            for s in order))
        if view.get("solo") and isinstance(view.get("justin"), dict):
            lines.append(f"Justin scored {view['justin'].get('score', 0)}: "
                         f"{_solo_verdict(view)}.")
    elif phase == "play":
        ts = view.get("turn_state", {})
        lines.append(f"Turn {turn} · To act: {view.get('to_act', '')}")
        lines.append(f"Actions taken {ts.get('actions', 0)} of {ts.get('allowed', 0)}")
        if ts.get("agents_left"):
            lines.append(f"Agents left in this action: {ts['agents_left']}")
        if ts.get("rascal"):
            lines.append(f"Rascals count as {ts['rascal']}s this turn")
        if ts.get("commanded"):
            lines.append(f"Commanders used this turn: {', '.join(ts['commanded'])}")
        if view.get("owed"):
            lines.append(f"Owed first: {view['owed']}")
    else:
        lines.append("Waiting for the set-up roll: first player, dice and display.")
    if end.get("gold_fired") and phase != "over":
        lines.append(f"LAST TURNS: the bank's gold ran out; the game ends after turn "
                     f"{end.get('end_after', 0)}.")
    viewer = view.get("viewer", -1)
    if isinstance(viewer, int) and 0 <= viewer < count:
        lines.append(f"Seen by: {players[viewer].get('name', viewer)}")
    else:
        lines.append("Public view (what everyone sees)")
    lines += [f"Pending: {p}" for p in view.get("pending", [])]
    return lines


def _draw_status(out: _Svg, view: dict[str, Any]) -> int:
    out.open("g", id="status")
    out.text(PANEL_X, 22, "RED DOG JUNCTION", 18, font_weight="bold")
    y = 26
    for line in _status_lines(view):
        strong = line.startswith(("Turn", "GAME OVER", "LAST", "Owed", "Pending"))
        for part in _wrap(line, PANEL_W, 13):
            y += 18
            out.text(PANEL_X, y, part, 13, font_weight="bold" if strong else "normal",
                     fill="#a61c3c" if line.startswith(("LAST", "Owed")) else "#111")
    out.close()
    return y + 12


def _card_names(ids: list[str], used: list[str]) -> str:
    return ", ".join(f"{c} (used)" if c in used else c for c in ids)


def _player_lines(view: dict[str, Any], seat: int) -> list[str]:
    player = view["players"][seat]
    current = player.get("name") == view.get("to_act") and view.get("phase") == "play"
    ts = view.get("turn_state", {}) if current else {}
    crew = player.get("crew", {})
    lines = [f"at {place_label(str(player.get('at', '')))} · gold in storage "
             f"{player.get('storage', {}).get('gold', 0)}"]
    others = {g: n for g, n in player.get("storage", {}).items() if g != "gold"}
    if others:
        lines.append(f"storage also: {_goods_words(others)}")
    lines.append("crew: " + (" · ".join(f"{t}\u00a0{n}" for t, n in crew.items()) or "none")
                 + (f" (rascals as {ts['rascal']}s)" if ts.get("rascal") else ""))
    lines.append(f"commanders: {_card_names(player.get('commanders', []), ts.get('commanded', []))}"
                 if player.get("commanders") else "commanders: none")
    lines.append(f"unused boosts: {', '.join(player.get('boosts', [])) or 'none'}")
    if player.get("played"):
        lines.append(f"played this turn: {', '.join(player['played'])}")
    lines.append(f"super deals: {', '.join(player.get('deals', [])) or 'none'}")
    if player.get("owes_pick"):
        lines.append("Trail Boss: a crew pick is owed")
    parts = player.get("score_parts", {})
    lines.append(f"score {player.get('score', 0)} = "
                 + " + ".join(f"{k} {v}" for k, v in parts.items()))
    return lines


def _player_marks(view: dict[str, Any], seat: int, places: dict[int, int]) -> list[str]:
    player = view["players"][seat]
    marks = []
    if seat == view.get("viewer"):
        marks.append("you")
    if view.get("phase") == "play" and player.get("name") == view.get("to_act"):
        marks.append("to act")
    if seat in places:
        marks.append(f"place {places[seat]}")
    return marks


def _draw_owner_card(out: _Svg, ident: str, key: str, owner: dict[str, Any], marks: list[str],
                     lines: list[str], top: int) -> int:
    """One panel card: the name and marks, the ship's load as cubes, then text lines."""
    colour = owner_colour(key)
    wrapped = [part for text in lines for part in _wrap(text, PANEL_W - 24, 12)]
    height = 24 + 20 + 15 * len(wrapped) + 10
    out.open("g", id=ident, class_="player")
    out.rect(PANEL_X, top, PANEL_W, height, "#ffffff", stroke=colour, stroke_width=2, rx=6)
    out.rect(PANEL_X, top, 8, height, colour, rx=3)
    x, y = PANEL_X + 14, top + 20
    head = _fit(str(owner.get("name", key)), PANEL_W // 2, 15)
    out.text(x, y, head, 15, font_weight="bold", fill=colour)
    if marks:
        room = PANEL_W - 34 - 9 * len(head)
        out.text(PANEL_X + PANEL_W - 8, y, _fit(f"({', '.join(marks)})", room, 12), 12,
                 text_anchor="end", fill="#333")
    y += 20
    cargo = [g for g, n in _in_order(owner.get("ship", {})) for _ in range(n)]
    limit = f"/{owner['capacity']}" if "capacity" in owner else ""
    out.text(x, y, f"ship {len(cargo)}{limit}", 12, font_weight="bold")
    for i, good in enumerate(cargo[:18]):
        _cube(out, x + 62 + 13 * i, y - 10, 11, good)
    if len(cargo) > 18:
        out.text(x + 62 + 13 * 18, y, f"+{len(cargo) - 18}", 11)
    for text in wrapped:
        y += 15
        out.text(x, y, text, 12)
    out.close()
    return top + height


def _justin_lines(view: dict[str, Any]) -> list[str]:
    justin = view["justin"]
    stack = justin.get("stack", [])
    lines = [f"at {place_label(str(justin.get('at', '')))} · gold in storage "
             f"{justin.get('storage', {}).get('gold', 0)}"]
    others = {g: n for g, n in justin.get("storage", {}).items() if g != "gold"}
    if others:
        lines.append(f"storage also: {_goods_words(others)}")
    lines.append(f"stack: {len(stack)} cards, top {justin.get('top') or 'none'}")
    crew = justin.get("crew", {})
    lines.append("by type: " + (" · ".join(f"{t}\u00a0{n}" for t, n in crew.items()) or "none"))
    lines.append(f"super deals: {', '.join(justin.get('deals', [])) or 'none'}")
    if justin.get("awaiting"):
        lines.append(f"waiting for you to name a {justin['awaiting']} dock")
    if view.get("phase") != "over":
        lines.append(f"next he takes: {justin.get('next') or 'nothing'}")
    parts = justin.get("score_parts", {})
    lines.append(f"score {justin.get('score', 0)} = "
                 + " + ".join(f"{k} {v}" for k, v in parts.items()))
    return lines


def _draw_panel(out: _Svg, view: dict[str, Any]) -> int:
    y = _draw_status(out, view)
    places = _final_places(view) if view.get("phase") == "over" else {}
    for seat, player in enumerate(view.get("players", [])):
        y = _draw_owner_card(out, f"player-{seat}", str(seat), player,
                             _player_marks(view, seat, places), _player_lines(view, seat),
                             y) + 8
    if view.get("solo") and isinstance(view.get("justin"), dict):
        # His capacity is a rule, not state: the view has no entry for it.
        justin = dict(view["justin"], capacity=JUSTIN_CAPACITY)
        y = _draw_owner_card(out, "player-justin", JUSTIN, justin, ["automaton"],
                             _justin_lines(view), y) + 8
    return y


# ---- the whole picture ------------------------------------------------------------------------
def _draw_ships(out: _Svg, view: dict[str, Any], spots: dict[str, tuple[int, int]],
                homes: dict[str, tuple[int, int]], space: list[tuple[int, int]]) -> None:
    """Every ship where it is, over the places (so drawn after them)."""
    in_space = 0
    for key, owner in _owners(view):
        at = str(owner.get("at", ""))
        if at == "home" and key in homes:
            point, dark = homes[key], False
        elif at in spots:
            point, dark = spots[at], False
        else:  # in space (or somewhere the picture has no spot for)
            point, dark = space[in_space % len(space)], True
            in_space += 1
        _draw_ship(out, key, owner, point, dark)


def _title(view: dict[str, Any]) -> str:
    head = f"Red Dog Junction, turn {view.get('turn', 0)}"
    if view.get("phase") == "over":
        return head + ", game over"
    if view.get("phase") == "play":
        return f"{head}, {view.get('to_act', '')} to act"
    return head + ", set-up pending"


def render_svg(view: dict[str, Any]) -> str:
    out = _Svg()
    out.rect(0, 0, BOARD_W, MARKET_TOP - 6, BOARD_FILL, rx=8)
    spots = _draw_junction(out, view)
    spots.update(_draw_planets(out, view))
    spots.update(_draw_shop(out, view))
    space = _draw_space(out, view)
    homes = _draw_homes(out, view)
    _draw_ships(out, view, spots, homes, space)
    bottom = _draw_market(out, view, MARKET_TOP)
    held = [f"{k}: {t}" for k, t in view.get("cards", {}).items()]
    bottom = _draw_lines(out, "held-cards", "Commanders and boosts held", held, bottom)
    bottom = _draw_lines(out, "recent", "Since your last look",
                         [str(e) for e in view.get("last", [])], bottom)
    bottom = _draw_key(out, bottom)
    height = max(bottom, _draw_panel(out, view)) + 10
    head = (f"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{WIDTH}\" "
            f"height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" font-family={_attr(FONT)}>")
    body = [head, f"<title>{_esc(_title(view))}</title>",
            f"<rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{height}\" fill=\"#ffffff\"/>"]
    return "\n".join(body + out.parts + ["</svg>"]) + "\n"
