"""Crew actions (RDJ-A1..A10) and the rulebook's worked examples."""

from __future__ import annotations

import pytest
from rdj_helpers import act, clean, end, hire, new_game, put

from pbem.errors import IllegalMoveError, InvalidMoveError
from pbem_games.red_dog_junction import GAME
from pbem_games.red_dog_junction.constants import CREW_TYPES
from pbem_games.red_dog_junction.state import crew_count

# Junction dock 1 sits between the scrap and whiskey dice (components.toml ring).


def at_junction(players: int = 2, agents: int = 1) -> dict:
    state = new_game(players)
    state["dice"].update(scrap=3, whiskey=5, gold=1)
    state["players"][0]["at"] = "junction 1"
    hire(state, 0, "agent", agents - 1)
    return state


def test_RDJ_A1_one_action_uses_every_crew_of_the_type() -> None:
    state = new_game(2)
    hire(state, 0, "miner")
    state["players"][0]["at"] = "ruby"
    assert act(state, "mine") == ["mine 2"]  # plain `mine` uses every miner
    assert state["players"][0]["ship"]["ruby"] == 2 and state["ts"]["actions"] == 1


def test_RDJ_A1_an_action_uses_its_crew_up_to_their_number() -> None:
    """「…の回数まで使用できます(乗組員の人数が上限)」: up to, not always all of them."""
    state = new_game(2)
    hire(state, 0, "miner", 2)
    state["players"][0]["at"] = "gas"
    assert [m for m in GAME.legal_moves(state, 0) if m.startswith("mine")] == [
        "mine 1", "mine 2", "mine 3"]
    assert act(state, "mine 1") == ["mine 1"]
    assert state["players"][0]["ship"]["gas"] == 1 and state["ts"]["actions"] == 1
    assert act(state, "mine x2") == ["mine 2"]
    assert state["players"][0]["ship"]["gas"] == 3 and state["ts"]["actions"] == 2
    clean(state)


def test_RDJ_A1_a_count_above_the_crew_is_refused() -> None:
    state = new_game(2)
    state["players"][0]["at"] = "gas"
    with pytest.raises(IllegalMoveError, match="You have 1 miner: `mine 1` at most"):
        act(state, "mine 2")
    with pytest.raises(InvalidMoveError, match="at least 1"):
        act(state, "mine 0")
    assert state["players"][0]["ship"]["gas"] == 0 and state["ts"]["actions"] == 0


def test_RDJ_A2_example_three_miners_take_three_gas_in_one_action() -> None:
    state = new_game(2)
    hire(state, 0, "miner", 2)
    state["players"][0]["at"] = "gas"
    gas = state["planets"]["gas"]
    act(state, "mine 3")
    assert state["players"][0]["ship"]["gas"] == 3
    assert state["planets"]["gas"] == gas - 3 and state["ts"]["actions"] == 1
    clean(state)


def test_RDJ_A3_each_rustler_undocks_any_ship_including_ones_own() -> None:
    state = new_game(3)
    hire(state, 0, "rustler", 2)
    state["players"][1]["at"] = "gas"
    act(state, "rustle ann bob")
    assert state["players"][0]["at"] == "space" and state["players"][1]["at"] == "space"
    with pytest.raises(IllegalMoveError, match="at most 2 ships"):
        act(state, "rustle bob cy me")
    with pytest.raises(IllegalMoveError, match="bob's ship is already in space"):
        act(state, "rustle bob")
    act(state, "rustle cy")  # a home base too
    assert state["players"][2]["at"] == "space"
    state2 = new_game(2)
    with pytest.raises(IllegalMoveError, match="no rustlers"):
        act(state2, "rustle bob")


def test_RDJ_A4_outlaws_swap_equal_numbers_in_space() -> None:
    state = new_game(3)
    hire(state, 0, "outlaw")
    put(state, 0, "ship", scrap=3)
    put(state, 1, "ship", gold=3)
    state["players"][0]["at"] = "space"
    with pytest.raises(IllegalMoveError, match="bob's ship is not in space"):
        act(state, "swap bob give scrap take gold")
    state["players"][1]["at"] = "space"
    with pytest.raises(IllegalMoveError, match="same number of goods .* nothing is taken"):
        act(state, "swap bob give scrap take gold x2")
    with pytest.raises(IllegalMoveError, match="1 outlaw swap at most 2 goods"):
        act(state, "swap bob give scrap x3 take gold x3")
    act(state, "swap bob give scrap x2 take gold x2")
    assert state["players"][0]["ship"] == {**state["players"][0]["ship"], "scrap": 1, "gold": 2}
    assert state["players"][1]["ship"]["scrap"] == 2 and state["players"][1]["ship"]["gold"] == 1
    assert "swap bob give scrap take gold" in GAME.legal_moves(state, 0)
    state["players"][0]["at"] = "gas"
    with pytest.raises(IllegalMoveError, match="Swapping needs your ship in space"):
        act(state, "swap bob give scrap take gold")
    clean(state)


def test_RDJ_A4_three_outlaws_swap_up_to_six() -> None:
    state = new_game(2)
    hire(state, 0, "outlaw", 3)
    put(state, 0, "ship", scrap=6)
    put(state, 1, "ship", ruby=6)
    state["players"][0]["at"] = state["players"][1]["at"] = "space"
    act(state, "swap bob give scrap x6 take ruby x6")
    assert state["players"][0]["ship"]["ruby"] == 6


def test_RDJ_A5_each_scavenger_salvages_one_good_in_space() -> None:
    state = new_game(2)
    hire(state, 0, "scavenger")
    state["space"]["gold"] += 1
    state["bank"]["gold"] -= 1  # a jettisoned gold lies in space
    with pytest.raises(IllegalMoveError, match="Salvaging needs your ship in space"):
        act(state, "salvage scrap")
    state["players"][0]["at"] = "space"
    with pytest.raises(IllegalMoveError, match="at most 2 goods"):
        act(state, "salvage scrap x3")
    act(state, "salvage gold scrap")
    assert state["players"][0]["ship"]["gold"] == 1 and state["players"][0]["ship"]["scrap"] == 1
    with pytest.raises(IllegalMoveError, match="Space holds .*, not 1 gold"):
        act(state, "salvage gold")
    clean(state)


def test_RDJ_A6_an_agent_trades_at_the_adjacent_dice() -> None:
    state = at_junction()
    state["dice"]["whiskey"] = 4
    put(state, 0, "ship", whiskey=4)
    act(state, "trade whiskey:scrap")  # 4 whiskey -> 3 scrap (scrap comes from space)
    ship = state["players"][0]["ship"]
    assert ship["whiskey"] == 0 and ship["scrap"] == 3
    with pytest.raises(IllegalMoveError, match="between the scrap and whiskey dice"):
        act(state, "trade scrap:ruby")
    clean(state)


def test_RDJ_A7_example_three_trades_at_scrap_3_whiskey_5_gold_1() -> None:
    state = at_junction()
    put(state, 0, "ship", scrap=3, whiskey=5, gold=1)
    trades = sorted(m for m in GAME.legal_moves(state, 0) if m.startswith("trade"))
    assert trades == sorted(["trade scrap:whiskey", "trade scrap:gold", "trade whiskey:scrap",
                             "trade whiskey:gold", "trade gold:scrap", "trade gold:whiskey"])
    for move, gives, gets in [("trade scrap:whiskey", ("scrap", 3), ("whiskey", 5)),
                              ("trade whiskey:scrap", ("whiskey", 5), ("scrap", 3)),
                              ("trade scrap:gold", ("scrap", 3), ("gold", 1)),
                              ("trade gold:scrap", ("gold", 1), ("scrap", 3)),
                              ("trade whiskey:gold", ("whiskey", 5), ("gold", 1)),
                              ("trade gold:whiskey", ("gold", 1), ("whiskey", 5))]:
        trial = at_junction()
        put(trial, 0, "ship", scrap=3, whiskey=5, gold=1)
        before = dict(trial["players"][0]["ship"])
        act(trial, move)
        after = trial["players"][0]["ship"]
        assert after[gives[0]] == before[gives[0]] - gives[1], move
        assert after[gets[0]] == before[gets[0]] + gets[1], move
        clean(trial)


def test_RDJ_A8_example_two_agents_turn_six_scrap_into_two_gold() -> None:
    state = at_junction(agents=2)
    put(state, 0, "ship", scrap=6)
    act(state, "trade scrap:gold x2")
    ship = state["players"][0]["ship"]
    assert ship["scrap"] == 0 and ship["gold"] == 2 and state["ts"]["actions"] == 1
    clean(state)


def test_RDJ_A8_a_counted_trade_needs_as_many_agents() -> None:
    state = at_junction(agents=1)
    put(state, 0, "ship", scrap=6)
    with pytest.raises(IllegalMoveError, match="2 trades at once need 2 agents; you have 1"):
        act(state, "trade scrap:gold x2")


def test_RDJ_A9_example_one_agent_moves_a_die_the_other_trades() -> None:
    state = at_junction(agents=2)
    put(state, 0, "ship", scrap=2)
    act(state, "adjust scrap -1", "trade scrap:whiskey")
    ship = state["players"][0]["ship"]
    assert state["dice"]["scrap"] == 2
    assert ship["scrap"] == 0 and ship["whiskey"] == 5
    assert state["ts"]["actions"] == 1  # one agent action
    act(state, "pass", "jettison whiskey x2")
    end(state)
    clean(state)


def test_RDJ_A9_agents_move_only_adjacent_six_sided_dice_within_faces() -> None:
    state = at_junction(agents=2)
    with pytest.raises(IllegalMoveError, match="beside your dock: scrap and whiskey"):
        act(state, "adjust gold +1")
    with pytest.raises(IllegalMoveError, match="beside your dock"):
        act(state, "adjust ruby +1")
    state["dice"]["whiskey"] = 6
    with pytest.raises(IllegalMoveError, match="shows 6 and cannot go up"):
        act(state, "adjust whiskey +1")
    act(state, "adjust whiskey -1", "adjust whiskey -1")
    assert state["dice"]["whiskey"] == 4 and state["ts"]["actions"] == 1
    act(state, "adjust whiskey -1")  # a new agent action
    assert state["ts"]["actions"] == 2


def test_RDJ_A9_another_move_closes_the_agent_action() -> None:
    state = at_junction(agents=2)
    act(state, "adjust scrap +1", "pass")
    assert state["ts"]["agents_left"] == 0
    state2 = at_junction(agents=2)
    act(state2, "pass", "adjust scrap +1", "adjust scrap +1")  # second agent, same action
    with pytest.raises(IllegalMoveError, match="taken all 2 actions"):
        act(state2, "adjust scrap +1")


def test_RDJ_A10_rascal_named_at_turn_start_counts_all_turn() -> None:
    state = new_game(2)
    hire(state, 0, "rascal", 2)
    state["players"][0]["at"] = "oxygen"
    with pytest.raises(IllegalMoveError, match="First name the crew type your rascals count as"):
        act(state, "mine")
    named = GAME.legal_moves(state, 0)  # one type for both, or one for each (21 namings)
    assert len(named) == 21 and named[:3] == ["rascal cowboy", "rascal cowboy agent",
                                              "rascal cowboy miner"]
    assert "rascal miner" in named and "rascal miner outlaw" in named
    with pytest.raises(IllegalMoveError, match="not as a rascal"):
        act(state, "rascal rascal")
    act(state, "rascal miner", "mine")
    assert state["players"][0]["ship"]["oxygen"] == 3  # 1 miner + 2 rascals
    assert state["ts"]["actions"] == 1  # naming is free
    with pytest.raises(IllegalMoveError, match="are named: they count as miners"):
        act(state, "rascal cowboy")
    act(state, "mine")
    with pytest.raises(IllegalMoveError, match="holds 3 at the end"):
        GAME.end_turn(state, 0)  # the rascals are miners, not cowboys, this turn


def test_RDJ_A10_rascals_as_cowboys_count_for_capacity() -> None:
    state = new_game(2)
    hire(state, 0, "rascal", 2)
    put(state, 0, "ship", gas=5)
    act(state, "rascal cowboy", "pass", "pass")
    GAME.end_turn(state, 0)  # 3 cowboys + 2 rascals hold 5
    assert state["current"] == 1


@pytest.mark.parametrize("naming", ["", "rascal cowboy", "rascal miner outlaw"])
def test_RDJ_A10_the_view_counts_the_crew_as_each_type_is_counted(naming: str) -> None:
    """The view's crew (every type at once) says what counting one type says, rascals
    named or not, for the acting player and the others."""
    state = new_game(2)
    hire(state, 0, "rascal", 2)
    hire(state, 1, "rascal")
    if naming:
        act(state, naming)
    view = GAME.view(state, None)
    for seat in (0, 1):
        counts = {t: n for t in CREW_TYPES if (n := crew_count(state, seat, t))}
        assert view["players"][seat]["crew"] == counts
    assert view["players"][0]["crew"].get("rascal", 0) == (0 if naming else 2)


def test_RDJ_A10_rascals_cannot_be_named_after_an_action() -> None:
    state = new_game(2)
    act(state, "pass")
    hire(state, 0, "rascal")
    with pytest.raises(IllegalMoveError, match="start of the turn, before any action"):
        act(state, "rascal miner")
    state2 = new_game(2)
    with pytest.raises(IllegalMoveError, match="no rascals"):
        act(state2, "rascal miner")


def test_RDJ_A10_each_rascal_names_its_own_type() -> None:
    """The ruling: each rascal card names a crew type (two rascals may name two)."""
    state = new_game(2)
    hire(state, 0, "rascal", 2)
    state["players"][0]["at"] = "oxygen"
    assert act(state, "rascal outlaw miner") == ["rascal miner outlaw"]
    act(state, "mine")
    assert state["players"][0]["ship"]["oxygen"] == 2  # 1 miner + the rascal named miner
    view = GAME.view(state, 0)["players"][0]
    assert view["crew"] == {"cowboy": 3, "agent": 1, "miner": 2, "scavenger": 1, "outlaw": 1}
    assert view["rascals"] == {"miner": 1, "outlaw": 1}


def test_RDJ_A10_a_naming_names_one_type_for_all_or_one_each() -> None:
    state = new_game(2)
    hire(state, 0, "rascal", 3)
    with pytest.raises(IllegalMoveError, match="You have 3 rascals: name one crew type for all"):
        act(state, "rascal miner outlaw")
    assert act(state, "rascal miner miner miner") == ["rascal miner"]


def test_RDJ_A10_named_rascals_are_counted_once_in_text_and_json() -> None:
    """After `rascal miner` 7 crew cards showed as 8 (miner 2 and rascal 1)."""
    state = new_game(2)
    hire(state, 0, "rascal")
    act(state, "rascal miner")
    view = GAME.view(state, None)
    crew = view["players"][0]["crew"]
    assert crew == {"cowboy": 3, "agent": 1, "miner": 2, "scavenger": 1}
    assert sum(crew.values()) == len(state["players"][0]["crew"]) == 7
    text = GAME.render(view)
    assert "crew: cowboy 3, agent 1, miner 2 (a rascal), scavenger 1" in text
    assert "rascal 1" not in text and ", rascals as miner 1" in text
    assert "rascal\u00a01" not in GAME.render_svg(view)
