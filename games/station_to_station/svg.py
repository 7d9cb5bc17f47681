"""The board of a view as a standalone SVG 1.1 picture (``Game.render_svg``).

Left: the map (cities at their component coordinates, track, region colours, each city's
station token or its emptiness, coastal rings, trains, route cards and markers) above the
market (route display, crew market, cabooses, goods prices) and a legend. Right: the
game's status, the final result once the game is complete and audited (the view's
``result``), and one card per player. Everything comes from the view, so a seat sees
what its view holds and nothing more. Each good has a shape of its own as well as a
colour (the goods' prices are their key).

It is drawn with the engine's kit (``pbem.game.kit``), with integer coordinates only and
the view's own order for everything, so the same view always gives the same bytes.
"""

from __future__ import annotations

from typing import Any

from pbem.game import ended_line, kit, waiting_line

from .abilities import ABILITIES
from .constants import FREIGHT_CARS, SEASONS
from .scoring import final_breakdown, outcome
from .view import boxed_lines, describe_route, describe_token

WIDTH = kit.PAGE_WIDTH
MAP_W = 880  # the map and the market below it
MAP_PAD_X = 60  # room for names, token boxes and trains beside the outermost cities
MAP_PAD_TOP = 50
MAP_PAD_BOTTOM = 60
MAP_MIN_H = 560
PANEL_X = MAP_W + 10
PANEL_W = WIDTH - PANEL_X - 10
TOKEN_W, TOKEN_H = 92, 36

PLAYER_COLOURS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")  # one per seat (2-4 players)
REGION_COLOURS = {"north": "#6baed6", "south": "#fd8d3c", "east": "#74c476", "west": "#e0b449"}
SPARE_REGION_COLOURS = ("#9e9ac8", "#fdd0a2", "#c7e9c0", "#bcbddc")
GOOD_COLOURS = {"grain": "#f1c232", "cattle": "#8c564b", "oil": "#1a1a1a", "steel": "#9fb4c7"}
SEASON_COLOURS = {"summer": "#6aa84f", "autumn": "#e07b24", "winter": "#4a86c8",
                  "countdown": "#a61c3c"}
GOLD = "#c9a227"
COAST = "#1c5fa8"
NBSP = "\u00a0"  # keeps "west Porter" on one line when a text is wrapped


# ---- colours and words ----------------------------------------------------------------
def _region_colour(data: dict[str, Any], region: str) -> str:
    return kit.by_name(region, REGION_COLOURS, list(data["regions"]), SPARE_REGION_COLOURS)


def goods(data: dict[str, Any]) -> kit.Goods:
    """The goods' fills and shapes, the shapes in the data's order of goods."""
    return kit.Goods(list(data["goods"]), GOOD_COLOURS)


def _player_colour(seat: int) -> str:
    return kit.seat_colour(PLAYER_COLOURS, seat)


def _name(view: dict[str, Any], seat: int) -> str:
    return kit.seat_name(view.get("seats") or [], seat)


SHORT_REWARD = (("cash", "${}"), ("coal", "{}coal"), ("points", "{}pt"))


def _short_reward(option: dict[str, int]) -> str:
    """Cash, coal and points in a few characters for a token: "$8+1coal", "5pt"."""
    return "+".join(form.format(option[key]) for key, form in SHORT_REWARD if option.get(key))


# ---- the map ---------------------------------------------------------------------------
def _positions(data: dict[str, Any], height: int) -> dict[str, tuple[int, int]]:
    """Each city's point in the map box: its ``x``/``y`` scaled to fit (aspect kept), or,
    for data without coordinates, a grid in region order."""
    cities = data["cities"]
    if _has_coordinates(data):
        raw = {slug: (int(c["x"]), int(c["y"])) for slug, c in cities.items()}
    else:
        order = [s for r in data["regions"] for s, c in cities.items() if c["region"] == r]
        order += [s for s in cities if s not in order]
        columns = 1
        while columns * columns * 2 < len(order) * 3:  # about 3 columns for every 2 rows
            columns += 1
        raw = {slug: ((i % columns) * 100, (i // columns) * 80) for i, slug in enumerate(order)}
    xs = [p[0] for p in raw.values()]
    ys = [p[1] for p in raw.values()]
    span_x = max(1, max(xs) - min(xs))
    span_y = max(1, max(ys) - min(ys))
    room_x = MAP_W - 2 * MAP_PAD_X
    room_y = height - MAP_PAD_TOP - MAP_PAD_BOTTOM
    # One scale for both axes, as a fraction num/den (integers keep the output exact).
    num, den = (room_x, span_x) if room_x * span_y <= room_y * span_x else (room_y, span_y)
    left = (MAP_W - span_x * num // den) // 2
    top = MAP_PAD_TOP + (room_y - span_y * num // den) // 2
    return {slug: (left + (x - min(xs)) * num // den, top + (y - min(ys)) * num // den)
            for slug, (x, y) in raw.items()}


def _has_coordinates(data: dict[str, Any]) -> bool:
    return all(isinstance(c.get("x"), int) and isinstance(c.get("y"), int)
               for c in data["cities"].values())


def _map_height(data: dict[str, Any]) -> int:
    """Tall enough that the map keeps its shape at the map box's width."""
    cities = data["cities"].values()
    if not _has_coordinates(data):
        return MAP_MIN_H
    xs = [c["x"] for c in cities]
    ys = [c["y"] for c in cities]
    span_x = max(1, max(xs) - min(xs))
    span_y = max(ys) - min(ys)
    wanted = span_y * (MAP_W - 2 * MAP_PAD_X) // span_x + MAP_PAD_TOP + MAP_PAD_BOTTOM
    return max(MAP_MIN_H, min(wanted, 900))


def _draw_map(out: kit.Canvas, view: dict[str, Any], height: int) -> dict[str, tuple[int, int]]:
    data = view["data"]
    cities = data["cities"]
    where = _positions(data, height)
    out.open("g", id="map")
    out.rect(0, 0, MAP_W, height, "#f6f3ea", stroke="#999", stroke_width=1, rx=6)
    out.text(12, 22, "Station to Station: the United States (representative map)", 14,
             font_weight="bold", fill="#444")
    # Region colour washes first, then track, so both sit under the cities.
    out.open("g", id="regions", opacity="0.22")
    for slug, city in cities.items():
        x, y = where[slug]
        out.circle(x, y, 58, _region_colour(data, city["region"]))
    out.close()
    out.open("g", id="track", stroke_linecap="round")
    for slug, city in cities.items():
        for other in city["track"]:
            if other in where and slug < other:
                (x1, y1), (x2, y2) = where[slug], where[other]
                out.line(x1, y1, x2, y2, "#5a4a3a", stroke_width=4)
                out.line(x1, y1, x2, y2, "#f6f3ea", stroke_width=1, stroke_dasharray="3 5")
    out.close()
    _draw_route_lines(out, view, where)
    pending = {r.get("city") for r in view.get("pending", []) if r.get("kind") == "token"}
    for slug, city in cities.items():
        _draw_city(out, view, slug, city, where[slug], slug in pending)
    _draw_markers(out, view, where)
    _draw_trains(out, view, where)
    out.close()
    return where


def _draw_city(out: kit.Canvas, view: dict[str, Any], slug: str, city: dict[str, Any],
               at: tuple[int, int], drawing: bool) -> None:
    data = view["data"]
    x, y = at
    out.open("g", id=kit.ident("city", slug), class_="city")
    out.title(f"{city['name']} ({city['region']}{', coastal: +1 coal' if city['coastal'] else ''})"
              f"; market: {', '.join(city['market'])}")
    if city["coastal"]:
        out.circle(x, y, 13, "none", stroke=COAST, stroke_width=3, stroke_dasharray="4 2",
                   class_="coastal")
    out.circle(x, y, 8, _region_colour(data, city["region"]), stroke="#222", stroke_width=2)
    # The name twice: a wide stroke of the map's colour as a halo over the track, then
    # the letters (SVG 1.1 has no paint-order).
    out.text(x, y - 15, city["name"], 12, text_anchor="middle", font_weight="bold",
             fill="#f6f3ea", stroke="#f6f3ea", stroke_width=4, stroke_linejoin="round")
    out.text(x, y - 15, city["name"], 12, text_anchor="middle", font_weight="bold", fill="#111")
    # The local market: one small piece per good, under the dot's left side.
    goods(data).row(out, city["market"], x - 8 - 8 * len(city["market"]), y + 2, 7, gap=1)
    spot = view["map"].get(slug, {"token": "", "gold": False})
    left, top = x - TOKEN_W // 2, y + 13
    if spot["token"]:
        _draw_token(out, data, spot["token"], bool(spot["gold"]), left, top)
    else:
        out.open("g", id=kit.ident("empty", slug), class_="empty")
        out.rect(left, top, TOKEN_W, TOKEN_H - 10, "#ffffff", stroke="#999", stroke_width=1,
                 stroke_dasharray="4 3", rx=4, fill_opacity="0.6")
        out.text(x, top + 17, "token coming" if drawing else "empty", 11, text_anchor="middle",
                 fill="#777", font_style="italic")
        out.close()
    out.close()


def _draw_token(out: kit.Canvas, data: dict[str, Any], tid: str, gold: bool, left: int, top: int
                ) -> None:
    """A station token: a header in its season's colour naming its kind, its goods and
    its reward; a gold frame on the upgraded face."""
    token = data["tokens"][tid]
    season = token["season"]
    colour = SEASON_COLOURS.get(season, "#666")
    out.open("g", id=kit.ident("tok", tid), class_="token")
    out.title(f"{season} {describe_token(data, tid, gold)}")
    if gold:
        out.rect(left - 3, top - 3, TOKEN_W + 6, TOKEN_H + 6, GOLD, rx=6)
    kit.card_frame(out, left, top, TOKEN_W, TOKEN_H, colour, 13, token["kind"] + (" ★" if gold else ""),
                   10, fill="#fffdf6")
    out.text(left + TOKEN_W - 4, top + 10, season[:1].upper(), 10, text_anchor="end",
             font_weight="bold", fill="#fff")
    if token["kind"] == "order":
        pieces = list(token["goods"])  # the goods owed
        words = "/".join(_short_reward(o) for o in token["rewards"])
    elif token["kind"] == "supply":
        face = token["gold" if gold else "start"]
        pieces = [g for g in face if g in data["goods"] for _ in range(face[g])]  # free goods
        rest = _short_reward({k: v for k, v in face.items() if k not in data["goods"]})
        words = ("gain +" + rest if not pieces else "+" + rest) if rest else "free goods"
    else:
        pieces = list(token["gold" if gold else "start"])  # the goods it takes off orders
        words = "-1 good/order"
    goods(data).row(out, pieces[:8], left + 4, top + 16, 9)
    out.text(left + TOKEN_W - 4, top + 33, kit.fit(words, TOKEN_W - 6, 10), 10, text_anchor="end",
             fill="#222")
    out.close()


def _draw_route_lines(out: kit.Canvas, view: dict[str, Any], where: dict[str, tuple[int, int]]) -> None:
    """Each held route card as a dashed line of its owner's colour between its cities."""
    routes = view["data"]["routes"]
    out.open("g", id="route-cards", fill="none")
    for seat, player in enumerate(view["players"]):
        shift = 3 * seat - 4  # keeps two players' cards on one pair of cities apart
        for entry in player["routes"]:
            if not entry["card"] or entry["pending"] or entry["card"] not in routes:
                continue
            a, b = routes[entry["card"]]["cities"]
            if a in where and b in where:
                (x1, y1), (x2, y2) = where[a], where[b]
                out.line(x1 + shift, y1 + shift, x2 + shift, y2 + shift, _player_colour(seat),
                         stroke_width=3, stroke_dasharray="9 6", opacity="0.75",
                         class_="route-card")
    out.close()


def _draw_markers(out: kit.Canvas, view: dict[str, Any], where: dict[str, tuple[int, int]]) -> None:
    """Route markers: a flag of the owner's colour left of the marked city."""
    count: dict[str, int] = {}
    for seat, player in enumerate(view["players"]):
        for slot, entry in enumerate(player["routes"], 1):
            city = entry["marker"]
            if not city or city not in where:
                continue
            x, y = where[city]
            x -= 16 + 10 * count.get(city, 0)
            count[city] = count.get(city, 0) + 1
            out.open("g", id=f"marker-{seat}-{slot}", class_="marker")
            out.title(f"{_name(view, seat)}'s route marker (route {slot})")
            out.line(x, y + 8, x, y - 12, "#222", stroke_width=2)
            out.polygon([(x, y - 12), (x - 9, y - 8), (x, y - 3)], _player_colour(seat),
                        stroke="#222", stroke_width=1)
            out.close()


def _in_play(view: dict[str, Any]) -> bool:
    """Whether the seat the game names (``current``) is simply to act: set up, play not
    over by the rules nor ended by the engine, no absence vote due (waiting_line)."""
    return bool(view.get("ready")) and not view.get("over") and not waiting_line(view)


def _draw_trains(out: kit.Canvas, view: dict[str, Any], where: dict[str, tuple[int, int]]) -> None:
    """Each train right of its city's dot, in its owner's colour, labelled with the name."""
    stacked: dict[str, int] = {}
    current = view.get("current") if _in_play(view) else None
    for seat, player in enumerate(view["players"]):
        city = player["city"]
        if not city or city not in where:
            continue
        x, y = where[city]
        y += 18 * stacked.get(city, 0) - 9
        stacked[city] = stacked.get(city, 0) + 1
        out.open("g", id=f"train-{seat}", class_="train")
        out.title(f"{_name(view, seat)}'s train in {view['data']['cities'][city]['name']}")
        # The train to act gets a thick yellow outline.
        acting = seat == current
        out.polygon([(x + 12, y), (x + 54, y), (x + 60, y + 9), (x + 54, y + 18), (x + 12, y + 18)],
                    _player_colour(seat), stroke="#ffd400" if acting else "#111",
                    stroke_width=3 if acting else 1)
        out.text(x + 16, y + 13, kit.fit(_name(view, seat), 40, 11), 11, font_weight="bold",
                 fill="#fff")
        out.close()


# ---- the market under the map -----------------------------------------------------------
def _draw_market(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    """Under the map: the route display, cabooses and goods prices; the crew market."""
    out.open("g", id="market")
    bottom = max(_draw_tables(out, view, top), _draw_crew_market(out, view, top))
    out.close()
    return bottom


def _draw_tables(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    data = view["data"]
    routes = view["routes"]
    y = top + 18
    out.text(8, y, "Route display", 14, font_weight="bold")
    for i, rid in enumerate(routes["display"], 1):
        y += 6
        out.open("g", id=kit.ident("display", rid), class_="route-display")
        out.rect(8, y, 300, 24, "#fff", stroke="#777", rx=4)
        out.text(14, y + 16, kit.fit(f"{i}) {describe_route(data, rid)}", 290, 11), 11)
        out.close()
        y += 24
    if not routes["display"]:
        y += 18
        out.text(14, y, "(empty)", 12, fill="#777")
    y += 18
    out.text(8, y, f"Route deck {len(routes['deck'])}, discards {len(routes['discards'])}"
             + (" (face up):" if routes["discards"] else ""), 12)
    out.open("g", id="route-discards")
    for rid in routes["discards"]:  # face up at the table: each one named
        y += 14
        out.text(14, y, kit.fit(describe_route(data, rid), 294, 11), 11, fill="#333")
    out.close()
    y += 26
    out.text(8, y, "Cabooses (top first)", 14, font_weight="bold")
    y += 8
    if view["cabooses"]:
        for i, points in enumerate(view["cabooses"]):
            out.circle(22 + 32 * i, y + 14, 13, "#7a2e1d", stroke="#222", class_="caboose")
            out.text(22 + 32 * i, y + 19, str(points), 12, text_anchor="middle", fill="#fff",
                     font_weight="bold")
        y += 30
    else:
        y += 16
        out.text(14, y, "none left", 12, fill="#777")
        y += 6
    y += 20
    out.open("g", id="goods-key")  # the goods' shapes and colours, with their prices
    out.text(8, y, "Goods (pair price)", 14, font_weight="bold")
    y += 8
    for i, (good, price) in enumerate(data["goods"].items()):
        x = 8 + 76 * (i % 4)
        row = y + 20 * (i // 4)
        goods(data).cube(out, x, row + 3, 12, good)
        out.text(x + 16, row + 14, f"{good} ${price}", 12)
    out.close()
    return y + 20 * ((len(data["goods"]) + 3) // 4) + 4


def _draw_crew_market(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    """Two rows (basic, skilled) of one slot per region, each crew with its ability."""
    data = view["data"]
    refills = {(r.get("deck"), r.get("region")) for r in view.get("pending", [])
               if r.get("kind") == "crew"}
    x0 = 320
    column = (MAP_W - x0) // max(1, len(data["regions"]))
    y = top + 18
    out.text(x0, y, "Crew market", 14, font_weight="bold")
    y += 8
    for i, region in enumerate(data["regions"]):
        out.rect(x0 + i * column, y, column - 6, 18, _region_colour(data, region), rx=3)
        out.text(x0 + i * column + 6, y + 13, region, 12, font_weight="bold")
    y += 22
    for deck in ("basic", "skilled"):
        stock = view["crews"][deck]
        out.text(x0, y + 13, f"{deck}: deck {len(stock['deck'])}, discards "
                 f"{len(stock['discards'])}", 12, font_style="italic", fill="#444")
        y += 18
        tallest = 0
        for i, region in enumerate(data["regions"]):
            crew = stock["market"].get(region, "")
            cell_x = x0 + i * column
            out.open("g", id=kit.ident(f"crew-{deck}", region), class_="crew-slot")
            if crew in data["crews"]:
                card = data["crews"][crew]
                ability = ABILITIES[card["ability"]].text if card["ability"] in ABILITIES else ""
                lines = kit.wrap(ability, column - 12, 10)  # all of it: no cut sentence
                height = 20 + 12 * len(lines)
                out.rect(cell_x, y, column - 6, height, "#fff", stroke="#777", rx=3)
                out.text(cell_x + 5, y + 14, kit.fit(card["name"], column - 14, 12), 12,
                         font_weight="bold")
                for j, line in enumerate(lines):
                    out.text(cell_x + 5, y + 27 + 12 * j, line, 10, fill="#333")
            else:
                height = 20
                out.rect(cell_x, y, column - 6, height, "#fff", stroke="#aaa", rx=3,
                         stroke_dasharray="4 3")
                out.text(cell_x + 5, y + 14, "refill coming" if (deck, region) in refills
                         else "(empty)", 12, fill="#777")
            tallest = max(tallest, height)
            out.close()
        y += tallest + 8
    return y


def _draw_legend(out: kit.Canvas, data: dict[str, Any], top: int) -> int:
    out.open("g", id="legend")
    y = top + 14
    out.text(8, y, "Key", 13, font_weight="bold")
    x = 44
    for region in data["regions"]:
        out.circle(x + 6, y - 4, 6, _region_colour(data, region), stroke="#222")
        out.text(x + 16, y, region, 11)
        x += 24 + 7 * len(region)
    out.circle(x + 8, y - 4, 8, "none", stroke=COAST, stroke_width=3, stroke_dasharray="4 2")
    out.text(x + 20, y, "coastal (+1 coal)", 11)
    x += 130
    out.line(x, y - 2, x + 8, y - 12, "#222", stroke_width=2)
    out.polygon([(x + 8, y - 12), (x, y - 10), (x + 6, y - 5)], "#888", stroke="#222")
    out.text(x + 14, y, "route marker", 11)
    x += 100
    out.line(x, y - 4, x + 26, y - 4, "#888", stroke_width=3, stroke_dasharray="9 6")
    out.text(x + 32, y, "route card held", 11)
    y += 20
    x = 44
    for season in SEASONS:
        out.rect(x, y - 11, 14, 14, SEASON_COLOURS.get(season, "#666"), rx=2)
        out.text(x + 18, y, season, 11)
        x += 30 + 7 * len(season)
    out.rect(x, y - 12, 16, 16, GOLD, rx=3)
    out.rect(x + 3, y - 9, 10, 10, "#fffdf6", rx=2)
    out.text(x + 22, y, "gold frame: upgraded face (★)", 11)
    x += 200
    out.text(x, y, "small pieces under a city: its market", 11, fill="#444")
    out.close()
    return y + 8


# ---- the side panel -----------------------------------------------------------------------
def _status_lines(view: dict[str, Any]) -> list[str]:
    data = view["data"]
    turn = view.get("turn") or {}
    ahead = view.get("seasons_ahead") or {}
    later = ", ".join(f"{s} {n}" for s, n in ahead.items())
    lines = [f"Turn {view['turns'] + 1} · bag: {view['bag_left']} to come; later seasons' "
             f"tokens: {later or 'none'}"]
    if view.get("over"):
        lines.append("The game is over.")
        result = None if view.get("result") else outcome(view)  # else the result panel says it
        if result is not None:
            lines.append("Final: " + ", ".join(
                f"{_name(view, seat)} {result.scores[seat]}"
                for group in result.ranking for seat in group))
    elif waiting_line(view):  # over, or an absence vote due: nobody simply to act
        lines.append(waiting_line(view))
    elif not view.get("ready"):
        lines.append("Waiting for the set-up deal.")
    else:
        lines.append(f"To act: {_name(view, view['current'])} (phase: {turn.get('phase', '')})")
    if view.get("final_round") and not view.get("over") and not ended_line(view):
        lines.append("LAST ROUND: countdown tokens are in the bag.")
    viewer = view.get("viewer", -1)
    lines.append(f"Seen by: {_name(view, viewer)}" if isinstance(viewer, int) and viewer >= 0
                 else "Public view (what everyone sees)")
    for request in view.get("pending", []):
        kind = request.get("kind")
        if kind == "token" and request.get("city") in data["cities"]:
            text = f"token draw onto {data['cities'][request['city']]['name']}"
        elif kind == "route-blind":
            text = f"{_name(view, request.get('seat', -1))}'s blind route card"
        elif kind == "route-display":
            text = "route display refill"
        elif kind == "crew":
            text = f"{request.get('deck', '')} crew for the {request.get('region', '')} slot"
        elif kind == "setup":
            text = "set-up deal"
        else:
            continue
        lines.append(f"Pending: {text}")
    return lines


def _draw_status(out: kit.Canvas, view: dict[str, Any], top: int) -> int:
    season = view["season"]
    y = kit.status_block(out, PANEL_X, top, PANEL_W, "Station to Station", _status_lines(view),
                         strong=("To act", "LAST", "The game"),
                         badge=(f"Season: {season}", SEASON_COLOURS.get(season, "#666")))
    if view.get("result"):
        y = kit.result_panel(out, PANEL_X, y, PANEL_W, view["result"]) + 8
    return y


def _player_marks(view: dict[str, Any], seat: int, places: dict[int, int]) -> list[str]:
    return kit.seat_marks(
        you=seat == view.get("viewer"), first=seat == view.get("first"),
        to_act=seat == view.get("current") and _in_play(view),
        place=places.get(seat, 0))


def _player_text(view: dict[str, Any], seat: int) -> list[str]:
    """The written part of a player's card (goods and tickets are drawn as chips)."""
    data = view["data"]
    player = view["players"][seat]
    turn = view.get("turn") or {}
    mine = turn.get("seat") == seat
    city = data["cities"][player["city"]]["name"] if player["city"] in data["cities"] else "-"
    cars = f"{sum(player['goods'].values())}/{FREIGHT_CARS} cars"
    body = [f"${player['cash']} · coal {player['coal']} · points {player['points']} · {cars}"
            f" · at {city}"]
    railcars = [describe_token(data, c["id"], c["gold"]).removeprefix("railcar ")
                for c in player["railcars"]]
    extra = f" · caboose {player['caboose']}" if player["caboose"] else " · no caboose"
    body.append(f"railcars: {', '.join(railcars) or 'none'}{extra}")
    for slot, entry in enumerate(player["routes"], 1):
        if entry["pending"]:
            text = "(blind card arriving)"
        elif entry["card"] in data["routes"]:
            marker = data["cities"][entry["marker"]]["name"] if entry["marker"] in data["cities"] \
                else "none"
            text = f"{describe_route(data, entry['card'])}; marker: {marker}"
        else:
            text = "(empty)"
        body.append(f"route {slot}: {text}")
    for i, rid in enumerate(player["choice"], 1):
        if rid in data["routes"]:
            body.append(f"to choose {i}: {describe_route(data, rid)}")
    crews = []
    for region in data["regions"]:
        crew = player["crews"].get(region, "")
        name = data["crews"][crew]["name"] if crew in data["crews"] else ""
        if name and mine and crew == turn.get("hired"):
            name += " (new)"
        elif name and mine and crew in turn.get("used", []):
            name += " (used)"
        crews.append(f"{region} {name or '-'}".replace(" ", NBSP))
    body.append("crews: " + f"{NBSP}· ".join(crews))  # a wrapped line never starts with "·"
    for region in data["regions"]:  # each hired crew's ability, as the market shows it
        crew = player["crews"].get(region, "")
        ability = data["crews"][crew]["ability"] if crew in data["crews"] else ""
        if ability in ABILITIES:
            body.append(f"{data['crews'][crew]['name']}: {ABILITIES[ability].text}")
    if mine and turn.get("token") in data["tokens"]:
        body.append(f"token in hand: {describe_token(data, turn['token'], turn['gold'])}")
    job = turn.get("job") if mine else None
    if job:
        what = "the caboose" if job.get("kind") == "caboose" else \
            f"the {job.get('deck', '')} {job.get('region', '')} crew"
        body.append(f"paying for {what}: paid {' '.join(job.get('paid', [])) or 'nothing yet'}")
    parts = final_breakdown(player)
    body.append(f"score {sum(parts.values())} = "
                + " + ".join(f"{k} {v}" for k, v in parts.items()))
    return body


def _draw_player(out: kit.Canvas, view: dict[str, Any], seat: int, top: int, places: dict[int, int]
                 ) -> int:
    """One player's card: name and marks, goods, tickets, then the written lines."""
    data = view["data"]
    player = view["players"][seat]
    colour = _player_colour(seat)
    marks = _player_marks(view, seat, places)
    lines = [part for text in _player_text(view, seat) for part in kit.wrap(text, PANEL_W - 24, 12)]
    out.open("g", id=f"player-{seat}", class_="player")
    # Layout: the header, the goods and ticket rows (chips), then the text lines.
    height = 26 + 20 + 20 + 15 * len(lines) + 8
    x = kit.player_card(out, PANEL_X, top, PANEL_W, height, colour, _name(view, seat),
                        f"({', '.join(marks)})" if marks else "")
    y = top + 26
    # Goods on the freight cars: a chip and a count per good, in fixed columns.
    column = (PANEL_W - 20) // max(1, len(player["goods"]))
    for i, (good, count) in enumerate(player["goods"].items()):
        gx = x + i * column
        goods(data).cube(out, gx, y + 4, 11, good)
        out.text(gx + 14, y + 14, kit.fit(f"{good} {count}", column - 16, 11), 11,
                 fill="#111" if count else "#999", font_weight="bold" if count else "normal")
    y += 20
    # Tickets by region (fulfilled orders), then wild tickets.
    out.text(x, y + 14, "tickets", 11)
    column = (PANEL_W - 110) // max(1, len(data["regions"]))
    for i, region in enumerate(data["regions"]):
        count = len(player["tickets"].get(region, []))
        tx = x + 44 + i * column
        out.rect(tx, y + 2, column - 4, 16, _region_colour(data, region), rx=3,
                 opacity="1" if count else "0.35")
        out.text(tx + 4, y + 14, kit.fit(f"{region} {count}", column - 8, 11), 11,
                 font_weight="bold" if count else "normal")
    out.text(PANEL_X + PANEL_W - 8, y + 14, f"wild {len(player['wilds'])}", 11, text_anchor="end",
             font_weight="bold" if player["wilds"] else "normal")
    kit.write_lines(out, x, y + 20, PANEL_W - 24, lines, size=12, leading=15)
    out.close()
    return top + height


# ---- the whole picture ---------------------------------------------------------------------
def _places(view: dict[str, Any]) -> dict[int, int]:
    """Places once the game is over: the engine's, when the view carries the audited
    result; else from the outcome reckoned from the view."""
    if view.get("result"):
        return kit.result_places(view["result"])
    result = outcome(view) if view.get("over") else None
    if result is None:
        return {}
    return {seat: place for place, group in enumerate(result.ranking, 1) for seat in group}


def render_svg(view: dict[str, Any]) -> str:
    data = view["data"]
    out = kit.Canvas()
    map_h = _map_height(data)
    _draw_map(out, view, map_h)
    market_bottom = _draw_market(out, view, map_h + 4)
    boxed = view.get("boxed") or []
    below = kit.notes_block(out, "boxed", 8, _draw_legend(out, data, market_bottom + 4), MAP_W - 8,
                            f"Boxed at stops this season ({len(boxed)})", boxed_lines(view))
    left_bottom = kit.notes_block(out, "notes", 8, below, MAP_W - 8, "Recent",
                                  (view.get("notes") or [])[-6:], most=2)
    y = _draw_status(out, view, 0)
    places = _places(view)
    for seat in range(len(view["players"])):
        y = _draw_player(out, view, seat, y, places) + 8
    height = max(left_bottom, y) + 10
    title = f"Station to Station, turn {view['turns'] + 1}, {view['season']}"
    return out.document(WIDTH, height, title)
