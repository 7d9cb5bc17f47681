"""The board of a view as a standalone SVG 1.1 picture (``Game.render_svg``).

Top: the highway, drawn from the view's board data: one column per road space, a north
lane (traffic heading west) over a south lane (heading east) with direction arrows, and
each warehouse beside its space on its side, in its colour, with its cubes (its own
colour and any strays) and the trucks parked in it. Trucks on the road stand in their
lane-space, pointing their heading, in their owner's colour, with their cargo.

Below, left: the contract market, the decks (with the back of the contract deck's top
card, when the view shows it), a key of the cubes and the recent events; right: the
turn's status (whose turn, pending chance, boom cards), the final result once the game
is complete and audited (the view's ``result``), and one card per player (score, truck,
held contracts with the cubes placed on them, action tokens used this turn, Super Bonus
cards held, and after the reveal every seat's opened cards and final score). Everything
comes from the view, so a seat sees what its view holds and no more: its own Super Bonus
cards appear only in its own view (``private``), other seats' only as counts, until the
reveal makes them public. Cubes have a shape per colour, for players who cannot tell
the colours apart.

It is drawn with the engine's kit (``pbem.game.kit``), with integer coordinates only and
the view's own order for everything, so the same view always gives the same bytes.
"""

from __future__ import annotations

from typing import Any

from pbem.game import kit, waiting_line

from .scoring import best_bonus
from .tokens import assignment
from .view import end_lines, finished, gone_groups

WIDTH = kit.PAGE_WIDTH
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
# One colour per seat (2-6 players), chosen apart from the cube colours.
PLAYER_COLOURS = ("#d62728", "#1a3a8f", "#0f8f8a", "#c2185b", "#3d3d3d", "#6b7d12")
KIND_TAGS = {"hazardous": ("hazardous", "#b8860b"), "perishable": ("perishable", "#2b7bd6")}
CHANCE_WORDS = {"setup": "the set-up deal", "refill": "the market refill",
                "blind": "a blind card from the deck's top", "boom": "boom card draws"}


# ---- colours and words ----------------------------------------------------------------
def _colours(view: dict[str, Any]) -> list[str]:
    """The cube colours in the data's order (one per warehouse)."""
    return [str(h["colour"]) for h in view["board"]["houses"].values()]


def goods(view: dict[str, Any]) -> kit.Goods:
    """The cubes' fills and shapes: shapes in the data's colour order (one per warehouse)."""
    return kit.Goods(_colours(view), CUBE_COLOURS)


def player_colour(seat: int) -> str:
    return kit.seat_colour(PLAYER_COLOURS, seat)


def _name(view: dict[str, Any], seat: int) -> str:
    return kit.seat_name(view.get("seats") or [], seat)


def _cubes_words(view: dict[str, Any], cubes: dict[str, int]) -> str:
    parts = [f"{n} {c}" for c in _colours(view) if (n := cubes.get(c, 0))]
    parts += [f"{n} {c}" for c, n in cubes.items() if c not in _colours(view) and n]
    return ", ".join(parts) or "nothing"


def _cube_list(view: dict[str, Any], cubes: dict[str, int]) -> list[str]:
    """One colour name per cube, in the data's colour order."""
    order = _colours(view) + sorted(c for c in cubes if c not in _colours(view))
    return [c for c in order for _ in range(max(0, int(cubes.get(c, 0))))]


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


def _draw_highway(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
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


def _draw_house(out: kit.Canvas, view: dict[str, Any], road: _Road, letter: str) -> None:
    house = view["board"]["houses"][letter]
    colour = str(house["colour"])
    fill = goods(view).fill(colour)
    left, top, width = road.box(view, letter)
    cubes = {c: int(n) for c, n in house["cubes"].items() if n}
    own = cubes.get(colour, 0)
    strays = {c: n for c, n in cubes.items() if c != colour}
    parked = [s for s, t in enumerate(view["trucks"]) if t["where"] == letter]
    out.open("g", id=kit.ident("house", letter), class_="house")
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
             font_weight="bold", fill=kit.ink_on(fill))
    # Its own colour: a big cube and the count (or "empty" once it ran out).
    goods(view).cube(out, left + 6, top + 25, 14, colour, class_="own")
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
        goods(view).cube(out, x, y, 10, stray)
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
    else:  # the heading it came in with, which backing out keeps (RM-M7)
        where = f"in warehouse {truck['where']}" + (f", heading {truck['heading']}"
                                                    if truck["heading"] else "")
    return f"{_name(view, seat)}'s truck {where}, carrying {_cubes_words(view, truck['cubes'])}"


def _draw_parked_truck(out: kit.Canvas, view: dict[str, Any], seat: int, x: int, y: int) -> None:
    truck = view["trucks"][seat]
    colour = player_colour(seat)
    out.open("g", id=f"truck-{seat}", class_="truck parked")
    out.title(_truck_title(view, seat, truck))
    out.rect(x, y, 30, 13, colour, stroke="#111", stroke_width=1, rx=3)
    out.text(x + 15, y + 11, str(seat + 1), 11, text_anchor="middle", font_weight="bold",
             fill="#fff")
    goods(view).row(out, _cube_list(view, truck["cubes"]), x, y + 15, 4, per_row=5)
    out.close()


def _draw_road_truck(out: kit.Canvas, view: dict[str, Any], road: _Road, seat: int,
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
    goods(view).row(out, cubes, body_left + (abs(nose - back) - width) // 2, top + 19, size,
           per_row=5)
    out.close()


# ---- the market and the left column ------------------------------------------------------
def _draw_card(out: kit.Canvas, view: dict[str, Any], card: dict[str, Any], x: int, y: int, w: int,
               h: int, label: str) -> None:
    """A contract card: its cubes' colour as a band, cubes wanted, destination, points."""
    fill = goods(view).fill(str(card["colour"]))
    out.rect(x, y, w, h, "#ffffff", stroke="#777", stroke_width=1, rx=4)
    out.rect(x, y, 10, h, fill, rx=3)
    out.text(x + 16, y + 15, f"{label}{card['id']}", 12, font_weight="bold")
    tag = KIND_TAGS.get(str(card["kind"]))
    if tag:
        out.rect(x + w - 74, y + 4, 68, 14, tag[1], rx=3)
        out.text(x + w - 40, y + 15, tag[0], 10, text_anchor="middle", fill="#fff",
                 font_weight="bold")
    count = int(card["count"])
    goods(view).row(out, [str(card["colour"])] * count, x + 16, y + 22, 10)
    out.text(x + 22 + 12 * count, y + 31, kit.fit(f"{count} {card['colour']} → {card['to']}",
                                               w - 30 - 12 * count, 12), 12)
    out.text(x + 16, y + h - 8, f"+{card['points']} delivered  −{card['penalty']} if not", 11,
             fill="#333")


def _draw_market(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
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
            words = "refill coming" if refill and view["deck"] else \
                "empty: the game is over" if view.get("over") else \
                "refilled at turn end" if view["deck"] else "empty: the deck is out"
            kit.empty_slot(out, x, cy, w, h, kit.fit(words, w - 16, 12))
            out.text(x + 12, cy + 20, f"m{i + 1}", 12, font_weight="bold", fill=kit.MUTED)
        out.close()
    rows = (len(view["market"]) + 2) // 3
    y += rows * (h + 6) + 14
    out.text(10, y, f"Contract deck: {view['deck']} card(s) · out of the game: {view['gone']}",
             12, class_="deck")
    if view.get("contract_deck_top"):
        _draw_deck_top(out, view, str(view["contract_deck_top"]), 380, y)
    y = _draw_gone(out, view, y + 18)
    out.text(10, y, f"Super Bonus deck: {view['superbonus']['deck']} card(s)", 12,
             class_="sb-deck")
    removed = _cube_list(view, view.get("removed", {}))
    y += 18
    out.text(10, y, "Cubes out of the game:" + ("" if removed else " none"), 12)
    goods(view).row(out, removed, 160, y - 10, 9, per_row=36)
    y += 11 * ((len(removed) + 35) // 36)
    out.close()
    return y + 6


def _draw_gone(out: kit.Canvas, view: dict[str, Any], y: int) -> int:
    """The cards out of the game, each named as the text view names it (public at the
    table: shortages are played face up, an emptied warehouse's contracts picked out)."""
    groups = gone_groups(view)
    if not groups:
        return y
    out.open("g", id="gone", class_="gone")
    for group in groups:
        for line in kit.wrap(group, LEFT_W - 30, 11):
            out.text(18, y, line, 11, fill="#333")
            y += 14
    out.close()
    return y + 4


def _draw_deck_top(out: kit.Canvas, view: dict[str, Any], colour: str, x: int, y: int) -> None:
    """The back of the contract deck's top card: its cubes' colour (and their shape)."""
    out.open("g", id="deck-top", class_="card-back")
    out.title(f"The contract deck's top card has a {colour} back: its contract wants "
              f"{colour} cubes")
    out.rect(x, y - 13, 26, 17, goods(view).fill(colour), stroke=kit.LINE, stroke_width=1, rx=3)
    goods(view).cube(out, x + 8, y - 10, 10, colour, stroke="#ffffff")
    out.text(x + 32, y, f"top card's back: {colour}", 12)
    out.close()


def _draw_legend(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    out.open("g", id="legend")
    y = top + 16
    goods(view).legend(out, 10, y, "Key")
    y += 18
    out.text(10, y, "North lane: heading west (◀); south lane: heading east (▶); red bars: the "
             "road's ends.", 11, fill="#333")
    y += 15
    out.text(10, y, "A warehouse: its own cubes (big piece), strays left there, parked trucks "
             "with cargo.", 11, fill="#333")
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
    elif waiting_line(view):  # over, or an absence vote due: nobody simply to act
        lines.append(waiting_line(view))
    elif view["to_act"] < 0:
        lines.append("Setting up: waiting for the set-up deal.")
    else:
        lines.append(f"To act: {_name(view, view['to_act'])}")
    lines += end_lines(view, [_name(view, s) for s in range(len(view["scores"]))])
    viewer = view.get("private", {}).get("seat", -1)
    lines.append(f"Seen by: {_name(view, viewer)}" if viewer >= 0
                 else "Public view (what everyone sees)")
    # A vote owed next carries no beacon link: it resolves nothing.
    when = ("the next entry in the order of play; a vote resolves nothing" if view.get("vote")
            else "the next entry's beacon")
    for kind in view.get("pending", []):
        lines.append(f"Pending chance: {CHANCE_WORDS.get(kind, kind)} (resolved by {when})")
    return lines


def _boom_lines(view: dict[str, Any]) -> list[str]:
    """Hazardous goods only: the acting player's boom policy and queued actions."""
    if not view["options"].get("hazardous") or finished(view):
        return []
    turn = view["turn"]
    lines = []
    if "boom" in view:
        lines.append(f"Waiting for the next beacon: {_draws(view['boom']['draws'])}")
    lines.append(f"Boom cards: policy '{turn['policy']}' on a first half boom from here on "
                 f"({'end the turn there' if turn['policy'] == 'stop' else 'carry on'}).")
    if turn["boom_pending"]:
        queued = "; ".join(turn["queued"]) or "nothing"
        lines.append(f"Boom draw due this turn; queued after it: {queued}")
        lines.append(f"Policy at each draw: {_draws(turn.get('draws', []))}")
    else:
        lines.append("No boom draw this turn yet.")
    return lines


def _draws(draws: list[dict[str, str]]) -> str:
    return "; ".join(f"{d['when']} {d['move']}: {d['policy']}" for d in draws) + "."


def _draw_status(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    y = kit.status_block(out, PANEL_X, top, PANEL_W, "Road Master", _status_lines(view),
                         strong=("To act", "The game", "Pending"))
    boom = _boom_lines(view)
    if boom:
        out.open("g", id="boom")
        y = kit.write_lines(out, PANEL_X, y - 10, PANEL_W, boom, size=12, leading=16,
                            fill="#7a5a00") + 10
        out.close()
    if view.get("result"):
        y = kit.result_panel(out, PANEL_X, y, PANEL_W, view["result"]) + 8
    return y


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


def _draw_tokens(out: kit.Canvas, view: dict[str, Any], seat: int, x: int, y: int) -> int:
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
            out.text(tx + width // 2, y + 13 + 12 * j, kit.fit(str(name), width - 6, 10), 10,
                     text_anchor="middle", fill=ink,
                     font_weight="bold" if name == face else "normal")
        out.close()
    out.close()
    return y + 36


def _draw_contract_row(out: kit.Canvas, view: dict[str, Any], card: dict[str, Any], x: int, y: int
                       ) -> None:
    fill = goods(view).fill(str(card["colour"]))
    out.open("g", class_="held", id=kit.ident("held", card["id"]))
    goods(view).cube(out, x, y - 10, 11, str(card["colour"]), class_="card-colour")
    tag = {"hazardous": " (hazardous)", "perishable": " (perishable)"}.get(str(card["kind"]), "")
    out.text(x + 15, y, kit.fit(f"{card['id']}: {card['count']} {card['colour']} → {card['to']}, "
                             f"+{card['points']} −{card['penalty']}{tag}", 300, 12), 12)
    # One box per cube wanted: filled for each cube already placed on the card.
    for i in range(int(card["count"])):
        placed = i < int(card["cubes"])
        out.rect(x + 330 + 14 * i, y - 10, 11, 11, fill if placed else "#ffffff",
                 stroke="#222" if placed else "#999", class_="placed" if placed else "missing")
    # A completed card keeps its cubes, as at the table: rivals' Super Bonus count them.
    out.text(x + 336 + 14 * int(card["count"]), y,
             "done" if card["done"] else f"{card['cubes']}/{card['count']}", 11, fill="#333")
    out.close()


def _player_marks(view: dict[str, Any], seat: int, places: dict[int, int]) -> list[str]:
    return kit.seat_marks(you=seat == view.get("private", {}).get("seat", -1),
                          to_act=(seat == view["to_act"] and not view["over"]
                                  and not waiting_line(view)),
                          first=seat == view["first"], place=places.get(seat, 0))


def _final_words(view: dict[str, Any], seat: int, finals: dict[int, _Final]) -> str:
    """A seat's final score and its parts: the engine's, when the view carries the
    audited result; else reckoned from the view (or "" before the reveal)."""
    result = view.get("result")
    if result:
        parts = result["breakdown"][seat] if seat < len(result["breakdown"]) else {}
        made = ", ".join(f"{k} {v}" for k, v in parts.items())
        return f"Final: {made + ', ' if made else ''}total {result['scores'][seat]}"
    if seat not in finals:
        return ""
    final = finals[seat]
    return (f"Final: contracts {view['scores'][seat]}, penalties −{final.penalty}"
            + (f", total {final.total}" if final.total is not None else
               ", and unopened cards' penalties"))


def _draw_player(out: kit.Canvas, view: dict[str, Any], seat: int, top: int,
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
        where = f"in warehouse {truck['where']}" + (f", heading {truck['heading']}"
                                                    if truck["heading"] else "")
    else:
        where = "not placed yet"
    body.append(("truck", f"Truck {where}; carrying" + ("" if truck["cubes"] else " nothing")))
    if seat == view["to_act"] and not finished(view) and truck["where"]:
        body.append(("tokens", None))
    body += [("contract", card) for card in held if not card["done"]]
    done = [c for c in held if c["done"]]
    if done:
        body.append(("text", "Completed (the cubes stay on the cards):"))
        body += [("contract", card) for card in done]
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
    final = _final_words(view, seat, finals)
    if final:
        body += [("text", part) for part in kit.wrap(final, PANEL_W - 30, 12)]
    heights = {"truck": 20, "tokens": 54, "contract": 17, "text": 16, "mine": 17, "opened": 17}
    height = 30 + sum(heights[kind] for kind, _ in body) + 8
    out.open("g", id=f"player-{seat}", class_="player")
    marks = _player_marks(view, seat, places)
    kit.player_card(out, PANEL_X, top, PANEL_W, height, colour, _name(view, seat),
                    f"score {view['scores'][seat]}" + (f"  ({', '.join(marks)})" if marks else ""),
                    number=seat + 1)
    y = top + 30
    for kind, data in body:
        if kind == "truck":
            out.text(x, y + 13, data, 12)
            goods(view).row(out, _cube_list(view, truck["cubes"]), x + 8 + len(data) * 13 // 2, y + 3,
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


def _draw_bonus_row(out: kit.Canvas, view: dict[str, Any], row: dict[str, Any], x: int, y: int,
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
        goods(view).row(out, need, x + 10 + len(words) * 7, y - 10, 10, per_row=24)
    else:
        out.text(x, y, f"{row['slot']} {status}: " + ("never opened" if status == "revealed"
                                                      else "not readable yet"), 12, fill="#5b2a86")
    out.close()


# ---- the whole picture ---------------------------------------------------------------------
def render_svg(view: dict[str, Any]) -> str:
    out = kit.Canvas()
    below = _draw_highway(out, view, 0) + 8
    left = kit.notes_block(out, "events", 10, _draw_legend(out, view, _draw_market(out, view, below)),
                          LEFT_W - 10, "Recent events", (view.get("log") or [])[-8:], most=2)
    y = _draw_status(out, view, below)
    finals = _final(view)
    places = kit.result_places(view.get("result")) or _places(finals)
    for seat in range(len(view["scores"])):
        y = _draw_player(out, view, seat, y, finals, places) + 8
    height = max(left, y) + 10
    title = f"Road Master, round {view['round']}" + (", game over" if finished(view) else "")
    return out.document(WIDTH, height, title)
