"""Set-up (STS-S1..S11) and the order of play (STS-M1)."""

from __future__ import annotations

import json

import pytest
from sts_helpers import SEATS, begin, clean, play, started, table

from pbem.game import Fixed, IllegalMoveError, copy_state
from pbem_games.station_to_station import GAME
from pbem_games.station_to_station.state import distances

STOCK = GAME.stock_components()


def _season_ids(season: str) -> set[str]:
    return {t["id"] for t in STOCK["tokens"] if t["season"] == season}


def _removal(players: int) -> dict[str, int]:
    return next(r for r in STOCK["removal"] if r["players"] == players)


def test_STS_S1_countdown_apart_other_tokens_grouped_by_season() -> None:
    state = started(3)
    on_map = {s["token"] for s in state["map"].values() if s["token"]}
    assert set(state["bag"]) | on_map == _season_ids("summer")
    for season in ("autumn", "winter"):
        assert set(state["waiting"][season]) == _season_ids(season)
    # Countdown tokens stand apart, one per player, none removed at random.
    used = {t for t in _season_ids("countdown") if state["data"]["tokens"][t]["players"] <= 3}
    assert set(state["waiting"]["countdown"]) == used and len(used) == 3
    assert _season_ids("countdown") - used <= set(state["box"])
    # A token is grouped by the season of its side without the gold frame.
    for tid in state["waiting"]["autumn"]:
        assert state["data"]["tokens"][tid]["season"] == "autumn"


@pytest.mark.parametrize("players", [2, 3, 4])
def test_STS_S2_tokens_removed_unseen_by_player_count(players: int) -> None:
    state = started(players)
    removal = _removal(players)
    on_map = sum(1 for s in state["map"].values() if s["token"])
    # Exactly (group - removed) summer tokens will ever come out of the bag...
    assert on_map + state["bag_left"] == len(_season_ids("summer")) - removal["summer"]
    # ...and nobody can tell which were removed: the bag still lists every undrawn token.
    assert len(state["bag"]) == len(_season_ids("summer")) - on_map
    assert state["removal"] == {s: removal[s] for s in ("summer", "autumn", "winter")}


def test_STS_S3_only_summer_in_the_bag() -> None:
    state = started(2)
    assert all(state["data"]["tokens"][t]["season"] == "summer" for t in state["bag"])
    assert state["season"] == "summer"
    assert set(state["waiting"]) == {"autumn", "winter", "countdown"}


def test_STS_S4_crew_decks_shuffled_apart_four_face_up_each() -> None:
    markets = set()
    for seed in (b"a", b"b", b"c"):
        state = table(2, seed).state
        for deck in ("basic", "skilled"):
            stock = state["crews"][deck]
            shown = list(stock["market"].values())
            assert sorted(stock["market"]) == sorted(state["data"]["regions"])
            assert all(shown) and len(set(shown)) == 4
            assert all(state["data"]["crews"][c]["deck"] == deck for c in shown)
            assert not set(shown) & set(stock["deck"])
        markets.add(tuple(state["crews"]["basic"]["market"].values()))
    assert len(markets) > 1  # the start beacon decides


def test_STS_S5_standard_routes_deck_and_display_after_the_draws() -> None:
    state = started(4)
    routes = state["routes"]
    starts = {r["id"] for r in STOCK["start_routes"]}
    assert len(routes["display"]) == 2
    assert not (set(routes["deck"]) | set(routes["display"])) & starts
    chosen = {rid for p in state["players"] for rid in p["choice"]}
    assert len(chosen) == 8 and not chosen & set(routes["display"])
    assert len(routes["deck"]) == len(STOCK["routes"]) - 8 - 2


def test_STS_S6_caboose_stack_high_to_low() -> None:
    assert started(2)["cabooses"] == [10, 8, 6, 4]


def test_STS_S7_each_player_starts_with_8_dollars_2_coal_and_nothing_else() -> None:
    state = started(3)
    for player in state["players"]:
        assert (player["cash"], player["coal"], player["points"]) == (8, 2, 0)
        assert sum(player["goods"].values()) == 0
        assert len(player["routes"]) == 2  # two route slots, two markers
        assert not player["railcars"] and not player["caboose"]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_STS_S8_one_start_route_each_leftovers_boxed(players: int) -> None:
    state = started(players)
    starts = [p["routes"][0]["card"] for p in state["players"]]
    assert len(set(starts)) == players
    assert all(state["data"]["routes"][s]["start"] for s in starts)
    assert sorted(state["routes"]["box"]) == sorted({r["id"] for r in STOCK["start_routes"]} - set(starts))


def test_STS_S9_train_and_marker_on_the_start_city() -> None:
    state = started(4)
    for player in state["players"]:
        route = state["data"]["routes"][player["routes"][0]["card"]]
        assert player["city"] == route["start"]
        assert player["routes"][0]["marker"] == route["start"]


def test_STS_S10_keep_one_of_two_standard_routes_as_the_first_move() -> None:
    t = table(2)
    seat = t.to_act()
    state = t.state
    drawn = list(state["players"][seat]["choice"])
    assert t.legal_moves() == ["route keep 1", "route keep 2"]
    with pytest.raises(IllegalMoveError, match="first keep one of your two route cards"):
        GAME.apply(state, seat, "travel denver")
    assert not GAME.can_end_turn(state, seat)
    play(state, seat, "route keep 2")
    player = state["players"][seat]
    assert player["routes"][1]["card"] == drawn[1]
    assert drawn[0] in state["routes"]["discards"]
    assert player["choice"] == []
    with pytest.raises(IllegalMoveError, match="once, at the head of your first turn"):
        GAME.apply(state, seat, "route keep 1")
    clean(state)


def test_STS_S10_kept_route_naming_the_start_city_gets_a_marker() -> None:
    state = started(2)
    seat = state["current"]
    player = state["players"][seat]
    start = player["city"]
    naming = next(r["id"] for r in STOCK["routes"] if start in r["cities"])
    other = next(r["id"] for r in STOCK["routes"] if start not in r["cities"])
    for rid in (naming, other):
        piles = [state["routes"]["deck"], state["routes"]["display"]]
        for pile in piles + [p["choice"] for p in state["players"]]:
            if rid in pile:
                pile.remove(rid)
    state["routes"]["deck"] += [r for r in player["choice"]]
    player["choice"] = [other, naming]
    play(state, seat, "route keep 2")
    assert player["routes"][1] == {"card": naming, "marker": start, "pending": False}
    clean(state)


@pytest.mark.parametrize("players", [2, 4])
def test_STS_S11_a_token_on_every_city_without_a_train(players: int) -> None:
    state = started(players)
    trains = {p["city"] for p in state["players"]}
    for city, spot in state["map"].items():
        assert bool(spot["token"]) == (city not in trains)
        assert spot["gold"] is False  # starting face up
    assert state["bag"]  # some tokens stay in the bag
    clean(state)


def test_STS_M1_first_player_from_the_beacon_then_clockwise_in_five_phases() -> None:
    firsts = {table(4, bytes([i])).state["first"] for i in range(12)}
    assert len(firsts) > 1
    t = table(3, b"order")
    first = t.to_act()
    assert first == t.state["first"]
    state = t.state
    # Phases in order: no station or crew before travel, no buying after it.
    with pytest.raises(IllegalMoveError):
        GAME.apply(state, first, "work cash")
    t.play(["route keep 1", "buy coal x1", _near(state, first), "work cash"])
    assert t.to_act() == (first + 1) % 3
    t.play(["route keep 1", _near(t.state, t.to_act()), "work coal"])
    assert t.to_act() == (first + 2) % 3


def _near(state: dict, seat: int) -> str:
    city = state["players"][seat]["city"]
    trains = {p["city"] for p in state["players"]}
    free = [c for c in state["data"]["cities"][city]["track"] if c not in trains]
    return f"travel {free[0]}"


def test_begin_helper_keeps_invariants() -> None:
    state = begin(started(2), 0, "denver")
    assert state["players"][0]["city"] == "denver"
    clean(state)
    assert SEATS[0] == state["seats"][0]


def test_the_map_is_one_fixed_table_shared_by_every_copy_of_the_state() -> None:
    """Set-up makes the component data Fixed: copies share it, nothing changes
    it, and distances along track are worked out once per city on it, as on a plain copy
    read back from a file."""
    state = started(3)
    assert isinstance(state["data"], Fixed)
    assert copy_state(state)["data"] is state["data"]
    with pytest.raises(TypeError):
        state["data"]["cities"].pop("denver")
    plain = json.loads(json.dumps(state["data"]))
    for city in sorted(plain["cities"]):
        assert distances(state["data"], city) == distances(plain, city)
        assert distances(state["data"], city) is distances(state["data"], city)
