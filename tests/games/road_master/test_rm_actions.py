"""Actions of a turn: RM-A1, A3..A9 and A13..A16, with the rulebook's 7-point example."""

from __future__ import annotations

import copy

import pytest
from rm_support import Script, after, apply_all, fill, give, load_truck, placed

from pbem.game import IllegalMoveError
from pbem_games.road_master import GAME
from pbem_games.road_master.tokens import assignment, fits

TOKENS = [["forward", "backward"], ["forward", "load"], ["forward", "unload"],
          ["backward", "load"], ["backward", "unload"], ["load", "unload"],
          ["contracts", "superbonus"]]


def test_RM_A1_at_most_four_actions_a_turn() -> None:
    """RM-A1: four actions, then no more (free moves do not count)."""
    t = placed(2, where="C")
    state = after(t.state, 0, ["load green", "forward 1 exit west", "backward", "forward 1"])
    assert state["turn"]["actions"] == ["load", "forward", "backward", "forward"]
    assert [m for m in GAME.legal_moves(state, 0) if not m.startswith("policy")] == []
    with pytest.raises(IllegalMoveError, match="used all 4 actions"):
        GAME.apply(state, 0, "forward 1")


def test_RM_A1_each_action_needs_its_own_token() -> None:
    """RM-A1 (ruling): a turn is legal only if its actions match distinct tokens."""
    assert fits(["forward", "forward", "forward", "load"], TOKENS, 4)
    assert not fits(["forward"] * 4, TOKENS, 4)  # only three tokens show forward
    assert not fits(["contracts", "superbonus"], TOKENS, 4)  # one token shows both
    assert fits(["load", "load", "load", "forward"], TOKENS, 4)
    assert not fits(["load", "load", "load", "unload", "unload"], TOKENS, 4)  # five actions
    # A matching, not first-come: load+forward+forward needs load off the forward/load token.
    plan = assignment(["load", "forward", "forward", "forward"], TOKENS)
    assert plan is not None and len(set(plan)) == 4
    t = placed(2, where="C")
    state = after(t.state, 0, ["contracts m1"])
    with pytest.raises(IllegalMoveError, match="No token left shows 'superbonus'"):
        GAME.apply(state, 0, "superbonus")
    assert "superbonus" not in GAME.legal_moves(state, 0)


def test_rm_a1_the_refusal_and_the_text_view_give_the_tokens_faces() -> None:
    """RM-A1/A2: the faces were only in the picture: a refusal for want of a token and
    the text view name every token's faces."""
    faces = ("forward/backward, forward/load, forward/unload, backward/load, backward/unload, "
             "load/unload, contracts/superbonus")
    t = placed(2, where="C")
    state = after(t.state, 0, ["forward 1 exit west", "forward 1", "forward 1"])
    with pytest.raises(IllegalMoveError, match="No token left shows 'forward'") as refused:
        GAME.apply(state, 0, "forward 1")
    assert refused.value.message.endswith(f"Your tokens show {faces}.")
    text = " ".join(GAME.render(GAME.view(state, 0)).split())  # (wrapped at 100)
    assert ("Action tokens, two faces each (a turn plays up to 4 actions, each on a different "
            f"token): {faces}.") in text
    assert GAME.view(state, None)["actions_per_turn"] == 4


def test_RM_A1_players_take_turns_in_order() -> None:
    """RM-A1: seats act in order from the first player, wrapping round."""
    t = placed(3)
    order = []
    for _ in range(6):
        t.prepare()
        order.append(t.to_act())
        t.play([])
    assert order == [0, 1, 2, 0, 1, 2]
    with pytest.raises(IllegalMoveError, match="ann's turn"):
        GAME.apply(copy.deepcopy(t.state), 2, "forward 1 exit east")


def test_RM_A3_later_actions_may_follow_what_earlier_ones_turned_up() -> None:
    """RM-A3: moves are given one at a time: after taking a contract for C, unload it there."""
    t = placed(2, where="C")
    state = t.state
    uid = next(u for u in state["deck"] if state["data"]["cards"][u].get("to") == "C"
               and state["data"]["cards"][u]["colour"] != "green")
    colour = state["data"]["cards"][uid]["colour"]
    state["market"][0], state["deck"][state["deck"].index(uid)] = uid, state["market"][0]
    load_truck(state, 0, colour, 1)
    before = GAME.legal_moves(state, 0)
    assert not [m for m in before if m.startswith("unload")]
    apply_all(state, 0, ["contracts m1"])
    assert f"unload {uid} {colour}" in GAME.legal_moves(state, 0)


def test_RM_A4_take_one_to_three_of_the_ten_on_offer() -> None:
    """RM-A4: 1-3 of the 9 market cards plus the deck's top, taken unseen."""
    t = placed(2)
    state = copy.deepcopy(t.state)
    shown = list(state["market"])
    deck_before = len(state["deck"])
    top = state["deck_top"]
    apply_all(state, 0, ["contracts m2 m5 top"])
    assert [e["id"] for e in state["contracts"][0]] == [shown[1], shown[4]]
    request = state["pending"][-1]
    assert (request["kind"], request["seat"], request["back"]) == ("blind", 0, top)
    assert len(state["deck"]) == deck_before  # the top card is drawn by the next beacon
    with pytest.raises(IllegalMoveError, match="1 to 3"):
        GAME.apply(copy.deepcopy(t.state), 0, "contracts m1 m2 m3 top")
    t.play(["contracts m2 m5 top"])
    t.prepare()  # bob opens the save: the blind card is drawn for ann
    held = [e["id"] for e in t.state["contracts"][0]]
    assert len(held) == 3 and held[:2] == [shown[1], shown[4]]
    assert any("from the top of the deck" in line for line in t.state["log"])


def test_RM_A4_a_blind_shortage_acts_and_the_taker_gets_the_next_card() -> None:
    """RM-A4/A7 (ruling): a shortage taken from the top plays; the taker gets the next card."""
    t = placed(2)
    state = copy.deepcopy(t.state)
    deck = state["deck"]
    shortage = next(u for u in deck if state["data"]["cards"][u]["kind"] == "shortage")
    contract = next(u for u in deck if state["data"]["cards"][u]["kind"] == "basic"
                    and state["data"]["cards"][u]["back"] != state["data"]["cards"][shortage]["back"])
    state["deck"] = [shortage, contract]
    state["gone"] += [u for u in deck if u not in (shortage, contract)]
    state["deck_top"] = state["data"]["cards"][shortage]["back"]
    assert state["data"]["cards"][contract]["back"] != state["deck_top"]
    apply_all(state, 0, ["contracts top"])
    GAME.end_turn(state, 0)
    request = state["pending"].pop(0)
    GAME.resolve(state, request, Script([0, 0]))
    assert [e["id"] for e in state["contracts"][0]] == [contract]
    assert shortage in state["gone"] and GAME.invariants(state) == []


def test_RM_A5_gaps_are_refilled_at_the_end_of_the_turn() -> None:
    """RM-A5 (ruling): the market shows a gap during the turn; the next beacon refills it."""
    t = placed(2)
    state = after(t.state, 0, ["contracts m3"])
    assert state["market"][2] == ""
    again = copy.deepcopy(state)
    again["turn"]["actions"] = []  # as if the contracts token were still free
    with pytest.raises(IllegalMoveError, match="m3 is empty until the market is refilled"):
        GAME.apply(again, 0, "contracts m3")
    t.play(["contracts m3"])
    assert t.state["market"][2] == "" and t.state["pending"][-1]["kind"] == "refill"
    t.prepare()
    assert t.state["market"][2] != "" and not t.state["pending"]


def test_RM_A6_a_contract_shows_cubes_destination_points_penalty() -> None:
    """RM-A6: the rulebook's example card: 2 orange to blue warehouse D, +7, or -2."""
    cards = placed(2).state["data"]["cards"]
    example = cards["c2"]
    assert (example["colour"], example["count"], example["to"], example["points"], example["penalty"]) == (
        "orange", 2, "D", 7, 2)


def test_RM_A7_shortage_halves_the_warehouse_rounded_down() -> None:
    """RM-A7: a shortage removes floor(n/2) of the warehouse's own cubes; the refill goes on."""
    t = placed(2)
    state = copy.deepcopy(t.state)
    cards = state["data"]["cards"]
    # A warehouse whose shortage is still in the deck (one may have been dealt at set-up)
    # and which still holds all of its 15 cubes; A's orange cubes serve as the strays.
    shortage, letter = next((u, c["warehouse"]) for u, c in cards.items()
                            if c["kind"] == "shortage" and u in state["deck"]
                            and c["warehouse"] != "A"
                            and sum(state["houses"][c["warehouse"]].values()) == 15)
    own = state["data"]["houses"][letter]["colour"]
    state["houses"][letter] = {own: 9, "orange": 2}  # a stray orange does not count
    state["removed"][own] = state["removed"].get(own, 0) + 6
    state["houses"]["A"]["orange"] -= 2
    contract = next(u for u in state["deck"] if cards[u]["kind"] == "basic")
    others = [u for u in state["deck"] if u not in (shortage, contract)]
    state["deck"] = [shortage, contract]
    state["deck_top"] = cards[shortage]["back"]  # the shortage is the card on top
    state["gone"] += others
    state["market"][0] = ""
    state["gone"].append(t.state["market"][0])
    GAME.resolve(state, {"kind": "refill"}, Script([0, 0]))
    assert state["houses"][letter] == {own: 5, "orange": 2}  # 9 - floor(9/2)
    assert state["market"][0] == contract and shortage in state["gone"]
    assert GAME.invariants(state) == []


def test_RM_A8_emptied_warehouse_removes_its_colour_from_market_and_deck() -> None:
    """RM-A8: loading a warehouse's last own cube takes every contract of that colour out
    of the market and the deck; held ones stay; the gaps refill at the turn's end."""
    t = placed(2, where="B")
    state = copy.deepcopy(t.state)
    cards = state["data"]["cards"]
    held = give(state, 1, next(u for u in state["deck"] if cards[u].get("colour") == "purple"))
    state["houses"]["B"] = {"purple": 2}
    state["removed"]["purple"] = 13  # as if shortages and earlier loads had taken the rest
    purple_market = [u for u in state["market"] if u and cards[u]["colour"] == "purple"]
    assert GAME.invariants(state) == []
    apply_all(state, 0, ["load purple x2"])
    assert not [u for u in state["deck"] if cards[u].get("colour") == "purple"]
    assert not [u for u in state["market"] if u and cards[u]["colour"] == "purple"]
    assert all(u in state["gone"] for u in purple_market)
    assert held in state["contracts"][1]
    assert "B" in state["emptied"] and GAME.invariants(state) == []


def test_RM_A8_stray_cubes_do_not_keep_a_warehouse_from_being_empty() -> None:
    """RM-A8 (ruling): empty means no cube of its own colour; strays of other colours don't count."""
    t = placed(2, where="B")
    state = copy.deepcopy(t.state)
    state["houses"]["B"] = {"purple": 1, "orange": 1}
    state["houses"]["A"]["orange"] -= 1
    state["removed"]["purple"] = 14
    apply_all(state, 0, ["load purple"])
    assert "B" in state["emptied"] and state["houses"]["B"] == {"orange": 1}


def test_RM_A9_no_limit_on_contracts_held() -> None:
    """RM-A9: a player may hold any number of contracts."""
    t = placed(2)
    for _ in range(5):
        t.play(["contracts m1 m2 m3"])
        t.play([])
    assert len(t.state["contracts"][0]) == 15


def test_RM_A13_load_only_in_a_warehouse_any_colour_up_to_five() -> None:
    """RM-A13: load in a warehouse, cubes of any colour lying there, at most 5 aboard."""
    t = placed(2, where="C")
    state = copy.deepcopy(t.state)
    state["houses"]["C"]["orange"] = 2  # strays left by someone
    state["houses"]["A"]["orange"] -= 2
    apply_all(state, 0, ["load orange x2 green x3"])
    assert state["trucks"][0]["cubes"] == {"orange": 2, "green": 3}
    with pytest.raises(IllegalMoveError, match="room for 0 more"):
        GAME.apply(copy.deepcopy(state), 0, "load green")
    with pytest.raises(IllegalMoveError, match="holds 0 orange"):
        GAME.apply(copy.deepcopy(t.state), 0, "load orange")
    road = after(t.state, 0, ["forward 1 exit east left"])
    with pytest.raises(IllegalMoveError, match="only while your truck is in a warehouse"):
        GAME.apply(road, 0, "load green")


def test_RM_A14_unload_onto_contracts_for_this_warehouse_fully_or_partly() -> None:
    """RM-A14: unload at the contracts' warehouse, to one or several, in full or in part."""
    t = placed(2, where="D")
    state = copy.deepcopy(t.state)
    big = give(state, 0, "c45")  # 4 brown -> D
    small = give(state, 0, "c12")  # 2 purple -> D
    elsewhere = give(state, 0, "c44")  # 2 brown -> B
    load_truck(state, 0, "brown", 3)
    load_truck(state, 0, "purple", 2)
    with pytest.raises(IllegalMoveError, match="delivered at warehouse B, not D"):
        GAME.apply(copy.deepcopy(state), 0, "unload c44 brown")
    apply_all(state, 0, ["unload c45 brown x3 c12 purple x2"])
    assert (big["cubes"], big["done"], small["cubes"], small["done"]) == (3, False, 2, True)
    assert elsewhere["cubes"] == 0
    assert state["scores"][0] == 5
    assert state["turn"]["actions"] == ["unload"]


def test_RM_A14_unload_is_refused_away_from_a_warehouse_and_beyond_need() -> None:
    """RM-A14: no unloading on the road; no more cubes than the contract still needs."""
    t = placed(2, where="D")
    state = copy.deepcopy(t.state)
    give(state, 0, "c12")
    load_truck(state, 0, "purple", 3)
    with pytest.raises(IllegalMoveError, match="needs only 2 more"):
        GAME.apply(copy.deepcopy(state), 0, "unload c12 purple x3")
    with pytest.raises(IllegalMoveError, match="wants purple cubes, not orange"):
        GAME.apply(copy.deepcopy(state), 0, "unload c12 orange")
    road = after(state, 0, ["forward 1 exit east"])
    with pytest.raises(IllegalMoveError, match="only while your truck is in a warehouse"):
        GAME.apply(road, 0, "unload c12 purple")


def test_RM_A15_worked_example_two_orange_cubes_at_blue_warehouse_score_7() -> None:
    """RM-A15, the rulebook's example: at blue warehouse D, 2 orange cubes go on the
    contract (not into the warehouse) and the player moves up 7."""
    t = placed(2, where="A")
    state = t.state
    if "c2" not in state["market"] and "c2" not in state["deck"]:
        pytest.skip("c2 left the game with this seed")
    give(state, 0, "c2")
    t.play(["load orange x2", "forward 4 exit east", "forward 4"])
    t.play([])
    house_before = dict(t.state["houses"]["D"])
    t.play(["forward 4 into D", "unload c2 orange x2"])
    entry = t.state["contracts"][0][-1]
    assert entry == {"id": "c2", "cubes": 2, "done": True}
    assert t.state["scores"][0] == 7
    assert t.state["houses"]["D"] == house_before
    assert GAME.invariants(t.state) == []


def test_RM_A16_unrelated_cubes_go_into_the_warehouse_for_anyone() -> None:
    """RM-A16: dump cubes into the warehouse; another player may load them later."""
    t = placed(2, where="C")
    load_truck(t.state, 0, "yellow", 2)
    t.play(["dump yellow x2"])
    assert t.state["houses"]["C"]["yellow"] == 2
    t.play(["load yellow x2"])
    assert t.state["trucks"][1]["cubes"] == {"yellow": 2}


def test_RM_A16_dump_takes_only_colours_none_of_your_contracts_needs() -> None:
    """RM-A16: only cubes of a colour unrelated to your contracts may be unloaded into the
    warehouse (「契約に関係ない色のキューブ」); a colour an open contract of yours still needs
    stays aboard (a completed contract no longer needs any)."""
    t = placed(2, where="C")
    state = copy.deepcopy(t.state)
    give(state, 0, "c12")  # 2 purple -> D
    load_truck(state, 0, "purple", 1)
    load_truck(state, 0, "yellow", 1)
    legal = GAME.legal_moves(state, 0)
    assert "dump yellow" in legal and "dump purple" not in legal
    with pytest.raises(IllegalMoveError, match="c12 still needs purple"):
        GAME.apply(copy.deepcopy(state), 0, "dump purple")
    with pytest.raises(IllegalMoveError, match="c12 still needs purple"):
        GAME.apply(copy.deepcopy(state), 0, "dump purple yellow")
    fill(state, 0, "c12", 2)  # c12 complete: purple is unrelated again
    assert "dump purple" in GAME.legal_moves(state, 0)


def test_RM_A16_unload_and_dump_together_are_one_action() -> None:
    """Consecutive unload/dump moves are one unload action (the rulebook's unload covers both)."""
    t = placed(2, where="D")
    state = copy.deepcopy(t.state)
    give(state, 0, "c12")
    load_truck(state, 0, "purple", 2)
    load_truck(state, 0, "green", 1)
    apply_all(state, 0, ["unload c12 purple", "dump green", "unload c12 purple"])
    assert state["turn"]["actions"] == ["unload"]
    apply_all(state, 0, ["forward 1 exit east"])
    assert state["turn"]["actions"] == ["unload", "forward"]


def test_illegal_moves_leave_the_state_unchanged() -> None:
    """A refused move changes nothing (each action checks before it acts)."""
    t = placed(2, where="D")
    state = copy.deepcopy(t.state)
    give(state, 0, "c12")
    load_truck(state, 0, "purple", 1)
    snapshot = copy.deepcopy(state)
    for move in ["unload c12 purple x2", "load blue x9", "contracts m1 m1", "dump orange",
                 "forward 3 exit east left", "backward"]:
        with pytest.raises(Exception):  # noqa: B017 - Invalid or Illegal, both refuse
            GAME.apply(state, 0, GAME.normalize(state, 0, move))
        assert state == snapshot, move
