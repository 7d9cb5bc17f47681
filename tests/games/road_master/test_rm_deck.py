"""The contract deck's top card shows its back, the colour of its cubes (RM-A4: the ten
on offer are the nine in the market and the top of the deck), and a blind take takes
exactly that card. A shortage card's back is the colour of the warehouse it names."""

from __future__ import annotations

import copy
from collections.abc import Callable
from fractions import Fraction

from rm_support import NAMES, Script, apply_all, placed

from pbem.play.local import LocalTable
from pbem_games.road_master import GAME, model


def test_RM_A4_the_deck_top_shows_its_back_colour_in_the_view_and_the_text() -> None:
    """RM-A4: everyone sees the colour on the back of the deck's top card."""
    t = placed(2)
    view = t.view(None)
    colours = t.state["data"]["colours"]
    assert view["contract_deck_top"] in colours
    assert f"the top card's back is {view['contract_deck_top']}" in GAME.render(view)
    empty = copy.deepcopy(t.state)
    empty["gone"] += empty["deck"]
    empty["deck"] = []
    empty["deck_top"] = ""
    view = GAME.view(empty, None)
    assert "contract_deck_top" not in view and "top card" not in GAME.render(view)


def test_RM_A4_a_blind_take_takes_the_card_whose_back_showed() -> None:
    """RM-A4: `contracts top` takes the card whose back everyone saw, whatever the seed;
    the next top's back shows once the next player has opened the save."""
    for seed in range(24):
        t = LocalTable(GAME, NAMES[:2], {"first": "ann", "shortages": False},
                       seed=b"top-%d" % seed)
        t.play(["place A"])
        t.play(["place A"])
        t.prepare()
        shown = t.view(None)["contract_deck_top"]
        t.play(["contracts top"])
        assert "contract_deck_top" not in t.view(None)  # the new top is not turned yet
        t.prepare()
        taken = t.state["contracts"][0][-1]["id"]
        assert t.state["data"]["cards"][taken]["colour"] == shown, seed
        assert t.view(None)["contract_deck_top"] in t.state["data"]["colours"]
        assert GAME.invariants(t.state) == []


def test_RM_A4_a_shortage_shows_the_colour_of_its_warehouse() -> None:
    """Ruling: a shortage card's back is the colour of the warehouse it names."""
    cards = placed(2).state["data"]["cards"]
    houses = placed(2).state["data"]["houses"]
    shortages = [c for c in cards.values() if c["kind"] == "shortage"]
    assert len(shortages) == 6
    assert all(c["back"] == houses[c["warehouse"]]["colour"] for c in shortages)
    assert all(c["back"] == c["colour"] for c in cards.values() if c["kind"] != "shortage")


def _outcomes(run: Callable[[Script], object]) -> dict[object, Fraction]:
    """Every outcome of ``run`` over all answers its randbelow calls can get, with its
    probability (a depth-first walk of the answer tree)."""
    found: dict[object, Fraction] = {}
    stack: list[list[int]] = [[]]
    while stack:
        prefix = stack.pop()
        script = Script(list(prefix))
        result = run(script)
        if len(script.asked) > len(prefix):  # a call past the prefix got the default 0
            for answer in range(1, script.asked[len(prefix)]):
                stack.append(prefix + [answer])
            stack.append(prefix + [0])
            continue
        p = Fraction(1)
        for n in script.asked:
            p /= n
        found[result] = found.get(result, Fraction(0)) + p
    return found


def test_RM_A4_showing_the_back_first_still_draws_a_uniform_card() -> None:
    """The draw picks the top's back by how many cards show it, then a card of that back:
    every card is equally likely, as from a shuffled pile, and so is the next top."""
    state = placed(2).state
    cards = state["data"]["cards"]
    orange = [u for u in state["deck"] + state["market"] if cards[u].get("colour") == "orange"][:2]
    green = [u for u in state["deck"] + state["market"] if cards[u].get("colour") == "green"][:1]
    state["deck"] = orange + green
    state["deck_top"] = ""

    def run(script: Script) -> object:
        trial = copy.deepcopy(state)
        drawn = model.draw_contract(trial, script)
        return drawn, trial["deck_top"]

    outcomes = _outcomes(run)
    by_card: dict[str, Fraction] = {}
    for (drawn, _), p in outcomes.items():
        by_card[drawn] = by_card.get(drawn, Fraction(0)) + p
    assert by_card == {u: Fraction(1, 3) for u in orange + green}
    # After an orange card is drawn, the next top is orange or green with equal chance.
    assert outcomes[(orange[0], "green")] == outcomes[(orange[0], "orange")] == Fraction(1, 6)


def test_RM_A4_a_card_taken_blind_stays_taken_when_its_colour_leaves_the_deck() -> None:
    """RM-A4 with RM-A8: ann takes the top (orange back), then empties warehouse A, so the
    orange contracts leave the deck; the card she took is one of them and she keeps it."""
    t = placed(2, where="A", shortages=False)
    state = t.state
    cards = state["data"]["cards"]
    orange = [u for u in state["deck"] if cards[u]["back"] == "orange"]
    state["deck_top"] = "orange"
    state["removed"]["orange"] = state["houses"]["A"]["orange"] - 2
    state["houses"]["A"]["orange"] = 2
    t.play(["contracts top", "load orange x2"])
    assert "A" in t.state["emptied"]
    t.prepare()
    taken = t.state["contracts"][0][-1]["id"]
    assert taken in orange and cards[taken]["colour"] == "orange"
    assert taken not in t.state["gone"] and taken not in t.state["deck"]
    assert not [u for u in t.state["deck"] if cards[u].get("colour") == "orange"]
    assert GAME.invariants(t.state) == []


def test_RM_A8_the_top_goes_with_its_colour_and_the_next_beacon_turns_a_new_one() -> None:
    """RM-A8: when a warehouse empties and its colour's contracts leave the deck, a top
    of that colour goes with them; a top of another colour stays."""
    t = placed(2, where="A")
    state = t.state
    state["removed"]["orange"] = state["houses"]["A"]["orange"] - 1
    state["houses"]["A"]["orange"] = 1
    for top, stays in (("orange", False), ("green", True)):
        trial = copy.deepcopy(state)
        trial["deck_top"] = top
        apply_all(trial, 0, ["load orange"])
        assert (trial["deck_top"] == top) is stays
        GAME.end_turn(trial, 0)
        if not stays:
            assert "refill" in [p["kind"] for p in trial["pending"]]
