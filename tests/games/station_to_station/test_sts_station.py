"""The station phase (STS-ST1..ST12) and the rulebook's two station examples."""

from __future__ import annotations

import pytest
from sts_helpers import begin, clean, lift, make_order, move_train, place, play, set_purse, started, token_ids

from pbem.game import AmbiguousMoveError, IllegalMoveError, InvalidMoveError
from pbem_games.station_to_station import GAME

STOCK = GAME.stock_components()


def _arrive(city: str, via: str, token: str, gold: bool = False, goods: dict[str, int] | None = None,
            cash: int = 8, coal: int = 2) -> dict:
    """Seat 0 travels from ``via`` to ``city`` where ``token`` lies; other trains far off."""
    state = started(2)
    move_train(state, 1, "boston")
    begin(state, 0, via)
    place(state, city, token, gold)
    set_purse(state, 0, cash=cash, coal=coal, goods=goods or {})
    play(state, 0, f"travel {city}")
    assert state["turn"]["phase"] == "station"
    return state


def _supply(**face: int) -> str:
    return next(t["id"] for t in STOCK["tokens"] if t["kind"] == "supply" and t["start"] == face)


def test_STS_ST5_station_example_a_oil_and_steel_at_st_louis() -> None:
    """Jess pays 1 oil and 1 steel for $8 + 1 coal (or 5 points) and files it under South."""
    state = started(2)
    order = make_order(state, "su-o01", ["oil", "steel"], [{"cash": 8, "coal": 1}, {"points": 5}])
    move_train(state, 1, "boston")
    begin(state, 0, "memphis")
    place(state, "st-louis", order)
    set_purse(state, 0, cash=0, coal=0, goods={"oil": 1, "steel": 1})
    play(state, 0, "travel st-louis")
    assert set(GAME.legal_moves(state, 0)) >= {"order cash", "order points"}
    play(state, 0, "order cash")
    jess = state["players"][0]
    assert (jess["cash"], jess["coal"], jess["points"]) == (8, 1, 0)
    assert sum(jess["goods"].values()) == 0
    assert jess["tickets"]["south"] == [order]
    clean(state)


def test_STS_ST10_station_example_b_no_goods_so_box_and_work() -> None:
    """At Oklahoma City Jess lacks the order's goods, boxes the token and works for $2 and 1 coal."""
    state = _arrive("oklahoma-city", "kansas-city", "su-o02", cash=0, coal=0)
    assert not [m for m in GAME.legal_moves(state, 0) if m.startswith("order")]
    with pytest.raises(IllegalMoveError, match="lacks the goods"):
        GAME.apply(state, 0, "order cash")
    play(state, 0, "work both")
    jess = state["players"][0]
    assert (jess["cash"], jess["coal"]) == (2, 1)
    assert "su-o02" in state["box"]
    clean(state)


def test_STS_ST1_taking_a_token_in_a_coastal_city_adds_a_coal() -> None:
    coastal = _arrive("seattle", "portland", "su-o03", coal=0)
    assert coastal["players"][0]["coal"] == 1
    assert coastal["turn"]["token"] == "su-o03" and not coastal["map"]["seattle"]["token"]
    inland = _arrive("denver", "omaha", "su-o03", coal=0)
    assert inland["players"][0]["coal"] == 0


def test_STS_ST2_use_the_token_or_box_it_and_work() -> None:
    state = _arrive("denver", "omaha", _supply(coal=2))
    moves = GAME.legal_moves(state, 0)
    assert {"supply", "work coal", "work cash", "work both"} <= set(moves)
    assert "railcar" not in moves and not [m for m in moves if m.startswith("order")]
    with pytest.raises(IllegalMoveError, match="a supply, not a railcar"):
        GAME.apply(state, 0, "railcar")
    # The refusal names the moves that are open (and writes "an order").
    with pytest.raises(IllegalMoveError, match=r"the token here is a supply, not an order: take it "
                       r"with 'supply', or box it and work \('work coal', 'work cash' or 'work both'\)"):
        GAME.apply(state, 0, "order")
    with pytest.raises(IllegalMoveError, match="first take the station action"):
        GAME.apply(state, 0, "hire basic west")
    assert not GAME.can_end_turn(state, 0)
    play(state, 0, "work cash")
    assert GAME.can_end_turn(state, 0)
    with pytest.raises(IllegalMoveError, match="already taken"):
        GAME.apply(state, 0, "supply")


def test_STS_ST3_pay_the_goods_then_pick_one_reward() -> None:
    state = _arrive("denver", "omaha", "su-o01", goods={"oil": 2, "steel": 1})
    with pytest.raises(AmbiguousMoveError, match="order cash or order points"):
        GAME.normalize(state, 0, "order")
    play(state, 0, "order points")
    player = state["players"][0]
    assert player["goods"] == {"grain": 0, "cattle": 0, "oil": 1, "steel": 0}
    assert (player["points"], player["cash"]) == (5, 8)


def test_STS_ST4_the_ticket_goes_under_the_stop_citys_region() -> None:
    state = _arrive("denver", "omaha", "su-o01", goods={"oil": 1, "steel": 1})
    play(state, 0, "order cash")
    assert state["players"][0]["tickets"]["west"] == ["su-o01"]
    assert state["data"]["cities"]["denver"]["region"] == "west"


def test_STS_ST6_a_supply_gives_its_reward_and_is_boxed() -> None:
    state = _arrive("denver", "omaha", _supply(cash=4), cash=1)
    play(state, 0, "supply")
    player = state["players"][0]
    assert player["cash"] == 5
    assert _supply(cash=4) in state["box"]
    assert not any(player["tickets"].values())


def test_STS_ST6_free_goods_past_eight_cars_load_short_or_make_room() -> None:
    oil = _supply(oil=2)
    short = _arrive("denver", "omaha", oil, goods={"grain": 7})
    play(short, 0, "supply")
    assert short["players"][0]["goods"]["oil"] == 1
    room = _arrive("denver", "omaha", oil, goods={"grain": 7})
    play(room, 0, "discard grain", "supply")
    assert room["players"][0]["goods"] == {"grain": 6, "cattle": 0, "oil": 2, "steel": 0}
    clean(room)


def test_STS_ST7_a_railcar_is_attached_and_never_discarded() -> None:
    state = _arrive("denver", "omaha", "su-r31", goods={"oil": 1, "steel": 1})
    play(state, 0, "railcar")
    player = state["players"][0]
    assert player["railcars"] == [{"id": "su-r31", "gold": False}]
    assert sum(player["goods"].values()) == 2  # it took no freight car
    # It stays through later orders.
    player["city"] = "omaha"
    begin(state, 0)
    place(state, "denver", "su-o01")
    play(state, 0, "travel denver", "order cash")
    assert player["railcars"] == [{"id": "su-r31", "gold": False}]


def _railcars(state: dict, *tids: str, gold: bool = False) -> None:
    player = state["players"][0]
    for tid in tids:
        lift(state, tid)
        player["railcars"].append({"id": tid, "gold": gold})


def test_STS_ST8_each_railcar_takes_one_good_off_and_several_stack() -> None:
    state = started(2)
    order = make_order(state, "su-o02", ["oil", "oil", "steel"], [{"cash": 9}, {"points": 6}])
    move_train(state, 1, "boston")
    begin(state, 0, "omaha")
    oil_cars = [t for t in token_ids(state, kind="railcar", season="summer")
                if state["data"]["tokens"][t]["start"] == ["oil"]]
    _railcars(state, *oil_cars)  # two oil railcars
    place(state, "denver", order)
    set_purse(state, 0, goods={"steel": 1})
    play(state, 0, "travel denver", "order cash")
    assert state["players"][0]["goods"]["steel"] == 0 and state["players"][0]["cash"] == 17
    clean(state)


def test_STS_ST8_a_railcar_of_several_types_takes_one_good_of_your_choice() -> None:
    state = started(2)
    order = make_order(state, "su-o02", ["grain", "oil"], [{"cash": 6}, {"points": 4}])
    move_train(state, 1, "boston")
    begin(state, 0, "omaha")
    _railcars(state, "su-r35", gold=True)  # gold face: oil / grain
    assert state["data"]["tokens"]["su-r35"]["gold"] == ["oil", "grain"]
    place(state, "denver", order)
    set_purse(state, 0, goods={"grain": 1, "oil": 1})
    play(state, 0, "travel denver")
    assert [m for m in GAME.legal_moves(state, 0) if m.startswith("order")] == [
        "order cash pay grain", "order cash pay oil", "order points pay grain", "order points pay oil"]
    with pytest.raises(AmbiguousMoveError) as caught:
        GAME.normalize(state, 0, "order points")
    # The hint is the move to type, whole (issue 11: 'pay grain' alone is a ticket payment).
    assert "write 'order points pay grain' or 'order points pay oil'" in str(caught.value)
    with pytest.raises(InvalidMoveError, match="the order move: 'order pay grain'"):
        GAME.normalize(state, 0, "pay grain")
    with pytest.raises(IllegalMoveError, match="write 'order points pay grain' or 'order points pay oil'"):
        GAME.apply(state, 0, "order points pay steel")
    play(state, 0, "order points pay oil")
    assert state["players"][0]["goods"] == {"grain": 1, "cattle": 0, "oil": 0, "steel": 0}
    with pytest.raises(IllegalMoveError):
        GAME.apply(state, 0, "order points pay oil grain")


def test_STS_ST8_the_only_payment_you_can_make_is_filled_in() -> None:
    state = started(2)
    order = make_order(state, "su-o02", ["grain", "oil"], [{"cash": 6}, {"points": 4}])
    move_train(state, 1, "boston")
    begin(state, 0, "omaha")
    _railcars(state, "su-r35", gold=True)  # oil / grain
    place(state, "denver", order)
    set_purse(state, 0, goods={"grain": 1})
    play(state, 0, "travel denver")
    assert GAME.normalize(state, 0, "order points") == "order points pay grain"
    assert [m for m in GAME.legal_moves(state, 0) if m.startswith("order")] == [
        "order cash pay grain", "order points pay grain"]


def test_STS_ST9_work_gives_exactly_one_of_three_rewards() -> None:
    for kind, (cash, coal) in {"coal": (0, 2), "cash": (5, 0), "both": (2, 1)}.items():
        state = _arrive("denver", "omaha", "su-o03", cash=0, coal=0)
        play(state, 0, f"work {kind}")
        assert (state["players"][0]["cash"], state["players"][0]["coal"]) == (cash, coal)


def test_a_city_without_a_token_allows_only_work() -> None:
    state = started(2)
    move_train(state, 1, "boston")
    begin(state, 0, "omaha")
    state["box"].append(state["map"]["denver"]["token"])
    state["map"]["denver"] = {"token": "", "gold": False}
    play(state, 0, "travel denver")
    assert [m for m in GAME.legal_moves(state, 0) if not m.startswith("crew")] == [
        "work coal", "work cash", "work both"]
    with pytest.raises(IllegalMoveError, match="you may only work"):
        GAME.apply(state, 0, "supply")


def test_STS_ST11_summer_and_autumn_orders() -> None:
    for token in STOCK["tokens"]:
        if token["kind"] != "order":
            continue
        if token["season"] == "summer":
            assert 2 <= len(token["goods"]) <= 4
            cash, points = token["rewards"]
            assert "cash" in cash and set(cash) <= {"cash", "coal"} and set(points) == {"points"}
        if token["season"] == "autumn":
            assert 3 <= len(token["goods"]) <= 4
            assert len(token["rewards"]) == 1 and len(token["rewards"][0]) >= 2
            assert "points" in token["rewards"][0]


def test_STS_ST12_winter_and_countdown_orders() -> None:
    for token in STOCK["tokens"]:
        if token["season"] == "winter" and token["kind"] == "order":
            assert 5 <= len(token["goods"]) <= 6 and list(token["rewards"][0]) == ["points"]
        if token["season"] == "countdown":
            assert token["kind"] == "order" and 4 <= len(token["goods"]) <= 6
            assert len(set(token["goods"])) == 1 and list(token["rewards"][0]) == ["points"]
