"""The drawn board (``render_svg``): well-formed SVG holding every public fact of a view,
and nothing of another seat's Super Bonus cards.

Views come from random LocalTable games (2 to 6 players, with and without the advanced
options, from the start to the reveal) and from positions built with the rule-test
helpers. The SVG is parsed with xml.etree and each check looks for the element that
draws the fact (ids and classes name them), so a fact that is not drawn fails its test.
"""

from __future__ import annotations

import copy
import hashlib
import re
from functools import cache
from pathlib import Path
from typing import Any

from rm_support import NAMES, give, load_truck, placed, table

from pbem.drawing import panels
from pbem.drawing.page import html_page
from pbem.game import kit
from pbem.play.local import LocalTable
from pbem.protocol.crypto import secretdeck
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.road_master import GAME, svg
from pbem_games.road_master.model import empty_check
from pbem_games.road_master.turn import pending_secret_choice
from tests.support import boards
from tests.support.boards import NS, by_id, maybe_id, parse, text_of, with_class
from tests.test_browser import near, needs_browser, rgb, screenshot, without_board

END = "<end>"
ADVANCED = {"hazardous": True, "perishable": True}


# ---- helpers ---------------------------------------------------------------------------
def expected_fills(view: dict[str, Any], cubes: dict[str, int]) -> list[str]:
    colours = [h["colour"] for h in view["board"]["houses"].values()]
    return [svg.goods(view).fill(c) for c in colours for _ in range(cubes.get(c, 0))]


def low_target(target: int) -> dict[str, Any]:
    data = GAME.stock_components()
    data["rules"]["end_score"] = {str(n): target for n in range(2, 7)}
    return data


def _wanted(state: dict[str, Any], seat: int) -> tuple[set[str], set[str]]:
    """Colours the seat's open contracts still lack, and warehouses its cargo is for."""
    cards = state["data"]["cards"]
    aboard = state["trucks"][seat]["cubes"]
    lack, goals = set(), set()
    for entry in state["contracts"][seat]:
        card = cards[entry["id"]]
        if entry["done"]:
            continue
        if aboard.get(card["colour"], 0):
            goals.add(card["to"])
        if aboard.get(card["colour"], 0) < card["count"] - entry["cubes"]:
            lack.add(card["colour"])
    return lack, goals


def _purposeful(state: dict[str, Any], seat: int, legal: list[str], rng: Sampler) -> str | None:
    """A move that advances a delivery, if one is at hand (chosen at random among them)."""
    lack, goals = _wanted(state, seat)
    houses = state["data"]["houses"]
    sources = {k for k, cubes in state["houses"].items() if lack & set(cubes)}
    open_ = sum(1 for e in state["contracts"][seat] if not e["done"])
    tiers = [
        [m for m in legal if m.startswith("unload")],
        [m for m in legal if m.startswith("load ") and m.split()[1] in lack],
        [m for m in legal if m.startswith(("keep", "bottom"))],
        [m for m in legal if m.startswith("contracts ") and len(m.split()) == 2 and open_ < 2],
        [m for m in legal if " into " in m and m.split()[-1] in goals | sources],
        [m for m in legal if m.startswith("forward") and " into " not in m and houses],
    ]
    for tier in tiers:
        if tier:
            return tier[rng.randbelow(len(tier))]
    return None


def random_turn(state: dict[str, Any], seat: int, rng: Sampler) -> list[str]:
    """A turn of random moves, most of them chosen to advance a delivery (so that games
    score and end); now and then anything legal, Super Bonus draws included."""
    working = copy.deepcopy(state)
    moves: list[str] = []
    for _ in range(30):
        legal = GAME.legal_moves(working, seat)
        can_end = GAME.can_end_turn(working, seat)
        purposeful = rng.randbelow(5) and not working["ended"]  # not in the last choices
        move = _purposeful(working, seat, legal, rng) if purposeful else None
        if move is None:
            pool = legal + ([END] if can_end else [])
            if not pool:
                break
            move = pool[rng.randbelow(len(pool))]
        if move == END:
            break
        GAME.apply(working, seat, move)
        moves.append(move)
    return moves


def finish(t: LocalTable) -> None:
    """The final step: owed Super Bonus choices (keep what may be kept), then the reveal."""
    for seat in range(len(t.state["scores"])):
        while pending_secret_choice(t.state, seat):
            GAME.apply(t.state, seat, GAME.legal_moves(t.state, seat)[0])
    assert t.finish() is not None


@cache
def game_views() -> list[tuple[str, dict[str, Any]]]:
    """Views of random games, 2 to 6 players, each with and without the advanced rules:
    the start, every few turns (by each seat in turn and the public view), mid-turn,
    and the end after the reveal."""
    views: list[tuple[str, dict[str, Any]]] = []
    for players in range(2, 7):
        for options in ({}, ADVANCED):
            name = f"{players}p{'-adv' if options else ''}"
            seed = name.encode()
            t = LocalTable(GAME, NAMES[:players], options, seed=seed, components=low_target(12))
            rng = Sampler(hashlib.sha256(b"svg/" + seed).digest())
            for turn, seat in boards.turns(t, 150):
                moves = random_turn(t.state, seat, rng)
                if turn % 6 == 0:
                    viewer = None if turn % 12 else turn // 6 % players
                    views.append((f"{name}-turn{turn}", t.view(viewer)))
                if turn % 6 == 3 and len(moves) > 1:  # part of a turn: tokens in use
                    half = copy.deepcopy(t.state)
                    for move in moves[: len(moves) // 2]:
                        GAME.apply(half, seat, move)
                    secrets = {"superbonus": secretdeck.readable_plain(half["secret"]["superbonus"],
                                                                        seat)}
                    views.append((f"{name}-turn{turn}-mid", GAME.view(half, seat, secrets)))
                t.play(moves)
            finish(t)
            views.append((f"{name}-over", t.view(0)))
    return views


sample = boards.view_fixture(game_views)


# ---- the document ------------------------------------------------------------------------
def test_the_game_draws_through_its_hook_and_the_engine_uses_it() -> None:
    boards.check_hook(GAME, svg, placed(3).view(1))


def test_the_random_games_cover_every_count_option_and_the_end() -> None:
    names = [name for name, _ in game_views()]
    for players in range(2, 7):
        for suffix in ("", "-adv"):
            assert f"{players}p{suffix}-over" in names
            assert any(n.startswith(f"{players}p{suffix}-turn") and n.endswith("-mid") for n in names)
    ended = [v for _, v in game_views() if v["over"]]
    assert len(ended) == 10 and all("opened" in v["superbonus"] for v in ended)
    # Super Bonus cards were drawn, held and revealed in some of them.
    assert any(v["superbonus"]["opened"] for v in ended)
    assert any(row["status"] == "held" for _, v in game_views() for row in
               v.get("private", {}).get("superbonus", []))


def test_every_view_is_well_formed_svg_with_a_viewbox_and_a_title(sample: dict[str, Any]) -> None:
    boards.check_document(boards.drawn(GAME, sample), "Road Master", heights=(700, 4000))


def test_every_warehouse_is_drawn_with_its_colour_and_cubes(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    houses = sample["board"]["houses"]
    assert sorted(h.get("id", "") for h in with_class(root, "house")) == \
        sorted(f"house-{k}" for k in houses)
    for letter, house in houses.items():
        group = by_id(root, f"house-{letter}")
        words = text_of(group)
        assert words.startswith(f"{letter} {house['colour']}")
        own = house["cubes"].get(house["colour"], 0)
        assert (f"× {own}" in words) if own else ("empty" in words)
        assert [r for r in group.iter(f"{NS}rect")
                if r.get("fill") == svg.goods(sample).fill(house["colour"])]
        strays = {c: n for c, n in house["cubes"].items() if c != house["colour"] and n}
        chips = with_class(group, "stray")
        assert len(chips) == len(strays)
        for chip in chips:
            fill = boards.cube_fills(chip)[0]
            colour = next(c for c in strays if svg.goods(sample).fill(c) == fill)
            assert text_of(chip) == str(strays[colour])


def test_cubes_are_told_apart_by_shape_as_well_as_colour(sample: dict[str, Any]) -> None:
    """For colour-blind players: each cube colour has a shape of its own in the key, and
    every cube (in warehouses, trucks, contracts, Super Bonus needs) has that shape."""
    root = parse(boards.drawn(GAME, sample))
    boards.check_goods_told_apart(root, by_id(root, "legend"))


def test_every_truck_is_drawn_where_it_stands(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    trucks = with_class(root, "truck")
    placed_seats = [s for s, t in enumerate(sample["trucks"]) if t["where"]]
    assert sorted(t.get("id", "") for t in trucks) == sorted(f"truck-{s}" for s in placed_seats)
    road = svg._Road(sample, 0)
    for seat in placed_seats:
        truck = sample["trucks"][seat]
        group = by_id(root, f"truck-{seat}")
        assert str(seat + 1) in text_of(group)
        assert boards.cube_fills(group) == expected_fills(sample, truck["cubes"])
        if truck["where"] == "road":
            assert truck["heading"] in (group.get("class") or "").split()
            body = group.find(f"{NS}polygon")
            assert body is not None and body.get("fill") == svg.player_colour(seat)
            points = [tuple(int(v) for v in p.split(",")) for p in body.get("points", "").split()]
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            left = road.x(truck["x"])
            assert left <= min(xs) and max(xs) <= left + road.cell
            lane = road.lane_y(truck["lane"])
            assert lane <= min(ys) and max(ys) <= lane + svg.LANE_H
            # The nose points along the heading.
            tip = points[2][0]
            assert (tip == max(xs)) if truck["heading"] == "east" else (tip == min(xs))
        else:
            assert "parked" in (group.get("class") or "").split()
            house = by_id(root, f"house-{truck['where']}")
            assert group in list(house.iter())
            body = group.find(f"{NS}rect")
            assert body is not None and body.get("fill") == svg.player_colour(seat)


def test_every_player_has_a_panel_with_score_contracts_and_super_bonus(
        sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    assert len(with_class(root, "player")) == len(sample["scores"])
    cards = boards.check_player_cards(root, sample["seats"])
    for seat, name in enumerate(sample["seats"]):
        card = by_id(root, f"player-{seat}")
        words = cards[seat]
        assert words.split()[1] == name
        assert f"score {sample['scores'][seat]}" in words
        for held in sample["contracts"][seat]:  # done ones too: their cubes stay on them
            row = by_id(card, f"held-{held['id']}")
            assert ("done" if held["done"] else f"{held['cubes']}/{held['count']}") in text_of(row)
            assert len(with_class(row, "placed")) == held["cubes"]
            assert len(with_class(row, "missing")) == held["count"] - held["cubes"]
        assert f"Super Bonus cards held: {sample['superbonus']['held'][seat]}" in words


def test_the_highway_has_a_column_per_space_with_lane_arrows(sample: dict[str, Any]) -> None:
    """Every road space is numbered; the north lane's arrows point west, the south's east."""
    root = parse(boards.drawn(GAME, sample))
    road = svg._Road(sample, 0)
    length = sample["board"]["length"]
    numbers = [e for e in by_id(root, "road").iter(f"{NS}text")
               if "space-number" in (e.get("class") or "")]
    assert [e.text for e in numbers] == [str(x) for x in range(length)]
    for heading, lane in (("west", "north"), ("east", "south")):
        arrows = with_class(root, heading)
        arrows = [a for a in arrows if "arrow" in (a.get("class") or "")]
        assert len(arrows) == length
        for arrow in arrows:
            ys = [int(p.split(",")[1]) for p in arrow.get("points", "").split()]
            assert road.lane_y(lane) < min(ys) and max(ys) < road.lane_y(lane) + svg.LANE_H


def test_the_market_shows_every_card_and_the_decks(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    market = by_id(root, "market")
    for i, card in enumerate(sample["market"], 1):
        slot = by_id(market, f"slot-{i}")
        words = text_of(slot)
        if not card:
            assert "contract" not in (slot.get("class") or "")
            continue
        for part in (f"m{i}", card["id"], f"{card['count']} {card['colour']} → {card['to']}",
                     f"+{card['points']} ", f"−{card['penalty']} "):
            assert part in words, part
        assert len(with_class(slot, "cube")) == card["count"]
        assert (card["kind"] in words) == (card["kind"] in ("hazardous", "perishable"))
    words = text_of(market)
    assert f"Contract deck: {sample['deck']} card(s)" in words
    assert f"Super Bonus deck: {sample['superbonus']['deck']} card(s)" in words


def test_the_status_names_whose_turn_and_what_chance_is_pending(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    status = text_of(by_id(root, "status"))
    if sample["over"]:
        assert "The game is over." in status
    else:
        assert f"To act: {sample['seats'][sample['to_act']]}" in status
    assert status.count("Pending chance:") == len(sample["pending"])
    assert (maybe_id(root, "boom") is not None) == \
        bool(sample["options"]["hazardous"] and not sample["over"])
    viewer = sample.get("private", {}).get("seat", -1)
    assert (f"Seen by: {sample['seats'][viewer]}" if viewer >= 0 else "Public view") in status


def test_the_same_view_gives_the_same_bytes(sample: dict[str, Any]) -> None:
    boards.check_same_bytes(GAME, sample)


# ---- changes show ------------------------------------------------------------------------------
def test_a_turn_shows_in_the_drawing() -> None:
    """Taking contracts, loading and driving: the market, the warehouse, the truck, the
    panel and the tokens all change with the state."""
    t = placed(2, where="A")
    state = t.state
    taken = state["market"][0]
    before = parse(GAME.render_svg(GAME.view(state, 0, None)))
    assert taken in text_of(by_id(before, "slot-1"))
    orange = state["houses"]["A"]["orange"]
    assert f"× {orange}" in text_of(by_id(before, "house-A"))
    assert maybe_id(before, "tokens") is not None and not with_class(before, "used")
    for move in ("contracts m1", "load orange x2", "forward 3 exit east"):
        GAME.apply(state, 0, move)
    after = parse(GAME.render_svg(GAME.view(state, 0, None)))
    assert "refilled at turn end" in text_of(by_id(after, "slot-1"))
    assert maybe_id(by_id(after, "player-0"), f"held-{taken}") is not None
    assert f"× {orange - 2}" in text_of(by_id(after, "house-A"))
    truck = by_id(after, "truck-0")
    assert "east" in (truck.get("class") or "").split()
    assert boards.cube_fills(truck) == [svg.goods(t.view(0)).fill("orange")] * 2
    assert truck not in list(by_id(after, "house-A").iter())  # on the road now
    used = with_class(by_id(after, "tokens"), "used")
    assert len(used) == 3
    assert "Actions this turn: 3 (contracts, load, forward)" in text_of(by_id(after, "player-0"))


def test_a_delivery_fills_the_contract_and_the_score() -> None:
    t = placed(2, where="D")
    give(t.state, 0, "c12")  # 2 purple to D
    load_truck(t.state, 0, "purple", 1)
    root = parse(GAME.render_svg(GAME.view(t.state, 0, None)))
    row = by_id(by_id(root, "player-0"), "held-c12")
    assert "0/2" in text_of(row) and len(with_class(row, "placed")) == 0
    GAME.apply(t.state, 0, "unload c12 purple")
    root = parse(GAME.render_svg(GAME.view(t.state, 0, None)))
    row = by_id(by_id(root, "player-0"), "held-c12")
    assert "1/2" in text_of(row) and len(with_class(row, "placed")) == 1
    load_truck(t.state, 0, "purple", 1)
    GAME.apply(t.state, 0, "unload c12 purple")
    root = parse(GAME.render_svg(GAME.view(t.state, 0, None)))
    card = by_id(root, "player-0")
    assert "score 5" in text_of(card)


def test_RM_A15_RM_G4_a_completed_contract_keeps_its_colour_and_cubes_in_the_picture() -> None:
    """RM-A15/RM-G4: delivered cubes lie on the card, and rivals' Super Bonus are scored
    from them, so the picture shows a completed contract as the text view does: its
    colour, destination and the cubes on it (it showed only "c12 (+5)")."""
    t = placed(2, where="D")
    give(t.state, 0, "c12")  # 2 purple to D
    load_truck(t.state, 0, "purple", 2)
    GAME.apply(t.state, 0, "unload c12 purple x2")
    view = GAME.view(t.state, 1, None)
    assert "c12  2 purple  -> D  +5  -1  [done]" in GAME.render(view)
    row = by_id(by_id(parse(GAME.render_svg(view)), "player-0"), "held-c12")
    assert "c12: 2 purple → D, +5 −1" in text_of(row) and "done" in text_of(row)
    placed_cubes = with_class(row, "placed")
    assert len(placed_cubes) == 2
    assert {c.get("fill") for c in placed_cubes} == {svg.goods(view).fill("purple")}


def test_RM_A8_RM_A7_the_cards_out_of_the_game_are_named_in_the_picture() -> None:
    """RM-A7/RM-A8: a shortage is played face up and an emptied warehouse's contracts are
    picked out in the open; the picture names them as the text view does (it gave only
    their number)."""
    t = placed(2, where="B")
    state = t.state
    state["houses"]["B"] = {}
    empty_check(state, "B")
    view = GAME.view(state, None, None)
    shortages = [r for r in view["gone_cards"] if r["kind"] == "shortage"]
    purple = [r for r in view["gone_cards"] if r["kind"] != "shortage"]
    assert shortages and purple and {r["colour"] for r in purple} == {"purple"}
    gone = " ".join(text_of(by_id(parse(GAME.render_svg(view)), "gone")).split())
    text = " ".join(GAME.render(view).split())
    for row in purple:
        words = f"{row['id']} {row['count']} -> {row['to']} +{row['points']}/-{row['penalty']}"
        assert words in text and words in gone
    for row in shortages:
        assert f"{row['id']} (at {row['warehouse']})" in gone


def test_strays_and_an_emptied_warehouse_are_drawn() -> None:
    t = placed(2, where="B")
    state = t.state
    state["houses"]["B"] = {"orange": 3}  # B's own purple all gone, orange left there
    state["houses"]["A"]["orange"] = 12
    state["emptied"].append("B")
    root = parse(GAME.render_svg(GAME.view(state, None, None)))
    house = by_id(root, "house-B")
    assert "empty" in text_of(house)
    strays = with_class(house, "stray")
    assert len(strays) == 1 and text_of(strays[0]) == "3"
    assert len(with_class(house, "parked")) == 2


def test_the_super_bonus_draw_shows_as_counts_to_others_and_cards_to_the_drawer() -> None:
    t = placed(2)
    t.play(["superbonus"])
    mine = secretdeck.drawn(t.state, "superbonus", 0)
    cards = {s: t.state["secret"]["superbonus"]["slots"][s]["card"] for s in mine}
    own = text_of(by_id(parse(GAME.render_svg(t.view(0))), "player-0"))
    assert "drawn, still to choose from: 6" in own
    for slot, uid in cards.items():
        assert f"{slot} drawn: {uid} +" in own
    public = GAME.render_svg(t.view(None)) or ""
    other = GAME.render_svg(t.view(1)) or ""
    assert "drawn, still to choose from: 6" in text_of(parse(other))
    for uid in cards.values():
        assert not re.search(rf"\b{uid}\b", public) and not re.search(rf"\b{uid}\b", other)


def _cards_of(t: LocalTable, seat: int) -> set[str]:
    """The uids behind a seat's drawn and held slots (a peek at plain mode)."""
    slots = t.state["secret"]["superbonus"]["slots"]
    return {v["card"] for v in slots.values() if v["owner"] == seat and v["status"] != "deck"}


def _check_secrecy(t: LocalTable, owner: int, held: int) -> None:
    """No picture but the owner's shows the owner's cards; the owner's shows them all."""
    cards = _cards_of(t, owner)
    assert cards
    for seat in [None, *range(len(t.state["scores"]))]:
        text = GAME.render_svg(t.view(seat)) or ""
        if seat == owner:
            assert all(re.search(rf"\b{uid}\b", text) for uid in cards)
        else:
            boards.check_no_secret(text, cards)
        card = text_of(by_id(parse(text), f"player-{owner}"))
        assert f"Super Bonus cards held: {held}" in card


def test_seat_a_never_sees_seat_b_super_bonus_cards() -> None:
    """Plain mode: bob draws Super Bonus cards, then keeps three; ann's picture (and cy's,
    and the public one) holds none of their ids at any point, bob's own holds every one."""
    t = placed(3)
    t.play(["superbonus"])  # ann draws 6
    t.play(["superbonus"])  # bob draws 6
    t.prepare()
    _check_secrecy(t, 1, held=0)
    t.play([])
    ann_drawn = secretdeck.drawn(t.state, "superbonus", 0)
    t.play([f"keep {ann_drawn[0]} {ann_drawn[1]}", "bottom " + " ".join(ann_drawn[2:])])
    bob_drawn = secretdeck.drawn(t.state, "superbonus", 1)
    t.play([f"keep {' '.join(bob_drawn[:3])}", "bottom " + " ".join(bob_drawn[3:])])
    t.prepare()
    assert len(secretdeck.held(t.state, "superbonus", 1)) == 3
    _check_secrecy(t, 1, held=3)
    _check_secrecy(t, 0, held=2)
    slots = t.state["secret"]["superbonus"]["slots"]
    rows = text_of(by_id(parse(GAME.render_svg(t.view(1))), "player-1"))
    for slot in secretdeck.held(t.state, "superbonus", 1):
        assert f"{slot} held: {slots[slot]['card']} +" in rows


def test_boom_state_is_shown_when_hazardous_only() -> None:
    t = placed(2, where="F", hazardous=True)
    state = t.state
    GAME.apply(state, 0, "load yellow")
    GAME.apply(state, 0, "forward 2 exit west")
    root = parse(GAME.render_svg(GAME.view(state, 0, None)))
    boom = text_of(by_id(root, "boom"))
    assert "policy 'stop'" in boom and "Boom draw due this turn; queued after it: forward 2 exit west" \
        in boom
    assert "Policy at each draw: after load yellow: stop; after forward 2 exit west: stop." \
        in boom
    GAME.apply(state, 0, "policy push")
    assert "policy 'push'" in text_of(by_id(parse(GAME.render_svg(GAME.view(state, 0, None))), "boom"))
    GAME.end_turn(state, 0)
    status = text_of(by_id(parse(GAME.render_svg(GAME.view(state, None, None))), "status"))
    assert "Pending chance: boom card draws" in status
    plain = parse(GAME.render_svg(placed(2).view(0)))
    assert maybe_id(plain, "boom") is None


def test_pending_chance_and_the_refill_are_named() -> None:
    t = placed(2)
    GAME.apply(t.state, 0, "contracts m2 top")
    GAME.end_turn(t.state, 0)
    root = parse(GAME.render_svg(GAME.view(t.state, None, None)))
    status = text_of(by_id(root, "status"))
    assert "Pending chance: a blind card from the deck's top" in status
    assert "Pending chance: the market refill" in status
    assert "refill coming" in text_of(by_id(root, "slot-2"))


def test_setting_up_and_unplaced_trucks() -> None:
    t = LocalTable(GAME, NAMES[:2], {"first": "ann"}, seed=b"svg-setup")
    root = parse(GAME.render_svg(t.view(None)))
    assert not with_class(root, "truck")
    assert "not placed yet" in text_of(by_id(root, "player-1"))
    fresh = GAME.setup(NAMES[:3], {"first": "", "shortages": True}, GAME.stock_components())
    fresh["seats"] = NAMES[:3]
    status = text_of(by_id(parse(GAME.render_svg(GAME.view(fresh, None, None))), "status"))
    assert "Setting up" in status and "Pending chance: the set-up deal" in status


def test_the_game_over_picture_reveals_cards_and_places() -> None:
    ended = [(n, v) for n, v in game_views() if v["over"] and v["superbonus"]["opened"]]
    assert ended
    for name, shown in ended:
        root = parse(GAME.render_svg(shown))
        assert "The game is over." in text_of(by_id(root, "status")), name
        cards = [text_of(by_id(root, f"player-{s}")) for s in range(len(shown["scores"]))]
        assert any("place 1" in c for c in cards), name
        for row in shown["superbonus"]["opened"]:
            card = cards[row["seat"]]
            assert f"{row['slot']}: {row['card']} met, +{row['points']}" in card or \
                f"{row['slot']}: {row['card']} unmet, −{row['penalty']}" in card, name
        for seat, card in enumerate(cards):
            assert f"Final: contracts {shown['scores'][seat]}, penalties −" in card
            # Revealed cards replace the seat's private rows: each card drawn once.
            rows = with_class(by_id(root, f"player-{seat}"), "superbonus")
            assert len(rows) == sum(1 for r in shown["superbonus"]["opened"] if r["seat"] == seat)


@cache
def finished_game() -> LocalTable:
    """A three-seat game played to the end and revealed, every seat's Super Bonus cards
    opened (the seed is chosen for that)."""
    t = LocalTable(GAME, NAMES[:3], seed=b"svg-final23", components=low_target(10))
    rng = Sampler(hashlib.sha256(b"svg-final23").digest())
    for _, seat in boards.turns(t, 200):
        t.play(random_turn(t.state, seat, rng))
    finish(t)
    return t


def test_final_totals_follow_the_outcome() -> None:
    """The picture's totals come from the view alone; they match the engine's outcome."""
    t = finished_game()
    result = GAME.outcome(t.state)
    assert result is not None
    root = parse(GAME.render_svg(t.view(1)))
    for seat, total in result.scores.items():
        assert f"total {total}" in text_of(by_id(root, f"player-{seat}"))


def test_the_audited_result_shows_super_bonus_scores_and_every_revealed_card() -> None:
    """After the audit (the view carries the result): the winner, each seat's final
    score with its Super Bonus points, and every seat's opened Super Bonus cards."""
    t = finished_game()
    outcome = GAME.outcome(t.state)
    assert outcome is not None
    result = panels.result_section(outcome, NAMES[:3], "clean")
    shown = boards.with_result(t.view(2), result)
    opened = shown["superbonus"]["opened"]
    assert {row["seat"] for row in opened if row["card"]} == {0, 1, 2}, "a weak sample"
    assert any(parts["super bonus"] for parts in result["breakdown"]), "a weak sample"
    root = parse(GAME.render_svg(shown))
    words = boards.check_result_panel(root, result)
    for seat, parts in enumerate(result["breakdown"]):
        assert f"super bonus {parts['super bonus']}" in words
        card = text_of(by_id(root, f"player-{seat}"))
        assert f"Final: contracts {parts['contracts']}, penalties {parts['penalties']}, " \
               f"super bonus {parts['super bonus']}, total {result['scores'][seat]}" in card
        for row in (r for r in opened if r["seat"] == seat):
            assert row["card"] in card and f"{row['slot']}: {row['card']} " in card


def test_the_contract_decks_top_card_back_is_drawn() -> None:
    """The view's contract_deck_top (the colour of the deck's top card back) is drawn
    beside the deck, in that colour and its cubes' shape; no key, no drawing."""
    shown = placed(3).view(0)
    assert "contract_deck_top" not in shown or shown["contract_deck_top"]
    bare = {k: v for k, v in shown.items() if k != "contract_deck_top"}
    assert maybe_id(parse(GAME.render_svg(bare)), "deck-top") is None
    for colour in ("purple", "teal"):  # a colour of the data, and one it does not know
        top = by_id(parse(GAME.render_svg({**bare, "contract_deck_top": colour})), "deck-top")
        assert f"top card's back: {colour}" in text_of(top)
        fill = svg.goods(bare).fill(colour)
        assert [r for r in top.iter(f"{NS}rect") if r.get("fill") == fill]
        assert boards.cube_fills(top) == [fill]


def test_text_from_players_is_escaped() -> None:
    t = LocalTable(GAME, boards.NASTY_SEATS, {"first": boards.NASTY_SEATS[0]}, seed=b"svg-escape")
    t.play(["place A"])
    root = boards.check_escaped(GAME.render_svg(t.view(0)))
    assert text_of(by_id(root, "player-0")).split()[1] == boards.NASTY_SEATS[0]


def test_edited_board_data_is_drawn() -> None:
    """Owner-edited data: a longer road, warehouses side by side, an unknown colour."""
    data = GAME.stock_components()
    data["board"]["length"] = 30
    data["warehouses"][1].update(space=2, side="north", colour="teal")
    for kind in ("contracts", "hazardous", "perishable"):
        for card in data["cards"][kind]:
            if card["colour"] == "purple":
                card["colour"] = "teal"
    for card in data["cards"]["superbonus"]:
        if "purple" in card["need"]:
            card["need"]["teal"] = card["need"].pop("purple")
    GAME.validate_components(data)
    t = LocalTable(GAME, NAMES[:2], {"first": "ann"}, seed=b"svg-edit", components=data)
    t.play(["place B"])
    shown = t.view(0)
    root = parse(GAME.render_svg(shown))
    assert len([e for e in root.iter(f"{NS}text") if "space-number" in (e.get("class") or "")]) == 30
    a, b = svg._Road(shown, 0).box(shown, "A"), svg._Road(shown, 0).box(shown, "B")
    assert a[0] + a[2] <= b[0]  # neighbours on one side do not overlap
    assert svg.goods(shown).fill("teal") in kit.SPARE
    house = by_id(root, "house-B")  # a narrow box: the letter, the colour, the count
    assert text_of(house).split()[:2] == ["B", "15"]
    assert "Warehouse B (teal)" in (house.findtext(f"{NS}title") or "")
    assert [r for r in house.iter(f"{NS}rect") if r.get("fill") == svg.goods(shown).fill("teal")]
    assert text_of(by_id(root, "house-C")).startswith("C green × 15")


# ---- in a browser ------------------------------------------------------------------------------
@needs_browser
def test_show_html_page_renders_the_board_in_chromium(tmp_path: Path) -> None:
    """Headless Chromium draws the page of ``show --html``: the highway's grass and
    asphalt and the players' colours cover the screen; without the SVG they do not."""
    t = table(4)
    for where in "ABCD":
        t.play([f"place {where}"])
    t.play(["contracts m1 m2", "load orange x2", "forward 4 exit east"])
    t.prepare()
    page = html_page(GAME, t.view(1), "Road Master, seen by bob")
    board = tmp_path / "board.html"
    board.write_text(page, encoding="utf-8")
    size, counts = screenshot(board, tmp_path)
    area = size[0] * size[1]
    assert near(counts, rgb(svg.GRASS)) >= area // 20, "the highway's grass is not on screen"
    assert near(counts, rgb(svg.ASPHALT)) >= area // 40, "the road is not on screen"
    for seat in range(4):
        assert near(counts, rgb(svg.player_colour(seat))) >= 200, f"seat {seat} is not on screen"
    control = tmp_path / "control.html"
    control.write_text(without_board(page), encoding="utf-8")
    _, bare = screenshot(control, tmp_path)
    assert near(bare, rgb(svg.GRASS)) < 100 and near(bare, rgb(svg.ASPHALT)) < 100


def test_RM_G2_RM_X1_RM_M7_the_picture_gives_the_last_round_the_stall_count_and_the_heading(
        ) -> None:
    """RM-G2, RM-X1, RM-M7: the facts the text view gives in its status are in the
    picture too: the last round and whose turn ends it, the count of quiet rounds, and
    the heading a truck in a warehouse came in with (which backing out keeps)."""
    t = placed(3)
    state = t.state
    state["scores"][1] = 45
    state["quiet_rounds"] = 3
    state["trucks"][0]["heading"] = "east"  # came into A heading east
    view = GAME.view(state, None, None)
    text = " ".join(GAME.render(view).split())
    root = parse(GAME.render_svg(view))
    status = " ".join(text_of(by_id(root, "status")).split())
    for fact in ("The end is triggered: bob has 45 of 45 points. This is the last round; it "
                 "ends after cy's turn.",
                 "No score has moved for 3 round(s); the game ends at 20."):
        assert fact in text and fact in status
    assert "in warehouse A, heading east" in text
    assert "in warehouse A, heading east" in text_of(by_id(root, "player-0"))
