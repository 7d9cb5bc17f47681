"""End of the game and final scoring: RM-G1..G8, and the undelivered-contract example."""

from __future__ import annotations

import json

import pytest
from rm_support import fill, give, load_truck, placed

from pbem.errors import TurnError
from pbem.game import Outcome
from pbem_games.road_master import GAME


def _finish(t) -> Outcome:
    for _ in range(20):
        t.prepare()
        if t.to_act() is None:
            break
        t.play([])
    out = t.finish()
    assert out is not None
    return out


@pytest.mark.parametrize(("players", "target"), [(2, 50), (3, 45), (4, 40), (5, 35), (6, 30)])
def test_RM_G1_end_target_by_player_count(players: int, target: int) -> None:
    """RM-G1: the end is triggered at 50/45/40/35/30 points for 2/3/4/5/6 players."""
    t = placed(players)
    assert t.state["data"]["target"] == target
    t.state["scores"][0] = target - 1
    for _ in range(players):
        t.play([])
    assert t.to_act() == 0  # one point short: play goes on
    t.state["scores"][0] = target
    for _ in range(players):
        t.play([])
    assert t.to_act() is None


def test_RM_G2_the_round_is_completed_after_the_trigger() -> None:
    """RM-G2: when ann (first) reaches the target, bob and cy still play; then it ends."""
    t = placed(3)
    give(t.state, 0, "c11")
    load_truck(t.state, 0, "purple", 1)
    t.state["scores"][0] = 44
    t.state["trucks"][0].update(where="A")
    t.play(["unload c11 purple"])  # +2: 46, past 45
    assert t.state["scores"][0] == 46 and not t.state["ended"]
    assert t.to_act() == 1
    t.play([])
    assert t.to_act() == 2
    t.play([])
    assert t.to_act() is None
    with pytest.raises(TurnError):
        t.play([])
    assert t.state["turn_no"] % 3 == 0


def test_RM_G2_last_player_reaching_target_ends_at_once() -> None:
    """RM-G2: if the last seat of a round triggers the end, nobody plays again."""
    t = placed(3)
    t.play([])
    t.play([])
    t.state["scores"][2] = 45
    t.play([])
    assert t.to_act() is None


def test_RM_G3_worked_example_undelivered_contract_costs_its_penalty() -> None:
    """RM-G3, the rulebook's example card: undelivered, 2 orange to D loses 2 points;
    a part-filled contract loses its full penalty too; scores may go below zero."""
    t = placed(2)
    state = t.state
    give(state, 0, "c2")  # 2 orange -> D, +7 / -2
    give(state, 1, "c12")  # 2 purple -> D, +5 / -1
    fill(state, 1, "c12", 1)  # part-filled
    state["scores"][1] = 50
    out = _finish(t)
    assert out.breakdown[0] == {"contracts": 0, "penalties": -2, "super bonus": 0}
    assert out.scores[0] == -2
    assert out.breakdown[1]["penalties"] == -1 and out.scores[1] == 49


def test_RM_G4_super_bonus_scored_from_cubes_on_contracts() -> None:
    """RM-G4: held cards are revealed and met from cubes on the owner's contracts."""
    t = placed(2)
    t.play(["superbonus"])
    t.play([])
    t.prepare()
    drawn = list(GAME.legal_moves(t.state, 0))
    from pbem.protocol.crypto import secretdeck

    slots = secretdeck.drawn(t.state, "superbonus", 0)
    assert drawn
    t.play([f"keep {slots[0]}", "bottom " + " ".join(slots[1:])])
    uid = t.state["secret"]["superbonus"]["slots"][slots[0]]["card"]  # test-only peek
    need = t.state["data"]["bonus"][uid]["need"]
    t.state["data"] = json.loads(json.dumps(t.state["data"]))  # a writable copy, to add cards
    for colour, n in need.items():  # deliver exactly what the card asks, on partial contracts
        letter = next(k for k, h in t.state["data"]["houses"].items() if h["colour"] == colour)
        dest = next(k for k in "ABCDEF" if k != letter)
        fake = {"kind": "basic", "colour": colour, "count": n + 1, "to": dest, "points": 1, "penalty": 0}
        t.state["data"]["cards"][f"z{len(t.state['data']['cards'])}"] = fake
        cid = f"z{len(t.state['data']['cards']) - 1}"
        t.state["deck"].append(cid)
        give(t.state, 0, cid)
        fill(t.state, 0, cid, n)
    t.state["scores"][1] = 99
    out = _finish(t)
    card = t.state["data"]["bonus"][uid]
    assert out.breakdown[0]["super bonus"] == card["points"]
    assert f"ann's Super Bonus {uid} met: +{card['points']}" in out.notes


def test_RM_G5_cubes_left_on_a_truck_score_nothing() -> None:
    """RM-G5: cubes aboard at the end are worth nothing (not even for Super Bonuses)."""
    t = placed(2)
    load_truck(t.state, 0, "purple", 5)
    t.state["scores"][1] = 50
    out = _finish(t)
    assert out.scores[0] == 0 and out.breakdown[0] == {"contracts": 0, "penalties": 0, "super bonus": 0}


def test_RM_G6_highest_final_score_wins() -> None:
    """RM-G6: the ranking follows final scores (after penalties)."""
    t = placed(3)
    t.state["scores"][:] = [40, 47, 45]
    give(t.state, 1, "c5")  # bob loses 4 for an undelivered contract: 43
    out = _finish(t)
    assert out.ranking == [[2], [1], [0]]
    assert out.scores == {0: 40, 1: 43, 2: 45}


def _tied(t, completed: dict[int, list[str]]) -> Outcome:
    for seat, uids in completed.items():
        for uid in uids:
            give(t.state, seat, uid)
            fill(t.state, seat, uid, t.state["data"]["cards"][uid]["count"])
    return _finish(t)


def test_RM_G7_tie_goes_to_more_completed_contracts() -> None:
    """RM-G7: equal scores: more completed contracts wins."""
    t = placed(2)
    t.state["scores"][:] = [46, 45]
    # ann completes c11 and c16 (2 points each), bob completes c24 (5 points): 50 each.
    out = _tied(t, {0: ["c11", "c16"], 1: ["c24"]})
    assert out.scores == {0: 50, 1: 50}
    assert out.ranking == [[0], [1]]
    assert out.tiebreaks[0][0] == 2 and out.tiebreaks[1][0] == 1


def test_RM_G8_then_the_single_most_valuable_contract_then_shared() -> None:
    """RM-G8: still tied: the most valuable completed contract; still tied: a shared place."""
    t = placed(2)
    t.state["scores"][:] = [42, 43]
    out = _tied(t, {0: ["c24", "c21"], 1: ["c26", "c22"]})  # ann 5+3, bob 2+4: no tie
    assert out.scores == {0: 50, 1: 49}
    t2 = placed(2)
    t2.state["scores"][:] = [42, 42]
    out2 = _tied(t2, {0: ["c24", "c21"], 1: ["c28", "c29"]})  # 5+3 vs 6+2: bob's 6 beats 5
    assert out2.scores == {0: 50, 1: 50}
    assert out2.ranking == [[1], [0]]
    t3 = placed(2)
    t3.state["scores"][:] = [45, 45]
    out3 = _tied(t3, {0: ["c24"], 1: ["c14"]})  # 5 each, one contract each
    assert out3.ranking == [[0, 1]]
    assert out3.tiebreak_names == ["completed contracts", "most valuable completed contract"]
