"""The drawn board (``render_svg``): well-formed SVG holding every public fact of a view.

Views come from LocalTable games of 1 to 5 players (solo and Trail Boss included), played
by a seeded random chooser and then the greedy bot to the end, taken at several points
(some with chance still pending) and by different seats, and from positions arranged
with the rule-test helpers. The SVG is parsed with xml.etree and each check looks for the
element that draws the fact (ids and classes name them), so a fact that is not drawn
fails its test. The Chromium check reuses tests/test_browser.py's screenshot helpers.
"""

from __future__ import annotations

import copy
import hashlib
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from rdj_helpers import HANDLES, act, card_of, give_card, new_game, put

from pbem.drawing import panels
from pbem.drawing.page import html_page
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.red_dog_junction import GAME, palette, svg
from pbem_games.red_dog_junction.constants import JUSTIN
from pbem_games.red_dog_junction.state import dock_dice
from pbem_games.red_dog_junction.view import view as make_view
from tests.support import boards
from tests.support.boards import NS, by_id, has_id, parse, text_of, tooltip, with_class
from tests.test_browser import WINDOW, near, needs_browser, rgb, screenshot, without_board

RANDOM_TURNS = 14  # then the greedy bot plays the game out
SAMPLE_SEED = "svg3"  # the sample games; chosen so that they reach every kind of place


# ---- helpers ---------------------------------------------------------------------------
def hull_centre(ship: ET.Element) -> tuple[int, int]:
    hull = ship.find(f"{NS}polygon")
    assert hull is not None
    points = [tuple(int(v) for v in p.split(",")) for p in (hull.get("points") or "").split()]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return (min(xs) + max(xs)) // 2, (min(ys) + max(ys)) // 2


def free_spot(place: ET.Element) -> tuple[int, int]:
    """The centre of the "free" mark a place draws where its ship would stand."""
    marks = with_class(place, "free-dock")
    assert len(marks) == 1, tooltip(place)
    mark = marks[0]
    if mark.tag == f"{NS}rect":
        return (int(mark.get("x", "0")) + int(mark.get("width", "0")) // 2,
                int(mark.get("y", "0")) + int(mark.get("height", "0")) // 2)
    return int(mark.get("x", "0")), int(mark.get("y", "0")) - 4


def inside(point: tuple[int, int], rect: ET.Element) -> bool:
    x, y = int(rect.get("x", "0")), int(rect.get("y", "0"))
    return (x <= point[0] <= x + int(rect.get("width", "0"))
            and y <= point[1] <= y + int(rect.get("height", "0")))


def owners(shown: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    found = [(str(i), p) for i, p in enumerate(shown["players"])]
    return found + ([(JUSTIN, shown["justin"])] if shown["solo"] else [])


@cache
def sample_games() -> tuple[list[tuple[str, dict[str, Any]]], dict[int, LocalTable]]:
    """Views of games of 1-5 players: at the start, every few turns (some right after a
    turn, with its refill pending), and at the end, each seen by a seat or the public;
    and each game's finished table, by its number of players."""
    views: list[tuple[str, dict[str, Any]]] = []
    tables: dict[int, LocalTable] = {}
    for players in (1, 2, 3, 4, 5):
        variant = "trail-boss" if players in (2, 4) else "standard"
        seed = f"{SAMPLE_SEED}-{players}".encode()
        table = LocalTable(GAME, HANDLES[:players], {"variant": variant}, seed=seed)
        rng = Sampler(hashlib.sha256(b"chooser" + seed).digest())
        views.append((f"{players}p-start", table.view(0)))
        for turn, seat in boards.turns(table, 400):
            moves = (boards.random_turn(GAME, table.state, seat, rng) if turn < RANDOM_TURNS else
                     bots.choose_turn(GAME, table.state, seat, "greedy:svg", salt=str(turn)))
            table.play(moves)
            if turn % 15 == 3:
                viewer = None if turn // 15 % 2 else turn // 15 % players
                views.append((f"{players}p-turn{turn}", table.view(viewer)))
        assert table.finish() is not None, "the game did not finish"
        views.append((f"{players}p-over", table.view(0)))
        tables[players] = table
    return views, tables


def game_views() -> list[tuple[str, dict[str, Any]]]:
    return sample_games()[0]


sample = boards.view_fixture(game_views)


def test_the_sample_views_cover_what_the_picture_must_show() -> None:
    """The samples are worth their time: every player count, both ends of the game,
    pending refills, ships at every kind of place, cargo, cards held."""
    shown = [v for _, v in game_views()]
    assert {len(v["players"]) for v in shown} == {1, 2, 3, 4, 5}
    assert any(v["solo"] and v["phase"] == "over" for v in shown)
    assert sum(v["phase"] == "over" for v in shown) == 5
    assert any(v["pending"] for v in shown)
    assert any(v["variant"] == "trail-boss" for v in shown)
    places = {o["at"].split()[0] for v in shown for _, o in owners(v)}
    assert {"home", "space", "junction", "shop"} <= places and places & {"gas", "ice", "ruby",
                                                                         "oxygen"}
    assert any(o["ship"] for v in shown for _, o in owners(v))
    assert any(v["cards"] for v in shown)


# ---- the document -----------------------------------------------------------------------
def test_the_game_draws_through_its_hook_and_the_engine_uses_it() -> None:
    boards.check_hook(GAME, svg, LocalTable(GAME, HANDLES[:3], seed=b"svg-hook").view(1))


def test_every_view_is_well_formed_svg_with_a_viewbox_and_a_title(sample: dict[str, Any]) -> None:
    boards.check_document(boards.drawn(GAME, sample), f"Red Dog Junction, turn {sample['turn']}",
                          heights=(900, 1600))


def test_the_same_view_gives_the_same_bytes(sample: dict[str, Any]) -> None:
    boards.check_same_bytes(GAME, sample)


def test_goods_are_told_apart_by_shape_as_well_as_colour(sample: dict[str, Any]) -> None:
    """For colour-blind players: each good has a shape of its own in the key, and every
    cube, cargo piece and cost chip of a good has that shape."""
    root = parse(boards.drawn(GAME, sample))
    key = by_id(root, "legend")
    boards.check_goods_told_apart(root, key)
    assert [g for g in text_of(key).split() if g != "Goods"] == list(palette.GOODS_KEY.order)


# ---- the places ------------------------------------------------------------------------
def test_the_junction_shows_every_dock_and_die_with_its_face(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    by_id(root, "junction")
    for good, face in sample["dice"].items():
        die = by_id(root, f"die-{good}")
        words = text_of(die).split()
        assert str(face) in words and good in words, (good, words)
        shape = die.find(f"{NS}rect") if good != "gold" else die.find(f"{NS}polygon")
        assert shape is not None and shape.get("fill") == palette.GOOD_COLOURS[good]
    for dock in sample["docks"]:
        group = by_id(root, f"dock-{dock['dock']}")
        assert str(dock["dock"]) in text_of(group).split()
        assert (f"{dock['ship']}'s ship is here" in tooltip(group)) == bool(dock["ship"])


def _centre(element: ET.Element) -> tuple[int, int]:
    circle = element.find(f"{NS}circle")
    if circle is not None:
        return int(circle.get("cx", "0")), int(circle.get("cy", "0"))
    rect = element.find(f"{NS}rect")
    assert rect is not None
    return (int(rect.get("x", "0")) + int(rect.get("width", "0")) // 2,
            int(rect.get("y", "0")) + int(rect.get("height", "0")) // 2)


def test_docks_and_dice_alternate_each_dock_between_its_own_two_dice() -> None:
    """RDJ-S7 drawn: the two dice nearest each dock are the dice it trades at, and the
    gold die sits in the centre, as near to every dock."""
    shown = LocalTable(GAME, HANDLES[:2], seed=b"svg-ring").view(0)
    root = parse(GAME.render_svg(shown))
    dice = {good: _centre(by_id(root, f"die-{good}")) for good in shown["dice"] if good != "gold"}
    gold = by_id(root, "die-gold").find(f"{NS}polygon")
    assert gold is not None
    for dock in shown["docks"]:
        x, y = _centre(by_id(root, f"dock-{dock['dock']}"))
        near_first = sorted(dice, key=lambda g: (dice[g][0] - x) ** 2 + (dice[g][1] - y) ** 2)
        assert sorted(near_first[:2]) == sorted(dock["dice"]), dock
    centres = [_centre(by_id(root, f"dock-{d['dock']}")) for d in shown["docks"]]
    mid = (sum(c[0] for c in centres) // 6, sum(c[1] for c in centres) // 6)
    xs = [int(p.split(",")[0]) for p in (gold.get("points") or "").split()]
    assert min(xs) < mid[0] < max(xs)


@pytest.mark.parametrize("seed", [b"svg-ring1", b"svg-ring2", b"svg-ring3"])
def test_the_ring_follows_the_dice_placed_at_set_up(seed: bytes) -> None:
    """Set-up places the dice at random (RDJ-S7): each placement is drawn as placed."""
    shown = LocalTable(GAME, HANDLES[:2], seed=seed).view(0)
    root = parse(GAME.render_svg(shown))
    dice = {good: _centre(by_id(root, f"die-{good}")) for good in shown["dice"] if good != "gold"}
    for dock in shown["docks"]:
        x, y = _centre(by_id(root, f"dock-{dock['dock']}"))
        near_first = sorted(dice, key=lambda g: (dice[g][0] - x) ** 2 + (dice[g][1] - y) ** 2)
        assert sorted(near_first[:2]) == sorted(dock["dice"]), dock


def test_planets_show_their_supply_and_dock(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    for planet, entry in sample["planets"].items():
        group = by_id(root, f"planet-{planet}")
        words = text_of(group)
        assert str(entry["stock"]) in words.split() and f"{planet} planet" in words
        circle = group.find(f"{NS}circle")
        assert circle is not None and circle.get("fill") == palette.GOOD_COLOURS[planet]
        assert len(with_class(group, "free-dock")) == (0 if entry["ship"] else 1)


def test_the_shop_shows_the_top_tile_of_both_stacks(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    shop = by_id(root, "shop")
    assert sample["shop"]["name"] in text_of(shop)
    assert len(sample["shop"]["stacks"]) == 2
    for value, stack in sample["shop"]["stacks"].items():
        words = text_of(by_id(shop, f"deal-{value}"))
        if stack["top"]:
            assert f"{value} gold" in words and stack["top"] in words
            assert f"{stack['left']} left in stack" in words
            pairs = stack["cost"].split()
            for good, count in zip(pairs[0::2], pairs[1::2], strict=True):
                assert f"{good} {count}" in words
        else:
            assert f"{value}-gold: empty" in words


def test_space_shows_the_goods_lying_there(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    space = by_id(root, "space")
    for good, count in sample["space"].items():
        group = by_id(space, f"space-{good}")
        assert f"{good} {count}" in text_of(group)
        cubes = with_class(group, "cube")
        assert len(cubes) == 1 + min(count, 24)  # the key cube and the pile
        assert {c.get("fill") for c in cubes} == {palette.GOOD_COLOURS[good]}
    assert len(with_class(space, "space-goods")) == len(sample["space"])


def test_every_owner_has_a_home_base_with_its_storage(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    for key, owner in owners(sample):
        home = by_id(root, f"home-{key}")
        words = text_of(home)
        assert words.startswith(f"{owner['name']}'s home base")
        for good, count in owner["storage"].items():
            assert f"{good} {count}" in words
        if not owner["storage"]:
            assert "empty" in words.split()


# ---- the ships --------------------------------------------------------------------------
def test_every_ship_is_drawn_in_its_owners_colour_with_its_cargo(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    ships = with_class(root, "ship")
    assert sorted(s.get("id", "") for s in ships) == sorted(f"ship-{k}" for k, _ in
                                                            owners(sample))
    for key, owner in owners(sample):
        ship = by_id(root, f"ship-{key}")
        hull = ship.find(f"{NS}polygon")
        assert hull is not None and hull.get("fill") == palette.owner_colour(key)
        assert text_of(ship).split()[0] == owner["name"]
        cubes = [c.get("fill") for c in with_class(ship, "cube")]
        cargo = [palette.GOOD_COLOURS[g] for g, n in owner["ship"].items() for _ in range(n)]
        if len(cargo) <= 14:
            assert cubes == cargo
        else:
            assert cubes == cargo[:12] and f"+{len(cargo) - 12}" in text_of(ship)


def _emptied(shown: dict[str, Any], key: str) -> dict[str, Any]:
    """The view with one ship sent to space: its place is free again."""
    other = copy.deepcopy(shown)
    owner = other["justin"] if key == JUSTIN else other["players"][int(key)]
    where = owner["at"]
    owner["at"] = "space"
    for dock in other["docks"]:
        if f"junction {dock['dock']}" == where:
            dock["ship"] = ""
    if where in other["planets"]:
        other["planets"][where]["ship"] = ""
    if where == "shop":
        other["shop"]["ship"] = ""
    return other


def _place_id(key: str, where: str) -> str:
    if where == "home":
        return f"home-{key}"
    if where.startswith("junction "):
        return f"dock-{where.split()[1]}"
    return "shop" if where == "shop" else f"planet-{where}"


def _nearest(root: ET.Element, point: tuple[int, int], where: str) -> str:
    """The place of the kind ``where`` names drawn nearest to ``point``: the dock circle
    at the Junction, the planet's globe, else the place's box."""
    if where.startswith("junction ") or where in palette.GOOD_COLOURS:
        kind = "dock" if where.startswith("junction ") else "planet"
        groups = with_class(root, kind)
        return min((g.get("id", "") for g in groups), key=lambda i: (
            (_centre(by_id(root, i))[0] - point[0]) ** 2
            + (_centre(by_id(root, i))[1] - point[1]) ** 2))
    boxes = [g for g in with_class(root, "place") if g.get("id") == "shop"
             or g.get("id", "").startswith("home-")]
    rects = [(g.get("id", ""), g.find(f"{NS}rect")) for g in boxes]
    found = [ident for ident, rect in rects if rect is not None and inside(point, rect)]
    assert len(found) == 1, found
    return found[0]


def test_every_ship_stands_at_its_place(sample: dict[str, Any]) -> None:
    """A docked ship stands on the spot its dock marks "free" once the ship has left; a
    ship in space is inside the space box."""
    root = parse(boards.drawn(GAME, sample))
    space_box = by_id(root, "space").find(f"{NS}rect")
    assert space_box is not None
    for key, owner in owners(sample):
        centre = hull_centre(by_id(root, f"ship-{key}"))
        if owner["at"] == "space":
            assert inside(centre, space_box), key
            continue
        place = by_id(root, _place_id(key, owner["at"]))
        assert not with_class(place, "free-dock")
        assert _nearest(root, centre, owner["at"]) == _place_id(key, owner["at"])
        if owner["at"].startswith("junction "):
            line = place.find(f"{NS}line")  # the mooring line runs to the ship
            assert line is not None
            assert (int(line.get("x2", "0")), int(line.get("y2", "0"))) == centre
        left = parse(GAME.render_svg(_emptied(sample, key)))
        assert free_spot(by_id(left, _place_id(key, owner["at"]))) == centre, owner["at"]


def test_a_ship_moving_moves_in_the_drawing() -> None:
    """Real moves: undock from home into space, then dock at Junction dock 3."""
    state = new_game(2, seed=b"svg-move")
    put(state, 0, ruby=2)
    before = parse(GAME.render_svg(make_view(state, 0)))
    home = by_id(before, "home-0")
    assert hull_centre(by_id(before, "ship-0")) and not with_class(home, "free-dock")
    act(state, "undock")
    middle = parse(GAME.render_svg(make_view(state, 0)))
    space_box = by_id(middle, "space").find(f"{NS}rect")
    assert space_box is not None and inside(hull_centre(by_id(middle, "ship-0")), space_box)
    assert with_class(by_id(middle, "home-0"), "free-dock")
    assert not inside(hull_centre(by_id(before, "ship-0")), space_box)
    act(state, "dock junction 3")
    after = parse(GAME.render_svg(make_view(state, 0)))
    dock = by_id(after, "dock-3")
    line = dock.find(f"{NS}line")
    assert line is not None
    assert (int(line.get("x2", "0")), int(line.get("y2", "0"))) == hull_centre(
        by_id(after, "ship-0"))
    assert "ann's ship is here" in tooltip(dock)
    assert [c.get("fill") for c in with_class(by_id(after, "ship-0"), "cube")] == \
        [palette.GOOD_COLOURS["ruby"]] * 2


def test_a_die_changing_changes_only_that_die() -> None:
    """A real agent move (adjust) turns one die: its face is redrawn, the others are not."""
    state = new_game(2, seed=b"svg-die")
    state["players"][0]["at"] = "junction 3"
    left, _ = dock_dice(state, "junction 3")
    face = state["dice"][left]
    before = parse(GAME.render_svg(make_view(state, 0)))
    act(state, f"adjust {left} {'-1' if face > 1 else '+1'}")
    after = parse(GAME.render_svg(make_view(state, 0)))
    new_face = state["dice"][left]
    assert new_face != face
    assert str(new_face) in text_of(by_id(after, f"die-{left}")).split()
    assert str(face) in text_of(by_id(before, f"die-{left}")).split()
    for good in state["dice"]:
        same = ET.tostring(by_id(before, f"die-{good}")) == ET.tostring(by_id(after,
                                                                              f"die-{good}"))
        assert same == (good != left), good


def test_an_edited_view_is_what_gets_drawn() -> None:
    """The picture reads the view and nothing else: an edit to the view shows, and state
    outside the view (the deck's order) changes nothing."""
    state = new_game(3, seed=b"svg-edit")
    shown = make_view(state, 1)
    edited = copy.deepcopy(shown)
    edited["dice"]["ruby"] = 6 if shown["dice"]["ruby"] != 6 else 5
    edited["planets"]["gas"]["stock"] = 97
    first = parse(GAME.render_svg(edited))
    assert str(edited["dice"]["ruby"]) in text_of(by_id(first, "die-ruby")).split()
    assert "97" in text_of(by_id(first, "planet-gas")).split()
    state["deck"].reverse()
    assert GAME.render_svg(make_view(state, 1)) == GAME.render_svg(shown)


# ---- the market -------------------------------------------------------------------------
def test_the_display_shows_six_cards_with_cost_type_and_points(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    display = by_id(root, "display")
    cards = with_class(display, "card")
    assert [c.get("id") for c in cards] == [f"card-{c['id']}" for c in sample["display"]]
    for entry in sample["display"]:
        group = by_id(display, f"card-{entry['id']}")
        words = text_of(group)
        assert entry["name"] in words and entry["id"] in words and entry["kind"] in words
        if entry["kind"] != "boost":
            assert f"{entry['vp']} VP" in words
        for alternative in entry["cost"].split(" or "):
            pairs = alternative.split()
            for good, count in zip(pairs[0::2], pairs[1::2], strict=True):
                assert f"{good} {count}" in words
        assert entry["text"].split()[0] in words
    slots = with_class(display, "card-slot")
    assert len(slots) == 6 - len(sample["display"])
    refill = any("refill" in p or "display" in p for p in sample["pending"]) or \
        sample["phase"] == "setup"
    for slot in slots:
        assert text_of(slot) == ("dealt after set-up" if sample["phase"] == "pick" else
                                 "refill coming" if refill else "(empty)")


def test_the_bank_and_deck_are_counted(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    bank = text_of(by_id(root, "bank"))
    for good, count in sample["bank"].items():
        assert f"{good} {count}" in bank
    for good, count in sample["box"].items():
        assert f"box: {good} {count}" in bank
    assert f"Market deck {sample['deck']} cards · discard pile {sample['discard']}" in \
        text_of(by_id(root, "deck"))


def test_held_commanders_and_boosts_and_recent_events_are_written(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    if sample["cards"]:
        held = text_of(by_id(root, "held-cards"))
        for ident, words in sample["cards"].items():
            assert f"{ident}: {words.split()[0]}" in held
    else:
        assert not has_id(root, "held-cards")
    if sample["last"]:
        recent = text_of(by_id(root, "recent"))
        for event in sample["last"]:
            assert event.split(":")[0].split()[0] in recent
    else:
        assert not has_id(root, "recent")


# ---- the panel --------------------------------------------------------------------------
def test_each_player_has_a_panel_card_with_their_holdings(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    cards = boards.check_player_cards(root, [p["name"] for p in sample["players"]])
    for seat, (player, card) in enumerate(zip(sample["players"], cards, strict=True)):
        assert card.startswith(player["name"] + " ")
        assert f"ship {player['load']}/{player['capacity']}" in card
        assert f"gold in storage {player['storage'].get('gold', 0)}" in card
        for ctype, count in player["crew"].items():
            assert f"{ctype} {count}" in card
        for ident in player["commanders"] + player["boosts"] + player["deals"]:
            assert ident in card
        assert f"score {player['score']} = " in card
        assert ("Trail Boss: a crew pick is owed" in card) == player["owes_pick"]
        cubes = [c.get("fill") for c in with_class(by_id(root, f"player-{seat}"), "cube")]
        assert len(cubes) == min(player["load"], 18)


def test_super_deals_commanders_and_boosts_held_are_shown() -> None:
    """Tiles taken leave the shop's stack (an emptied stack says so) and show on their
    owner's card; commanders and boosts held are listed, a used commander marked."""
    state = new_game(2, seed=b"svg-held")
    taken = list(state["stacks"]["8"])
    state["stacks"]["8"] = []
    state["players"][0]["deals"] = taken[:1]
    state["players"][1]["deals"] = taken[1:]
    mayor, nudge = card_of(state, "mayor"), card_of(state, "nudge")
    give_card(state, 0, mayor)
    give_card(state, 0, nudge)
    state["ts"]["commanded"] = [mayor]
    root = parse(GAME.render_svg(make_view(state, 1)))
    assert text_of(by_id(root, "deal-8")) == "8-gold: empty"
    assert f"6 gold {state['stacks']['6'][0]}" in text_of(by_id(root, "deal-6"))
    ann, bob = text_of(by_id(root, "player-0")), text_of(by_id(root, "player-1"))
    assert f"super deals: {taken[0]}" in ann
    assert f"super deals: {', '.join(taken[1:])}" in bob
    assert f"commanders: {mayor} (used)" in ann and f"unused boosts: {nudge}" in ann
    assert "commanders: none" in bob and "unused boosts: none" in bob
    held = text_of(by_id(root, "held-cards"))
    assert f"{mayor}: Take 1 gold" in held and f"{nudge}: Move any one die" in held


def test_the_panel_marks_the_reader_and_whose_turn_it_is(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    status = text_of(by_id(root, "status"))
    viewer = sample["viewer"]
    if viewer < 0:
        assert "Public view" in status
    else:
        assert f"Seen by: {sample['players'][viewer]['name']}" in status
    for seat, player in enumerate(sample["players"]):
        marks = boards.marks_of(by_id(root, f"player-{seat}"))
        assert ("you" in marks) == (seat == viewer)
        # A Trail Boss player choosing their set-up crew card acts as much as one in play.
        acting = sample["phase"] == "play" or (sample["phase"] == "pick" and player["owes_pick"])
        assert ("to act" in marks) == (acting and player["name"] == sample["to_act"])
        assert any(m.startswith("place ") for m in marks) == (sample["phase"] == "over")
    if sample["phase"] == "play":
        assert f"To act: {sample['to_act']}" in status
        ts = sample["turn_state"]
        assert f"Actions taken {ts['actions']} of {ts['allowed']}" in status
    for pending in sample["pending"]:
        assert f"Pending: {pending}" in status


def test_justin_is_drawn_in_the_solo_game(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    if not sample["solo"]:
        assert not has_id(root, "player-justin") and not has_id(root, "ship-justin")
        return
    justin = sample["justin"]
    card = text_of(by_id(root, "player-justin"))
    assert card.startswith(justin["name"] + " (automaton)")
    assert f"stack: {len(justin['stack'])} cards, top {justin['top'] or 'none'}" in card
    assert f"score {justin['score']} = " in card
    assert f"ship {sum(justin['ship'].values())}/12" in card
    for ident in justin["deals"]:
        assert ident in card
    by_id(root, "home-justin")
    if sample["phase"] != "over" and justin["next"]:
        assert "Justin's next" in text_of(by_id(root, f"card-{justin['next']}"))


def test_the_end_of_the_game_is_shown() -> None:
    """Before the audit the view's ``result`` is the game's own: the status ranks every
    player and names the winners it gives (solo: Justin's score and the verdict)."""
    over = [v for _, v in game_views() if v["phase"] == "over"]
    for shown in over:
        root = parse(GAME.render_svg(shown))
        status = text_of(by_id(root, "status"))
        assert "GAME OVER after turn" in status and "Final: 1. " in status
        best = max(p["score"] for p in shown["players"])
        assert any(f"1. {p['name']} {best}" in status for p in shown["players"])
        assert not has_id(root, "result")  # the panel waits for the audit
        winners = shown["result"]["winners"]
        if shown["solo"]:
            assert f"Justin scored {shown['justin']['score']}" in status
        else:
            assert ("Winner: " if len(winners) == 1 else "Shared win: ") + winners[0] in status


def test_the_final_result_names_the_winner_and_every_score() -> None:
    """After the audit the view carries the engine's result: a panel names the winner
    (or, solo, the score and the verdict against Justin) and every seat's score and its
    parts; the cards show the engine's places."""
    for players, table in sample_games()[1].items():
        outcome = GAME.outcome(table.state)
        assert outcome is not None
        result = panels.result_section(outcome, HANDLES[:players], "clean")
        root = parse(GAME.render_svg(boards.with_result(table.view(0), result)))
        words = boards.check_result_panel(root, result)
        for parts in result["breakdown"]:
            assert all(f"{label} {value}" in words for label, value in parts.items())
        assert "Final: " not in text_of(by_id(root, "status"))  # said once, in the panel
        if players == 1:
            assert "Justin (the automaton) scored" in words


def test_the_text_picture_of_an_audited_game_names_the_winner() -> None:
    """The session puts the engine's result section where the game's own ``result`` was:
    `pbem show` of a complete game tells its winner from either (it crashed on the
    section)."""
    for players, table in sample_games()[1].items():
        outcome = GAME.outcome(table.state)
        assert outcome is not None
        result = panels.result_section(outcome, HANDLES[:players], "clean")
        own = table.view(0)["result"]["text"]
        assert own in GAME.render(table.view(0))
        audited = GAME.render(boards.with_result(table.view(0), result)).splitlines()[1]
        assert audited == f"  {panels.winner_words(result)}."


def test_a_failed_audit_is_shown_in_the_result() -> None:
    table = sample_games()[1][2]
    outcome = GAME.outcome(table.state)
    assert outcome is not None
    result = panels.result_section(outcome, HANDLES[:2], ["bob: the revealed seed does not "
                                                           "produce the beacon anchor"])
    words = text_of(by_id(parse(GAME.render_svg(boards.with_result(table.view(1), result))), "result"))
    assert "AUDIT FAILED: bob: the revealed seed" in words and "Audit: clean" not in words


def test_the_gold_end_trigger_and_an_owed_head_move_are_announced() -> None:
    state = new_game(2, seed=b"svg-end")
    give_card(state, 0, card_of(state, "rascal"))
    state["end"].update(gold_fired=True, end_after=9)
    status = text_of(by_id(parse(GAME.render_svg(make_view(state, 0))), "status"))
    assert "LAST TURNS: the bank's gold ran out; the game ends after turn 9." in status
    assert "Owed first: " in status  # the rascals' crew type


def test_a_view_before_the_start_entry_is_drawn() -> None:
    """Before the start entry places the dice (RDJ-S7) the six docks are drawn with six
    empty die spots between them, and no die is drawn anywhere."""
    state = GAME.setup(HANDLES[:2], {"variant": "standard"}, GAME.stock_components())
    state["seats"] = HANDLES[:2]
    shown = make_view(state, None)
    assert shown["ring"] == []
    root = parse(GAME.render_svg(shown))
    assert "Waiting for the start entry: first player, dice placed" in text_of(by_id(root, "status"))
    slots = with_class(by_id(root, "display"), "card-slot")
    assert [text_of(s) for s in slots] == ["refill coming"] * 6
    junction = by_id(root, "junction")
    assert [g.get("id") for g in with_class(junction, "dock")] == [f"dock-{n}" for n in range(1, 7)]
    assert len(with_class(junction, "die-spot")) == 6
    assert [g.get("id") for g in with_class(junction, "die")] == ["die-gold"]
    assert "its dice are placed at set-up" in tooltip(by_id(root, "dock-1"))


def test_the_trail_boss_picks_are_drawn() -> None:
    """RDJ-V1 drawn: the status names who picks now, the crew types the deck offers and
    who is still to pick; the picker is marked to act; the display waits for set-up."""
    table = LocalTable(GAME, HANDLES[:3], {"variant": "trail-boss"}, seed=b"svg-pick")
    first = table.view(None)
    assert first["phase"] == "pick"
    picker = first["to_act"]
    root = parse(GAME.render_svg(first))
    status = text_of(by_id(root, "status"))
    assert "Set-up: Trail Boss crew picks" in status and "Waiting" not in status
    assert f"To pick: {picker}" in status
    offered = ", ".join(f"{t} x{n}" for t, n in first["pickable"].items())
    assert f"May pick from the deck: {offered} (no rascal)" in status
    assert "rascal x" not in status
    assert f"Still to pick: {HANDLES[0]}, {HANDLES[1]} and {HANDLES[2]}" in status
    for seat, player in enumerate(first["players"]):
        assert ("to act" in boards.marks_of(by_id(root, f"player-{seat}"))) == \
            (player["name"] == picker)
    assert [text_of(s) for s in with_class(by_id(root, "display"), "card-slot")] == \
        ["dealt after set-up"] * 6
    table.play([f"pick {next(iter(first['pickable']))}"])
    after = table.view(None)
    status = text_of(by_id(parse(GAME.render_svg(after)), "status"))
    assert f"To pick: {after['to_act']}" in status and after["to_act"] != picker
    assert f"Still to pick: {picker}" not in status and picker not in status.split(
        "Still to pick:")[1].split("Public")[0]


def test_text_from_players_and_data_is_escaped() -> None:
    data = copy.deepcopy(GAME.stock_components())
    data["places"]["shop"] = "Jose's <Shop> & Co"
    shown = LocalTable(GAME, boards.NASTY_SEATS, seed=b"svg-escape", components=data).view(0)
    text = GAME.render_svg(shown)
    root = boards.check_escaped(text)
    assert text is not None and "<Shop>" not in text
    assert text_of(by_id(root, "player-0")).startswith(boards.NASTY_SEATS[0])
    assert "Jose's <Shop> & Co" in text_of(by_id(root, "shop"))


# ---- in a browser -------------------------------------------------------------------------
@needs_browser
def test_the_board_renders_in_chromium(tmp_path: Path) -> None:
    """The HTML page of `pbem show --html` in headless Chromium: space, the players'
    colours and the dice colours cover the screen; the page without its SVG shows none."""
    shown = next(v for name, v in game_views() if name.startswith("3p-turn"))
    page = html_page(GAME, shown, "Red Dog Junction, seen by ann")
    board = tmp_path / "board.html"
    board.write_text(page, encoding="utf-8")
    size, counts = screenshot(board, tmp_path)
    area = size[0] * size[1]
    assert size == WINDOW
    assert area - counts.get((255, 255, 255), 0) >= area // 4
    assert near(counts, rgb(svg.SPACE_FILL)) >= area // 20, "space is not on screen"
    for seat in range(3):
        assert near(counts, rgb(palette.PLAYER_COLOURS[seat])) >= 300, seat
    for good in ("ruby", "oxygen", "gas"):
        assert near(counts, rgb(palette.GOOD_COLOURS[good])) >= 300, good
    control = tmp_path / "control.html"
    control.write_text(without_board(page), encoding="utf-8")
    assert near(screenshot(control, tmp_path)[1], rgb(svg.SPACE_FILL)) < 100
