"""Every commander and boost effect of the card reference (components.toml)."""

from __future__ import annotations

import pytest
from rdj_helpers import act, clean, end, give_card, hire, new_game, put

from pbem.errors import IllegalMoveError, InvalidMoveError
from pbem_games.red_dog_junction import GAME


def with_card(ident: str, players: int = 2) -> dict:
    state = new_game(players)
    give_card(state, 0, ident)
    return state


# ---- commanders ---------------------------------------------------------------------------
def test_mayor_taxes_one_gold_into_storage_once_a_turn() -> None:
    state = with_card("mayor")
    gold, bank = state["players"][0]["storage"]["gold"], state["bank"]["gold"]
    act(state, "command mayor")
    assert state["players"][0]["storage"]["gold"] == gold + 1
    assert state["bank"]["gold"] == bank - 1 and state["ts"]["actions"] == 1
    with pytest.raises(IllegalMoveError, match="The Mayor has already acted this turn"):
        act(state, "command mayor")
    assert not any(m.startswith("command mayor") for m in GAME.legal_moves(state, 0))
    act(state, "pass")
    end(state)
    act(state, "pass", "pass")
    end(state)
    act(state, "command mayor")  # a new turn
    clean(state)


def test_croupier_sets_any_die_the_gold_die_included() -> None:
    state = with_card("croupier")
    act(state, "command croupier gold 4")
    assert state["dice"]["gold"] == 4
    fresh = with_card("croupier")
    with pytest.raises(IllegalMoveError, match="gold die has faces 1 to 4"):
        GAME.apply(fresh, 0, "command croupier gold 5")
    moves = [m for m in GAME.legal_moves(fresh, 0) if "croupier" in m]
    assert len(moves) == 6 * 5 + 3  # every other face of every die


def test_croupier_refuses_the_face_already_shown() -> None:
    state = with_card("croupier")
    face = state["dice"]["ruby"]
    with pytest.raises(IllegalMoveError, match=f"ruby die already shows {face}"):
        act(state, f"command croupier ruby {face}")


def test_banker_trades_at_any_dock_from_anywhere() -> None:
    state = with_card("banker")
    state["dice"].update(scrap=3, whiskey=5, gold=2)
    state["players"][0]["at"] = "space"
    put(state, 0, "ship", scrap=3)
    act(state, "command banker 1 scrap:gold")
    assert state["players"][0]["ship"]["gold"] == 2 and state["players"][0]["ship"]["scrap"] == 0
    clean(state)


def test_banker_still_needs_goods_on_the_ship_and_the_docks_dice() -> None:
    state = with_card("banker")
    put(state, 0, "storage", scrap=6)
    with pytest.raises(IllegalMoveError, match="on your ship; it holds 0"):
        act(state, "command banker 1 scrap:gold")
    with pytest.raises(IllegalMoveError, match="Junction dock 3 sits between the gas and ruby"):
        act(state, "command banker 3 scrap:gold")


def test_navigator_jumps_from_any_dock_to_any_free_dock() -> None:
    state = with_card("navigator")
    state["players"][1]["at"] = "ruby"
    with pytest.raises(IllegalMoveError, match="taken by bob"):
        act(state, "command navigator ruby")
    act(state, "command navigator shop")
    assert state["players"][0]["at"] == "shop" and state["ts"]["actions"] == 1
    fresh = with_card("navigator")
    with pytest.raises(IllegalMoveError, match="bob's home base takes only bob's ship"):
        GAME.apply(fresh, 0, "command navigator home bob")
    with pytest.raises(IllegalMoveError, match="already at home base"):
        GAME.apply(fresh, 0, "command navigator home")


def test_quartermaster_loads_and_unloads_from_anywhere() -> None:
    state = with_card("quartermaster")
    state["players"][0]["at"] = "junction 2"
    put(state, 0, "ship", gold=2)
    put(state, 0, "storage", ruby=2)
    act(state, "command quartermaster unload gold x2 load ruby")
    player = state["players"][0]
    assert player["storage"]["gold"] == 3 and player["ship"]["ruby"] == 1
    assert "command quartermaster unload all" not in GAME.legal_moves(state, 0)  # once a turn
    clean(state)


def test_foreman_mines_with_two_more_miners() -> None:
    state = with_card("foreman")
    state["players"][0]["at"] = "ice"
    act(state, "command foreman")
    assert state["players"][0]["ship"]["ice"] == 3  # 1 miner + 2
    state["players"][0]["at"] = "space"
    state["ts"]["commanded"] = []
    with pytest.raises(IllegalMoveError, match="docked at a planet"):
        act(state, "command foreman")


def test_sheriff_rustles_with_one_more_rustler() -> None:
    state = with_card("sheriff", players=3)
    state["players"][1]["at"] = "gas"
    with pytest.raises(IllegalMoveError, match="at most 1 ship"):
        act(state, "command sheriff bob cy")
    hire(state, 0, "rustler")
    act(state, "command sheriff bob cy")
    assert state["players"][1]["at"] == "space" and state["players"][2]["at"] == "space"


# ---- boosts -------------------------------------------------------------------------------
def test_nudge_moves_any_die_by_one_within_its_faces() -> None:
    state = with_card("nudge-1")
    state["dice"]["gold"] = 4
    with pytest.raises(IllegalMoveError, match="gold die shows 4 and cannot go up"):
        act(state, "play nudge-1 gold +1")
    act(state, "play nudge-1 gold -1")
    assert state["dice"]["gold"] == 3
    with pytest.raises(IllegalMoveError, match="nudge-1 was already played this turn"):
        act(state, "play nudge-1 gold -1")


def test_loaded_die_sets_any_die() -> None:
    state = with_card("loaded-die")
    state["dice"]["scrap"] = 6
    act(state, "play loaded-die scrap 1")
    assert state["dice"]["scrap"] == 1


def test_flip_turns_a_die_upside_down() -> None:
    state = with_card("flip-die")
    state["dice"]["oxygen"] = 2
    act(state, "play flip-die oxygen")
    assert state["dice"]["oxygen"] == 5
    state2 = with_card("flip-die")
    state2["dice"]["gold"] = 1
    act(state2, "play flip-die gold")
    assert state2["dice"]["gold"] == 4


def test_haggle_is_one_more_trade_at_the_junction() -> None:
    state = with_card("haggle-1")
    state["dice"].update(scrap=3, whiskey=5, gold=1)
    put(state, 0, "ship", scrap=3)
    with pytest.raises(IllegalMoveError, match="Haggling needs your ship docked at the Junction"):
        act(state, "play haggle-1 scrap:gold")
    state["players"][0]["at"] = "junction 1"
    act(state, "play haggle-1 scrap:gold")
    assert state["players"][0]["ship"]["gold"] == 1
    clean(state)


def test_afterburner_jumps_to_a_free_dock() -> None:
    state = with_card("afterburner")
    act(state, "play afterburner junction 4")
    assert state["players"][0]["at"] == "junction 4"
    assert state["discard"] == []
    act(state, "pass")
    end(state)
    assert state["discard"] == ["afterburner"]


def test_tractor_beam_takes_two_goods_from_space_anywhere() -> None:
    state = with_card("tractor-beam")
    with pytest.raises(IllegalMoveError, match="at most 2 goods"):
        act(state, "play tractor-beam scrap x3")
    act(state, "play tractor-beam scrap x2")  # docked at home
    assert state["players"][0]["ship"]["scrap"] == 2
    clean(state)


def test_double_shift_mines_two_without_miners() -> None:
    state = with_card("double-shift")
    state["players"][0]["at"] = "gas"
    act(state, "play double-shift")
    assert state["players"][0]["ship"]["gas"] == 2


def test_cargo_net_holds_three_more_this_turn_only() -> None:
    state = with_card("cargo-net")
    put(state, 0, "ship", ice=6)
    act(state, "play cargo-net", "pass")
    GAME.end_turn(state, 0)
    assert state["current"] == 1
    assert GAME.view(state, None)["players"][0]["capacity"] == 3


def test_tow_cable_undocks_one_ship() -> None:
    state = with_card("tow-cable")
    with pytest.raises(InvalidMoveError, match="tow-cable NAME"):
        act(state, "play tow-cable ann bob")
    act(state, "play tow-cable bob")
    assert state["players"][1]["at"] == "space"


def test_windfall_takes_two_whiskey_onto_the_ship() -> None:
    state = with_card("windfall")
    act(state, "play windfall")
    assert state["players"][0]["ship"]["whiskey"] == 2
    clean(state)


def test_every_card_effect_has_legal_moves_that_apply() -> None:
    """A stage where each card can act: every listed card move applies cleanly."""
    import copy

    base = new_game(3)
    base["players"][0]["at"] = "junction 1"
    base["players"][1]["at"] = "gas"
    put(base, 0, "ship", scrap=3, whiskey=5, gold=1)
    put(base, 0, "storage", ruby=2)
    cards = ["mayor", "croupier", "banker", "navigator", "quartermaster", "foreman", "sheriff",
             "nudge-1", "loaded-die", "flip-die", "haggle-1", "afterburner", "tractor-beam",
             "double-shift", "cargo-net", "tow-cable", "windfall"]
    for ident in cards:
        give_card(base, 0, ident)
    listed = [m for m in GAME.legal_moves(base, 0) if m.split()[0] in ("play", "command")]
    named = {m.split()[1] for m in listed}
    assert named == set(cards) - {"foreman", "double-shift"}  # not docked at a planet
    for move in listed:
        trial = copy.deepcopy(base)
        GAME.apply(trial, 0, move)
        assert GAME.invariants(trial) == []
