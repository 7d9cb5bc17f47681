"""Advanced rules: hazardous goods (RM-H1..H8) and perishables (RM-P1, P2), with the
examples 'two half booms explode the truck' and 'a perishable cube left aboard is lost'.

Boom cards are chance resolved by the next player's beacon; here a Script answers the
draws: randbelow(ok + half) below the number of half booms left draws a half boom.
"""

from __future__ import annotations

import copy

import pytest
from rm_support import Script, apply_all, give, load_truck, placed

from pbem.game import IllegalMoveError, secretdeck
from pbem_games.road_master import GAME, bonus_draw

HALF, OK = 0, -1  # scripted answers: the half booms come first in the pile's order


def _hazard(where: str = "F", **options):
    return placed(2, where=where, hazardous=True, **options)


def _resolve_boom(state: dict, answers: list[int]) -> Script:
    request = next(p for p in state["pending"] if p["kind"] == "boom")
    state["pending"].remove(request)
    script = Script(answers)
    GAME.resolve(state, {k: v for k, v in request.items() if k != "seq"}, script)
    return script


def test_RM_H1_hazardous_contracts_replace_the_yellow_ones_worth_two_more() -> None:
    """RM-H1: with the option, every yellow contract is a hazardous one, 2 points richer."""
    cards = _hazard().state["data"]["cards"]
    yellow = {u: c for u, c in cards.items() if c.get("colour") == "yellow"}
    assert len(yellow) == 11 and all(c["kind"] == "hazardous" for c in yellow.values())
    stock = GAME.stock_components()["cards"]
    basic = {c["id"]: c for c in stock["contracts"]}
    for entry in stock["hazardous"]:
        assert entry["points"] == basic[entry["replaces"]]["points"] + 2


def test_RM_H2_six_boom_cards_four_ok_two_half() -> None:
    """RM-H2: the boom pile is 4 OK and 2 half booms (data)."""
    assert _hazard().state["data"]["boom"] == {"ok": 4, "half": 2}


def test_RM_H3_draw_after_load_move_and_before_unload_with_yellow_aboard() -> None:
    """RM-H3: a yellow load starts the draws; later actions are queued, checked now."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["load yellow x2"])
    turn = state["turn"]
    assert turn["draw"] and turn["draw_first"] and turn["queue"] == []
    apply_all(state, 0, ["forward 1 exit west left", "forward 4"])
    assert [q["move"] for q in turn["queue"]] == ["forward 1 exit west left", "forward 4"]
    GAME.end_turn(state, 0)
    # rolled back to the first draw: loaded, still in F; the moves wait for the beacon
    assert state["trucks"][0]["where"] == "F" and state["trucks"][0]["cubes"] == {"yellow": 2}
    request = state["pending"][-1]
    assert request["kind"] == "boom" and request["first"] and request["policy"] == "stop"
    script = _resolve_boom(state, [OK, OK, OK])
    assert script.asked == [6, 5, 4]  # after the load, after each forward
    assert (state["trucks"][0]["x"], state["trucks"][0]["lane"]) == (14, "north")


def test_RM_H3_no_draw_without_yellow_even_for_other_actions() -> None:
    """RM-H3 (ruling): no yellow aboard, no boom card."""
    t = _hazard(where="C")
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["load green x2", "forward 1 exit west", "forward 1"])
    assert not state["turn"]["draw"]
    GAME.end_turn(state, 0)
    assert not [p for p in state["pending"] if p["kind"] == "boom"]


def test_RM_H3_unload_of_other_colours_draws_first_while_yellow_is_aboard() -> None:
    """RM-H3: before an unload, even of non-yellow cubes, a card is drawn; the unload waits."""
    t = _hazard(where="D")
    state = copy.deepcopy(t.state)
    give(state, 0, "c12")  # 2 purple -> D
    load_truck(state, 0, "purple", 2)
    load_truck(state, 0, "yellow", 1)
    apply_all(state, 0, ["unload c12 purple x2"])
    assert state["turn"]["draw"] and not state["turn"]["draw_first"]
    assert state["scores"][0] == 5  # shown as if no boom came...
    GAME.end_turn(state, 0)
    assert state["scores"][0] == 0  # ... but it happens only after the draw
    script = _resolve_boom(state, [OK])
    assert script.asked[0] == 6 and state["scores"][0] == 5  # then the market refill's draws
    assert sum(line.startswith("Boom card for") for line in state["log"]) == 1


def test_RM_H4_contracts_and_super_bonus_are_safe() -> None:
    """RM-H4: taking contracts or Super Bonus draws nothing; an explosion spares them."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    load_truck(state, 0, "yellow", 1)
    give(state, 0, "c13")
    state["contracts"][0][-1]["cubes"] = 1
    state["houses"]["B"]["purple"] -= 1
    apply_all(state, 0, ["contracts m1"])
    assert not state["turn"]["draw"]
    apply_all(state, 0, ["policy push", "load yellow", "forward 1 exit east"])
    GAME.end_turn(state, 0)
    _resolve_boom(state, [HALF, HALF])
    assert state["trucks"][0]["cubes"] == {}
    assert len(state["contracts"][0]) == 2 and state["contracts"][0][0]["cubes"] == 1
    assert GAME.invariants(state) == []


def test_RM_H5_first_half_boom_stops_with_policy_stop() -> None:
    """RM-H5: a first half boom does nothing itself; with policy stop the turn ends there."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["load yellow", "forward 1 exit east", "forward 1"])
    GAME.end_turn(state, 0)
    _resolve_boom(state, [OK, HALF])
    truck = state["trucks"][0]
    assert (truck["x"], truck["cubes"]) == (18, {"yellow": 1})  # stopped after the first forward
    assert any("stops the turn there" in line for line in state["log"])


def test_RM_H5_policy_push_goes_on_after_a_first_half_boom() -> None:
    """RM-H5 (ruling): with policy push the queued actions go on at risk."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["policy push", "load yellow", "forward 1 exit east", "forward 1"])
    GAME.end_turn(state, 0)
    _resolve_boom(state, [HALF, OK, OK])
    truck = state["trucks"][0]
    assert (truck["x"], truck["cubes"]) == (19, {"yellow": 1})


def test_RM_H6_worked_example_two_half_booms_explode_the_truck() -> None:
    """RM-H6/H7, the rulebook's example: the second half boom blows the truck up; every
    cube aboard, of any colour, leaves the game, and the turn ends at once."""
    t = _hazard()
    state = t.state
    state["houses"]["F"]["green"] = 2
    state["houses"]["C"]["green"] -= 2
    t.play(["policy push", "load yellow green x2", "forward 1 exit west left", "forward 4"])
    state = t.state
    removed_before = dict(state["removed"])
    _resolve_boom(state, [HALF, HALF])
    assert state["trucks"][0]["cubes"] == {}
    assert state["removed"].get("yellow", 0) == removed_before.get("yellow", 0) + 1
    assert state["removed"].get("green", 0) == removed_before.get("green", 0) + 2
    assert (state["trucks"][0]["x"], state["trucks"][0]["lane"]) == (18, "south")  # no forward 4
    assert any("explodes" in line for line in state["log"])
    assert GAME.invariants(state) == []


def test_RM_H7_an_unload_whose_draw_explodes_does_not_happen_and_the_truck_runs_next_turn() -> None:
    """RM-H7: the exploding draw before an unload cancels it; next turn the truck works."""
    t = _hazard(where="D")
    state = t.state
    give(state, 0, "c12")
    load_truck(state, 0, "purple", 2)
    load_truck(state, 0, "yellow", 1)
    t.play(["policy push", "dump yellow", "load blue"])  # dump: draw before (yellow aboard)
    _resolve_boom(t.state, [HALF, OK])  # half before dump; push: dump; no yellow: no more draws
    assert t.state["houses"]["D"].get("yellow") == 1
    t2 = _hazard(where="D")
    s2 = t2.state
    give(s2, 0, "c12")
    load_truck(s2, 0, "purple", 2)
    load_truck(s2, 0, "yellow", 1)
    t2.play(["policy push", "load blue", "unload c12 purple x2"])
    _resolve_boom(t2.state, [HALF, HALF])  # after load: half; before unload: second half
    assert t2.state["contracts"][0][0]["cubes"] == 0 and t2.state["scores"][0] == 0
    assert t2.state["trucks"][0]["cubes"] == {}
    t2.play([])
    t2.prepare()
    t2.play(["load blue x2", "forward 1 exit east"])  # the truck is fine again
    assert t2.state["trucks"][0]["where"] == "road"


def test_RM_H8_boom_cards_are_not_returned_until_the_turn_ends() -> None:
    """RM-H8: draws in a turn deplete the pile; each turn starts from all six."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["policy push", "load yellow", "forward 1 exit east", "backward"])
    GAME.end_turn(state, 0)
    script = _resolve_boom(state, [HALF, OK, OK])
    assert script.asked == [6, 5, 4]
    apply_all(state, 1, ["load yellow"])
    GAME.end_turn(state, 1)
    again = _resolve_boom(state, [OK])
    assert again.asked == [6]


def test_queued_actions_are_checked_at_submission() -> None:
    """RM-H5 (ruling): every queued action must be legal if no boom comes."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["load yellow x4"])
    with pytest.raises(IllegalMoveError, match="room for 1 more"):
        GAME.apply(copy.deepcopy(state), 0, "load yellow x2")
    apply_all(state, 0, ["contracts m1 top"])  # queued too: safe, but after the draw
    GAME.end_turn(state, 0)
    assert [p["kind"] for p in state["pending"]] == ["boom"]
    market_card = state["market"][0]
    _resolve_boom(state, [HALF, OK])  # policy stop: the contracts action never happens
    assert market_card not in [e["id"] for e in state["contracts"][0]]


def test_RM_H4_a_super_bonus_queued_after_loading_yellow_is_accepted() -> None:
    """RM-H4: Super Bonus is safe from booms, so it may follow a yellow load: it waits in
    the queue with the other actions, draws no boom card itself, and the six cards are
    reserved when the draws resolve (nothing is reserved while the turn is rolled back)."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["load yellow"])
    assert "superbonus" in GAME.legal_moves(state, 0)
    apply_all(state, 0, ["superbonus", "forward 1 exit east"])
    assert [q["move"] for q in state["turn"]["queue"]] == ["superbonus", "forward 1 exit east"]
    GAME.end_turn(state, 0)
    assert secretdeck.drawn(state, "superbonus", 0) == []  # rolled back to the first draw
    assert secretdeck.remaining(state, "superbonus") == 18
    script = _resolve_boom(state, [OK, OK])
    assert script.asked == [6, 5]  # after the load and after the forward: none for the bonus
    assert len(secretdeck.drawn(state, "superbonus", 0)) == 6
    assert state["trucks"][0]["where"] == "road" and GAME.invariants(state) == []


def test_RM_H4_a_queued_super_bonus_is_not_taken_when_the_turn_stops_first() -> None:
    """RM-H5 with RM-H4: policy stop and a first half boom end the turn before the
    queued Super Bonus, which is then never taken."""
    t = _hazard()
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["load yellow", "superbonus"])
    GAME.end_turn(state, 0)
    _resolve_boom(state, [HALF])
    assert secretdeck.drawn(state, "superbonus", 0) == []
    assert secretdeck.remaining(state, "superbonus") == 18


def test_queued_contracts_and_blind_card_are_taken_after_an_ok_draw() -> None:
    t = _hazard()
    state = copy.deepcopy(t.state)
    market_card = state["market"][0]
    apply_all(state, 0, ["load yellow", "contracts m1 top"])
    GAME.end_turn(state, 0)
    _resolve_boom(state, [OK, 0, 0, 0])
    held = [e["id"] for e in state["contracts"][0]]
    assert held[0] == market_card and len(held) == 2
    assert all(state["market"]) and GAME.invariants(state) == []


def test_policy_is_for_the_hazardous_option_only() -> None:
    t = placed(2)
    with pytest.raises(IllegalMoveError, match="hazardous goods option only"):
        GAME.apply(copy.deepcopy(t.state), 0, "policy push")
    assert not [m for m in t.legal_moves() if m.startswith("policy")]


def test_RM_P1_perishable_contracts_replace_the_blue_ones_worth_two_more() -> None:
    """RM-P1: with the option, every blue contract is a perishable one, 2 points richer."""
    cards = placed(2, perishable=True).state["data"]["cards"]
    blue = [c for c in cards.values() if c.get("colour") == "blue"]
    assert len(blue) == 11 and all(c["kind"] == "perishable" for c in blue)
    stock = GAME.stock_components()["cards"]
    basic = {c["id"]: c for c in stock["contracts"]}
    assert all(p["points"] == basic[p["replaces"]]["points"] + 2 for p in stock["perishable"])


def test_RM_P2_worked_example_perishable_cube_left_aboard_is_lost() -> None:
    """RM-P2: blue cubes loaded this turn and still aboard at its end leave the game;
    delivered in the same turn they are safe."""
    t = placed(2, where="D", perishable=True)
    t.play(["load blue x3", "forward 1 exit east"])
    assert t.state["trucks"][0]["cubes"] == {}
    assert t.state["removed"]["blue"] == 3
    assert any("spoil" in line for line in t.state["log"])
    t2 = placed(2, where="D", perishable=True)
    uid = next(u for u, c in t2.state["data"]["cards"].items()
               if c.get("colour") == "blue" and c["to"] == "C" and c["count"] == 1)
    give(t2.state, 0, uid)
    t2.play(["load blue", "forward 3 exit west", "forward 1 into C", f"unload {uid} blue"])
    assert t2.state["scores"][0] == t2.state["data"]["cards"][uid]["points"]
    assert t2.state["removed"].get("blue", 0) == 0


def test_RM_P2_dumping_fresh_perishables_elsewhere_does_not_save_them() -> None:
    """RM-P2: blue cubes loaded this turn must be delivered this turn; unloaded into
    another warehouse (or back into D) they are not delivered, so they leave the game
    and nobody can load them later."""
    t = placed(2, where="D", perishable=True)
    t.play(["load blue x2", "forward 4 exit west into C", "dump blue x2"])
    state = t.state
    assert state["houses"]["C"].get("blue", 0) == 0
    assert state["removed"]["blue"] == 2 and state["trucks"][0]["cubes"] == {}
    assert any("spoil" in line for line in state["log"])
    assert GAME.invariants(state) == []
    back = placed(2, where="D", perishable=True)
    back.play(["load blue x3", "dump blue"])
    assert back.state["houses"]["D"]["blue"] == 12  # 15 - 3 loaded; the dumped one is lost
    assert back.state["removed"]["blue"] == 3  # one dumped, two spoiled at the turn's end


def test_RM_P2_only_cubes_loaded_this_turn_spoil() -> None:
    """RM-P2 (ruling): blue cubes already aboard before this turn are not counted."""
    t = placed(2, where="D", perishable=True)
    load_truck(t.state, 0, "blue", 2)  # put aboard earlier (e.g. before the option mattered)
    t.play(["load blue", "forward 1 exit east"])
    assert t.state["trucks"][0]["cubes"] == {"blue": 2}


def test_perishables_spoil_at_the_end_of_a_turn_with_boom_draws() -> None:
    """Both options: the spoiling happens when the boom draws finish the turn."""
    t = placed(2, where="D", hazardous=True, perishable=True)
    state = t.state
    state["houses"]["D"]["yellow"] = 1
    state["houses"]["F"]["yellow"] -= 1
    t.play(["load blue yellow", "forward 1 exit east"])
    assert t.state["trucks"][0]["cubes"] == {"blue": 1, "yellow": 1}  # draws pending
    _resolve_boom(t.state, [OK, OK])
    assert t.state["trucks"][0]["cubes"] == {"yellow": 1}
    assert t.state["removed"]["blue"] == 1


def test_RM_H5_policy_push_is_offered_only_when_it_would_change_something() -> None:
    """RM-H5: a policy governs the draws of the actions after it, so it is offered only if
    the next action may draw and something could still follow that draw."""
    t = _hazard()
    state = copy.deepcopy(t.state)

    def offered(s: dict) -> bool:
        return "policy push" in GAME.legal_moves(s, 0)

    assert offered(state)  # in F: a yellow load would draw after itself
    apply_all(state, 0, ["load yellow"])
    assert offered(state)  # yellow aboard: the next action draws, others may follow
    apply_all(state, 0, ["forward 2 exit west", "forward 1", "forward 1"])
    assert not offered(state)  # every action played: each draw's policy is fixed
    away = copy.deepcopy(t.state)
    apply_all(away, 0, ["forward 1 exit west left"])
    assert not offered(away)  # on the road, no yellow: the next action cannot draw
    quiet = copy.deepcopy(t.state)
    apply_all(quiet, 0, ["forward 2 exit west", "forward 1", "forward 1"])
    assert not offered(quiet)  # no yellow, one action left: nothing to decide
    last = copy.deepcopy(t.state)
    load_truck(last, 0, "yellow", 1)
    apply_all(last, 0, ["contracts m1"])
    last["turn"]["actions"] += ["forward", "backward"]  # as if 3 actions were used
    assert offered(last)  # in a warehouse with yellow: an unload would draw before itself
    apply_all(last, 0, ["forward 1 exit east"])
    assert not offered(last)  # all four used, no action waits behind the draw
    pushed = copy.deepcopy(t.state)
    apply_all(pushed, 0, ["load yellow", "policy push"])
    assert "policy stop" in GAME.legal_moves(pushed, 0)


# ---- RM-H5: a policy holds from where it stands until the next one (revised ruling) -------
EXAMPLE_TURN = ["policy stop", "load brown", "policy push", "unload h3 yellow x3"]


def _at_e_with_yellow() -> dict:
    """ann in E (brown) with 3 yellow cubes aboard and h3 (3 yellow to E) in hand."""
    state = copy.deepcopy(_hazard(where="E").state)
    give(state, 0, "h3")
    load_truck(state, 0, "yellow", 3)
    return state


def test_rm_h5_stop_after_an_early_half_boom_yet_push_into_the_final_unload() -> None:
    """RM-H5: 「このターンを終了するか、リスクを負って続けるか選ぶことができます」 is a choice at each
    draw. `policy stop; load brown; policy push; unload h3 yellow x3`: a first half boom
    drawn after the load stops the turn there (the load's policy is stop)..."""
    state = _at_e_with_yellow()
    apply_all(state, 0, EXAMPLE_TURN)
    GAME.end_turn(state, 0)
    request = next(p for p in state["pending"] if p["kind"] == "boom")
    assert [q["policy"] for q in request["moves"]] == ["push"] and request["policy"] == "stop"
    _resolve_boom(state, [HALF, OK])
    assert state["scores"][0] == 0 and state["trucks"][0]["cubes"] == {"yellow": 3, "brown": 1}
    assert any("stops the turn there (policy stop)" in line for line in state["log"])


def test_rm_h5_a_first_half_boom_before_the_unload_goes_by_the_unloads_policy() -> None:
    """RM-H5: ... while one drawn before the unload goes by the unload's policy, push:
    the unload happens (its draw done, it risks nothing more)."""
    state = _at_e_with_yellow()
    points = state["data"]["cards"]["h3"]["points"]
    apply_all(state, 0, EXAMPLE_TURN)
    GAME.end_turn(state, 0)
    _resolve_boom(state, [OK, HALF])
    assert state["scores"][0] == points and state["trucks"][0]["cubes"] == {"brown": 1}
    assert any("pushes on (policy push)" in line for line in state["log"])


def test_rm_h5_show_and_play_say_which_policy_governs_each_draw() -> None:
    """RM-H5: before signing, the view (text and JSON) and the entry's description give
    each boom draw with its policy; once signed, `show` gives them until the beacon."""
    from pbem_games.road_master.describe import describe

    state = _at_e_with_yellow()
    before = copy.deepcopy(state)
    apply_all(state, 0, EXAMPLE_TURN)
    draws = [{"when": "after", "move": "load brown", "policy": "stop"},
             {"when": "before", "move": "unload h3 yellow x3", "policy": "push"}]
    view = GAME.view(state, 0)
    assert view["turn"]["draws"] == draws
    text = " ".join(GAME.render(view).split())  # (wrapped at 100)
    assert ("Boom draws due this turn, each while yellow cubes are aboard: after load brown: "
            "policy stop; before unload h3 yellow x3: policy push.") in text
    GAME.end_turn(state, 0)
    lines = describe(before, state, 0)
    assert ("ann's policy on a first half boom, draw by draw (stop: the turn ends there; push: "
            "it goes on): after load brown: policy stop; before unload h3 yellow x3: policy "
            "push.") in lines
    shown = GAME.view(state, None)
    assert shown["boom"] == {"seat": 0, "draws": draws, "queued": ["unload h3 yellow x3"]}
    assert ("Boom cards for ann are drawn with the next beacon, each while yellow cubes are "
            "aboard: after load brown: policy stop; before unload h3 yellow x3: policy push.") \
        in " ".join(GAME.render(shown).split())


def _three_drew_and_dee_in_f():
    """Four players, hazardous goods: ann, bob and cy each took Super Bonus, emptying the
    pile (3 x 6 = 18 cards); dee, to act, stands in F."""
    t = placed(4, hazardous=True)
    for _ in range(3):
        t.play(["superbonus"])
    t.prepare()
    state = copy.deepcopy(t.state)
    assert secretdeck.remaining(state, "superbonus") == 0 and GAME.to_act(state) == 3
    state["trucks"][3].update(where="F", x=-1, lane="", heading="")
    return state


def test_RM_H4_RM_A10_a_short_draw_queued_behind_boom_draws_is_made_when_they_resolve() -> None:
    """RM-H4/RM-H5/RM-A10: dee's Super Bonus after the first boom card is a short draw
    (the pile is empty); the turn rolls back to the draw, and when the boom cards come
    the queued draw is made and the forward after it is driven: nothing is lost."""
    state = _three_drew_and_dee_in_f()
    apply_all(state, 3, ["policy push", "load yellow", "superbonus", "forward 1 exit east"])
    GAME.end_turn(state, 3)
    assert bonus_draw.waiting(state, 3) == 0  # rolled back with the rest of the turn
    _resolve_boom(state, [HALF, OK])
    assert not [line for line in state["log"] if "could not be" in line]
    assert bonus_draw.waiting(state, 3) == 6
    assert state["trucks"][3]["where"] == "road" and GAME.invariants(state) == []


def test_RM_H5_RM_A10_a_turn_stopped_before_its_queued_draw_leaves_no_draw_waiting() -> None:
    """RM-H5 with RM-A10: under policy stop a first half boom ends dee's turn before the
    queued Super Bonus, so dee has no draw waiting and the cards ann returns stay in the
    pile for the next drawer (3, not the 6 of a draw completed for dee)."""
    state = _three_drew_and_dee_in_f()
    apply_all(state, 3, ["load yellow", "superbonus"])
    GAME.end_turn(state, 3)
    _resolve_boom(state, [HALF])
    assert bonus_draw.waiting(state, 3) == 0 and "short" not in state["sb"]
    drawn = secretdeck.drawn(state, "superbonus", 0)
    apply_all(state, 0, [f"keep {' '.join(drawn[:3])}", f"bottom {' '.join(drawn[3:])}"])
    assert secretdeck.remaining(state, "superbonus") == 3
    assert secretdeck.drawn(state, "superbonus", 3) == []
