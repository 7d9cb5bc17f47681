"""Game.describe: what one entry changed, in lines for people (issue 9 item 16, issue 11
"play shows the result"). Each test plays part of a turn between a copy taken before
and the state after, as the engine hands them to ``describe``."""

from __future__ import annotations

import copy
import json

from sts_helpers import (
    begin,
    give_crew,
    give_route,
    give_tickets,
    make_order,
    market_crew,
    move_train,
    no_routes,
    place,
    play,
    resolve_all,
    set_purse,
    started,
    token_ids,
)

from pbem_games.station_to_station import GAME


def _position(city: str = "dallas", cash: int = 20, coal: int = 3,
              goods: dict[str, int] | None = None) -> dict:
    state = started(2)
    move_train(state, 1, "boston")
    begin(state, 0, city)
    no_routes(state, 0)
    set_purse(state, 0, cash=cash, coal=coal, goods=goods or {})
    return state


def _turn(state: dict, *moves: str, end: bool = True) -> list[str]:
    before = copy.deepcopy(state)
    play(state, 0, *moves)
    if end:
        GAME.end_turn(state, 0)
    return GAME.describe(before, state, 0)


def test_describe_says_goods_bought_travel_and_coal_paid_and_the_purse() -> None:
    state = _position()
    lines = _turn(state, "buy coal x1", "buy oil x2", "buy grain x2",
                  "travel new-orleans via houston", "work cash")
    text = "\n".join(lines)
    assert "ann bought 1 coal for $3" in lines
    assert "ann bought 2 oil for $5" in lines  # Dallas sells oil
    assert "ann imported 2 grain for $3 and 1 coal" in lines
    assert "ann travelled from Dallas to New Orleans via Houston (2 spaces, 1 coal)" in lines
    assert "ann: cash $20 -> $14, coal 3 -> 2, goods none -> grain 2, oil 2" in lines
    assert "Waiting for the next player: token draw onto Dallas" in lines
    assert "a token will be drawn onto Dallas (with the next player)" in text


def test_describe_names_the_token_boxed_at_a_stop_and_the_work_taken() -> None:
    state = _position(coal=0)
    order = make_order(state, token_ids(state, kind="order", season="summer")[0],
                       ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
    place(state, "houston", order)
    lines = _turn(state, "travel houston", "work both")
    assert "ann took the token at Houston: order oil+steel -> $8+1 coal or 5 pts" in lines
    assert "ann boxed the order oil+steel -> $8+1 coal or 5 pts at Houston and worked for $2+1 coal" \
        in lines
    assert state["boxed"] == [{"token": order, "gold": False, "city": "houston", "seat": 0}]


def test_describe_says_the_order_fulfilled_its_payment_and_reward() -> None:
    state = _position(coal=0, goods={"oil": 1, "steel": 1})
    order = make_order(state, token_ids(state, kind="order", season="summer")[0],
                       ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
    place(state, "houston", order)
    lines = _turn(state, "travel houston", "order points")
    assert ("ann fulfilled the order oil+steel -> $8+1 coal or 5 pts at Houston, paying oil steel, "
            "for 5 pts; the ticket goes under south") in lines
    assert "ann: points 0 -> 5, goods oil 1, steel 1 -> none" in lines


def test_describe_says_routes_completed_and_taken() -> None:
    state = _position(city="salt-lake-city")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    shown = state["routes"]["display"][0]
    lines = _turn(state, "travel denver", "route take display 1", "work cash")
    route = state["data"]["routes"]["seattle--denver"]
    assert any(line.startswith(f"ann completed route Seattle - Denver: {route['points']} pts")
               and "discarded face up" in line for line in lines)
    assert any(line.startswith("ann took route ") and line.endswith("from the display")
               for line in lines)
    assert state["players"][0]["routes"][1]["card"] == shown
    assert lines[-1] == "Waiting for the next player: route display refill; token draw onto Salt Lake City"


def test_STS_C6_describe_says_which_crew_a_hire_replaced() -> None:
    """Issue 9 item 16: hiring onto a region that holds a crew replaces it; say so."""
    state = _position(city="omaha")
    give_tickets(state, 0, "west", 1)
    give_crew(state, 0, "teamster", "west")
    market_crew(state, "basic", "west", "porter")
    lines = _turn(state, "travel denver", "work cash", "hire basic west", "pay west")
    assert any(line.startswith("ann hired the basic west crew porter (Before travelling, buy a single good")
               and line.endswith("paying a west order ticket") for line in lines)
    assert "the porter replaces ann's teamster under west; the teamster is discarded" in lines
    # Keeping the old crew says the new one is discarded instead.
    keep = _position(city="omaha")
    give_tickets(keep, 0, "west", 1)
    give_crew(keep, 0, "teamster", "west")
    market_crew(keep, "basic", "west", "porter")
    lines = _turn(keep, "travel denver", "work cash", "hire basic west keep old", "pay west")
    assert "ann kept the teamster under west: the new porter is discarded (one crew a space)" in lines
    # Paying with the crew itself (crew example B) names it among the tickets.
    spent = _position(city="omaha")
    give_tickets(spent, 0, "south", 1)
    give_crew(spent, 0, "fireman", "north")
    market_crew(spent, "skilled", "north", "engineer")
    lines = _turn(spent, "travel denver", "work cash", "hire skilled north", "pay south",
                  "pay north-crew")
    assert any(line.endswith("paying a south order ticket, the fireman (north crew)")
               for line in lines)
    assert not any("replaces" in line for line in lines)


def test_describe_says_what_the_chance_at_the_head_of_an_entry_drew() -> None:
    state = _position()
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    play(state, 0, "travel houston", "work cash")
    GAME.end_turn(state, 0)
    before = copy.deepcopy(state)
    resolve_all(state)  # what the next player's entry resolves first
    lines = GAME.describe(before, state, 1)
    drawn = state["map"]["dallas"]
    token = state["data"]["tokens"][drawn["token"]]
    assert len(lines) == 1 and lines[0].startswith(f"drawn onto Dallas: {token['kind']} ")


def test_describe_says_when_a_season_ends() -> None:
    """STS-CL2: the cleanup asks for the season's last token; the entry whose beacon draws
    it says the season is over."""
    state = _position()
    state["bag_left"] = 1
    _turn(state, "travel houston", "work cash")
    before = copy.deepcopy(state)
    resolve_all(state)
    lines = GAME.describe(before, state, 1)
    assert any(line.startswith("the last summer token is drawn: summer ends; supplies and railcars "
                               "on the map turn to their gold face; autumn begins with")
               for line in lines)


def test_describe_says_a_crew_ability_and_its_effect() -> None:
    state = _position(cash=5, coal=0)
    give_crew(state, 0, "coal-broker", "north")
    lines = _turn(state, "crew coal-broker", end=False)
    assert lines == ["ann used the coal-broker: bought 1 coal for $1", "ann: cash $5 -> $4, coal 0 -> 1"]


def test_describe_holds_public_facts_only_and_is_plain_json_text() -> None:
    state = _position()
    before = copy.deepcopy(state)
    play(state, 0, "travel houston", "work cash")
    GAME.end_turn(state, 0)
    resolve_all(state)
    lines = GAME.describe(before, state, 0)
    json.dumps(lines)
    assert all(isinstance(line, str) and line and line.isprintable() for line in lines)
    assert GAME.describe(state, state, 0) == []


def test_describe_says_a_new_route_card_is_marked_where_the_train_stands() -> None:
    state = _position(city="salt-lake-city")
    give_route(state, 0, 2, "seattle--denver", marker="seattle")
    state["routes"]["deck"].append(state["routes"]["display"][0])
    state["routes"]["display"][0] = "denver--dallas"
    state["routes"]["deck"].remove("denver--dallas")
    lines = _turn(state, "travel denver", "route take display 1", end=False)
    assert "ann's train is in Denver: route Denver - Dallas gets a marker there" in lines


def test_describe_says_coal_lost_over_the_limit() -> None:
    state = _position(coal=9)
    lines = _turn(state, "travel houston", "work coal")
    assert "ann: 2 coal lost over the limit of 9" in lines


def test_describe_says_the_caboose_and_its_tickets() -> None:
    state = _position(city="omaha")
    for region in ("north", "south", "east", "west"):
        give_tickets(state, 0, region, 1)
    lines = _turn(state, "travel denver", "work cash", "caboose", "pay north", "pay south",
                  "pay east", "pay west")
    assert ("ann took the 10-point caboose, paying a north order ticket, a south order ticket, "
            "an east order ticket, a west order ticket") in lines


def test_component_words_are_the_same_from_the_fixed_map_and_from_plain_data() -> None:
    """The words for tokens, route cards and rewards are worked out once per Fixed table
    of the set-up (pbem.game.derived); asked twice, or of the same data read back from
    JSON (plain tables, worked out afresh), they are the same words."""
    from pbem_games.station_to_station.words import describe_route, describe_token, reward_text

    fixed_data = GAME.setup(["ann", "bob"], {}, GAME.stock_components())["data"]
    plain = json.loads(json.dumps(fixed_data))
    for data in (fixed_data, fixed_data, plain):
        words = [describe_token(data, tid, gold) for tid in plain["tokens"] for gold in (False, True)]
        words += [describe_route(data, rid) for rid in plain["routes"]]
        words += [reward_text(o) for t in data["tokens"].values() for o in t.get("rewards", [])]
        assert words == (
            [describe_token(plain, tid, gold) for tid in plain["tokens"] for gold in (False, True)]
            + [describe_route(plain, rid) for rid in plain["routes"]]
            + [reward_text(o) for t in plain["tokens"].values() for o in t.get("rewards", [])])
    assert describe_token(fixed_data, "su-s21", True) == "supply 3 coal (gold)"
    assert describe_token(fixed_data, "su-s21", False) == "supply 2 coal"
