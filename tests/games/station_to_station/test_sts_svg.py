"""The drawn board (``render_svg``): well-formed SVG holding every public fact of a view.

Views come from random LocalTable games (2-4 players, several points of each game, to
the end) and from positions built with the rule-test helpers. The SVG is parsed with
xml.etree, and each check looks for the element that draws the fact (ids and classes
name them), so a fact that is not drawn fails its test.
"""

from __future__ import annotations

import copy
import hashlib
import re
from functools import cache
from typing import Any

import pytest
from sts_helpers import (
    SEATS,
    begin,
    give_crew,
    give_route,
    give_tickets,
    market_crew,
    place,
    set_purse,
    started,
    table,
    token_ids,
)

from pbem.drawing import panels
from pbem.game import ComponentError
from pbem.play.local import LocalTable
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.station_to_station import GAME, svg
from pbem_games.station_to_station.abilities import ABILITIES
from pbem_games.station_to_station.state import score
from pbem_games.station_to_station.view import view as make_view
from tests.support import boards
from tests.support.boards import NS, by_id, maybe_id, parse, text_of, with_class

STOCK = GAME.stock_components()


# ---- helpers ---------------------------------------------------------------------------
@cache
def game_views() -> list[tuple[str, dict[str, Any]]]:
    """Views of random games (2, 3 and 4 players) at the start, every few turns, and at
    the end, each seen by a different seat (and the public view)."""
    views: list[tuple[str, dict[str, Any]]] = []
    for players in (2, 3, 4):
        seed = f"svg-{players}".encode()
        game = LocalTable(GAME, SEATS[:players], seed=seed)
        rng = Sampler(hashlib.sha256(b"chooser" + seed).digest())
        for turn, seat in boards.turns(game, 400):
            if turn % 9 == 0:
                viewer = None if turn % 2 else turn // 9 % players
                views.append((f"{players}p-turn{turn}", copy.deepcopy(game.view(viewer))))
            game.play(boards.random_turn(GAME, game.state, seat, rng, most=80))
        assert game.finish() is not None, "the random game did not finish"
        views.append((f"{players}p-over", copy.deepcopy(game.view(0))))
    return views


sample = boards.view_fixture(game_views)


# ---- the document -----------------------------------------------------------------------
def test_the_game_draws_through_its_hook_and_the_engine_uses_it() -> None:
    boards.check_hook(GAME, svg, table(3).view(1))


def test_every_view_is_well_formed_svg_with_a_viewbox_and_a_title(sample: dict[str, Any]) -> None:
    boards.check_document(boards.drawn(GAME, sample), "Station to Station", heights=(700, 1800))


def test_every_city_is_drawn_with_its_name(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    for slug, city in sample["data"]["cities"].items():
        group = by_id(root, f"city-{slug}")
        assert group is not None, slug
        assert city["name"] in text_of(group)


def test_every_train_is_drawn_in_its_players_colour_with_a_label(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    trains = with_class(root, "train")
    placed = [s for s, p in enumerate(sample["players"]) if p["city"]]
    assert sorted(t.get("id", "") for t in trains) == sorted(f"train-{s}" for s in placed)
    for seat in placed:
        group = by_id(root, f"train-{seat}")
        assert group is not None
        shape = group.find(f"{NS}polygon")
        assert shape is not None and shape.get("fill") == svg.PLAYER_COLOURS[seat]
        assert text_of(group) == sample["seats"][seat]
        city = sample["data"]["cities"][sample["players"][seat]["city"]]["name"]
        assert city in "".join(group.itertext())  # its tooltip names the city


def test_every_players_name_heads_a_panel_card(sample: dict[str, Any]) -> None:
    cards = boards.check_player_cards(parse(boards.drawn(GAME, sample)), sample["seats"])
    for name, card in zip(sample["seats"], cards, strict=True):
        assert card.startswith(name + " ")


def test_the_same_view_gives_the_same_bytes(sample: dict[str, Any]) -> None:
    boards.check_same_bytes(GAME, sample)


def test_each_city_shows_its_token_or_emptiness(sample: dict[str, Any]) -> None:
    root = parse(boards.drawn(GAME, sample))
    for slug, spot in sample["map"].items():
        group = by_id(root, f"city-{slug}")
        assert group is not None
        tokens = with_class(group, "token")
        empties = with_class(group, "empty")
        if spot["token"]:
            assert [t.get("id") for t in tokens] == [f"tok-{spot['token']}"] and not empties
        else:
            assert not tokens and len(empties) == 1


def test_views_carry_no_more_than_the_drawing_reads(sample: dict[str, Any]) -> None:
    """The picture of a view reads only the view: who is looking shows as "you"."""
    viewer = sample["viewer"]
    root = parse(boards.drawn(GAME, sample))
    status = text_of(by_id(root, "status"))
    if viewer < 0:
        assert "Public view" in status
    else:
        assert f"Seen by: {sample['seats'][viewer]}" in status
    for seat in range(len(sample["players"])):
        assert ("you" in boards.marks_of(by_id(root, f"player-{seat}"))) == (seat == viewer)


# ---- a token taken from a city --------------------------------------------------------------
def test_a_token_taken_from_a_city_disappears_from_the_drawing() -> None:
    """Travel lifts the stop city's token into the player's hand: the map shows the city
    empty and the panel shows the token in hand."""
    state = started(3, seed=b"svg-take")
    seat = state["current"]
    for move in GAME.legal_moves(state, seat):
        if move.startswith("route keep"):
            GAME.apply(state, seat, move)
            break
    travel = next(m for m in GAME.legal_moves(state, seat)
                  if m.startswith("travel ") and state["map"][m.split()[1]]["token"])
    city = travel.split()[1]
    tid = state["map"][city]["token"]
    before = parse(GAME.render_svg(make_view(state, seat)) or "")
    assert by_id(before, f"tok-{tid}") is not None
    GAME.apply(state, seat, travel)
    assert state["turn"]["token"] == tid
    after = parse(GAME.render_svg(make_view(state, seat)) or "")
    assert maybe_id(after, f"tok-{tid}") is None
    group = by_id(after, f"city-{city}")
    assert group is not None and with_class(group, "empty") and not with_class(group, "token")
    assert "token in hand" in text_of(by_id(after, f"player-{seat}"))


def test_a_token_removed_from_the_view_is_not_drawn() -> None:
    shown = table(2).view(0)
    city, spot = next((c, s) for c, s in shown["map"].items() if s["token"])
    tid = spot["token"]
    emptied = copy.deepcopy(shown)
    emptied["map"][city] = {"token": "", "gold": False}
    before, after = GAME.render_svg(shown) or "", GAME.render_svg(emptied) or ""
    assert f'id="tok-{tid}"' in before and tid not in after
    assert 'id="empty-' + city + '"' in after and 'id="empty-' + city + '"' not in before


# ---- what the map draws -------------------------------------------------------------------------
def test_region_colours_fill_the_city_dots() -> None:
    root = parse(GAME.render_svg(table(2).view(0)) or "")
    seen = set()
    for slug, city in STOCK["cities"].items():
        group = by_id(root, f"city-{slug}")
        assert group is not None
        dot = [c for c in group.iter(f"{NS}circle") if c.get("r") == "8"]
        assert len(dot) == 1 and dot[0].get("fill") == svg.REGION_COLOURS[city["region"]]
        seen.add(dot[0].get("fill"))
    assert len(seen) == 4


def test_coastal_cities_and_only_they_carry_the_coastal_ring() -> None:
    root = parse(GAME.render_svg(table(2).view(0)) or "")
    for slug, city in STOCK["cities"].items():
        group = by_id(root, f"city-{slug}")
        assert group is not None
        assert len(with_class(group, "coastal")) == (1 if city["coastal"] else 0), slug


def test_every_track_is_drawn_once() -> None:
    root = parse(GAME.render_svg(table(2).view(0)) or "")
    track = by_id(root, "track")
    assert track is not None
    pairs = {frozenset((a, b)) for a, c in STOCK["cities"].items() for b in c["track"]}
    # Each track is a wide rail and a thin dashed sleeper line over it.
    assert len(list(track.iter(f"{NS}line"))) == 2 * len(pairs)


def test_token_face_kind_and_season_are_drawn() -> None:
    state = started(2, seed=b"svg-faces")
    railcar = token_ids(state, kind="railcar", season="autumn")[0]
    order = token_ids(state, kind="order", season="winter")[0]
    place(state, "denver", railcar, gold=True)
    place(state, "omaha", order)
    root = parse(GAME.render_svg(make_view(state, 0)) or "")
    gold = by_id(root, f"tok-{railcar}")
    plain = by_id(root, f"tok-{order}")
    assert gold is not None and plain is not None
    assert "railcar ★" in text_of(gold) and "A" in text_of(gold).split()
    assert [r for r in gold.iter(f"{NS}rect") if r.get("fill") == svg.GOLD]
    assert "order" in text_of(plain) and "★" not in text_of(plain)
    assert not [r for r in plain.iter(f"{NS}rect") if r.get("fill") == svg.GOLD]
    assert [r for r in plain.iter(f"{NS}rect") if r.get("fill") == svg.SEASON_COLOURS["winter"]]
    goods = state["data"]["tokens"][order]["goods"]
    assert boards.cube_fills(plain) == [svg.GOOD_COLOURS[g] for g in goods]
    points = state["data"]["tokens"][order]["rewards"][0]["points"]
    assert f"{points}pt" in text_of(plain)


def test_route_cards_and_markers_are_drawn_in_the_owners_colour() -> None:
    state = started(2, seed=b"svg-routes")
    begin(state, 0)
    give_route(state, 1, 2, "seattle--denver", marker="denver")
    give_route(state, 0, 2, "seattle--los-angeles")
    root = parse(GAME.render_svg(make_view(state, 0)) or "")
    lines = with_class(root, "route-card")
    held = [(s, e) for s, p in enumerate(state["players"]) for e in p["routes"] if e["card"]]
    assert len(lines) == len(held) == 4
    assert sorted(line.get("stroke", "") for line in lines) == \
        sorted(svg.PLAYER_COLOURS[s] for s, _ in held)
    for seat, player in enumerate(state["players"]):
        for slot, entry in enumerate(player["routes"], 1):
            flag = maybe_id(root, f"marker-{seat}-{slot}")
            assert (flag is not None) == bool(entry["marker"])
            if flag is not None:
                shape = flag.find(f"{NS}polygon")
                assert shape is not None and shape.get("fill") == svg.PLAYER_COLOURS[seat]


def test_a_pending_token_draw_is_shown_on_its_empty_city() -> None:
    state = started(2, seed=b"svg-pending")
    city = next(c for c, s in state["map"].items() if s["token"])
    state["box"].append(state["map"][city]["token"])
    state["map"][city] = {"token": "", "gold": False}
    state["pending"] = [{"kind": "token", "city": city, "seq": 3}]
    root = parse(GAME.render_svg(make_view(state, None)) or "")
    assert "token coming" in text_of(by_id(root, f"city-{city}"))
    assert "Pending: token draw onto" in text_of(by_id(root, "status"))


# ---- the panel and the market -------------------------------------------------------------------
def test_the_panel_shows_each_players_holdings() -> None:
    state = started(3, seed=b"svg-panel")
    begin(state, 1)
    set_purse(state, 1, cash=23, coal=7, goods={"grain": 4, "oil": 1})
    give_tickets(state, 1, "north", 2)
    give_tickets(state, 1, "east", 1)
    give_crew(state, 1, "porter", "west")
    state["players"][1]["caboose"] = state["cabooses"].pop(0)
    score(state["players"][1], "cabooses", state["players"][1]["caboose"])
    state["players"][1]["wilds"].append("start-seattle")
    root = parse(GAME.render_svg(make_view(state, 2)) or "")
    card = text_of(by_id(root, "player-1"))
    for words in ("bob (to act)", "$23", "coal 7", "grain 4", "oil 1", "cattle 0", "5/8 cars",
                  "north 2", "east 1", "south 0", "wild 1", "west Porter", "caboose 10",
                  f"score {23 // 4 + 7 // 2 + 10}", "cabooses 10"):
        assert words in card, words
    assert "(you" in text_of(by_id(root, "player-2"))
    status = text_of(by_id(root, "status"))
    assert "Season: summer" in status and f"bag: {state['bag_left']} to come" in status
    assert "To act: bob" in status


def test_the_market_shows_the_route_display_crews_and_cabooses() -> None:
    state = started(2, seed=b"svg-market")
    market_crew(state, "skilled", "south", "engineer")
    root = parse(GAME.render_svg(make_view(state, 0)) or "")
    market = by_id(root, "market")
    assert market is not None
    words = text_of(market)
    for rid in state["routes"]["display"]:
        assert by_id(market, f"display-{rid}") is not None
        a, b = (state["data"]["cities"][c]["name"] for c in state["data"]["routes"][rid]["cities"])
        assert f"{a} - {b}" in words
    assert f"Route deck {len(state['routes']['deck'])}" in words
    slot = by_id(market, "crew-skilled-south")
    assert slot is not None and "Engineer" in text_of(slot)
    for deck, stock in state["crews"].items():
        for region, crew in stock["market"].items():
            cell = by_id(market, f"crew-{deck}-{region}")
            assert cell is not None
            assert state["data"]["crews"][crew]["name"] in text_of(cell) if crew \
                else "(empty)" in text_of(cell)
    cabooses = with_class(market, "caboose")
    assert len(cabooses) == len(state["cabooses"])
    for points in state["cabooses"]:
        assert str(points) in words.split()


def test_an_empty_crew_slot_shows_its_pending_refill() -> None:
    state = started(2, seed=b"svg-crew")
    stock = state["crews"]["basic"]
    stock["deck"].append(stock["market"]["east"])
    stock["deck"].sort()
    stock["market"]["east"] = ""
    root = parse(GAME.render_svg(make_view(state, 0)) or "")
    assert text_of(by_id(root, "crew-basic-east")) == "(empty)"
    state["pending"] = [{"kind": "crew", "deck": "basic", "region": "east", "seq": 2}]
    root = parse(GAME.render_svg(make_view(state, 0)) or "")
    assert text_of(by_id(root, "crew-basic-east")) == "refill coming"
    assert "Pending: basic crew for the east slot" in text_of(by_id(root, "status"))


def test_goods_are_told_apart_by_shape_as_well_as_colour(sample: dict[str, Any]) -> None:
    """For colour-blind players: each good has a shape of its own beside its price (the
    key), and every good on tokens, city markets and player cards has that shape."""
    root = parse(boards.drawn(GAME, sample))
    boards.check_goods_told_apart(root, by_id(root, "goods-key"))


def test_the_audited_result_names_the_winner_and_every_score() -> None:
    """After the audit the view carries the engine's result: a panel names the winner
    and every seat's score and its parts, and the player cards show the places."""
    finished = LocalTable(GAME, SEATS[:3], seed=b"svg-3")
    rng = Sampler(hashlib.sha256(b"chooser" + b"svg-3").digest())
    for _, seat in boards.turns(finished, 400):
        finished.play(boards.random_turn(GAME, finished.state, seat, rng, most=80))
    outcome = finished.finish()
    assert outcome is not None
    result = panels.result_section(outcome, SEATS[:3], "clean")
    root = parse(GAME.render_svg(boards.with_result(finished.view(1), result)))
    words = boards.check_result_panel(root, result)
    for parts in result["breakdown"]:
        assert all(f"{label} {value}" in words for label, value in parts.items())
    assert "Final: " not in text_of(by_id(root, "status"))  # said once, in the panel


def test_the_game_over_picture_names_the_places() -> None:
    name, shown = game_views()[-1]
    assert shown["over"], name
    root = parse(GAME.render_svg(shown) or "")
    status = text_of(by_id(root, "status"))
    assert "The game is over." in status and "Final: " in status
    places = [text_of(by_id(root, f"player-{s}")) for s in range(len(shown["players"]))]
    assert any("place 1" in card for card in places)


def test_text_from_players_and_data_is_escaped() -> None:
    shown = LocalTable(GAME, boards.NASTY_SEATS, seed=b"svg-escape").view(0)
    root = boards.check_escaped(GAME.render_svg(shown))
    assert text_of(by_id(root, "player-0")).startswith(boards.NASTY_SEATS[0])


# ---- coordinates in the component data ------------------------------------------------------------
def _without_coordinates() -> dict[str, Any]:
    data = copy.deepcopy(STOCK)
    for city in data["cities"].values():
        city.pop("x", None)
        city.pop("y", None)
    return data


def test_stock_cities_all_have_distinct_coordinates() -> None:
    points = [(c["x"], c["y"]) for c in STOCK["cities"].values()]
    assert all(isinstance(v, int) for p in points for v in p)
    assert len(set(points)) == len(points)


def test_coordinates_are_optional_and_the_board_is_still_drawn() -> None:
    data = _without_coordinates()
    GAME.validate_components(data)
    game = LocalTable(GAME, SEATS[:2], seed=b"svg-grid", components=data)
    root = parse(GAME.render_svg(game.view(0)) or "")
    centres = set()
    for slug, city in data["cities"].items():
        group = by_id(root, f"city-{slug}")
        assert group is not None and city["name"] in text_of(group)
        dot = next(c for c in group.iter(f"{NS}circle") if c.get("r") == "8")
        centres.add((dot.get("cx"), dot.get("cy")))
    assert len(centres) == len(data["cities"])  # no two cities drawn on one point


@pytest.mark.parametrize(("change", "message"), [
    (lambda c: c["denver"].pop("y"), "city 'denver' gives x without y"),
    (lambda c: c["denver"].pop("x"), "city 'denver' gives y without x"),
    (lambda c: c["denver"].update(x=-1), "city 'denver' needs x as a whole number"),
    (lambda c: c["denver"].update(y=True), "city 'denver' needs y as a whole number"),
    (lambda c: c["denver"].update(x="12"), "city 'denver' needs x as a whole number"),
    (lambda c: c["denver"].update(x=c["omaha"]["x"], y=c["omaha"]["y"]),
     "is drawn on the same point as"),
    (lambda c: [c["miami"].pop(k) for k in ("x", "y")],
     "city 'miami' has no x and y; give map coordinates to every city or to none"),
])
def test_bad_coordinates_are_named(change: Any, message: str) -> None:
    data = copy.deepcopy(STOCK)
    change(data["cities"])
    with pytest.raises(ComponentError, match=re.escape(message)):
        GAME.validate_components(data)


def test_STS_C1_every_crew_in_the_market_shows_its_whole_ability() -> None:
    """STS-C1/STS-S4: the crews lie face up in the market; the picture gives each one's
    ability whole (it kept five lines: the Surveyor lost "the card).", and the Paymaster's
    timing read "(use it before taking")."""
    state = started(2, seed=b"svg-crew-text")
    regions = list(state["data"]["regions"])
    for crew in GAME.stock_components()["crews"]:
        if crew["ability"] not in ABILITIES:
            continue
        market_crew(state, crew["deck"], regions[0], crew["id"])
        root = parse(GAME.render_svg(make_view(state, 0)) or "")
        words = " ".join(text_of(by_id(root, f"crew-{crew['deck']}-{regions[0]}")).split())
        assert ABILITIES[crew["ability"]].text in words, crew["id"]


def test_STS_S10_STS_ST2_STS_S3_the_picture_names_the_face_up_discards_and_boxed_tokens() -> None:
    """STS-S10/STS-T7 (route cards are discarded face up), STS-ST2/ST6 (taken tokens are
    boxed in the open) and STS-S3 (the later seasons' tokens wait beside the board): the
    text view gives each of these; the picture gave only counts, or nothing."""
    import collections

    from test_sts_property import _random_turn

    from pbem_games.station_to_station.view import boxed_lines
    from pbem_games.station_to_station.words import describe_route

    t = LocalTable(GAME, ["ann", "bob", "cy"], {}, seed=b"svg-public-facts")
    rng = Sampler(hashlib.sha256(b"svg-public-facts").digest())
    stats: collections.defaultdict[str, int] = collections.defaultdict(int)
    for _ in range(20):
        t.prepare()
        t.play(_random_turn(t.state, t.to_act(), rng, stats))
    view = t.view(0)
    assert view["routes"]["discards"] and view["boxed"] and view["seasons_ahead"]
    text = " ".join(GAME.render(view).split())
    drawn = " ".join(text_of(parse(GAME.render_svg(view) or "")).split())
    facts = [describe_route(view["data"], r) for r in view["routes"]["discards"]]
    facts += boxed_lines(view)
    facts.append("later seasons' tokens: " + ", ".join(
        f"{s} {n}" for s, n in view["seasons_ahead"].items()))
    for fact in facts:
        assert fact in text and fact in drawn, fact
