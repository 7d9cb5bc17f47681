"""A turn (RDJ-T1..T13), its end (RDJ-E1, E2) and the game concepts (RDJ-C1..C4)."""

from __future__ import annotations

import copy

import pytest
from rdj_helpers import act, card_of, clean, end, give_card, hire, new_game, put, to_display

from pbem.errors import AmbiguousMoveError, IllegalMoveError
from pbem_games.red_dog_junction import GAME
from pbem_games.red_dog_junction.state import dock_dice, tile


def test_RDJ_T1_two_actions_any_order_repeats_allowed() -> None:
    state = new_game(2)
    act(state, "undock", "dock gas")
    end(state)
    act(state, "pass")  # bob
    with pytest.raises(IllegalMoveError, match="2 actions required, 1 taken"):
        GAME.end_turn(state, 1)
    act(state, "pass")
    with pytest.raises(IllegalMoveError, match="taken all 2 actions"):
        act(state, "pass")
    end(state)
    act(state, "mine", "mine")  # the same action twice
    assert state["players"][0]["ship"]["gas"] == 2
    assert state["ts"]["actions"] == 2
    clean(state)


def test_RDJ_T2_each_move_in_or_out_of_a_dock_is_one_action() -> None:
    state = new_game(2)
    with pytest.raises(IllegalMoveError, match="docked at home base: `undock` first"):
        act(state, "dock ruby")
    act(state, "undock")
    assert state["players"][0]["at"] == "space" and state["ts"]["actions"] == 1
    act(state, "dock ruby")
    assert state["players"][0]["at"] == "ruby" and state["ts"]["actions"] == 2


def test_RDJ_T3_taxi_between_junction_docks_in_one_action() -> None:
    state = new_game(2)
    state["players"][0]["at"] = "junction 1"
    state["players"][1]["at"] = "junction 4"
    act(state, "taxi 3")
    assert state["players"][0]["at"] == "junction 3" and state["ts"]["actions"] == 1
    with pytest.raises(IllegalMoveError, match="Junction dock 4's dock is taken by bob"):
        act(state, "taxi 4")
    legal = GAME.legal_moves(state, 0)
    assert [m for m in legal if m.startswith("taxi")] == ["taxi 1", "taxi 2", "taxi 5", "taxi 6"]
    state["players"][0]["at"] = "gas"
    with pytest.raises(IllegalMoveError, match="Taxiing needs your ship docked at the Junction"):
        act(state, "taxi 2")


def test_RDJ_T4_end_anywhere_never_at_anothers_home() -> None:
    state = new_game(2)
    act(state, "undock", "pass")
    end(state)  # ann's turn ends in space
    assert state["players"][0]["at"] == "space" and state["current"] == 1
    act(state, "undock")
    with pytest.raises(IllegalMoveError, match="ann's home base takes only ann's ship"):
        act(state, "dock home ann")
    assert "dock home" in GAME.legal_moves(state, 1)
    assert not any("ann" in m for m in GAME.legal_moves(state, 1) if m.startswith("dock"))
    act(state, "dock home bob")  # one's own home, named
    assert state["players"][1]["at"] == "home"


def test_RDJ_T5_one_ship_per_dock_six_at_the_junction() -> None:
    state = new_game(3)
    state["players"][0]["at"] = "space"
    state["players"][1]["at"] = "gas"
    with pytest.raises(IllegalMoveError, match="the gas planet's dock is taken by bob"):
        act(state, "dock gas")
    state["players"][2]["at"] = "shop"
    with pytest.raises(IllegalMoveError, match="the trinket shop's dock is taken by cy"):
        act(state, "dock shop")
    docks = [m for m in GAME.legal_moves(state, 0) if m.startswith("dock junction")]
    assert docks == [f"dock junction {n}" for n in range(1, 7)]
    state["players"][2]["at"] = "junction 2"
    docks = [m for m in GAME.legal_moves(state, 0) if m.startswith("dock junction")]
    assert "dock junction 2" not in docks and len(docks) == 5
    assert "dock gas" not in GAME.legal_moves(state, 0)


def test_RDJ_T6_loading_and_unloading_at_home_in_one_action() -> None:
    state = new_game(2)
    put(state, 0, "ship", scrap=2, gold=1)
    put(state, 0, "storage", ruby=3)
    assert act(state, "unload scrap x2 load ruby x2") == ["unload scrap x2 load ruby x2"]
    player = state["players"][0]
    assert player["ship"]["ruby"] == 2 and player["ship"]["scrap"] == 0
    assert player["storage"]["scrap"] == 2 and player["storage"]["ruby"] == 1
    assert state["ts"]["actions"] == 1
    act(state, "unload all")
    assert sum(player["ship"].values()) == 0 and player["storage"]["gold"] == 2
    end(state)
    state["current"] = 0
    act(state, "undock")
    with pytest.raises(IllegalMoveError, match="docked at your home base"):
        act(state, "load ruby")
    clean(state)


def test_RDJ_T7_storage_is_safe_from_other_players() -> None:
    state = new_game(2)
    hire(state, 0, "outlaw")
    hire(state, 0, "rustler")
    put(state, 0, "ship", scrap=2)
    put(state, 1, "storage", gold=5)
    state["players"][0]["at"] = "space"
    state["players"][1]["at"] = "space"
    with pytest.raises(IllegalMoveError, match="bob's ship holds nothing"):
        act(state, "swap bob give scrap x2 take gold x2")
    state["players"][1]["at"] = "home"
    before = dict(state["players"][1]["storage"])
    act(state, "rustle bob")
    assert state["players"][1]["storage"] == before  # the ship moved; storage did not


def test_RDJ_T8_a_boost_is_played_as_its_own_action() -> None:
    state = new_game(2)
    give_card(state, 0, "nudge-1")
    state["dice"]["gold"] = 2
    act(state, "play nudge-1 gold +1")
    assert state["dice"]["gold"] == 3 and state["ts"]["actions"] == 1
    assert "nudge-1" in state["players"][0]["played"]
    assert "nudge-1" not in state["players"][0]["boosts"]


def test_RDJ_T9_super_deal_from_either_stack() -> None:
    state = new_game(2)
    player = state["players"][0]
    player["at"] = "shop"
    top8 = state["stacks"]["8"][0]
    put(state, 0, "ship", **tile(state, top8)["cost"])
    bank = state["bank"]["gold"]
    act(state, "deal 8")
    assert player["deals"] == [top8] and player["ship"]["gold"] == 8
    assert state["bank"]["gold"] == bank - 8 and top8 not in state["stacks"]["8"]
    assert sum(player["ship"].values()) == 8  # the tile's goods went back
    top6 = state["stacks"]["6"][0]
    with pytest.raises(IllegalMoveError, match=f"top 6-gold tile \\({top6}\\) asks"):
        act(state, "deal 6")
    put(state, 0, "ship", **tile(state, top6)["cost"])
    act(state, "deal 6")
    assert player["deals"] == [top8, top6] and player["ship"]["gold"] == 14
    clean(state)


def test_RDJ_T9_a_super_deals_goods_go_back_to_their_planets() -> None:
    """「ルビー、酸素、ガスはそれぞれの惑星に戻されます」: each paid good returns to its own
    supply (planet goods to their planet, scrap to space, whiskey to the bank)."""
    state = new_game(2)
    player = state["players"][0]
    player["at"] = "shop"
    for stack in ("8", "6"):
        cost = tile(state, state["stacks"][stack][0])["cost"]
        put(state, 0, "ship", **cost)
        planets, space = dict(state["planets"]), state["space"]["scrap"]
        whiskey = state["bank"]["whiskey"]
        act(state, f"deal {stack}")
        for good in ("gas", "ice", "ruby", "oxygen"):
            assert state["planets"][good] == planets[good] + cost.get(good, 0), good
        assert state["space"]["scrap"] == space + cost.get("scrap", 0)
        assert state["bank"]["whiskey"] == whiskey + cost.get("whiskey", 0)
        assert all(player["ship"][g] == 0 for g in cost)
    clean(state)


def test_RDJ_T9_deal_needs_the_shop_and_takes_what_the_bank_has() -> None:
    state = new_game(2)
    player = state["players"][0]
    top = state["stacks"]["8"][0]
    put(state, 0, "ship", **tile(state, top)["cost"])
    with pytest.raises(IllegalMoveError, match="docked at the trinket shop"):
        act(state, "deal 8")
    player["at"] = "shop"
    put(state, 1, "storage", gold=state["bank"]["gold"] - 3)
    act(state, "deal 8")
    assert player["ship"]["gold"] == 3 and state["bank"]["gold"] == 0
    clean(state)


def test_RDJ_T10_buy_from_anywhere_display_refilled_at_turn_end() -> None:
    state = new_game(2)
    state["players"][0]["at"] = "space"
    outlaw = card_of(state, "outlaw")
    to_display(state, outlaw)
    put(state, 0, "storage", ruby=2)
    act(state, f"buy {outlaw} pay ruby")
    assert outlaw in state["players"][0]["crew"] and len(state["display"]) == 5
    act(state, "pass")
    GAME.end_turn(state, 0)
    assert state["pending"] == [{"kind": "refill", "count": 1}]
    assert len(state["display"]) == 5  # the refill waits for the next player's beacon
    end_state_deck = len(state["deck"])
    from rdj_helpers import resolve_all

    resolve_all(state)
    assert len(state["display"]) == 6 and len(state["deck"]) == end_state_deck - 1


def test_RDJ_T11_costs_commanders_both_goods_boosts_gold_alternatives_one() -> None:
    state = new_game(2)
    to_display(state, "mayor")
    put(state, 0, "storage", ruby=4, oxygen=3)
    with pytest.raises(IllegalMoveError, match="mayor costs 4 ruby and 4 oxygen from your storage"):
        act(state, "buy mayor")
    put(state, 0, "storage", oxygen=1)
    act(state, "buy mayor")
    assert state["players"][0]["storage"]["ruby"] == 0
    assert state["players"][0]["storage"]["oxygen"] == 0
    to_display(state, "nudge-2")
    gold = state["players"][0]["storage"]["gold"]
    act(state, "buy nudge-2")
    assert state["players"][0]["storage"]["gold"] == gold - 1
    end(state)
    outlaw = card_of(state, "outlaw")
    to_display(state, outlaw)
    put(state, 1, "storage", ruby=2, gold=3)
    with pytest.raises(AmbiguousMoveError,
                       match=f"`buy {outlaw} pay ruby` or `buy {outlaw} pay gold`"):
        act(state, f"buy {outlaw}")
    with pytest.raises(IllegalMoveError, match="cannot be paid with whiskey"):
        act(state, f"buy {outlaw} pay whiskey")
    act(state, f"buy {outlaw} pay gold")
    storage = state["players"][1]["storage"]
    assert storage["ruby"] == 2 and storage["gold"] == 1 + 0  # bob started with 1 gold
    clean(state)


def test_RDJ_T11_a_single_affordable_alternative_is_inferred() -> None:
    state = new_game(2)
    outlaw = card_of(state, "outlaw")
    to_display(state, outlaw)
    put(state, 0, "storage", ruby=2)
    assert act(state, f"buy {outlaw}") == [f"buy {outlaw} pay ruby"]


def test_RDJ_T12_crew_joins_at_once_boost_waits() -> None:
    state = new_game(2)
    state["players"][0]["at"] = "gas"
    miner = card_of(state, "miner")
    to_display(state, miner)
    put(state, 0, "storage", ice=2)
    act(state, f"buy {miner} pay ice")
    act(state, "mine")  # both miners work in the same turn
    assert state["players"][0]["ship"]["gas"] == 2
    end(state)
    to_display(state, "cargo-net")
    act(state, "buy cargo-net")
    assert state["players"][1]["boosts"] == ["cargo-net"]
    act(state, "play cargo-net")  # a later action
    assert state["players"][1]["played"] == ["cargo-net"]


def test_RDJ_T13_pass_uses_an_action_and_does_nothing() -> None:
    """Nothing on the table changes; only the action count and the entry's record do."""
    state = new_game(2)
    record = ("ts", "journal")
    snapshot = copy.deepcopy({k: v for k, v in state.items() if k not in record})
    act(state, "pass")
    assert state["ts"]["actions"] == 1
    assert {k: v for k, v in state.items() if k not in record} == snapshot
    assert state["journal"]["lines"] == ["ann passed (an action doing nothing)."]


def test_RDJ_E1_played_boosts_are_discarded_at_turn_end() -> None:
    state = new_game(2)
    give_card(state, 0, "nudge-1")
    act(state, "play nudge-1 scrap +1" if state["dice"]["scrap"] < 6 else "play nudge-1 scrap -1")
    assert state["players"][0]["played"] == ["nudge-1"] and "nudge-1" not in state["discard"]
    act(state, "pass")
    end(state)
    assert state["players"][0]["played"] == [] and "nudge-1" in state["discard"]
    clean(state)


def test_RDJ_E2_goods_over_capacity_are_jettisoned_into_space() -> None:
    state = new_game(2)
    put(state, 0, "ship", gas=4, scrap=1)
    act(state, "undock")
    with pytest.raises(IllegalMoveError, match="Jettison comes at the end of the turn"):
        act(state, "jettison scrap")
    act(state, "pass")
    with pytest.raises(IllegalMoveError, match="carries 5 goods but holds 3 .* jettison 2"):
        GAME.end_turn(state, 0)
    assert GAME.legal_moves(state, 0) == ["jettison scrap gas", "jettison gas x2"]
    with pytest.raises(IllegalMoveError, match="only down to capacity: 2 goods more at most"):
        act(state, "jettison gas x3")
    space = state["space"]["scrap"]
    act(state, "jettison scrap", "jettison gas")
    assert state["space"]["scrap"] == space + 1 and state["space"]["gas"] == 1
    with pytest.raises(IllegalMoveError, match="not over its capacity"):
        act(state, "jettison gas")
    end(state)
    clean(state)


def test_RDJ_C1_capacity_is_cowboys_and_may_be_exceeded_during_a_turn() -> None:
    state = new_game(2)
    hire(state, 0, "miner", 3)  # 4 miners
    state["players"][0]["at"] = "ice"
    act(state, "mine")
    assert state["players"][0]["ship"]["ice"] == 4  # more than the 3 cowboys hold
    hire(state, 0, "cowboy")
    act(state, "pass")
    GAME.end_turn(state, 0)  # 4 cowboys hold 4
    assert state["current"] == 1


def test_RDJ_C2_all_goods_trade_at_the_junction_planet_goods_are_mined() -> None:
    state = new_game(2)
    tradable = {g for n in range(1, 7) for g in dock_dice(state, f"junction {n}")} | {"gold"}
    assert tradable == {"gold", "whiskey", "scrap", "gas", "ice", "ruby", "oxygen"}
    for planet in ("gas", "ice", "ruby", "oxygen"):
        state = new_game(2)
        state["players"][0]["at"] = planet
        act(state, "mine")
        assert state["players"][0]["ship"][planet] == 1
    state["players"][0]["at"] = "shop"
    with pytest.raises(IllegalMoveError, match="Mining needs your ship docked at a planet"):
        act(state, "mine")


def test_RDJ_C3_spent_goods_go_back_where_they_come_from() -> None:
    state = new_game(2)
    agent = card_of(state, "agent")
    scav = card_of(state, "scavenger")
    to_display(state, agent)
    to_display(state, scav)
    put(state, 0, "storage", scrap=3, whiskey=2)
    space, whiskey = state["space"]["scrap"], state["bank"]["whiskey"]
    act(state, f"buy {agent} pay scrap", f"buy {scav} pay whiskey")
    assert state["space"]["scrap"] == space + 3
    assert state["bank"]["whiskey"] == whiskey + 2
    end(state)
    miner = card_of(state, "miner")
    to_display(state, miner)
    put(state, 1, "storage", gas=2)
    gas = state["planets"]["gas"]
    act(state, f"buy {miner} pay gas")
    assert state["planets"]["gas"] == gas + 2
    clean(state)


def test_RDJ_C4_trades_and_deals_use_the_ship_buying_uses_storage() -> None:
    state = new_game(2)
    state["dice"].update(scrap=3, whiskey=5, gold=1)
    state["players"][0]["at"] = "junction 1"
    put(state, 0, "storage", scrap=6)
    with pytest.raises(IllegalMoveError, match="need 3 scrap on your ship; it holds 0"):
        act(state, "trade scrap:gold")
    agent = card_of(state, "agent")
    to_display(state, agent)
    jettison_storage = state["players"][0]["storage"]
    jettison_storage["scrap"] -= 6
    state["space"]["scrap"] += 6
    put(state, 0, "ship", scrap=3)
    with pytest.raises(IllegalMoveError, match="from your storage, which holds 0 scrap"):
        act(state, f"buy {agent} pay scrap")
    state["players"][0]["at"] = "shop"
    top = state["stacks"]["6"][0]
    put(state, 0, "storage", **tile(state, top)["cost"])
    with pytest.raises(IllegalMoveError, match="from your ship, which holds 3 scrap"):
        act(state, "deal 6")
