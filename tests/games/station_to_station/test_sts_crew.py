"""The crew phase (STS-C1..C13): tickets, hiring, the caboose, using crews."""

from __future__ import annotations

import pytest
from sts_helpers import (
    begin,
    clean,
    give_crew,
    give_tickets,
    market_crew,
    move_train,
    play,
    resolve_all,
    started,
)

from pbem.game import IllegalMoveError
from pbem_games.station_to_station import GAME


def _crew_phase(tickets: dict[str, int] | None = None, crews: dict[str, str] | None = None,
                wilds: int = 0, travel: bool = True) -> dict:
    """Seat 0 has travelled from Omaha to Denver and worked: the crew phase is next."""
    state = started(2)
    move_train(state, 1, "boston")
    begin(state, 0, "omaha")
    for region, count in (tickets or {}).items():
        give_tickets(state, 0, region, count)
    for region, crew in (crews or {}).items():
        give_crew(state, 0, crew, region)
    for rid in state["routes"]["box"][:wilds]:
        state["routes"]["box"].remove(rid)
        state["players"][0]["wilds"].append(rid)
    market_crew(state, "basic", "west", "porter")
    market_crew(state, "skilled", "north", "engineer")
    if travel:
        play(state, 0, "travel denver", "work cash")
    return state


def _hires(state: dict) -> list[str]:
    return [m for m in GAME.legal_moves(state, 0) if m.startswith(("hire", "caboose", "pay"))]


def test_STS_C7_crew_example_a_one_west_ticket_for_the_west_basic_crew() -> None:
    """Sam discards an order ticket from West to hire the West basic crew."""
    state = _crew_phase(tickets={"west": 1})
    play(state, 0, "hire basic west")
    assert state["turn"]["phase"] == "paying" and _hires(state) == ["pay west"]
    play(state, 0, "pay west")
    sam = state["players"][0]
    assert sam["crews"]["west"] == "porter" and not sam["tickets"]["west"]
    assert state["crews"]["basic"]["market"]["west"] == ""
    clean(state)


def test_STS_C8_crew_example_b_south_ticket_plus_the_north_crew_for_a_north_skilled() -> None:
    """Sam pays a South order ticket and the crew already under North for the North skilled crew."""
    state = _crew_phase(tickets={"south": 1}, crews={"north": "fireman"})
    assert "hire skilled north" in _hires(state)
    play(state, 0, "hire skilled north")
    assert _hires(state) == ["pay north-crew", "pay south"]
    play(state, 0, "pay south")
    assert _hires(state) == ["pay north-crew"]  # 1 North ticket is still owed
    play(state, 0, "pay north crew")
    sam = state["players"][0]
    assert sam["crews"]["north"] == "engineer"
    assert not sam["tickets"]["south"]
    assert "fireman" in state["crews"]["basic"]["discards"]
    clean(state)


def test_STS_C1_optional_once_and_only_in_the_crew_phase() -> None:
    early = _crew_phase(tickets={"west": 3}, travel=False)
    with pytest.raises(IllegalMoveError, match="after the station action"):
        GAME.apply(early, 0, "hire basic west")
    state = _crew_phase(tickets={"west": 3})
    assert GAME.can_end_turn(state, 0)  # optional
    play(state, 0, "hire basic west")
    with pytest.raises(IllegalMoveError, match="finish paying"):
        GAME.end_turn(state, 0)
    with pytest.raises(IllegalMoveError, match="finish paying"):
        GAME.apply(state, 0, "caboose")
    play(state, 0, "pay west")
    with pytest.raises(IllegalMoveError, match="only one crew hire or caboose"):
        GAME.apply(state, 0, "hire skilled north")
    assert _hires(state) == []


def test_STS_C2_tickets_are_orders_crews_and_wild_start_routes() -> None:
    wild = _crew_phase(wilds=1)
    play(wild, 0, "hire basic west", "pay wild")  # a wild stands for any region
    assert wild["players"][0]["crews"]["west"] == "porter"
    crew = _crew_phase(crews={"west": "clerk"})
    play(crew, 0, "hire basic west")
    assert _hires(crew) == ["pay west-crew"]  # the crew under West is a West ticket
    none = _crew_phase(tickets={"south": 1})
    with pytest.raises(IllegalMoveError, match="1 west ticket or any 2 tickets, and you lack them"):
        GAME.apply(none, 0, "hire basic west")
    two = _crew_phase(tickets={"south": 1, "east": 1})
    play(two, 0, "hire basic west")
    with pytest.raises(IllegalMoveError, match="you have no west ticket"):
        GAME.apply(two, 0, "pay west")


def test_STS_C3_the_slot_sets_the_region_not_the_train() -> None:
    east = _crew_phase(tickets={"east": 1})
    assert east["data"]["cities"][east["players"][0]["city"]]["region"] == "west"
    market_crew(east, "basic", "east", "clerk")
    play(east, 0, "hire basic east", "pay east")  # a West train hires in the East
    assert east["players"][0]["crews"]["east"] == "clerk"
    assert east["players"][0]["crews"]["west"] == ""


def test_STS_C4_basic_costs_one_matching_or_any_two() -> None:
    one = _crew_phase(tickets={"north": 1, "south": 1, "west": 1})
    play(one, 0, "hire basic west", "pay west")  # 1 matching ticket: hired at once
    assert one["players"][0]["crews"]["west"] == "porter"
    assert len(one["players"][0]["tickets"]["north"]) == 1
    two = _crew_phase(tickets={"north": 1, "south": 1, "west": 1})
    play(two, 0, "hire basic west", "pay north")
    assert two["turn"]["phase"] == "paying"  # 1 other ticket is not enough
    play(two, 0, "pay south")
    assert two["players"][0]["crews"]["west"] == "porter"
    with pytest.raises(IllegalMoveError, match="1 west ticket or any 2"):
        GAME.apply(_crew_phase(tickets={"north": 1}), 0, "hire basic west")


def test_STS_C5_skilled_costs_one_matching_plus_one_or_any_three() -> None:
    matched = _crew_phase(tickets={"north": 1, "south": 2, "east": 1})
    play(matched, 0, "hire skilled north", "pay north")
    assert matched["turn"]["phase"] == "paying"
    play(matched, 0, "pay east")
    assert matched["players"][0]["crews"]["north"] == "engineer"
    any3 = _crew_phase(tickets={"north": 1, "south": 2, "east": 1})
    play(any3, 0, "hire skilled north", "pay south", "pay south")
    assert any3["turn"]["phase"] == "paying"  # two other tickets are not enough
    play(any3, 0, "pay east")
    assert any3["players"][0]["crews"]["north"] == "engineer"
    short = _crew_phase(tickets={"south": 1, "east": 1})
    with pytest.raises(IllegalMoveError, match="1 north ticket plus 1 any, or any 3"):
        GAME.apply(short, 0, "hire skilled north")


def test_STS_C6_one_crew_per_space_keep_one_discard_the_other() -> None:
    new = _crew_phase(tickets={"west": 1}, crews={"west": "clerk"})
    assert "hire basic west keep old" in _hires(new)
    play(new, 0, "hire basic west", "pay west")
    assert new["players"][0]["crews"]["west"] == "porter"
    assert "clerk" in new["crews"]["basic"]["discards"]
    old = _crew_phase(tickets={"west": 1}, crews={"west": "clerk"})
    play(old, 0, "hire basic west keep old")
    assert _hires(old) == ["pay west"]  # the crew being kept cannot pay
    with pytest.raises(IllegalMoveError, match="keeping the crew under west"):
        GAME.apply(old, 0, "pay west-crew")
    play(old, 0, "pay west")
    assert old["players"][0]["crews"]["west"] == "clerk"
    assert "porter" in old["crews"]["basic"]["discards"]
    clean(old)


def test_STS_C9_the_emptied_slot_is_refilled_at_cleanup_from_its_deck() -> None:
    state = _crew_phase(tickets={"west": 1})
    play(state, 0, "hire basic west", "pay west")
    GAME.end_turn(state, 0)
    assert {"kind": "crew", "deck": "basic", "region": "west"} in state["pending"]
    basic_deck = set(state["crews"]["basic"]["deck"])
    resolve_all(state)
    assert state["crews"]["basic"]["market"]["west"] in basic_deck
    clean(state)


def test_STS_C9_an_empty_crew_deck_is_rebuilt_from_its_discards() -> None:
    state = _crew_phase(tickets={"west": 1})
    stock = state["crews"]["basic"]
    stock["discards"], stock["deck"] = sorted(stock["deck"]), []
    play(state, 0, "hire basic west", "pay west")
    GAME.end_turn(state, 0)
    resolve_all(state)
    assert stock["market"]["west"]
    assert not stock["discards"] and stock["deck"]
    clean(state)


def test_STS_C10_caboose_for_one_ticket_of_each_region() -> None:
    state = _crew_phase(tickets={"north": 1, "south": 1, "east": 1}, crews={"west": "clerk"})
    assert _hires(state)[-1:] == ["caboose"]
    play(state, 0, "caboose", "pay north")
    assert _hires(state) == ["pay south", "pay east", "pay west-crew"]  # not north twice
    play(state, 0, "pay south", "pay east", "pay west-crew")
    player = state["players"][0]
    assert player["caboose"] == 10 and player["points"] == 10
    assert state["cabooses"] == [8, 6, 4]
    assert not any(player["tickets"].values()) and not player["crews"]["west"]
    twice = _crew_phase(tickets={"north": 2, "south": 1, "east": 1, "west": 1})
    play(twice, 0, "caboose", "pay north")
    assert "pay north" not in GAME.legal_moves(twice, 0)
    with pytest.raises(IllegalMoveError, match="leaves no way to complete"):
        GAME.apply(twice, 0, "pay north")  # two North tickets are not two regions
    three = _crew_phase(tickets={"north": 1, "south": 1, "east": 1})
    with pytest.raises(IllegalMoveError, match="each of 4 different regions"):
        GAME.apply(three, 0, "caboose")
    wild = _crew_phase(tickets={"north": 1, "south": 1, "east": 1}, wilds=1)
    play(wild, 0, "caboose", "pay wild", "pay north", "pay south", "pay east")
    assert wild["players"][0]["caboose"] == 10
    clean(wild)


def test_STS_C11_one_caboose_per_train() -> None:
    state = _crew_phase(tickets={"north": 1, "south": 1, "east": 1, "west": 1})
    state["players"][0]["caboose"] = state["cabooses"].pop(0)
    with pytest.raises(IllegalMoveError, match="only one caboose"):
        GAME.apply(state, 0, "caboose")
    assert not [m for m in _hires(state) if m.startswith("caboose")]


def test_STS_C12_a_crew_once_per_turn_anywhere_ready_again_after_cleanup() -> None:
    state = _crew_phase(crews={"east": "fireman"}, travel=False)  # West train, East crew space
    player = state["players"][0]
    player["coal"] = 0
    player["ledger"]["coal_in"] -= 2
    state["routes"]["box"].append(player["routes"][0]["card"])  # no route check in the way
    player["routes"][0] = {"card": "", "marker": "", "pending": False}
    play(state, 0, "crew fireman")
    with pytest.raises(IllegalMoveError, match="already been used this turn"):
        GAME.apply(state, 0, "crew fireman")
    play(state, 0, "travel salt-lake-city", "work cash")  # 2 spaces for no coal
    GAME.end_turn(state, 0)
    resolve_all(state)
    begin(state, 0)
    assert "crew fireman" in GAME.legal_moves(state, 0)


def test_STS_C13_a_crew_does_nothing_in_the_turn_it_is_hired() -> None:
    state = _crew_phase(tickets={"west": 1})
    market_crew(state, "basic", "west", "teamster")
    state["players"][0]["goods"]["oil"] = 1
    state["players"][0]["ledger"]["goods_in"] += 1
    play(state, 0, "hire basic west", "pay west")
    with pytest.raises(IllegalMoveError, match="hired this turn and works from your next turn"):
        GAME.apply(state, 0, "crew teamster oil")
    assert "crew teamster oil" not in GAME.legal_moves(state, 0)


def test_legal_moves_stay_short_however_many_tickets_are_held() -> None:
    """Paying ticket by ticket keeps every list of moves short (the one-move form would
    list hundreds of payments for a player rich in tickets)."""
    state = _crew_phase(tickets={"north": 3, "south": 3, "east": 3, "west": 3},
                        crews={"north": "fireman", "south": "clerk", "east": "teamster",
                               "west": "shunter"}, wilds=2)
    heads = GAME.legal_moves(state, 0)
    assert len(heads) <= 2 * 2 * 4 + 1 + 4
    play(state, 0, "hire skilled north")
    assert GAME.legal_moves(state, 0) == [
        "pay north", "pay north-crew", "pay south", "pay south-crew", "pay east", "pay east-crew",
        "pay west", "pay west-crew", "pay wild"]
