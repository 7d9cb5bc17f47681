"""Game.describe for Road Master: what one entry changed, in public words (`play` and
`play --dry-run` print it). Booms must never surprise: a turn whose later actions wait on
boom cards says so, with the policy in force."""

from __future__ import annotations

import copy
import re

from rm_support import give, load_truck, placed

from pbem.play.local import LocalTable
from pbem_games.road_master import GAME


def _entry(t: LocalTable, moves: list[str]) -> list[str]:
    """describe() of one entry as the engine makes it: chance first, then the turn."""
    before = copy.deepcopy(t.state)
    seat = t.to_act()
    assert seat is not None
    t.play(moves)
    return GAME.describe(before, t.state, seat)


def test_describe_a_turn_cubes_contracts_scores_and_trucks() -> None:
    t = placed(2, where="D")
    give(t.state, 0, "c12")  # 2 purple -> D, +5
    load_truck(t.state, 0, "purple", 2)
    taken = t.state["market"][0]
    lines = _entry(t, ["unload c12 purple x2", "forward 1 exit east", "contracts m1"])
    text = "\n".join(lines)
    assert "ann completes c12 at D: +5." in lines
    assert "ann's score: 0 -> 5 (+5)." in lines
    assert "ann drives forward 1 exit east: now space 11, south lane, heading east." in lines
    assert f"ann takes {taken} (" in text
    assert "Drawn before bob's next turn: the market refill and the deck's new top." in lines
    # bob's entry starts with the refill ann left: the new market card and the deck top.
    lines = _entry(t, ["load blue"])
    assert any(re.match(r"Market m1: c\d+ \(\d \w+ -> [A-F], \+\d+/-\d+", line) for line in lines)
    assert "bob loads blue at D." in lines


def test_describe_booms_never_surprise_queued_actions_and_policy() -> None:
    """RM-H5: the turn that meets a boom draw lists what waits on it and the policy; the
    next entry says what the boom cards did."""
    t = placed(2, where="F", hazardous=True)
    lines = _entry(t, ["load yellow", "forward 1 exit east", "forward 1"])
    assert ("Boom cards for ann are drawn before bob's next turn (the first right away); "
            "waiting on them: forward 1 exit east; forward 1.") in lines
    assert "ann plays policy stop: a first half boom ends the turn there." in lines
    lines = _entry(t, [])
    assert any(line.startswith(("Boom card for ann", "Half boom for ann")) for line in lines)
    pushed = placed(2, where="F", hazardous=True)
    lines = _entry(pushed, ["policy push", "load yellow", "forward 1 exit east"])
    assert any(line.startswith("ann plays policy push") for line in lines)


def test_describe_super_bonus_by_count_only() -> None:
    t = placed(2)
    lines = _entry(t, ["superbonus"])
    assert "ann draws 6 Super Bonus card(s) in secret." in lines
    _entry(t, [])
    drawn = t.state["secret"]["superbonus"]
    mine = [s for s, v in drawn["slots"].items() if v["owner"] == 0 and v["status"] == "drawn"]
    lines = _entry(t, [f"keep {mine[0]}", "bottom " + " ".join(mine[1:])])
    assert "ann keeps 1 Super Bonus card(s)." in lines
    secret_ids = set(t.state["data"]["bonus"])
    for line in lines:
        assert not set(re.findall(r"\bb\d+\b", line)) & secret_ids, line


def test_describe_emptied_warehouse_and_stall_count() -> None:
    t = placed(2, where="A")
    state = t.state
    state["removed"]["orange"] = state["houses"]["A"]["orange"] - 1
    state["houses"]["A"]["orange"] = 1
    state["quiet_rounds"] = 6
    state["round_score"] = 0
    lines = _entry(t, ["load orange"])
    assert any(line.startswith("Warehouse A is empty") for line in lines)
    lines = _entry(t, [])  # bob closes a quiet round
    assert "No score has moved for 7 round(s); the game ends at 20." in lines


def test_describe_a_boom_turn_says_the_refill_comes_after_the_draws() -> None:
    t = placed(2, where="F", hazardous=True)
    lines = _entry(t, ["load yellow", "contracts m1"])
    assert ("Drawn before bob's next turn: after them, the market refill and the deck's "
            "new top.") in lines
