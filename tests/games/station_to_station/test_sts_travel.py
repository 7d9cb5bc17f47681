"""The travel phase (STS-T1..T10) and the rulebook's travel example."""

from __future__ import annotations

import pytest
from sts_helpers import (
    begin,
    clean,
    give_crew,
    give_route,
    move_train,
    play,
    resolve_all,
    set_purse,
    started,
)

from pbem.game import IllegalMoveError
from pbem_games.station_to_station import GAME


def _position(players: int = 2, city: str = "dallas", coal: int = 2) -> dict:
    """Seat 0 to act in ``city``; the other trains parked far away in the north-east."""
    state = started(players)
    for seat, far in zip(range(1, players), ("boston", "albany", "detroit"), strict=False):
        move_train(state, seat, far)
    begin(state, 0, city)
    set_purse(state, 0, coal=coal)
    return state


def test_STS_T10_travel_example_new_orleans_through_houston_to_oklahoma_city() -> None:
    """Sam pays 1 coal through Houston to Oklahoma City, completes a route, finds Blue's
    train there and moves on to St. Louis."""
    state = started(3)
    move_train(state, 1, "oklahoma-city")  # Blue
    move_train(state, 2, "boston")
    begin(state, 0, "new-orleans")
    set_purse(state, 0, coal=1)
    give_route(state, 0, 2, "omaha--oklahoma-city", marker="omaha")
    points = state["data"]["routes"]["omaha--oklahoma-city"]["points"]
    play(state, 0, "travel oklahoma-city via houston")
    sam = state["players"][0]
    assert sam["coal"] == 0 and sam["points"] == points
    assert state["turn"]["phase"] == "route"  # route check before the occupancy check
    play(state, 0, "route take display 1")
    assert state["turn"]["phase"] == "again"
    with pytest.raises(IllegalMoveError, match="where the turn began"):
        GAME.apply(state, 0, "travel new-orleans")  # not back to the start, even now
    play(state, 0, "travel st-louis")  # the first space is free again
    assert sam["city"] == "st-louis" and sam["coal"] == 0
    assert state["turn"]["phase"] == "station"
    clean(state)


def test_STS_T1_move_then_route_check_then_occupancy() -> None:
    state = _position(city="houston")
    move_train(state, 1, "oklahoma-city")
    give_route(state, 0, 2, "omaha--oklahoma-city", marker="omaha")
    play(state, 0, "travel oklahoma-city")
    assert state["turn"]["phase"] == "route" and state["turn"]["owed"] == [1]
    assert not [m for m in GAME.legal_moves(state, 0) if m.startswith("travel")]
    play(state, 0, "route take blind")
    assert state["turn"]["phase"] == "again"


def test_STS_T2_along_track_at_least_one_space() -> None:
    state = _position(city="seattle", coal=0)
    with pytest.raises(IllegalMoveError, match="at least 1 space"):
        GAME.apply(state, 0, "travel seattle")
    with pytest.raises(IllegalMoveError, match="no track from Portland to Denver"):
        GAME.apply(state, 0, "travel denver via portland")
    assert [m for m in GAME.legal_moves(state, 0) if m.startswith("travel")] == [
        "travel portland (free)", "travel helena (free)"]
    assert not GAME.can_end_turn(state, 0)


def test_STS_T3_first_space_free_each_further_space_one_coal() -> None:
    state = _position(city="seattle", coal=1)
    with pytest.raises(IllegalMoveError, match="3 spaces away: that costs 2 coal and you have 1"):
        GAME.apply(state, 0, "travel denver")
    play(state, 0, "travel salt-lake-city")
    assert state["players"][0]["coal"] == 0
    free = _position(city="seattle", coal=0)
    play(free, 0, "travel portland")
    assert free["players"][0]["coal"] == 0
    assert free["players"][0]["ledger"]["coal_out"] == 0


def test_STS_T3_any_path_along_track_pays_one_coal_per_space_after_the_first() -> None:
    """「追加で移動したいスペースと同じ数だけ石炭キューブを捨てる」: a longer path than the
    shortest is allowed and costs its own spaces."""
    state = _position(city="seattle", coal=3)
    text = GAME.normalize(state, 0, "travel salt-lake-city via portland san-francisco")
    assert text == "travel salt-lake-city via portland san-francisco (2 coal)"
    play(state, 0, text)
    assert state["players"][0]["city"] == "salt-lake-city" and state["players"][0]["coal"] == 1
    assert state["players"][0]["ledger"]["coal_out"] == 2
    clean(state)
    # A path may pass a city twice (here the start city); only the stop counts.
    loop = _position(city="seattle", coal=2)
    play(loop, 0, "travel helena via portland seattle")
    assert loop["players"][0]["city"] == "helena" and loop["players"][0]["coal"] == 0
    # The coal held bounds the path.
    poor = _position(city="seattle", coal=1)
    with pytest.raises(IllegalMoveError, match="3 spaces: that costs 2 coal and you have 1"):
        GAME.apply(poor, 0, "travel salt-lake-city via portland san-francisco")


def test_STS_T3_moves_lists_each_destination_with_its_cheapest_cost() -> None:
    state = _position(city="seattle", coal=1)
    travel = [m for m in GAME.legal_moves(state, 0) if m.startswith("travel")]
    assert travel == ["travel portland (free)", "travel helena (free)",
                      "travel san-francisco (1 coal)", "travel salt-lake-city (1 coal)",
                      "travel minneapolis (1 coal)"]
    assert GAME.normalize(state, 0, "travel salt-lake-city") == "travel salt-lake-city (1 coal)"
    # Asking to pay more than the cheapest path says how to name a longer one.
    with pytest.raises(IllegalMoveError, match="name a longer path: travel salt-lake-city via"):
        GAME.apply(_position(city="seattle", coal=3), 0, "travel salt-lake-city (2 coal)")


def test_STS_T4_may_not_finish_where_the_turn_began() -> None:
    state = _position(city="dallas", coal=3)
    assert not [m for m in GAME.legal_moves(state, 0) if m.startswith("travel dallas")]
    # Out and back is a path of two spaces along track that is affordable (1 coal):
    # only the start-city rule refuses it.
    with pytest.raises(IllegalMoveError, match="where the turn began"):
        GAME.apply(state, 0, "travel dallas via houston")
    # Passing through the start city is allowed; finishing there is not.
    play(state, 0, "travel el-paso via houston dallas")
    assert state["players"][0]["city"] == "el-paso" and state["players"][0]["coal"] == 1


def test_STS_T4_a_repeated_movement_may_not_finish_where_the_turn_began_either() -> None:
    state = _position(players=3, city="dallas", coal=3)
    move_train(state, 1, "houston")
    play(state, 0, "travel houston")
    assert state["turn"]["phase"] == "again"
    with pytest.raises(IllegalMoveError, match="where the turn began"):
        GAME.apply(state, 0, "travel dallas")
    with pytest.raises(IllegalMoveError, match="where the turn began"):
        GAME.apply(state, 0, "travel dallas via oklahoma-city")


def test_STS_T5_only_the_stop_city_is_checked_for_the_first_marker() -> None:
    state = _position(city="salt-lake-city", coal=1)
    give_route(state, 0, 2, "seattle--denver")
    play(state, 0, "travel omaha via denver")  # passes through Denver: no marker
    assert state["players"][0]["routes"][1]["marker"] == ""
    stop = _position(city="salt-lake-city")
    give_route(stop, 0, 2, "seattle--denver")
    play(stop, 0, "travel denver")
    assert stop["players"][0]["routes"][1]["marker"] == "denver"
    clean(stop)


@pytest.mark.parametrize(("first", "then"), [("seattle", "denver"), ("denver", "seattle")])
def test_STS_T6_the_second_city_completes_in_either_order(first: str, then: str) -> None:
    start = {"denver": "salt-lake-city", "seattle": "portland"}[then]
    state = _position(city=start)
    give_route(state, 0, 2, "seattle--denver", marker=first)
    play(state, 0, f"travel {then}")
    assert state["players"][0]["score"]["routes"] == state["data"]["routes"]["seattle--denver"]["points"]


def test_STS_T7_completion_scores_rewards_discards_and_takes_from_the_display() -> None:
    state = _position(city="salt-lake-city")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    route = state["data"]["routes"]["seattle--denver"]
    shown = state["routes"]["display"][1]
    cash, coal = state["players"][0]["cash"], state["players"][0]["coal"]
    play(state, 0, "travel denver")
    player = state["players"][0]
    assert player["points"] == route["points"]
    assert player["cash"] == cash + route["reward"].get("cash", 0)
    assert player["coal"] == coal + route["reward"].get("coal", 0)
    assert player["routes"][1]["card"] == "" and "seattle--denver" in state["routes"]["discards"]
    assert GAME.legal_moves(state, 0) == ["route take display 1", "route take display 2", "route take blind"]
    play(state, 0, "route take display 2")
    assert player["routes"][1]["card"] == shown  # at once
    assert len(state["routes"]["display"]) == 1
    assert state["pending"] == [{"kind": "route-display"}]  # refilled by the next player's beacon
    resolve_all(state)
    assert len(state["routes"]["display"]) == 2
    clean(state)


def test_STS_T7_a_blind_draw_arrives_with_the_next_player() -> None:
    state = _position(city="salt-lake-city")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    play(state, 0, "travel denver", "route take blind")
    player = state["players"][0]
    assert player["routes"][1] == {"card": "", "marker": "", "pending": True}
    clean(state)
    resolve_all(state)
    assert player["routes"][1]["card"] and not player["routes"][1]["pending"]
    clean(state)


def test_STS_T8_a_completed_start_route_is_kept_as_a_wild_ticket() -> None:
    state = _position(city="portland")
    give_route(state, 0, 1, "start-seattle", marker="seattle")
    play(state, 0, "travel salt-lake-city")
    player = state["players"][0]
    assert player["wilds"] == ["start-seattle"]
    assert "start-seattle" not in state["routes"]["discards"]
    assert state["turn"]["owed"] == [0]
    play(state, 0, "route take display 1")
    assert player["routes"][0]["card"] and not state["data"]["routes"][player["routes"][0]["card"]]["start"]
    clean(state)


def test_STS_T9_an_occupied_stop_repeats_the_movement_with_a_free_first_space() -> None:
    state = _position(players=3, city="denver", coal=1)
    move_train(state, 1, "omaha")
    move_train(state, 2, "chicago")
    give_route(state, 0, 2, "minneapolis--st-louis")
    play(state, 0, "travel omaha")
    assert state["turn"]["phase"] == "again"
    play(state, 0, "travel chicago")  # taken too: again, still free
    assert state["turn"]["phase"] == "again" and state["players"][0]["coal"] == 1
    play(state, 0, "travel st-louis")
    player = state["players"][0]
    assert player["routes"][1]["marker"] == "st-louis"  # the route check runs again
    assert state["turn"]["phase"] == "station" and player["coal"] == 1
    clean(state)


def test_a_new_route_card_naming_the_train_city_gets_a_marker_at_once() -> None:
    """Ruling: a card taken from the display, or drawn blind, naming the city where the
    train stands gets a marker there at once, as at set-up."""
    shown = _position(city="salt-lake-city")
    give_route(shown, 0, 2, "seattle--denver", marker="seattle")
    shown["routes"]["deck"].append(shown["routes"]["display"][0])
    shown["routes"]["display"][0] = "denver--dallas"
    shown["routes"]["deck"].remove("denver--dallas")
    play(shown, 0, "travel denver", "route take display 1")
    entry = shown["players"][0]["routes"][1]
    assert entry == {"card": "denver--dallas", "marker": "denver", "pending": False}
    clean(shown)
    blind = _position(city="salt-lake-city")
    give_route(blind, 0, 2, "seattle--denver", marker="seattle")
    routes = blind["routes"]
    routes["deck"].remove("denver--st-louis")
    routes["discards"] = sorted(routes["discards"] + routes["deck"])
    routes["deck"] = ["denver--st-louis"]
    play(blind, 0, "travel denver", "route take blind")
    resolve_all(blind)
    entry = blind["players"][0]["routes"][1]
    assert entry == {"card": "denver--st-louis", "marker": "denver", "pending": False}
    clean(blind)


def test_an_empty_route_deck_is_rebuilt_from_the_discards_else_only_the_display_serves() -> None:
    state = _position(city="salt-lake-city")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    routes = state["routes"]
    routes["box"] += routes["deck"] + routes["discards"]  # set the rest of the deck aside
    routes["deck"], routes["discards"] = [], []
    play(state, 0, "travel denver")  # the completed card is the only discard
    assert "route take blind" in GAME.legal_moves(state, 0)
    play(state, 0, "route take blind")
    resolve_all(state)
    assert state["players"][0]["routes"][1]["card"] == "seattle--denver"
    assert routes["deck"] == [] and routes["discards"] == []
    # A completed start route is not discarded: with nothing to draw, only the display serves.
    start = _position(city="portland")
    give_route(start, 0, 1, "start-seattle", marker="seattle")
    routes = start["routes"]
    routes["box"] += routes["deck"] + routes["discards"]
    routes["deck"], routes["discards"] = [], []
    play(start, 0, "travel salt-lake-city")
    assert GAME.legal_moves(start, 0) == ["route take display 1", "route take display 2"]
    with pytest.raises(IllegalMoveError, match="take a card from the display"):
        GAME.apply(start, 0, "route take blind")
    # With the display empty as well, the slot stays empty and travel goes on.
    bare = _position(city="portland")
    give_route(bare, 0, 1, "start-seattle", marker="seattle")
    routes = bare["routes"]
    routes["box"] += routes["deck"] + routes["discards"] + routes["display"]
    routes["deck"], routes["discards"], routes["display"] = [], [], []
    play(bare, 0, "travel salt-lake-city")
    assert bare["turn"]["phase"] == "station" and bare["players"][0]["routes"][0]["card"] == ""
    clean(bare)


@pytest.mark.parametrize("move", ["work cash", "order", "supply", "hire basic west", "caboose",
                                  "crew fireman"])
def test_STS_T7_a_move_made_before_the_owed_route_card_names_the_route_take(move: str) -> None:
    """After completing a route the new card comes first: say so, with the move to type
    (issue 11: it used to say the station phase comes after travelling)."""
    state = _position(city="salt-lake-city")
    give_crew(state, 0, "fireman", "north")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    play(state, 0, "travel denver")
    with pytest.raises(IllegalMoveError) as caught:
        GAME.apply(state, 0, GAME.normalize(state, 0, move))
    assert "first take a new route card for the route you completed (route take display 1" \
        in str(caught.value)


@pytest.mark.parametrize("move", ["work cash", "hire basic west"])
def test_STS_T9_a_move_made_before_moving_on_names_the_travel_owed(move: str) -> None:
    state = _position(players=3, city="dallas")
    move_train(state, 1, "houston")
    play(state, 0, "travel houston")
    with pytest.raises(IllegalMoveError, match=r"first another train is in this city, so the "
                       r"train must move on \(travel <city>\)"):
        GAME.apply(state, 0, move)
