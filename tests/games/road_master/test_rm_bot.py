"""The greedy bot's heuristic and the contract moves it weighs.

The positions here are the ones where an earlier heuristic stalled (every move looked
worse than ending the turn, so greedy games never reached the target): an empty start,
dead contracts, a full truck, perishable cubes out of reach.
"""

from __future__ import annotations

import copy
from itertools import combinations

import pytest
from rm_support import NAMES, give, load_truck, placed, truck

from pbem.play.bots import choose_turn
from pbem.play.local import LocalTable
from pbem_games.road_master import GAME


def _gain(state: dict, seat: int, move: str) -> int:
    trial = copy.deepcopy(state)
    GAME.apply(trial, seat, move)
    return GAME.heuristic(trial, seat) - GAME.heuristic(state, seat)


def test_RM_A4_moves_lists_every_contracts_choice_the_notation_accepts() -> None:
    """RM-A4: 1 to 3 of the 10 on offer: all 175 choices are listed (singles first), each
    in canonical form, and every one is legal; a market gap or an empty deck drops out."""
    state = placed(2).state
    listed = [m for m in GAME.legal_moves(state, 0) if m.startswith("contracts")]
    refs = [f"m{i}" for i in range(1, 10)] + ["top"]
    expected = ["contracts " + " ".join(c) for size in (1, 2, 3) for c in combinations(refs, size)]
    assert listed == expected and len(listed) == 175
    for move in listed:
        assert GAME.normalize(state, 0, move) == move
        GAME.apply(copy.deepcopy(state), 0, move)
    gap = copy.deepcopy(state)
    gap["market"][2] = ""
    gap["deck"] = []
    listed = [m for m in GAME.legal_moves(gap, 0) if m.startswith("contracts")]
    assert len(listed) == 8 + 28 + 56 and not [m for m in listed if "m3" in m or "top" in m]


def test_greedy_takes_a_contract_from_an_empty_start() -> None:
    """With no contract held every plan is the longest: any reachable contract pays."""
    for where in "ACF":
        t = placed(2, where=where)
        moves = choose_turn(GAME, t.state, 0, "greedy:1")
        assert any(m.startswith("contracts ") for m in moves), (where, moves)


def test_dead_contracts_neither_count_nor_block_new_ones() -> None:
    """Three held contracts whose colour is gone from the board are sunk: the bot still
    wants live ones, and its truck is drawn to them."""
    t = placed(2, where="A")
    state = t.state
    for uid in ("c21", "c24", "c26"):  # green contracts
        give(state, 0, uid)
    state["removed"]["green"] = state["removed"].get("green", 0) + state["houses"]["C"].pop("green")
    live = next(i for i, u in enumerate(state["market"], 1)
                if u and state["data"]["cards"][u]["colour"] != "green")
    assert _gain(state, 0, f"contracts m{live}") > 0
    moves = choose_turn(GAME, state, 0, "greedy:1")
    assert any(m.startswith("contracts ") for m in moves)


def test_a_full_truck_delivers_part_instead_of_waiting() -> None:
    """Full of cubes for two contracts, one of which needs more than fits: the truck
    drives off to deliver (the earlier heuristic sat at the source for ever)."""
    t = placed(2, where="D")
    state = t.state
    give(state, 0, "c34")  # 4 blue to C
    give(state, 0, "c20")  # 3 purple to F
    load_truck(state, 0, "blue", 3)
    load_truck(state, 0, "purple", 2)
    moves = choose_turn(GAME, state, 0, "greedy:1")
    assert "forward 4 exit west into C" in moves and "unload c34 blue x3" in moves, moves


def test_perishable_cubes_are_loaded_only_when_they_can_arrive_this_turn() -> None:
    t = placed(2, where="D", perishable=True)
    state = t.state
    give(state, 0, "p4")  # 2 blue to C, 4 spaces away
    assert _gain(state, 0, "load blue x2") > 0
    late = copy.deepcopy(state)
    late["turn"]["actions"] = ["contracts", "backward", "forward"]  # one action left
    assert _gain(late, 0, "load blue x2") < 0  # they would spoil before reaching C
    moves = choose_turn(GAME, state, 0, "greedy:1")
    assert "load blue x2" in moves and "unload p4 blue x2" in moves, moves
    t.play(moves)
    assert t.state["contracts"][0][0]["done"] and "blue" not in t.state["removed"]


@pytest.mark.slow
def test_greedy_games_reach_the_target() -> None:
    """Greedy games end by the target score, not by the stalled-game ruling."""
    for players, options, seed in ((2, {}, b"g2"), (4, {"hazardous": True, "perishable": True}, b"g4")):
        t = LocalTable(GAME, NAMES[:players], options, seed=seed)
        for turn in range(300):
            t.prepare()
            seat = t.to_act()
            if seat is None:
                break
            t.play(choose_turn(GAME, t.state, seat, "greedy:7", salt=str(turn)))
        assert t.to_act() is None
        assert max(t.state["scores"]) >= t.state["data"]["target"], t.state["log"][-3:]
        assert not any("stalled" in line for line in t.state["log"])


def test_a_truck_on_the_road_heads_for_its_goal() -> None:
    t = placed(2, where="A")
    state = t.state
    give(state, 0, "c2")  # 2 orange to D
    load_truck(state, 0, "orange", 2)
    truck(state, 0, "road", x=3, lane="south", heading="east")
    assert _gain(state, 0, "forward 4") > 0
    assert _gain(state, 0, "backward") < 0
    t.play(choose_turn(GAME, state, 0, "greedy:1"))
    assert t.state["trucks"][0]["where"] == "D"  # 8 spaces and in: three forward moves
    t.play(choose_turn(GAME, t.state, 1, "greedy:1"))
    assert "unload c2 orange x2" in choose_turn(GAME, t.state, 0, "greedy:1")
