"""The board of a view as a standalone SVG 1.1 picture (``Game.render_svg``).

Top: the highway, drawn from the view's board data: one column per road space, a north
lane (traffic heading west) over a south lane (heading east) with direction arrows, and
each warehouse beside its space on its side, in its colour, with its cubes (its own
colour and any strays) and the trucks parked in it. Trucks on the road stand in their
lane-space, pointing their heading, in their owner's colour, with their cargo.

Below, left: the contract market, the decks and the recent events; right: the turn's
status (whose turn, pending chance, boom cards) and one card per player (score, truck,
held contracts with the cubes placed on them, action tokens used this turn, Super Bonus
cards held). Everything comes from the view, so a seat sees what its view holds and no
more: its own Super Bonus cards appear only in its own view (``private``), other seats'
only as counts, until the reveal makes them public.

The text is written directly (no dependencies), with integer coordinates only and the
view's own order for everything, so the same view always gives the same bytes.
"""

from __future__ import annotations

import re
import textwrap
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from .scoring import best_bonus
from .tokens import assignment

WIDTH = 1240
FONT = "DejaVu Sans, Verdana, Arial, sans-serif"
LEFT_W = 600  # the market column under the highway
PANEL_X = LEFT_W + 20
PANEL_W = WIDTH - PANEL_X - 10
BOX_H = 112  # a warehouse box
LANE_H = 46
GRASS = "#e9efdc"  # the highway's background
ASPHALT = "#4b5058"
LANE_MARK = "#f4f4f4"
ARROW = "#6f757e"

# Cube colours by the data's colour names; other names get a spare colour by position.
CUBE_COLOURS = {"orange": "#f28e1c", "purple": "#7b3fa0", "green": "#2e9e44", "blue": "#2b7bd6",
                "brown": "#8b5a2b", "yellow": "#f2cf1d", "red": "#d0312d", "black": "#222222",
                "white": "#f8f8f8", "grey": "#8c8c8c", "pink": "#f08cb8"}
SPARE_COLOURS = ("#17becf", "#bcbd22", "#e377c2", "#7f7f7f", "#9edae5", "#c5b0d5")
# One colour per seat (2-6 players), chosen apart from the cube colours.
PLAYER_COLOURS = ("#d62728", "#1a3a8f", "#0f8f8a", "#c2185b", "#3d3d3d", "#6b7d12")
KIND_TAGS = {"hazardous": ("hazardous", "#b8860b"), "perishable": ("perishable", "#2b7bd6")}
CHANCE_WORDS = {"setup": "the set-up deal", "refill": "the market refill",
                "blind": "a blind card from the deck's top", "boom": "boom card draws"}

# XML 1.0 forbids most control characters, even escaped; handles and data may hold them.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]")


def _clean(text: object) -> str:
    return _NOT_XML.sub("?", str(text))


def _esc(text: object) -> str:
    return escape(_clean(text))


def _attr(text: object) -> str:
    return quoteattr(_clean(text))


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
        self.add(f"<rect x=\"{x}\" y=\"{y}\" width=\"{max(0, w)}\" height=\"{max(0, h)}\" "
                 f"fill={_attr(fill)}{self._attrs(attrs)}/>")

    def line(self, x1: int, y1: int, x2: int, y2: int, stroke: str, **attrs: object) -> None:
        self.add(f"<line x1=\"{x1}\" y1=\"{y1}\" x2=\"{x2}\" y2=\"{y2}\" "
                 f"stroke={_attr(stroke)}{self._attrs(attrs)}/>")

    def polygon(self, points: list[tuple[int, int]], fill: str, **attrs: object) -> None:
        text = " ".join(f"{x},{y}" for x, y in points)
        self.add(f"<polygon points=\"{text}\" fill={_attr(fill)}{self._attrs(attrs)}/>")

    def text(self, x: int, y: int, text: str, size: int = 12, **attrs: object) -> None:
        self.add(f"<text x=\"{x}\" y=\"{y}\" font-size=\"{size}\"{self._attrs(attrs)}>"
                 f"{_esc(text)}</text>")


# ---- colours and words ----------------------------------------------------------------
def _colours(view: dict[str, Any]) -> list[str]:
    """The cube colours in the data's order (one per warehouse)."""
    return [str(h["colour"]) for h in view["board"]["houses"].values()]


def cube_colour(view: dict[str, Any], colour: str) -> str:
    if colour in CUBE_COLOURS:
        return CUBE_COLOURS[colour]
    known = [c for c in _colours(view) if c not in CUBE_COLOURS]
    index = known.index(colour) if colour in known else 0
    return SPARE_COLOURS[index % len(SPARE_COLOURS)]


def player_colour(seat: int) -> str:
    return PLAYER_COLOURS[seat % len(PLAYER_COLOURS)]


def _ink(fill: str) -> str:
    """Black or white text, whichever reads better on ``fill`` (a #rrggbb colour)."""
    value = int(fill.lstrip("#"), 16)
    r, g, b = value >> 16, (value >> 8) & 0xFF, value & 0xFF
    return "#111111" if 299 * r + 587 * g + 114 * b > 150000 else "#ffffff"


def _name(view: dict[str, Any], seat: int) -> str:
    seats = view.get("seats") or []
    return str(seats[seat]) if 0 <= seat < len(seats) else f"seat {seat}"


def _cubes_words(view: dict[str, Any], cubes: dict[str, int]) -> str:
    parts = [f"{n} {c}" for c in _colours(view) if (n := cubes.get(c, 0))]
    parts += [f"{n} {c}" for c, n in cubes.items() if c not in _colours(view) and n]
    return ", ".join(parts) or "nothing"


def _cube_list(view: dict[str, Any], cubes: dict[str, int]) -> list[str]:
    """One colour name per cube, in the data's colour order."""
    order = _colours(view) + sorted(c for c in cubes if c not in _colours(view))
    return [c for c in order for _ in range(max(0, int(cubes.get(c, 0))))]


def _chips(out: _Svg, view: dict[str, Any], colours: list[str], x: int, y: int, size: int,
           per_row: int = 12) -> None:
    """Cubes as small squares, ``per_row`` to a row."""
    for i, colour in enumerate(colours):
        out.rect(x + (i % per_row) * (size + 2), y + (i // per_row) * (size + 2), size, size,
                 cube_colour(view, colour), stroke="#222", stroke_width=1, class_="cube")


# ---- the highway -------------------------------------------------------------------------
class _Road:
    """Where things go on the highway: one column per road space."""

    def __init__(self, view: dict[str, Any], top: int) -> None:
        self.length = max(1, int(view["board"]["length"]))
        self.cell = max(24, min(72, (WIDTH - 40) // self.length))
        self.left = (WIDTH - self.cell * self.length) // 2
        self.north_box = top + 6  # the north warehouses' boxes
        self.road = self.north_box + BOX_H + 12  # the north lane's top edge
        self.numbers = self.road + 2 * LANE_H  # the strip of space numbers
        self.south_box = self.numbers + 22
        self.bottom = self.south_box + BOX_H + 6

    def x(self, space: int) -> int:
        return self.left + space * self.cell

    def lane_y(self, lane: str) -> int:
        return self.road if lane == "north" else self.road + LANE_H

    def box(self, view: dict[str, Any], letter: str) -> tuple[int, int, int]:
        """(left, top, width) of a warehouse's box: two spaces wide, or less when
        another warehouse stands near on the same side."""
        house = view["board"]["houses"][letter]
        gaps = [abs(int(h["space"]) - int(house["space"]))
                for k, h in view["board"]["houses"].items()
                if k != letter and h["side"] == house["side"]]
        width = min([2 * self.cell, *(g * self.cell for g in gaps)]) - 6
        centre = self.x(int(house["space"])) + self.cell // 2
        top = self.north_box if house["side"] == "north" else self.south_box
        return centre - width // 2, top, width


def _draw_highway(out: _Svg, view: dict[str, Any], top: int) -> int:
    road = _Road(view, top)
    length, cell = road.length, road.cell
    out.open("g", id="highway")
    out.rect(0, top, WIDTH, road.bottom - top, GRASS, rx=6)
    # Driveways first, so that the road and the boxes cover their ends.
    for letter, house in view["board"]["houses"].items():
        left, box_top, width = road.box(view, letter)
        x = road.x(int(house["space"]))
        if house["side"] == "north":
            out.rect(x + 8, box_top + BOX_H, cell - 16, road.road - box_top - BOX_H, "#b9b39f")
        else:
            out.rect(x + 8, road.numbers, cell - 16, road.south_box - road.numbers, "#b9b39f")
    out.open("g", id="road")
    out.rect(road.left, road.road, cell * length, 2 * LANE_H, ASPHALT)
    out.line(road.left, road.road + LANE_H, road.left + cell * length, road.road + LANE_H,
             LANE_MARK, stroke_width=2, stroke_dasharray="14 10")
    for end in (road.left, road.left + cell * length):  # the ends do not join
        out.rect(end - 3, road.road - 6, 6, 2 * LANE_H + 12, "#c62828")
    for space in range(length):
        x = road.x(space)
        if space:
            out.line(x, road.road, x, road.road + 2 * LANE_H, "#5d636c", stroke_width=1)
        mid = x + cell // 2
        north = road.road + LANE_H // 2
        south = road.road + LANE_H + LANE_H // 2
        out.polygon([(mid + 6, north - 7), (mid - 6, north), (mid + 6, north + 7)], ARROW,
                    class_="arrow west")
        out.polygon([(mid - 6, south - 7), (mid + 6, south), (mid - 6, south + 7)], ARROW,
                    class_="arrow east")
        out.text(mid, road.numbers + 14, str(space), 11, text_anchor="middle", fill="#333",
                 class_="space-number")
    out.close()
    for letter in view["board"]["houses"]:
        _draw_house(out, view, road, letter)
    for seat, truck in enumerate(view["trucks"]):
        if truck["where"] == "road":
            _draw_road_truck(out, view, road, seat, truck)
    out.close()
    return road.bottom


def _draw_house(out: _Svg, view: dict[str, Any], road: _Road, letter: str) -> None:
    house = view["board"]["houses"][letter]
    colour = str(house["colour"])
    fill = cube_colour(view, colour)
    left, top, width = road.box(view, letter)
    cubes = {c: int(n) for c, n in house["cubes"].items() if n}
    own = cubes.get(colour, 0)
    strays = {c: n for c, n in cubes.items() if c != colour}
    parked = [s for s, t in enumerate(view["trucks"]) if t["where"] == letter]
    out.open("g", id=f"house-{_NOT_ID.sub('_', letter)}", class_="house")
    out.title(f"Warehouse {letter} ({colour}) beside space {house['space']}, {house['side']} "
              f"of the road: {_cubes_words(view, cubes)}"
              + (f"; trucks: {', '.join(_name(view, s) for s in parked)}" if parked else "")
              + ("; emptied once: its colour's contracts left the game"
                 if letter in view.get("emptied", []) else ""))
    out.rect(left, top, width, BOX_H, "#fbfaf5", stroke=fill, stroke_width=3, rx=5)
    out.rect(left, top, width, 20, fill, rx=5)
    # A narrow box (a neighbour close on the same side) keeps the letter and the count;
    # its colour name stays in the tooltip and the header's colour.
    head = f"{letter} {colour}"
    out.text(left + 6, top + 15, head if len(head) * 8 <= width - 10 else letter, 13,
             font_weight="bold", fill=_ink(fill))
    # Its own colour: a big cube and the count (or "empty" once it ran out).
    out.rect(left + 6, top + 25, 14, 14, fill, stroke="#222", stroke_width=1, class_="own")
    words = (f"× {own}" if width >= 60 else str(own)) if own else "empty"
    out.text(left + 25 if width >= 60 else left + 6, top + 37 if width >= 60 else top + 54,
             words, 13, font_weight="bold", fill="#111" if own else "#a00", class_="own-count")
    # Stray cubes of other colours: a chip and a count each.
    per_row = max(1, (width - 8) // 26)
    for i, (stray, n) in enumerate(sorted(strays.items(), key=lambda kv: _order(view, kv[0]))):
        x = left + 6 + (i % per_row) * 26
        y = top + 45 + (i // per_row) * 13
        out.open("g", class_="stray")
        out.title(f"{n} stray {stray} cube(s)")
        out.rect(x, y, 10, 10, cube_colour(view, stray), stroke="#222", stroke_width=1)
        out.text(x + 13, y + 9, str(n), 10, fill="#111")
        out.close()
    # Parked trucks under the strays, as many to a row as fit, cargo under each.
    first = top + 47 + 13 * ((len(strays) + per_row - 1) // per_row)
    across = max(1, (width - 6) // 34)
    for i, seat in enumerate(parked):
        _draw_parked_truck(out, view, seat, left + 5 + (i % across) * 34, first + (i // across) * 22)
    out.close()


def _order(view: dict[str, Any], colour: str) -> tuple[int, str]:
    colours = _colours(view)
    return (colours.index(colour) if colour in colours else len(colours), colour)


def _truck_title(view: dict[str, Any], seat: int, truck: dict[str, Any]) -> str:
    if truck["where"] == "road":
        where = f"space {truck['x']}, {truck['lane']} lane, heading {truck['heading']}"
    else:
        where = f"in warehouse {truck['where']}"
    return f"{_name(view, seat)}'s truck {where}, carrying {_cubes_words(view, truck['cubes'])}"


def _draw_parked_truck(out: _Svg, view: dict[str, Any], seat: int, x: int, y: int) -> None:
    truck = view["trucks"][seat]
    colour = player_colour(seat)
    out.open("g", id=f"truck-{seat}", class_="truck parked")
    out.title(_truck_title(view, seat, truck))
    out.rect(x, y, 30, 13, colour, stroke="#111", stroke_width=1, rx=3)
    out.text(x + 15, y + 11, str(seat + 1), 11, text_anchor="middle", font_weight="bold",
             fill="#fff")
    _chips(out, view, _cube_list(view, truck["cubes"]), x, y + 15, 4, per_row=5)
    out.close()


def _draw_road_truck(out: _Svg, view: dict[str, Any], road: _Road, seat: int,
                     truck: dict[str, Any]) -> None:
    """A truck in its lane-space: a body with a nose on its heading's side."""
    cell = road.cell
    x0 = road.x(int(truck["x"]))
    y0 = road.lane_y(str(truck["lane"]))
    colour = player_colour(seat)
    east = truck["heading"] == "east"
    top, bottom, mid = y0 + 5, y0 + LANE_H - 5, y0 + LANE_H // 2
    back, front = (x0 + 3, x0 + cell - 3) if east else (x0 + cell - 3, x0 + 3)
    nose = front - 10 if east else front + 10
    out.open("g", id=f"truck-{seat}", class_=f"truck {'east' if east else 'west'}")
    out.title(_truck_title(view, seat, truck))
    # A white outline keeps dark trucks apart from the asphalt.
    out.polygon([(back, top), (nose, top), (front, mid), (nose, bottom), (back, bottom)], colour,
                stroke="#ffffff", stroke_width=2)
    body_left = min(back, nose)
    out.text(body_left + (abs(nose - back)) // 2, top + 14, str(seat + 1), 13,
             text_anchor="middle", font_weight="bold", fill="#fff")
    size = max(3, min(6, (abs(nose - back) - 4) // 5 - 2))
    cubes = _cube_list(view, truck["cubes"])
    width = len(cubes[:5]) * (size + 2) - 2
    _chips(out, view, cubes, body_left + (abs(nose - back) - width) // 2, top + 19, size,
           per_row=5)
    out.close()


# ---- the market and the left column ------------------------------------------------------
def _draw_card(out: _Svg, view: dict[str, Any], card: dict[str, Any], x: int, y: int, w: int,
               h: int, label: str) -> None:
    """A contract card: its cubes' colour as a band, cubes wanted, destination, points."""
    fill = cube_colour(view, str(card["colour"]))
    out.rect(x, y, w, h, "#ffffff", stroke="#777", stroke_width=1, rx=4)
    out.rect(x, y, 10, h, fill, rx=3)
    out.text(x + 16, y + 15, f"{label}{card['id']}", 12, font_weight="bold")
    tag = KIND_TAGS.get(str(card["kind"]))
    if tag:
        out.rect(x + w - 74, y + 4, 68, 14, tag[1], rx=3)
        out.text(x + w - 40, y + 15, tag[0], 10, text_anchor="middle", fill="#fff",
                 font_weight="bold")
    count = int(card["count"])
    _chips(out, view, [str(card["colour"])] * count, x + 16, y + 22, 10)
    out.text(x + 22 + 12 * count, y + 31, _fit(f"{count} {card['colour']} → {card['to']}",
                                               w - 30 - 12 * count, 12), 12)
    out.text(x + 16, y + h - 8, f"+{card['points']} delivered  −{card['penalty']} if not", 11,
             fill="#333")


def _draw_market(out: _Svg, view: dict[str, Any], top: int) -> int:
    out.open("g", id="market")
    out.text(10, top + 18, "Contract market", 15, font_weight="bold")
    refill = "refill" in view.get("pending", [])
    w, h = 190, 62
    y = top + 28
    for i, card in enumerate(view["market"]):
        x = 10 + (i % 3) * (w + 5)
        cy = y + (i // 3) * (h + 6)
        out.open("g", id=f"slot-{i + 1}", class_="contract" if card else "slot-empty")
        if card:
            out.title(f"m{i + 1}: {card['id']}, {card['count']} {card['colour']} to warehouse "
                      f"{card['to']}, +{card['points']}, penalty {card['penalty']}"
                      + (f" ({card['kind']})" if card["kind"] != "basic" else ""))
            _draw_card(out, view, card, x, cy, w, h, f"m{i + 1}  ")
        else:
            out.rect(x, cy, w, h, "#ffffff", stroke="#aaa", stroke_dasharray="4 3", rx=4)
            out.text(x + 12, cy + 20, f"m{i + 1}", 12, font_weight="bold", fill="#777")
            words = "refill coming" if refill and view["deck"] else \
                "refilled at turn end" if view["deck"] else "empty: the deck is out"
            out.text(x + 12, cy + 40, _fit(words, w - 16, 11), 11, fill="#777",
                     font_style="italic")
        out.close()
    rows = (len(view["market"]) + 2) // 3
    y += rows * (h + 6) + 14
    out.text(10, y, f"Contract deck: {view['deck']} card(s) · out of the game: {view['gone']}",
             12, class_="deck")
    y += 18
    out.text(10, y, f"Super Bonus deck: {view['superbonus']['deck']} card(s)", 12,
             class_="sb-deck")
    removed = _cube_list(view, view.get("removed", {}))
    y += 18
    out.text(10, y, "Cubes out of the game:" + ("" if removed else " none"), 12)
    _chips(out, view, removed, 160, y - 10, 9, per_row=36)
    y += 11 * ((len(removed) + 35) // 36)
    out.close()
    return y + 6


def _draw_legend(out: _Svg, view: dict[str, Any], top: int) -> int:
    out.open("g", id="legend")
    y = top + 16
    out.text(10, y, "Key", 13, font_weight="bold")
    x = 44
    for colour in _colours(view):
        out.rect(x, y - 10, 11, 11, cube_colour(view, colour), stroke="#222")
        out.text(x + 15, y, colour, 11)
        x += 24 + 7 * len(colour)
    y += 18
    out.text(10, y, "North lane: heading west (◀); south lane: heading east (▶); red bars: the "
             "road's ends.", 11, fill="#333")
    y += 15
    out.text(10, y, "A warehouse: its own cubes (big square), strays left there, parked trucks "
             "with cargo.", 11, fill="#333")
    out.close()
    return y + 6


def _draw_events(out: _Svg, view: dict[str, Any], top: int) -> int:
    lines = (view.get("log") or [])[-8:]
    if not lines:
        return top
    out.open("g", id="events")
    y = top + 18
    out.text(10, y, "Recent events", 13, font_weight="bold")
    for line in lines:
        for part in _wrap(line, LEFT_W - 20, 12)[:2]:
            y += 16
            out.text(16, y, part, 12, fill="#333")
    out.close()
    return y + 6


# ---- the status and the players ------------------------------------------------------------
def _status_lines(view: dict[str, Any]) -> list[str]:
    lines = [f"Round {view['round']} · the game ends at {view['target']} points"]
    opts = [k for k, on in view["options"].items() if on and k != "shortages"]
    if not view["options"].get("shortages", True):
        opts.append("no shortage cards")
    if opts:
        lines.append("Options: " + ", ".join(opts))
    if view["over"]:
        lines.append("The game is over.")
    elif view["to_act"] < 0:
        lines.append("Setting up: waiting for the set-up deal.")
    else:
        lines.append(f"To act: {_name(view, view['to_act'])}")
    viewer = view.get("private", {}).get("seat", -1)
    lines.append(f"Seen by: {_name(view, viewer)}" if viewer >= 0
                 else "Public view (what everyone sees)")
    for kind in view.get("pending", []):
        lines.append(f"Pending chance: {CHANCE_WORDS.get(kind, kind)} (resolved by the next "
                     "entry's beacon)")
    return lines


def _boom_lines(view: dict[str, Any]) -> list[str]:
    """Hazardous goods only: the acting player's boom policy and queued actions."""
    if not view["options"].get("hazardous") or view["over"]:
        return []
    turn = view["turn"]
    lines = [f"Boom cards: policy '{turn['policy']}' on a first half boom "
             f"({'end the turn there' if turn['policy'] == 'stop' else 'carry on'})."]
    if turn["boom_pending"]:
        queued = "; ".join(turn["queued"]) or "nothing"
        lines.append(f"Boom draw due this turn; queued after it: {queued}")
    else:
        lines.append("No boom draw this turn yet.")
    return lines


def _draw_status(out: _Svg, view: dict[str, Any], top: int) -> int:
    out.open("g", id="status")
    out.text(PANEL_X, top + 20, "ROAD MASTER", 18, font_weight="bold")
    y = top + 22
    for line in _status_lines(view):
        for part in _wrap(line, PANEL_W, 13):
            y += 18
            out.text(PANEL_X, y, part, 13, font_weight="bold" if line.startswith(
                ("To act", "The game", "Pending")) else "normal")
    boom = _boom_lines(view)
    if boom:
        out.open("g", id="boom")
        for line in boom:
            for part in _wrap(line, PANEL_W, 12):
                y += 16
                out.text(PANEL_X, y, part, 12, fill="#7a5a00")
        out.close()
    out.close()
    return y + 10


class _Final:
    """One seat's final reckoning, from the view alone (after the reveal)."""

    def __init__(self, total: int | None, penalty: int, met: dict[str, bool]) -> None:
        self.total = total  # None while a held card was never opened
        self.penalty = penalty  # of the contracts left incomplete
        self.met = met  # slot -> whether its opened card is met


def _final(view: dict[str, Any]) -> dict[int, _Final]:
    """Each seat's final total once the game is over and the cards are revealed: the
    contract points, less the incomplete contracts' penalties, plus the Super Bonus
    cards met (with the cubes on the seat's contracts, the best way) less those unmet."""
    opened = view["superbonus"].get("opened")
    if not view["over"] or opened is None:
        return {}
    out: dict[int, _Final] = {}
    for seat, held in enumerate(view["contracts"]):
        have: dict[str, int] = {}
        for c in held:
            if c["cubes"]:
                have[c["colour"]] = have.get(c["colour"], 0) + int(c["cubes"])
        rows = [r for r in opened if r["seat"] == seat]
        cards = [r for r in rows if r["card"] and "need" in r]
        bonus, met = best_bonus(have, cards)
        penalty = sum(int(c["penalty"]) for c in held if not c["done"])
        total = None if len(cards) < len(rows) else int(view["scores"][seat]) - penalty + bonus
        out[seat] = _Final(total, penalty,
                           {str(r["slot"]): ok for r, ok in zip(cards, met, strict=True)})
    return out


def _places(finals: dict[int, _Final]) -> dict[int, int]:
    """Places by final total, once every total is known (ties share a place here; the
    outcome's tie-breaks may split them)."""
    totals = {s: f.total for s, f in finals.items() if f.total is not None}
    if not finals or len(totals) != len(finals):
        return {}
    return {s: 1 + sum(1 for t in totals.values() if t > total) for s, total in totals.items()}


def _draw_tokens(out: _Svg, view: dict[str, Any], seat: int, x: int, y: int) -> int:
    """The acting player's action tokens: those used this turn filled, the face used
    in bold (one matching of actions to distinct tokens, as the rules check it)."""
    tokens = [list(t) for t in view["tokens"]]
    used = [str(a) for a in view["turn"]["actions"]]
    match = assignment(used, tokens) or []
    by_token = {t: used[a] for a, t in enumerate(match)}
    colour = player_colour(seat)
    out.open("g", id="tokens")
    out.text(x, y + 12, f"Actions this turn: {len(used)}"
             + (f" ({', '.join(used)})" if used else ""), 12, font_weight="bold")
    y += 18
    width = max(40, min(84, (PANEL_W - 30) // max(1, len(tokens)) - 4))
    for i, faces in enumerate(tokens):
        tx = x + i * (width + 4)
        face = by_token.get(i)
        out.open("g", class_="token used" if face else "token")
        out.rect(tx, y, width, 30, colour if face else "#ffffff", stroke=colour, stroke_width=2,
                 rx=6)
        for j, name in enumerate(faces[:2]):
            ink = ("#fff" if name == face else "#e6e6e6") if face else "#333"
            out.text(tx + width // 2, y + 13 + 12 * j, _fit(str(name), width - 6, 10), 10,
                     text_anchor="middle", fill=ink,
                     font_weight="bold" if name == face else "normal")
        out.close()
    out.close()
    return y + 36


def _draw_contract_row(out: _Svg, view: dict[str, Any], card: dict[str, Any], x: int, y: int
                       ) -> None:
    fill = cube_colour(view, str(card["colour"]))
    out.open("g", class_="held", id=f"held-{_NOT_ID.sub('_', str(card['id']))}")
    out.rect(x, y - 10, 10, 12, fill, stroke="#222", rx=2)
    tag = {"hazardous": " (hazardous)", "perishable": " (perishable)"}.get(str(card["kind"]), "")
    out.text(x + 15, y, _fit(f"{card['id']}: {card['count']} {card['colour']} → {card['to']}, "
                             f"+{card['points']} −{card['penalty']}{tag}", 300, 12), 12)
    # One box per cube wanted: filled for each cube already placed on the card.
    for i in range(int(card["count"])):
        placed = i < int(card["cubes"])
        out.rect(x + 330 + 14 * i, y - 10, 11, 11, fill if placed else "#ffffff",
                 stroke="#222" if placed else "#999", class_="placed" if placed else "missing")
    out.text(x + 336 + 14 * int(card["count"]), y, f"{card['cubes']}/{card['count']}", 11,
             fill="#333")
    out.close()


def _player_marks(view: dict[str, Any], seat: int, places: dict[int, int]) -> list[str]:
    marks = []
    if seat == view.get("private", {}).get("seat", -1):
        marks.append("you")
    if seat == view["to_act"] and not view["over"]:
        marks.append("to act")
    if seat == view["first"]:
        marks.append("first player")
    if seat in places:
        marks.append(f"place {places[seat]}")
    return marks


def _draw_player(out: _Svg, view: dict[str, Any], seat: int, top: int,
                 finals: dict[int, _Final], places: dict[int, int]) -> int:
    colour = player_colour(seat)
    truck = view["trucks"][seat]
    held = view["contracts"][seat]
    sb = view["superbonus"]
    x = PANEL_X + 14
    body: list[tuple[str, Any]] = []  # what to draw, in order (kind, data)
    if truck["where"] == "road":
        where = f"space {truck['x']}, {truck['lane']} lane, heading {truck['heading']}"
    elif truck["where"]:
        where = f"in warehouse {truck['where']}"
    else:
        where = "not placed yet"
    body.append(("truck", f"Truck {where}; carrying" + ("" if truck["cubes"] else " nothing")))
    if seat == view["to_act"] and not view["over"] and truck["where"]:
        body.append(("tokens", None))
    for card in held:
        if not card["done"]:
            body.append(("contract", card))
    done = [c for c in held if c["done"]]
    if done:
        words = "Completed: " + ", ".join(f"{c['id']} (+{c['points']})" for c in done)
        body += [("text", part) for part in _wrap(words, PANEL_W - 30, 12)]
    elif not held:
        body.append(("text", "No contracts held."))
    bonus = f"Super Bonus cards held: {sb['held'][seat]}"
    if sb["drawn"][seat]:
        bonus += f"; drawn, still to choose from: {sb['drawn'][seat]}"
    body.append(("text", bonus))
    private = view.get("private", {})
    opened = [row for row in sb.get("opened", []) if row["seat"] == seat]
    if opened:  # revealed: every seat's held cards are public now
        body += [("opened", row) for row in opened]
    elif private.get("seat", -1) == seat:  # the seat's own cards, in its own view only
        body += [("mine", row) for row in private.get("superbonus", [])]
        if private.get("choice_due"):
            body.append(("text", "Choose now: keep some (keep s3 s7), the rest under the "
                                 "deck (bottom ...)."))
    if seat in finals:
        final = finals[seat]
        body.append(("text", f"Final: contracts {view['scores'][seat]}, penalties −{final.penalty}"
                             + (f", total {final.total}" if final.total is not None else
                                ", and unopened cards' penalties")))
    heights = {"truck": 20, "tokens": 54, "contract": 17, "text": 16, "mine": 17, "opened": 17}
    height = 30 + sum(heights[kind] for kind, _ in body) + 8
    out.open("g", id=f"player-{seat}", class_="player")
    out.rect(PANEL_X, top, PANEL_W, height, "#ffffff", stroke=colour, stroke_width=2, rx=6)
    out.rect(PANEL_X, top, 8, height, colour, rx=3)
    name = _fit(_name(view, seat), PANEL_W // 2 - 40, 15)
    out.rect(x, top + 7, 18, 16, colour, rx=3)
    out.text(x + 9, top + 20, str(seat + 1), 12, text_anchor="middle", font_weight="bold",
             fill="#fff")
    out.text(x + 24, top + 21, name, 15, font_weight="bold", fill=colour)
    marks = _player_marks(view, seat, places)
    out.text(PANEL_X + PANEL_W - 10, top + 21,
             f"score {view['scores'][seat]}" + (f"  ({', '.join(marks)})" if marks else ""), 13,
             text_anchor="end", font_weight="bold", class_="score")
    y = top + 30
    for kind, data in body:
        if kind == "truck":
            out.text(x, y + 13, data, 12)
            _chips(out, view, _cube_list(view, truck["cubes"]), x + 8 + len(data) * 13 // 2, y + 3,
                   10)
        elif kind == "tokens":
            _draw_tokens(out, view, seat, x, y)
        elif kind == "contract":
            _draw_contract_row(out, view, data, x, y + 13)
        elif kind == "mine":
            _draw_bonus_row(out, view, data, x, y + 13, data["status"])
        elif kind == "opened":
            met = finals[seat].met.get(str(data["slot"])) if seat in finals else None
            _draw_bonus_row(out, view, data, x, y + 13,
                            "revealed" if met is None else "met" if met else "unmet")
        else:
            out.text(x, y + 13, data, 12)
        y += heights[kind]
    out.close()
    return top + height


def _draw_bonus_row(out: _Svg, view: dict[str, Any], row: dict[str, Any], x: int, y: int,
                    status: str) -> None:
    """A Super Bonus card the view shows: the seat's own (drawn or held) or one revealed."""
    out.open("g", class_="superbonus")
    if row.get("need"):
        words = f"{row['slot']} {status}: {row['card']} +{row['points']} −{row['penalty']}, needs"
        if status in ("met", "unmet"):
            words = f"{row['slot']}: {row['card']} {status}, "\
                    f"{'+' + str(row['points']) if status == 'met' else '−' + str(row['penalty'])}, needs"
        out.text(x, y, words, 12, fill="#5b2a86")
        need = _cube_list(view, row["need"])
        _chips(out, view, need, x + 10 + len(words) * 7, y - 10, 10, per_row=24)
    else:
        out.text(x, y, f"{row['slot']} {status}: " + ("never opened" if status == "revealed"
                                                      else "not readable yet"), 12, fill="#5b2a86")
    out.close()


# ---- the whole picture ---------------------------------------------------------------------
def render_svg(view: dict[str, Any]) -> str:
    out = _Svg()
    below = _draw_highway(out, view, 0) + 8
    left = _draw_events(out, view, _draw_legend(out, view, _draw_market(out, view, below)))
    y = _draw_status(out, view, below)
    finals = _final(view)
    places = _places(finals)
    for seat in range(len(view["scores"])):
        y = _draw_player(out, view, seat, y, finals, places) + 8
    height = max(left, y) + 10
    title = f"Road Master, round {view['round']}" + (", game over" if view["over"] else "")
    head = (f"<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{WIDTH}\" "
            f"height=\"{height}\" viewBox=\"0 0 {WIDTH} {height}\" font-family={_attr(FONT)}>")
    body = [head, f"<title>{_esc(title)}</title>",
            f"<rect x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{height}\" fill=\"#ffffff\"/>"]
    return "\n".join(body + out.parts + ["</svg>"]) + "\n"
