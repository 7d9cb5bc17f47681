"""The board of a view as a standalone SVG 1.1 picture (``Game.render_svg``).

Left column, top to bottom: the Junction ring (six docks and six dice alternating, the
gold die in the centre) beside the four planets and Honest Jose's shop; space and the
goods lying there; one home base per owner with its storage; the bank, the deck and the
card display; the text of the commanders and boosts held; what happened since the
reader's last look; a key of the goods (each has a colour and a shape of its own). Every
ship is drawn where it is (at its dock, in space or at home) in its owner's colour, its
cargo as goods. Right column: the side panel (``panel.py``: the game's
status, the result, one card per player); the colours both share are in ``palette``.

Every fact of this game is public, but the view is still the only source: nothing here
reads the rules tables, so a seat's picture shows what its view holds and nothing more.
It is drawn with the engine's kit (``pbem.game.kit``), with integer coordinates only
and a fixed order for everything (the goods' order of the rules, the view's lists), so
the same view always gives the same bytes.
"""

from __future__ import annotations

from typing import Any

from pbem.game import ended_line, kit

from .constants import JUSTIN, PLANET_GOODS
from .palette import (
    BOARD_W,
    GOODS_KEY,
    JUSTIN_COLOUR,
    WIDTH,
    goods_words,
    in_order,
    owner_colour,
)
from .panel import draw_panel
from .state import place_label
from .view import draft_next

KIND_COLOURS = {"crew": "#6d4c41", "commander": "#283593", "boost": "#00796b"}
BOARD_FILL = "#eef1f6"
SPACE_FILL = "#1b2340"
RING_FILL = "#dde3ee"
GOLD_RIM = kit.GOLD_RIM

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

# ---- words and places ----------------------------------------------------------------
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
    ("dock", entry) alternating. The view's ``ring`` lists the dice as set-up placed them
    (die spot N lies before dock N); before the start entry places them it is empty and
    the die spots are ("die", "") (drawn as not yet placed). A view without ``ring``
    is drawn by following each dock's dice (in the listed order if they do not close)."""
    docks = sorted((d for d in view.get("docks", []) if isinstance(d, dict)),
                   key=lambda d: int(d.get("dock", 0)))
    ring = [str(d) for d in view.get("ring", [])]
    if "ring" in view:
        dice = ring if len(ring) == len(docks) else [""] * len(docks)
        return [spot for die, dock in zip(dice, docks, strict=True)
                for spot in (("die", die), ("dock", dock))]
    linked = [d for d in docks if len(d.get("dice", [])) == 2]
    after = {d["dice"][0]: d for d in linked}
    order: list[dict[str, Any]] = []
    here = linked[0] if linked else None
    while here is not None and here not in order:
        order.append(here)
        here = after.get(here["dice"][1])
    if len(order) != len(linked):  # the links do not close: keep the listed order
        order = linked
    spots: list[tuple[str, Any]] = []
    for dock in order:
        spots += [("die", dock["dice"][0]), ("dock", dock)]
    return spots


def _spot(spot: int, radius: int) -> tuple[int, int]:
    ux, uy = UNIT[spot % len(UNIT)]
    return CX + radius * ux // 1000, CY + radius * uy // 1000


# ---- shared pieces ------------------------------------------------------------------------
def _free_slot(out: kit.Canvas, x: int, y: int, words: str, ink: str = "#777") -> None:
    """A dashed outline where a ship would stand (centred on x, y like a ship)."""
    out.rect(x - 34, y - 13, 68, 26, "none", stroke=ink, stroke_width=1,
             stroke_dasharray="4 3", rx=4, class_="free-dock")
    out.text(x, y + 4, words, 11, text_anchor="middle", fill=ink, font_style="italic")


def _draw_ship(out: kit.Canvas, key: str, owner: dict[str, Any], at: tuple[int, int],
               on_dark: bool) -> None:
    """A ship: a hull in its owner's colour with the name on it and its cargo as cubes
    (two rows of seven; "+n" when more) underneath; centred on ``at``."""
    x, y = at
    name = str(owner.get("name", key))
    cargo = in_order(owner.get("ship", {}))
    load = sum(n for _, n in cargo)
    room = f" of {owner['capacity']}" if "capacity" in owner else ""
    colour = owner_colour(key)
    out.open("g", id=kit.ident("ship", key), class_="ship")
    out.title(f"{name}'s ship at {place_label(str(owner.get('at', '')))}: "
              f"{load}{room} aboard ({goods_words(owner.get('ship', {}))})")
    hull = [(x - 33, y - 11), (x + 20, y - 11), (x + 34, y), (x + 20, y + 11), (x - 33, y + 11),
            (x - 27, y)]
    out.polygon(hull, colour, stroke="#ffffff" if on_dark else "#111111", stroke_width=1)
    out.text(x - 3, y + 4, kit.fit(name, 52, 11), 11, text_anchor="middle", font_weight="bold",
             fill=kit.ink_on(colour))
    cubes = [g for g, n in cargo for _ in range(n)]
    shown = cubes if len(cubes) <= 2 * CUBES_PER_ROW else cubes[: 2 * CUBES_PER_ROW - 2]
    for i, good in enumerate(shown):
        GOODS_KEY.cube(out, x - 31 + 9 * (i % CUBES_PER_ROW), y + 14 + 9 * (i // CUBES_PER_ROW), 8, good)
    if len(shown) < len(cubes):
        out.text(x + 32, y + 30, f"+{len(cubes) - len(shown)}", 10, text_anchor="end",
                 font_weight="bold", fill="#ffffff" if on_dark else "#111111")
    out.close()


# ---- the places ---------------------------------------------------------------------------
def _draw_junction(out: kit.Canvas, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """The ring of dice and docks around the gold die; returns where each dock's ship
    stands ("junction N" -> point)."""
    dice = view.get("dice", {})
    out.open("g", id="junction", class_="place")
    out.title("The Junction: each dock trades at the rates of the two dice beside it and "
              "the gold die in the centre")
    kit.box(out, *JUNCTION_BOX, "The Junction")
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


def _draw_die(out: kit.Canvas, good: str, face: int, index: int, x: int, y: int) -> None:
    half = DIE // 2
    if not good:  # set-up places the dice at random: this spot waits for one
        out.open("g", class_="die-spot")
        out.title("a die spot: the start entry rolls the six dice and places them at random")
        out.rect(x - half, y - half, DIE, DIE, "none", stroke="#8d99ae", stroke_width=2, rx=7,
                 stroke_dasharray="4 3")
        out.text(x, y + 7, "?", 20, text_anchor="middle", fill="#8d99ae", font_weight="bold")
        out.close()
        return
    colour = GOODS_KEY.fill(good)
    out.open("g", id=kit.ident("die", good), class_="die")
    out.title(f"the {good} die shows {face}")
    out.rect(x - half, y - half, DIE, DIE, colour, stroke="#222", stroke_width=2, rx=7)
    out.text(x, y + 8, str(face), 22, text_anchor="middle", font_weight="bold",
             fill=kit.ink_on(colour))
    lx, ly = _spot(index, LABEL_R)
    out.text(lx, ly + 4, good, 11, text_anchor="middle", font_weight="bold", fill="#333")
    out.close()


def _draw_dock(out: kit.Canvas, dice: dict[str, int], dock: dict[str, Any], x: int, y: int,
               ship_at: tuple[int, int]) -> None:
    number = dock["dock"]
    docked = str(dock.get("ship", ""))
    out.open("g", id=kit.ident("dock", number), class_="dock")
    if len(dock.get("dice", [])) == 2:
        left, right = dock["dice"]
        rates = (f"trades {left} at {dice.get(left, '?')}, {right} at {dice.get(right, '?')} "
                 f"and gold at {dice.get('gold', '?')}")
    else:
        rates = "its dice are placed at set-up"
    out.title(f"Junction dock {number}: {rates}; "
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


def _draw_gold_die(out: kit.Canvas, face: int) -> None:
    """The four-sided gold die: a triangle in the ring's centre."""
    out.open("g", id="die-gold", class_="die")
    out.title(f"the gold die shows {face}")
    out.polygon([(CX, CY - 36), (CX - 32, CY + 20), (CX + 32, CY + 20)], GOODS_KEY.fill("gold"),
                stroke=GOLD_RIM, stroke_width=3, stroke_linejoin="round")
    out.text(CX, CY + 12, str(face), 22, text_anchor="middle", font_weight="bold",
             fill="#111111")
    out.text(CX, CY + 38, "gold", 11, text_anchor="middle", font_weight="bold", fill="#333")
    out.close()


def _draw_planets(out: kit.Canvas, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    planets = view.get("planets", {})
    names = [p for p in PLANET_GOODS if p in planets] + [p for p in planets
                                                         if p not in PLANET_GOODS]
    x0, y0, _, _ = PLANETS_BOX
    kit.box(out, *PLANETS_BOX, "Planets")
    ships: dict[str, tuple[int, int]] = {}
    for i, planet in enumerate(names):
        entry = planets[planet]
        cx, cy = x0 + 8 + (i % 2) * 212, y0 + 30 + (i // 2) * 120
        colour = GOODS_KEY.fill(planet)
        docked = str(entry.get("ship", ""))
        out.open("g", id=kit.ident("planet", planet), class_="place planet")
        out.title(f"the {planet} planet: {entry.get('stock', 0)} {planet} left to mine; dock "
                  + (f"held by {docked}" if docked else "free"))
        out.circle(cx + 48, cy + 48, 38, colour, stroke="#333", stroke_width=2)
        out.text(cx + 48, cy + 56, str(entry.get("stock", 0)), 22, text_anchor="middle",
                 font_weight="bold", fill=kit.ink_on(colour))
        out.text(cx + 48, cy + 104, f"{planet} planet", 12, text_anchor="middle",
                 font_weight="bold", fill="#222")
        out.text(cx + 142, cy + 22, "dock", 10, text_anchor="middle", fill="#777")
        ships[planet] = (cx + 142, cy + 46)
        if not docked:
            _free_slot(out, cx + 142, cy + 46, "free")
        out.close()
    return ships


def _draw_shop(out: kit.Canvas, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    shop = view.get("shop", {})
    x0, y0, w, _ = SHOP_BOX
    out.open("g", id="shop", class_="place")
    docked = str(shop.get("ship", ""))
    out.title(f"{shop.get('name', 'the shop')}: super deals, paid from the ship; dock "
              + (f"held by {docked}" if docked else "free"))
    kit.box(out, *SHOP_BOX, kit.fit(str(shop.get("name", "The shop")), w - 20, 14))
    for i, (value, stack) in enumerate(shop.get("stacks", {}).items()):
        _draw_deal_stack(out, str(value), stack, x0 + 10 + 140 * i, y0 + 32)
    out.text(x0 + w - 50, y0 + 54, "dock", 10, text_anchor="middle", fill="#777")
    if not docked:
        _free_slot(out, x0 + w - 50, y0 + 78, "free")
    out.close()
    return {"shop": (x0 + w - 50, y0 + 78)}


def _draw_deal_stack(out: kit.Canvas, value: str, stack: dict[str, Any], x: int, y: int) -> None:
    """A super deal stack: its top tile (gold paid, goods asked) and how many are left."""
    w, h = 128, 126
    left = int(stack.get("left", 0))
    out.open("g", id=kit.ident("deal", value), class_="deal-stack")
    if not stack.get("top"):
        out.title(f"the {value}-gold super deal stack is empty")
        kit.empty_slot(out, x, y, w, h, f"{value}-gold: empty", rx=5)
        out.close()
        return
    out.title(f"super deal {stack['top']}: pay {stack.get('cost', '')} from your ship for "
              f"{value} gold; {left} tile(s) in this stack")
    for depth in range(min(left - 1, 2), 0, -1):  # the tiles under the top one
        out.rect(x + 3 * depth, y + 3 * depth, w, h, "#f5e6b8", stroke=GOLD_RIM, rx=5)
    kit.card_frame(out, x, y, w, h, GOLD_RIM, 20, f"{value} gold", fill="#fff8e1")
    out.text(x + w - 6, y + 15, kit.fit(str(stack["top"]), 56, 11), 11, text_anchor="end",
             fill="#ffffff")
    out.text(x + 6, y + 34, "pay from ship:", 10, fill="#555")
    pairs = _cost_pairs(str(stack.get("cost", "")))
    if pairs is None:
        for j, part in enumerate(kit.wrap(str(stack.get("cost", "")), w - 12, 11)[:4]):
            out.text(x + 6, y + 50 + 15 * j, part, 11)
    else:
        GOODS_KEY.counted(out, pairs[:5], x + 8, y + 50, w - 12, 1)
    out.text(x + 6, y + h - 6, f"{left} left in stack", 10, fill="#555")
    out.close()


def _draw_space(out: kit.Canvas, view: dict[str, Any]) -> list[tuple[int, int]]:
    """Space: the goods lying there (count and a pile of cubes) and room for ships."""
    x0, y0, w, h = SPACE_BOX
    out.open("g", id="space", class_="place")
    lying = in_order(view.get("space", {}))
    out.title(f"Space: {goods_words(view.get('space', {}))} lying here")
    kit.box(out, *SPACE_BOX, "Space", fill=SPACE_FILL, ink="#ffffff")
    for sx, sy in ((300, 20), (372, 128), (610, 16), (700, 138), (845, 40), (520, 132),
                   (180, 140), (790, 100)):  # a few fixed stars
        out.circle(x0 + sx, y0 + sy, 1, "#c5cae9")
    if not lying:
        out.text(x0 + 12, y0 + 44, "nothing lying in space", 12, fill="#c5cae9",
                 font_style="italic")
    for i, (good, count) in enumerate(lying[:7]):
        y = y0 + 40 + 16 * i
        out.open("g", id=kit.ident("space", good), class_="space-goods")
        GOODS_KEY.cube(out, x0 + 12, y - 10, 11, good)
        out.text(x0 + 28, y, f"{good} {count}", 12, fill="#ffffff", font_weight="bold")
        for j in range(min(count, 24)):
            GOODS_KEY.cube(out, x0 + 110 + 9 * j, y - 8, 7, good)
        if count > 24:
            out.text(x0 + 110 + 9 * 24 + 2, y, "…", 12, fill="#ffffff")
        out.close()
    out.text(x0 + 380, y0 + 20, "ships in space", 11, fill="#c5cae9", font_style="italic")
    out.close()
    return [(x0 + 420 + 86 * k, y0 + 64 + 58 * (k // 5)) for k in range(6)]


def _draw_homes(out: kit.Canvas, view: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """One home base per ship owner: its storage and, when the ship is home, the ship."""
    owners = _owners(view)
    count = max(1, len(owners))
    width = (BOARD_W - 8 * (count - 1)) // count
    ships: dict[str, tuple[int, int]] = {}
    for i, (key, owner) in enumerate(owners):
        x, y = (width + 8) * i, HOME_TOP
        colour = owner_colour(key)
        name = str(owner.get("name", key))
        storage = in_order(owner.get("storage", {}))
        out.open("g", id=kit.ident("home", key), class_="place home")
        out.title(f"{name}'s home base: storage {goods_words(owner.get('storage', {}))}")
        out.rect(x, y, width, HOME_H, kit.BOX_FILL, stroke=colour, stroke_width=2, rx=6)
        out.rect(x, y, width, 22, colour, rx=6)
        out.text(x + 8, y + 16, kit.fit(f"{name}'s home base", width - 16, 13), 13,
                 font_weight="bold", fill=kit.ink_on(colour))
        out.text(x + 8, y + 36, "storage", 10, fill="#666")
        if storage:
            GOODS_KEY.counted(out, storage, x + 8, y + 52, (width - 12) // 2, 2)
        else:
            out.text(x + 8, y + 52, "empty", 11, fill="#888", font_style="italic")
        ships[key] = (x + width // 2, y + 126)
        if owner.get("at") != "home":
            _free_slot(out, x + width // 2, y + 126, "ship away")
        out.close()
    return ships


# ---- the market ---------------------------------------------------------------------------
def _slot_words(view: dict[str, Any]) -> str:
    """What an empty display slot says: a set-up stage deals the display after its last
    choice; chance pending fills it at once; else it stays empty."""
    if view.get("phase") not in ("setup", "play", "over"):
        return "dealt after set-up"
    pending = any("refill" in str(p) or "display" in str(p) for p in view.get("pending", []))
    return "refill coming" if pending or view.get("phase") == "setup" else "(empty)"


def _draw_market(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    """The bank, the deck and the six display slots; returns the bottom."""
    y = top + 16
    out.open("g", id="deck")
    out.text(0, y, f"Market deck {view.get('deck', 0)} cards · discard pile "
             f"{view.get('discard', 0)}", 13, font_weight="bold")
    out.close()
    out.open("g", id="bank")
    out.title(f"the bank: {goods_words(view.get('bank', {}))}"
              + (f"; in the box: {goods_words(view['box'])}" if view.get("box") else ""))
    x = 330
    out.text(x, y, "Bank", 13, font_weight="bold")
    x += 40
    for good, count in in_order(view.get("bank", {}), zeros=True):  # an empty bank matters
        GOODS_KEY.cube(out, x, y - 11, 12, good)
        out.text(x + 16, y, f"{good} {count}", 13)
        x += 34 + 8 * len(f"{good} {count}")
    if view.get("box"):
        out.text(x + 10, y, f"(box: {goods_words(view['box'])}, out of play)", 12,
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
            kit.empty_slot(out, cx, row, width, CARD_H, _slot_words(view), rx=6)
            out.close()
    out.close()
    rows = (max(DISPLAY_SLOTS, len(display)) + DISPLAY_SLOTS - 1) // DISPLAY_SLOTS
    return cy + rows * (CARD_H + 8)


def _draw_card(out: kit.Canvas, card: dict[str, Any], x: int, y: int, w: int, justin_next: bool
               ) -> None:
    """A display card: kind colour, name, points, cost (alternatives), text and id."""
    kind = str(card.get("kind", ""))
    colour = KIND_COLOURS.get(kind, "#555555")
    vp = int(card.get("vp", 0))
    out.open("g", id=kit.ident("card", card.get("id", "")), class_="card")
    out.title(f"{card.get('id', '')}: {kind} {card.get('name', '')}, "
              + (f"{vp} points, " if kind != "boost" else "")
              + f"costs {card.get('cost', '')}. {card.get('text', '')}")
    name = str(card.get("name", ""))
    size = next((n for n in (13, 12, 11) if kit.fit(name, w - 12, n) == name), 10)
    kit.card_frame(out, x, y, w, CARD_H, colour, 24, name, size)
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
            out.text(x + 34, row, kit.fit(alternative, w - 40, 11), 11)
        else:
            cx = x + 34
            for good, count in pairs:  # together; a chip that does not fit starts a row
                words = f"{good} {count}"
                if cx > x + 34 and cx + 14 + 7 * len(words) > x + w - 4:
                    cx, row = x + 34, row + 14
                GOODS_KEY.cube(out, cx, row - 9, 10, good)
                out.text(cx + 13, row, words, 11, font_weight="bold")
                cx += 20 + 7 * len(words)
        row += 15
    lines = kit.wrap(str(card.get("text", "")), w - 14, 10)
    room = (y + CARD_H - 22 - row) // 12 + 1
    for i, line in enumerate(lines[:room]):
        text = line if i < room - 1 or len(lines) <= room else kit.fit(line + " …", w - 14, 10)
        out.text(x + 7, row + 4 + 12 * i, text, 10, fill="#222")
    out.text(x + 7, y + CARD_H - 7, kit.fit(str(card.get("id", "")), w - 14, 11), 11,
             font_family="DejaVu Sans Mono, monospace", fill="#444")
    if justin_next:
        out.text(x + w - 7, y + CARD_H - 7, "Justin's next", 10, text_anchor="end",
                 fill=JUSTIN_COLOUR, font_weight="bold")
    out.close()


def _draw_draft(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    """Posse: the reader's own hand as cards (the slot to pick under each), then their
    picks so far and the last card they keep for the left player. The view holds these
    for its own seat only; the public picture has none."""
    draft = view.get("draft")
    if not isinstance(draft, dict) or view.get("phase") != "draft":
        return top
    hand = [c for c in draft.get("hand", []) if isinstance(c, dict)]
    y = top
    if hand:
        width = (BOARD_W - 8 * (DISPLAY_SLOTS - 1)) // DISPLAY_SLOTS
        out.open("g", id="draft-hand")
        out.text(0, y + 18, kit.fit(f"Your hand: pick one (`pick SLOT`); the other "
                                    f"{len(hand) - 1} go to {draft.get('pass_to', '')}",
                                    BOARD_W, 13), 13, font_weight="bold")
        for index, entry in enumerate(hand):
            cx = (width + 8) * (index % DISPLAY_SLOTS)
            row = y + 28 + (CARD_H + 26) * (index // DISPLAY_SLOTS)
            _draw_card(out, entry, cx, row, width, False)
            out.text(cx + width // 2, row + CARD_H + 16, str(entry.get("move", "")), 12,
                     text_anchor="middle", font_weight="bold",
                     font_family="DejaVu Sans Mono, monospace", fill="#283593")
        out.close()
        y += 28 + (CARD_H + 26) * ((len(hand) + DISPLAY_SLOTS - 1) // DISPLAY_SLOTS)
    for size in draft.get("incoming", []):
        y = kit.notes_block(out, "draft-incoming", 0, y, BOARD_W, "On its way to you",
                            [f"a hand of {size}: its deck work is pending"])
    picks = [f"{c.get('slot', '')}: {c.get('id', '')} ({c.get('kind', '')}"
             + (f", {c.get('vp', 0)} VP" if c.get("kind") != "boost" else "") + ")"
             for c in draft.get("picks", []) if isinstance(c, dict)]
    if "picks" in draft:
        y = kit.notes_block(out, "draft-picks", 0, y, BOARD_W, "Your picks so far",
                            picks or ["none yet"])
    kept = [f"{c.get('slot', '')}: {c.get('id', '')}" for c in draft.get("for_left", [])
            if isinstance(c, dict)]
    y = kit.notes_block(out, "draft-for-left", 0, y, BOARD_W,
                        f"Kept for {draft.get('pass_to', '')} (the last card of your hand)", kept)
    return y


def _draw_key(out: kit.Canvas, top: int) -> int:
    out.open("g", id="legend")
    GOODS_KEY.legend(out, 0, top + 18)
    out.close()
    return top + 24


# ---- the whole picture ------------------------------------------------------------------------
def _draw_ships(out: kit.Canvas, view: dict[str, Any], spots: dict[str, tuple[int, int]],
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
    if view.get("phase") == "over" or ended_line(view):
        return head + ", game over"
    if view.get("vote"):
        return head + ", an absence vote is due"
    if view.get("phase") == "play":
        return f"{head}, {view.get('to_act', '')} to act"
    if view.get("phase") == "setup":
        return head + ", set-up pending"
    if view.get("phase") == "draft":  # from three players, the step's pickers (or none)
        step = draft_next(view.get("draft", {}))
        return f"{head}, the Posse draft, " + (step or f"{view.get('to_act', '')} signs next")
    return f"{head}, set-up: {view.get('to_act', '')} picks"


def render_svg(view: dict[str, Any]) -> str:
    out = kit.Canvas()
    out.rect(0, 0, BOARD_W, MARKET_TOP - 6, BOARD_FILL, rx=8)
    spots = _draw_junction(out, view)
    spots.update(_draw_planets(out, view))
    spots.update(_draw_shop(out, view))
    space = _draw_space(out, view)
    homes = _draw_homes(out, view)
    _draw_ships(out, view, spots, homes, space)
    bottom = _draw_market(out, view, MARKET_TOP)
    bottom = _draw_draft(out, view, bottom)
    held = [f"{k}: {t}" for k, t in view.get("cards", {}).items()]
    bottom = kit.notes_block(out, "held-cards", 0, bottom, BOARD_W, "Commanders and boosts held",
                             held)
    bottom = kit.notes_block(out, "recent", 0, bottom, BOARD_W, "Since your last look",
                             [str(e) for e in view.get("last", [])])
    bottom = _draw_key(out, bottom)
    height = max(bottom, draw_panel(out, view)) + 10
    return out.document(WIDTH, height, _title(view))
