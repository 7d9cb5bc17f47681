"""Set-up (RDJ-S1..S7), the component data and the options (RDJ-V2)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from rdj_helpers import HANDLES, new_game, stock

from pbem.errors import ComponentError, OptionError
from pbem.game import Fixed, copy_state
from pbem.play.local import LocalTable
from pbem_games.red_dog_junction import GAME, posse
from pbem_games.red_dog_junction.components import market_ids, tables
from pbem_games.red_dog_junction.constants import EFFECTS
from pbem_games.red_dog_junction.state import card, dock_dice, tile

AMOUNTS = stock()["goods"]


def test_RDJ_S1_goods_start_in_space_bank_and_planets() -> None:
    state = new_game(4)
    assert state["space"]["scrap"] == AMOUNTS["scrap"]
    assert {g: n for g, n in state["space"].items() if g != "scrap"} == dict.fromkeys(
        ["gold", "whiskey", "gas", "ice", "ruby", "oxygen"], 0)
    assert state["bank"]["whiskey"] == AMOUNTS["whiskey"]
    handed_out = sum(p["storage"]["gold"] for p in state["players"])
    assert state["bank"]["gold"] == AMOUNTS["gold"] - handed_out
    for planet in ("gas", "ice", "ruby", "oxygen"):
        assert state["planets"][planet] == AMOUNTS[planet]
    assert GAME.invariants(state) == []


@pytest.mark.parametrize(("players", "boxed"), [(1, 10), (2, 10), (3, 10), (4, 0), (5, 0)])
def test_RDJ_S2_ten_gold_to_the_box_with_two_or_three(players: int, boxed: int) -> None:
    """Two or three players (the solo game is set up for two) put 10 gold in the box."""
    state = new_game(players)
    assert state["box"]["gold"] == boxed
    held = sum(p["storage"]["gold"] for p in state["players"])
    held += state["justin"]["storage"]["gold"] if state["solo"] else 0
    assert state["bank"]["gold"] == AMOUNTS["gold"] - boxed - held


def test_RDJ_S3_home_base_ship_and_starting_crew() -> None:
    state = new_game(5)
    for seat, player in enumerate(state["players"]):
        assert player["at"] == "home"
        assert sum(player["ship"].values()) == 0
        types = [card(state, c)["type"] for c in player["crew"]]
        assert sorted(types) == sorted(["cowboy"] * 3 + ["agent", "miner", "scavenger"])
        assert all(c.startswith(f"p{seat + 1}-") for c in player["crew"])


def test_RDJ_S4_deck_shuffled_and_six_card_display() -> None:
    market = sorted(stock_market())
    displays = set()
    for seed in (b"a", b"b", b"c", b"d"):
        state = new_game(3, seed=seed)
        assert len(state["display"]) == 6
        assert sorted(state["display"] + state["deck"]) == market
        displays.add(tuple(state["display"]))
    assert len(displays) > 1  # the shuffle comes from chance


def stock_market() -> list[str]:
    return new_game(2)["rules"]["market"]


def test_RDJ_S5_super_deal_stacks_of_six_and_eight_gold() -> None:
    state = new_game(2)
    assert sorted(state["stacks"]) == ["6", "8"]
    for key, stack in state["stacks"].items():
        assert stack and all(tile(state, t)["gold"] == int(key) for t in stack)
    view = GAME.view(state, None)
    assert view["shop"]["stacks"]["8"]["top"] == state["stacks"]["8"][0]  # face up


def test_RDJ_S6_random_first_player_and_gold_by_order() -> None:
    firsts = set()
    for seed in (b"1", b"2", b"3", b"4", b"5", b"6", b"7", b"8"):
        state = new_game(5, seed=seed, first=None)
        first = state["first"]
        firsts.add(first)
        assert state["current"] == first
        gold = [state["players"][(first + k) % 5]["storage"]["gold"] for k in range(5)]
        assert gold == [1, 1, 2, 2, 3]
    assert len(firsts) > 1


def test_RDJ_S7_dice_rolled_and_gold_die_at_one() -> None:
    rolls = set()
    for seed in (b"x", b"y", b"z"):
        state = new_game(2, seed=seed)
        assert state["dice"]["gold"] == 1
        six = {d: v for d, v in state["dice"].items() if d != "gold"}
        assert sorted(six) == sorted(["whiskey", "scrap", "gas", "ice", "ruby", "oxygen"])
        assert all(1 <= v <= 6 for v in six.values())
        rolls.add(tuple(sorted(six.items())))
    assert len(rolls) > 1


def test_RDJ_S7_dice_placed_at_random_around_the_junction() -> None:
    """Which die sits at which spot of the ring changes from game to game (the old
    ruling that the ring order is component data is withdrawn)."""
    rings = set()
    for seed in (b"1", b"2", b"3", b"4", b"5", b"6"):
        state = new_game(3, seed=seed, ring=None)
        ring = state["ring"]
        assert sorted(ring) == sorted(["whiskey", "scrap", "gas", "ice", "ruby", "oxygen"])
        for n in range(1, 7):  # dock n sits between die spots n and n+1 (the ring closes)
            assert dock_dice(state, f"junction {n}") == [ring[n - 1], ring[n % 6]]
        shown = GAME.view(state, None)
        assert shown["ring"] == ring
        assert [d["dice"] for d in shown["docks"]] == [
            [ring[n - 1], ring[n % 6]] for n in range(1, 7)]
        rings.add(tuple(ring))
    assert len(rings) > 1


def test_RDJ_S7_the_ring_is_not_component_data() -> None:
    assert "ring" not in stock()["junction"]
    assert "RDJ-S7" in _broken(lambda d: d["junction"].update(ring=["die scrap", "dock 1"]))


def test_setup_chance_is_public_and_pending_until_start() -> None:
    state = GAME.setup(HANDLES[:3], {"variant": "standard"}, stock())
    assert [r["kind"] for r in state["pending"]] == ["setup"]
    assert state["display"] == [] and GAME.legal_moves(state, 0) == []
    assert "set-up" in GAME.render(GAME.view(state, None))


# ---- options ------------------------------------------------------------------------------
def test_RDJ_V2_posse_needs_two_players_or_more() -> None:
    """A draft is between players: the solo game refuses it with a plain message; 2 to 5
    players may play it."""
    with pytest.raises(OptionError, match="Posse variant is a draft between players"):
        GAME.validate_options({"variant": "posse"}, 1)
    with pytest.raises(OptionError, match="needs 2 to 5 players"):
        LocalTable(GAME, ["ann"], {"variant": "posse"})
    for players in (2, 3, 4, 5):
        GAME.validate_options({"variant": "posse"}, players)


def _small_start_sets(market_copies: int) -> dict[str, Any]:
    """Valid component data whose starting sets are 4 cards (3 to the Posse deck each) and
    whose market is 21 cards plus ``market_copies`` - 1 (the first crew's copies)."""
    data = stock()
    data["setup"]["start_crew"] = {"cowboy": 1, "agent": 1, "miner": 1, "scavenger": 1}
    for entry in data["crew"]:
        entry["copies"] = 1
    data["crew"][0]["copies"] = market_copies
    data["commander"] = data["commander"][:6]
    data["boost"] = data["boost"][:8]
    for entry in data["boost"]:
        entry["copies"] = 1
    GAME.validate_components(data)
    return data


def test_RDJ_V2_posse_refused_when_the_data_makes_too_small_a_deck_for_the_deal() -> None:
    """The draft deals 9 cards each: valid data with small starting sets makes a deck of
    12 + 24 = 36 at 4 players (enough, and the game plays) and 35 (refused before any
    game is made, not at the deal: "the deck has 35 cards; the deal needs 36")."""
    enough, short = _small_start_sets(4), _small_start_sets(3)
    GAME.validate_options({"variant": "posse"}, 4, components=enough)
    LocalTable(GAME, HANDLES[:4], {"variant": "posse"}, components=enough)
    with pytest.raises(OptionError, match=r"^The Posse draft deals 9 cards to each of 4 "
                       r"players, 36 in all, but this game's component data makes a deck of "
                       r"35\. Play with fewer players or another variant\.$"):
        LocalTable(GAME, HANDLES[:4], {"variant": "posse"}, components=short)
    GAME.validate_options({"variant": "standard"}, 5, components=short)
    GAME.validate_options({"variant": "posse"}, 3, components=short)


def test_variants_offered_and_checked() -> None:
    assert GAME.info.options["variant"].choices == ("standard", "trail-boss", "posse")
    GAME.validate_options({"variant": "trail-boss"}, 1)
    with pytest.raises(OptionError, match="variant must be"):
        GAME.validate_options({"variant": "nonsense"}, 2)


# ---- component data -----------------------------------------------------------------------
def test_stock_components_meet_the_rulings() -> None:
    data = stock()
    GAME.validate_components(data)
    commanders = {c["id"]: c for c in data["commander"]}
    assert len(commanders) >= 6
    assert commanders["mayor"]["cost"] == {"ruby": 4, "oxygen": 4}
    assert all(len(c["cost"]) == 2 for c in commanders.values())
    dice_effects = {"set_die", "nudge", "flip"}
    assert any(c["effect"] in dice_effects for c in commanders.values())
    boosts = [b for b in data["boost"] for _ in range(b["copies"])]
    assert len(boosts) >= 8
    assert all(b["cost"] == {"gold": 1} for b in boosts)
    assert sum(b["effect"] in dice_effects for b in data["boost"]) >= 2
    outlaw = next(c for c in data["crew"] if c["type"] == "outlaw")
    assert outlaw["cost"] == [{"ruby": 2}, {"gold": 3}]
    assert {c["type"] for c in data["crew"]} == {
        "cowboy", "agent", "miner", "scavenger", "rustler", "outlaw", "rascal"}
    assert all(c["vp"] > 0 for c in data["crew"]) and all(c["vp"] > 0 for c in commanders.values())
    used = {c["effect"] for c in data["commander"]} | {b["effect"] for b in data["boost"]}
    assert used == set(EFFECTS)  # every effect the code knows is on some card


def _broken(mutate: Callable[[dict[str, Any]], Any]) -> str:
    data = stock()
    mutate(data)
    with pytest.raises(ComponentError) as info:
        GAME.validate_components(data)
    return info.value.message


def test_component_errors_name_the_bad_entry() -> None:
    assert "[goods]" in _broken(lambda d: d["goods"].pop("ice"))
    assert "gold" in _broken(lambda d: d["goods"].update(gold=5))
    assert "start_gold" in _broken(lambda d: d["setup"].update(start_gold=[1, 1]))
    assert "start_crew" in _broken(lambda d: d["setup"]["start_crew"].update(pilot=1))
    assert "planets" in _broken(lambda d: d["places"].update(planets=["gas", "ice"]))
    assert "gold_die_start" in _broken(lambda d: d["junction"].update(gold_die_start=9))
    assert "crew entry 1" in _broken(lambda d: d["crew"][0].update(type="pilot"))
    assert "crew entry 2" in _broken(lambda d: d["crew"][1].update(cost=[]))
    assert "two kinds" in _broken(lambda d: d["commander"][0].update(cost={"ruby": 4}))
    assert "mayor" in _broken(lambda d: d["commander"][0].update(effect="teleport"))
    assert "amount" in _broken(lambda d: d["commander"][0].pop("amount"))
    assert "1 gold" in _broken(lambda d: d["boost"][0].update(cost={"gold": 2}))
    assert "at least 6" in _broken(lambda d: d.update(commander=d["commander"][:5]))
    assert "at least 8" in _broken(lambda d: d.update(boost=d["boost"][:3]))
    assert "repeats" in _broken(lambda d: d["commander"][1].update(id="mayor"))
    assert "notation" in _broken(lambda d: d["commander"][1].update(id="gold"))
    assert "two stacks" in _broken(lambda d: d["deal"][0].update(gold=7))
    assert "not ask for gold" in _broken(lambda d: d["deal"][0]["cost"].update(gold=1))
    assert "ruby = 2" in _broken(lambda d: d["deal"][0].update(cost={}))
    assert "is not a good" in _broken(lambda d: d["deal"][0].update(cost={"tea": 2}))
    assert "not a table" in _broken(lambda d: d.pop("goods"))
    with pytest.raises(ComponentError):
        GAME.validate_components([])  # type: ignore[arg-type]


def test_the_card_ids_alone_are_those_of_the_rules_tables() -> None:
    """Posse's deck is made from the card ids without the rest of the tables: the same
    ids in the same order as set-up's tables, for the stock data and for data with other
    copies and cards."""
    data = stock()
    data["crew"][0]["copies"] = 1
    data["boost"][0]["copies"] = 1  # a single boost keeps its plain id
    data["boost"][1]["copies"] = 5
    data["commander"] = data["commander"][1:]
    for components in (stock(), data):
        GAME.validate_components(components)
        assert market_ids(components) == tables(components)["market"]
        for players in (2, 5):
            expected = posse.deck_cards(tables(components), players)
            assert GAME.secret_decks(components, {"variant": "posse"}, players) == {
                posse.DECK: expected}


def test_the_copies_of_a_card_share_its_face() -> None:
    """Each card entry is written once; its copies are the same card but for the id."""
    rules = tables(stock())
    crew = next(e for e in stock()["crew"] if e["copies"] > 1)
    faces = {rules["cards"][f"{crew['id']}-{n}"] for n in range(1, crew["copies"] + 1)}
    assert len(faces) == 1
    assert json.loads(faces.pop()) == {"kind": "crew", "type": crew["type"],
                                       "name": crew["type"], "vp": crew["vp"],
                                       "cost": crew["cost"]}
    assert json.loads(rules["cards"]["p1-cowboy-1"]) == {
        "kind": "crew", "type": "cowboy", "name": "cowboy", "vp": 0, "cost": [], "start": True}


def test_setup_uses_the_components_argument() -> None:
    data = stock()
    data["goods"]["scrap"] = 11
    state = GAME.setup(HANDLES[:2], {"variant": "standard"}, data)
    assert state["space"]["scrap"] == 11


@pytest.mark.parametrize("variant", ["standard", "trail-boss", "posse"])
def test_the_rules_tables_are_one_fixed_table_shared_by_every_copy(variant: str) -> None:
    """Set-up (Posse's pricing of the starting cards included) ends by making the rules
    tables Fixed: copies of the state share them and nothing changes them."""
    state = LocalTable(GAME, HANDLES[:3], {"variant": variant}).state
    assert isinstance(state["rules"], Fixed)
    assert copy_state(state)["rules"] is state["rules"]
    with pytest.raises(TypeError):
        state["rules"]["cards"].pop(next(iter(state["rules"]["cards"])))
