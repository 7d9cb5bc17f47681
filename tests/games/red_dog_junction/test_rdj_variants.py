"""Trail Boss (RDJ-V1) and the Trailblazer solo mode with Justin (RDJ-V3..V13)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rdj_helpers import act, card_of, clean, end, new_game, put, resolve_all, to_display

from pbem import session
from pbem.errors import IllegalMoveError
from pbem.play.local import LocalTable
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from pbem_games.red_dog_junction import GAME
from pbem_games.red_dog_junction.state import card
from tests.enginekit import play_game


# ---- Trail Boss ---------------------------------------------------------------------------
def test_RDJ_V1_trail_boss_deals_a_random_commander_to_each_player() -> None:
    dealt = set()
    for seed in (b"1", b"2", b"3", b"4"):
        state = new_game(3, "trail-boss", seed=seed, first=None)
        commanders = [p["commanders"] for p in state["players"]]
        assert all(len(c) == 1 for c in commanders)
        for (ident,) in commanders:
            assert card(state, ident)["kind"] == "commander"
            assert ident not in state["deck"]
        dealt.add(tuple(c[0] for c in commanders))
        assert state["display"] == [] and state["phase"] == "pick"  # dealt after the picks
        clean(state)
    assert len(dealt) > 1


def test_RDJ_V1_every_player_picks_before_any_turn_and_before_the_display() -> None:
    """「各プレイヤーは、山札から追加の乗組員カード(ラスカルを除く)を1枚選びます。山札を
    シャッフルしてゲームを開始します」: the picks come first, in turn order, each its own
    entry; the display is dealt after the last one, by the next entry's chance."""
    state = new_game(3, "trail-boss", seed=b"picks", first=None)
    first = state["first"]
    order = [(first + k) % 3 for k in range(3)]
    assert state["phase"] == "pick" and state["current"] == first and state["turn"] == 1
    assert state["waiting"] == order and state["pending"] == []
    picks = GAME.legal_moves(state, first)
    assert {card(state, m.split()[1])["type"] for m in picks} == {
        "cowboy", "agent", "miner", "scavenger", "rustler", "outlaw"}
    assert GAME.legal_moves(state, order[1]) == []
    with pytest.raises(IllegalMoveError, match="The game has not begun: Pick your Trail Boss"):
        act(state, "undock")
    with pytest.raises(IllegalMoveError, match="not a rascal"):
        act(state, f"pick {card_of(state, 'rascal')}")
    with pytest.raises(IllegalMoveError, match="any crew card but a rascal"):
        act(state, "pick rascal")
    with pytest.raises(IllegalMoveError, match="not a rascal"):
        act(state, f"pick {card_of(state, 'navigator')}")  # a commander is no crew card
    with pytest.raises(IllegalMoveError, match="It is .*'s set-up choice"):
        act(state, "pick miner", seat=order[1])
    with pytest.raises(IllegalMoveError, match="Pick your Trail Boss crew card"):
        GAME.end_turn(state, first)
    picked = []
    for seat, ctype in zip(order, ("outlaw", "miner", "outlaw"), strict=True):
        ident = card_of(state, ctype)
        assert act(state, f"pick {ctype}") == [f"pick {ident}"]  # a type picks its first card
        picked.append(ident)
        assert ident in state["players"][seat]["crew"] and ident not in state["deck"]
        with pytest.raises(IllegalMoveError, match="Your set-up choice is made"):
            act(state, "pass")
        assert GAME.legal_moves(state, seat) == [] and GAME.can_end_turn(state, seat)
        assert state["display"] == []
        GAME.end_turn(state, seat)
    assert state["phase"] == "play" and state["current"] == first and state["turn"] == 1
    assert [r["kind"] for r in state["pending"]] == ["deal"] and state["display"] == []
    resolve_all(state)
    assert len(state["display"]) == 6 and not set(picked) & set(state["display"])
    assert all(len(p["crew"]) == 7 and not p["owes_pick"] for p in state["players"])
    with pytest.raises(IllegalMoveError, match="Only a Trail Boss player picks a crew card, "
                                               "once, during set-up"):
        act(state, "pick miner")
    act(state, "pass", "pass")
    end(state)
    assert state["current"] == order[1]
    clean(state)


def test_RDJ_V1_the_view_shows_the_crew_types_to_pick() -> None:
    state = new_game(2, "trail-boss", seed=b"view", first=None)
    shown = GAME.view(state, None)
    assert shown["phase"] == "pick" and shown["to_act"] == state["seats"][state["first"]]
    assert shown["pickable"] == {"cowboy": 4, "agent": 4, "miner": 4, "scavenger": 3,
                                 "rustler": 3, "outlaw": 3}
    assert "Pick your Trail Boss crew card" in shown["owed"]
    text = GAME.render(shown)
    assert "Trail Boss set-up" in text
    assert "crew you may pick: cowboy x4, agent x4, miner x4, scavenger x3, rustler x3, " \
           "outlaw x3 (not a rascal)" in text
    act(state, "pick agent")
    GAME.end_turn(state, state["current"])
    assert GAME.view(state, None)["pickable"]["agent"] == 3


def test_RDJ_V1_trail_boss_through_a_local_table() -> None:
    table = LocalTable(GAME, ["ann", "bob", "cy"], {"variant": "trail-boss"}, seed=b"tb")
    first = table.to_act()
    for _ in range(3):
        assert table.state["phase"] == "pick" and table.state["display"] == []
        pick = table.legal_moves()[0]
        assert table.play([pick]) == [pick]
    assert all(not p["owes_pick"] for p in table.state["players"])
    assert all(len(p["crew"]) == 7 for p in table.state["players"])
    assert table.to_act() == first
    table.play(["pass", "pass"])
    assert len(table.state["display"]) == 6


def test_RDJ_V1_trail_boss_solo_the_human_picks_then_plays() -> None:
    table = LocalTable(GAME, ["ann"], {"variant": "trail-boss"}, seed=b"tb-solo")
    assert table.state["phase"] == "pick" and table.state["justin"]["stack"][-1] == \
        "p2-scavenger"
    table.play(["pick rustler"])
    assert table.state["phase"] == "play" and len(table.state["display"]) == 6
    assert len(table.state["justin"]["stack"]) == 6  # Justin has not played yet
    table.play(["pass", "pass", "pass"])
    assert len(table.state["justin"]["stack"]) + sum(
        card(table.state, c)["kind"] == "boost" for c in table.state["discard"]) == 7


def test_RDJ_V1_trail_boss_picks_are_signed_entries(tmp_path: Path) -> None:
    """Through the engine: after the start entry each player in turn order signs one
    entry holding only their pick; the display appears in the first turn's save."""
    homes = {}
    for handle in ("ann", "bob", "cy"):
        homes[handle] = Home(tmp_path / handle)
        homes[handle].keygen(handle)
    paths = play_game(homes, tmp_path / "saves", game="red-dog-junction",
                      options=["variant=trail-boss"], bot="greedy", stop_after=8)
    saves = [savefile.read(p) for p in paths]
    entries = saves[-1].entries
    assert [e["kind"] for e in entries] == ["create", "join", "join", "start", "turn", "turn",
                                            "turn", "turn"]
    view = saves[3].state["view"]
    first = view["to_act"]
    handles = ["ann", "bob", "cy"]
    order = [handles[(handles.index(first) + k) % 3] for k in range(3)]
    assert [e["seat"] for e in entries[4:7]] == order
    assert all(len(e["moves"]) == 1 and e["moves"][0].startswith("pick ") for e in entries[4:7])
    assert all(s.state["view"]["display"] == [] for s in saves[3:7])
    assert saves[6].state["view"]["pending"] and saves[6].state["view"]["phase"] == "play"
    assert len(saves[7].state["view"]["display"]) == 6 and entries[7]["seat"] == first
    final = session.verify(saves[-1], Home(tmp_path / "auditor"), full=True)
    assert final.report.table.gstate["phase"] == "play"


# ---- Trailblazer (solo) ---------------------------------------------------------------------
def solo(last: str | None = None, seed: bytes = b"solo") -> dict:
    """A solo game; ``last`` (a card id) is put at the far end of the display."""
    state = new_game(1, seed=seed)
    if last:
        to_display(state, last, last=True)
    return state


def human_turn(state: dict, *moves: str) -> None:
    act(state, *(moves or ("pass", "pass", "pass")))
    end(state)


def test_RDJ_V3_solo_player_one_has_three_actions_justin_is_not_a_seat() -> None:
    state = solo("cowboy-1")
    assert state["seats"] == ["ann"] and state["current"] == 0 and state["first"] == 0
    assert state["justin"]["at"] == "home" and state["justin"]["storage"]["gold"] == 1
    act(state, "pass", "pass")
    with pytest.raises(IllegalMoveError, match="3 actions required, 2 taken"):
        GAME.end_turn(state, 0)
    act(state, "pass")
    with pytest.raises(IllegalMoveError, match="taken all 3 actions"):
        act(state, "pass")
    GAME.end_turn(state, 0)
    assert [r["kind"] for r in state["pending"]] == ["solo"]
    resolve_all(state)
    assert GAME.to_act(state) == 0 and len(state["justin"]["stack"]) == 7
    clean(state)


def test_RDJ_V3_justins_capacity_is_always_twelve() -> None:
    rascal = "rascal-1"
    state = solo(rascal)
    put(state, "justin", "ship", scrap=6, ruby=2)
    human_turn(state)  # his rascal takes an 8-gold deal: 16 goods on board
    ship = state["justin"]["ship"]
    assert sum(ship.values()) == 12
    assert ship["gold"] == 8 and ship["ruby"] == 2 and ship["scrap"] == 2  # scrap went first
    clean(state)


def test_RDJ_V4_justin_takes_the_last_display_card_onto_his_stack() -> None:
    cowboy = "cowboy-1"
    state = solo(cowboy)
    first_card = state["display"][0]
    human_turn(state)
    assert state["justin"]["stack"][-1] == cowboy
    assert len(state["display"]) == 6 and state["display"][1] == first_card  # refilled in front
    assert any("Justin took cowboy-1" in e for e in state["last"])
    view = GAME.view(state, 0)
    assert view["justin"]["top"] == cowboy and view["justin"]["next"] == state["display"][-1]


def test_RDJ_V5_justins_boost_is_one_bank_gold_to_his_home() -> None:
    state = solo("windfall")
    gold = state["justin"]["storage"]["gold"]
    human_turn(state)
    assert state["justin"]["storage"]["gold"] == gold + 1
    assert "windfall" in state["discard"] and "windfall" not in state["justin"]["stack"]
    clean(state)


def test_RDJ_V6_justins_cowboy_goes_home_and_unloads() -> None:
    state = solo("cowboy-2")
    state["justin"]["at"] = "junction 2"
    put(state, "justin", "ship", gold=3, gas=2)
    human_turn(state)
    me = state["justin"]
    assert me["at"] == "home" and sum(me["ship"].values()) == 0
    assert me["storage"]["gold"] == 4 and me["storage"]["gas"] == 2


def test_RDJ_V7_justins_scavenger_salvages_three_by_priority() -> None:
    state = solo("scavenger-1")
    for good in ("whiskey", "ruby", "gold"):
        supply = state["bank"] if good in ("gold", "whiskey") else state["planets"]
        supply[good] -= 1
        state["space"][good] += 1
    human_turn(state)
    me = state["justin"]
    assert me["at"] == "space"
    assert {g: n for g, n in me["ship"].items() if n} == {"gold": 1, "whiskey": 1, "ruby": 1}
    clean(state)


def test_RDJ_V7_justins_scavenger_falls_back_to_scrap() -> None:
    state = solo("scavenger-1")
    human_turn(state)
    assert state["justin"]["ship"]["scrap"] == 3


def test_RDJ_V8_justins_agent_trades_all_for_gold_player_one_names_the_dock() -> None:
    state = solo("agent-1")
    state["players"][0]["at"] = "junction 3"
    put(state, "justin", "ship", scrap=2, ruby=1, gold=1)
    bank = state["bank"]["gold"]
    human_turn(state)
    me = state["justin"]
    assert me["ship"]["gold"] == 4 and me["ship"]["scrap"] == 0 and me["ship"]["ruby"] == 0
    assert state["bank"]["gold"] == bank - 3
    assert me["awaiting"] == "junction" and me["at"] == "space"
    moves = GAME.legal_moves(state, 0)
    assert moves == [f"justin dock junction {n}" for n in (1, 2, 4, 5, 6)]
    with pytest.raises(IllegalMoveError, match="First name Justin's dock"):
        act(state, "pass")
    with pytest.raises(IllegalMoveError, match="Junction dock 3's dock is taken by your ship"):
        act(state, "justin dock junction 3")
    with pytest.raises(IllegalMoveError, match="name a Junction dock"):
        act(state, "justin dock gas")
    assert act(state, "justin junction 5") == ["justin dock junction 5"]
    assert me["at"] == "junction 5" and not me["awaiting"] and state["ts"]["actions"] == 0
    clean(state)


def test_RDJ_V9_justins_miner_mines_three_at_a_free_planet_player_one_names() -> None:
    state = solo("miner-1")
    state["players"][0]["at"] = "ruby"
    human_turn(state)
    assert GAME.legal_moves(state, 0) == ["justin dock gas", "justin dock ice",
                                          "justin dock oxygen"]
    with pytest.raises(IllegalMoveError, match="the ruby planet's dock is taken by your ship"):
        act(state, "justin dock ruby")
    act(state, "justin dock ice")
    me = state["justin"]
    assert me["at"] == "ice" and me["ship"]["ice"] == 3
    act(state, "pass", "pass", "pass")
    end(state)
    clean(state)


def test_RDJ_V10_justins_rustler_sends_both_ships_to_space() -> None:
    state = solo("rustler-1")
    state["players"][0]["at"] = "gas"
    human_turn(state)
    assert state["players"][0]["at"] == "space" and state["justin"]["at"] == "space"


def test_RDJ_V11_justins_outlaw_swaps_up_to_six_for_his_greatest_gain() -> None:
    state = solo("outlaw-1")
    put(state, "justin", "ship", scrap=7, gold=1)
    put(state, 0, "ship", gold=1, ice=1, scrap=1)
    human_turn(state)
    me, human = state["justin"]["ship"], state["players"][0]["ship"]
    # He gives scrap (what he values least) for gold and ice; scrap for scrap gains nothing.
    assert me["gold"] == 2 and me["ice"] == 1 and me["scrap"] == 5
    assert human["scrap"] == 3 and human["gold"] == 0 and human["ice"] == 0
    assert state["players"][0]["at"] == "space" and state["justin"]["at"] == "space"
    clean(state)


def test_RDJ_V11_justins_outlaw_swaps_at_most_six() -> None:
    state = solo("outlaw-1")
    put(state, "justin", "ship", scrap=8)
    put(state, 0, "storage", gold=8)
    act(state, "load gold x8", "pass", "pass", "jettison gold x5")
    end(state)
    assert state["justin"]["ship"]["gold"] == 3  # the human kept only 3 aboard
    state2 = solo("outlaw-1")
    state2["players"][0]["crew"] += ["cowboy-1", "cowboy-2", "cowboy-3", "cowboy-4", "rascal-1"]
    for c in ("cowboy-1", "cowboy-2", "cowboy-3", "cowboy-4", "rascal-1"):
        state2["deck"].remove(c) if c in state2["deck"] else state2["display"].remove(c)
    put(state2, "justin", "ship", scrap=8)
    put(state2, 0, "ship", gold=8)
    act(state2, "rascal cowboy", "pass", "pass", "pass")
    end(state2)
    assert state2["justin"]["ship"]["gold"] == 6 and state2["players"][0]["ship"]["gold"] == 2


def test_RDJ_V11_justins_outlaw_treats_mined_goods_as_one_class() -> None:
    """His priority is gold, whiskey, mined goods, scrap: one mined good is worth another
    to him, so he never swaps oxygen for gas; scrap for a mined good still gains."""
    state = solo("outlaw-1")
    put(state, "justin", "ship", oxygen=2, scrap=1)
    put(state, 0, "ship", gas=3)
    human_turn(state)
    me, human = state["justin"]["ship"], state["players"][0]["ship"]
    assert me["oxygen"] == 2 and me["gas"] == 1 and me["scrap"] == 0
    assert human["gas"] == 2 and human["scrap"] == 1 and human["oxygen"] == 0
    assert any("swapping his scrap for ann's gas" in line for line in state["last"])
    clean(state)


def test_RDJ_V12_justins_rascal_takes_an_eight_gold_deal_at_the_shop() -> None:
    state = solo("rascal-2")
    tile = state["stacks"]["8"][0]
    human_turn(state)
    me = state["justin"]
    assert me["at"] == "shop" and me["deals"] == [tile] and me["ship"]["gold"] == 8
    assert tile not in state["stacks"]["8"]
    clean(state)


def test_RDJ_V12_justin_still_deals_when_the_shop_dock_is_taken() -> None:
    state = solo("rascal-2")
    state["players"][0]["at"] = "shop"
    human_turn(state)
    assert state["justin"]["at"] == "space" and len(state["justin"]["deals"]) == 1


def test_RDJ_V13_the_solo_game_is_scored_as_usual() -> None:
    state = solo()
    state["justin"]["stack"].append(state["deck"].pop(state["deck"].index("mayor")))
    state["justin"]["deals"].append(state["stacks"]["6"].pop(0))
    state["phase"] = "over"
    state["end"]["reason"] = "gold"
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.scores == {0: 1}
    assert any("Justin (the automaton) scored 7 (gold 1, crew 0, commanders 5, super deals 1)"
               in note and "Justin wins" in note for note in outcome.notes)


def test_solo_gold_trigger_counts_justin_as_player_two() -> None:
    state = solo("windfall")
    put(state, 0, "storage", gold=state["bank"]["gold"] - 1)
    human_turn(state)  # Justin's boost takes the bank's last gold in his turn
    assert state["end"]["gold_fired"]
    justin_turn = state["turn"] - 1
    assert state["end"]["end_after"] == justin_turn + 4
    turns = 0
    while GAME.to_act(state) is not None:
        human_turn(state)
        turns += 1
    assert turns == 2  # the human's two, Justin's two in between and last


def test_solo_game_ends_when_justin_waits_for_a_dock() -> None:
    state = solo("miner-2")
    state["end"].update(gold_fired=True, end_after=state["turn"] + 1)
    human_turn(state)
    assert GAME.to_act(state) is None
    assert state["justin"]["at"] == "gas" and state["justin"]["awaiting"] == ""
    clean(state)


def test_solo_justin_commander_only_joins_his_stack() -> None:
    state = solo("sheriff")
    where = state["justin"]["at"]
    human_turn(state)
    assert state["justin"]["stack"][-1] == "sheriff" and state["justin"]["at"] == where


def test_solo_through_a_local_table() -> None:
    table = LocalTable(GAME, ["ann"], seed=b"solo-table")
    for _ in range(6):
        moves = table.legal_moves()
        if moves and moves[0].startswith("justin"):
            table.play([moves[0], "pass", "pass", "pass"])
        else:
            table.play(["pass", "pass", "pass"])
        assert table.state["pending"] == []  # solo chance resolves at once
        assert len(table.state["display"]) == 6
    assert len(table.state["justin"]["stack"]) == 6 + 6 - sum(
        1 for c in table.state["discard"] if card(table.state, c)["kind"] == "boost")
