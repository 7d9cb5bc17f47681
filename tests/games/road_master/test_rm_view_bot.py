"""Views, the text picture, and the greedy bot's heuristic."""

from __future__ import annotations

import copy

import pytest
from rm_support import give, load_truck, placed

from pbem.play.bots import choose_turn
from pbem_games.road_master import GAME


def test_render_shows_the_public_facts() -> None:
    t = placed(3, where="C")
    give(t.state, 1, "c12")
    load_truck(t.state, 0, "green", 2)
    t.play(["forward 2 exit east"])
    text = GAME.render(t.view(None))
    assert "Road Master, round 2" in text and "bob to act" in text
    assert "C green" in text and "m9" in text and "c12" in text
    assert "carrying green x2" in text and "1>" in text  # ann's truck on the road, heading east
    assert "Super Bonus held 0" in text
    assert all(len(line) <= 110 for line in text.splitlines())


def test_public_view_is_plain_data_without_private_part() -> None:
    t = placed(2)
    t.play(["superbonus"])
    public = t.view(None)
    assert "private" not in public
    assert public["superbonus"] == {"deck": 12, "held": [0, 0], "drawn": [6, 0]}
    mine = t.view(0)
    assert len(mine["private"]["superbonus"]) == 6
    text = GAME.render(mine)
    assert "Your Super Bonus cards" in text


def test_heuristic_prefers_delivering() -> None:
    t = placed(2, where="D")
    give(t.state, 0, "c12")
    load_truck(t.state, 0, "purple", 2)
    state = t.state
    base = GAME.heuristic(state, 0)
    delivered = copy.deepcopy(state)
    GAME.apply(delivered, 0, "unload c12 purple x2")
    assert GAME.heuristic(delivered, 0) > base
    assert "dump purple x2" not in GAME.legal_moves(state, 0)  # c12 needs them (RM-A16)


def test_greedy_takes_contracts_and_drives_to_them() -> None:
    t = placed(2, where="A")
    moves = choose_turn(GAME, t.state, 0, "greedy", salt="1")
    assert any(m.startswith("contracts") for m in moves)
    t.play(moves)
    assert t.state["contracts"][0]


@pytest.mark.slow
@pytest.mark.parametrize(("players", "options"), [(2, {}), (4, {"hazardous": True, "perishable": True})])
def test_greedy_games_finish(players: int, options: dict) -> None:
    from rm_support import table

    t = table(players, **options)
    for turn in range(200):
        t.prepare()
        seat = t.to_act()
        if seat is None:
            break
        t.play(choose_turn(GAME, t.state, seat, "greedy", salt=str(turn)))
        assert GAME.invariants(t.state) == []
    t.prepare()
    assert t.to_act() is None
    assert t.finish() is not None
