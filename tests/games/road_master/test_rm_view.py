"""What a player must see (`show`, text and JSON): every public fact, so nobody has to
work one out from the log: the Super Bonus deck, the end and the last round, who played
first, the emptied warehouses, the boom policy, the stall count."""

from __future__ import annotations

import copy

from rm_support import apply_all, placed

from pbem_games.road_master import GAME


def test_view_shows_the_super_bonus_deck_size() -> None:
    t = placed(3)
    view = t.view(None)
    assert view["superbonus"]["deck"] == 18
    assert "Super Bonus deck: 18 card(s)." in GAME.render(view)
    t.play(["superbonus"])
    assert "Super Bonus deck: 12 card(s)." in GAME.render(t.view(None))


def test_RM_G2_view_shows_the_end_is_triggered_and_this_is_the_last_round() -> None:
    """RM-G1/G2: once a score reaches the target the round under way is the last."""
    t = placed(3)
    view = t.view(None)
    assert view["end"] == {"triggered": False, "last_round": False, "last_to_play": 2}
    t.state["scores"][1] = 45
    view = t.view(None)
    assert view["end"]["triggered"] and view["end"]["last_round"]
    text = GAME.render(view)
    assert ("The end is triggered: bob has 45 of 45 points. This is the last round; it ends "
            "after cy's turn.") in text


def test_RM_G1_RM_G2_the_end_stays_triggered_once_the_game_is_over() -> None:
    """RM-G1/G2: a score reached the target and the round came round: the game is over.
    The view still says the end was triggered (it said triggered: false once over), and
    no longer that this is the last round."""
    t = placed(3)
    t.state["scores"][1] = 45
    for _ in range(3):
        t.play([])
    assert t.state["ended"] and t.to_act() is None
    view = t.view(None)
    assert view["end"]["triggered"] and not view["end"]["last_round"]
    text = GAME.render(view)
    assert "The game is over." in text and "last round" not in text


def test_RM_S9_view_shows_who_played_first() -> None:
    t = placed(3, first="bob")
    view = t.view(None)
    assert view["first"] == 1 and "bob played first." in GAME.render(view)


def test_RM_A8_view_marks_emptied_warehouses() -> None:
    t = placed(2, where="A")
    state = t.state
    state["removed"]["orange"] = state["houses"]["A"]["orange"] - 1
    state["houses"]["A"]["orange"] = 1
    t.play(["load orange"])
    view = t.view(None)
    assert view["emptied"] == ["A"]
    assert "(emptied: its contracts left the game)" in GAME.render(view)


def test_RM_H5_show_gives_the_boom_policy_while_composing() -> None:
    """RM-H5: the policy in force is in the view and the text, before and after it is set."""
    t = placed(2, where="F", hazardous=True)
    view = t.view(0)
    assert view["turn"]["policy"] == "stop"
    assert "Boom policy from here on: stop (the default)" in GAME.render(view)
    state = copy.deepcopy(t.state)
    apply_all(state, 0, ["load yellow", "policy push", "forward 1 exit east"])
    view = GAME.view(state, 0)
    text = GAME.render(view)
    assert view["turn"]["policy"] == "push" and "Boom policy from here on: push" in text
    assert "queued: forward 1 exit east" in text
    basic = placed(2)
    assert "Boom policy" not in GAME.render(basic.view(0))


def test_RM_X1_view_shows_the_stall_count() -> None:
    """RM-X1: the count of quiet rounds is shown with the limit."""
    t = placed(2)
    t.state["quiet_rounds"] = 7
    view = t.view(None)
    assert view["stall"] == {"quiet_rounds": 7, "ends_at": 20, "quiet_rounds_deck_spent": 0,
                             "ends_at_deck_spent": 10}
    assert "No score has moved for 7 round(s); the game ends at 20." in GAME.render(view)
    t.state["gone"] += t.state["deck"]
    t.state["deck"], t.state["deck_top"] = [], ""
    t.state["quiet_empty"] = 3
    assert ("the game ends at 20, or at 10 with the contract deck spent (3 so far)."
            in GAME.render(t.view(None)))


def test_rm_a8_show_lists_the_contracts_out_of_the_game() -> None:
    """RM-A8/RM-A7: the cards out of the game are public (a shortage is played face up,
    an emptied warehouse's contracts are picked out in the open): `show` lists which, in
    JSON and text, not only how many."""
    from rm_support import give

    t = placed(2, where="B")
    state = t.state
    cards = state["data"]["cards"]
    shortage = next(u for u, c in cards.items() if c["kind"] == "shortage" and u in state["deck"])
    purple = [u for u in state["deck"] if cards[u].get("colour") == "purple"][:2]
    state["deck"] = [u for u in state["deck"] if u not in purple and u != shortage]
    state["gone"] = [shortage, *purple]  # (the view only: the cards set-up put out are dropped)
    view = GAME.view(state, None)
    assert view["gone"] == 3
    rows = view["gone_cards"]
    assert rows[0] == {"id": shortage, "kind": "shortage", "warehouse": cards[shortage]["warehouse"]}
    assert [r["id"] for r in rows[1:]] == purple and all(r["colour"] == "purple" for r in rows[1:])
    text = GAME.render(view)
    assert "Out of the game (3 card(s)):" in text
    assert f"  shortages: {shortage} (at {cards[shortage]['warehouse']})" in text
    first = cards[purple[0]]
    assert (f"purple contracts (B emptied): {purple[0]} {first['count']} -> {first['to']} "
            f"+{first['points']}/-{first['penalty']}") in text
    give(state, 0, state["deck"][0])  # nothing else changes the list
    assert GAME.view(state, None)["gone_cards"] == rows


def test_rm_a8_a_card_out_of_the_game_that_may_be_the_blind_card_is_marked() -> None:
    """RM-A4 with RM-A8: ann takes the deck's top (a purple back) unseen, then empties B:
    the purple contracts leave the deck, but the card she took is drawn with the next
    beacon from the deck as it was, so each of them may yet be hers: `show` says so."""
    from rm_support import apply_all

    t = placed(2, where="B")
    state = t.state
    state["houses"]["B"] = {"purple": 1}
    state["removed"]["purple"] = state["removed"].get("purple", 0) + 14
    state["deck_top"] = "purple"
    in_deck = [u for u in state["deck"] if state["data"]["cards"][u].get("colour") == "purple"]
    apply_all(state, 0, ["contracts top", "load purple"])
    rows = GAME.view(state, None)["gone_cards"]
    assert sorted(r["id"] for r in rows if r.get("maybe_taken")) == sorted(in_deck)
    market = [r for r in rows if r.get("colour") == "purple" and r["id"] not in in_deck]
    assert market and not [r for r in market if r.get("maybe_taken")]  # seen in the market
    assert "may yet be the card taken blind from the deck's top" in GAME.render(GAME.view(state, None))
