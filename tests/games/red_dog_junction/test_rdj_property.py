"""Many whole games: random bots to the end or a turn cap, greedy bots to the end.

After every move: goods, cards and tiles are conserved and no count is negative (the
game's invariants, which a test below proves can fail); every listed move normalizes to
itself, and (at some steps) every listed move applies without error. Views hold no
secrets: this game has none, so every seat's view is the public view.
"""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from rdj_helpers import new_game, put

from pbem.game import copy_state
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.red_dog_junction import GAME
from tests.support import scale

HANDLES = ["ann", "bob", "cy", "dee", "eve"]
RANDOM_CAP = 90  # turns; random bots rarely finish a game
GREEDY_CAP = 400


def _check_state(state: dict) -> None:
    broken = GAME.invariants(state)
    assert broken == [], broken
    for good, amount in state["rules"]["amounts"].items():
        places = [state["space"], state["box"], state["bank"], state["planets"]]
        owners = state["players"] + ([state["justin"]] if state["solo"] else [])
        places += [o["ship"] for o in owners] + [o["storage"] for o in owners]
        assert sum(p.get(good, 0) for p in places) == amount
        assert all(p.get(good, 0) >= 0 for p in places)


def _check_views(table: LocalTable) -> None:
    public = table.view(None)
    text = json.dumps(public)  # JSON-like: no None/float/tuple surprises
    assert "null" not in text
    for seat in range(len(table.state["seats"])):
        mine = table.view(seat)
        assert {k: v for k, v in mine.items() if k != "viewer"} == {
            k: v for k, v in public.items() if k != "viewer"}
    assert GAME.render(public)


def _random_turn(state: dict, seat: int, rng: Sampler, full_check: bool) -> list[str]:
    working = copy_state(state)
    chosen: list[str] = []
    for _ in range(40):
        legal = GAME.legal_moves(working, seat)
        assert len(legal) < 300
        for move in legal:
            assert GAME.normalize(working, seat, move) == move, move
        if full_check:
            for move in legal:
                trial = copy_state(working)
                GAME.apply(trial, seat, move)
                _check_state(trial)
        can_end = GAME.can_end_turn(working, seat)
        if not legal or (can_end and rng.randbelow(len(legal) + 1) == 0):
            break
        move = legal[rng.randbelow(len(legal))]
        GAME.apply(working, seat, move)
        _check_state(working)
        chosen.append(move)
    assert GAME.can_end_turn(working, seat), chosen
    return chosen


@pytest.mark.parametrize("game_no", range(20))
def test_random_games_keep_every_invariant(game_no: int) -> None:
    players = game_no % 5 + 1
    variant = "trail-boss" if game_no % 3 == 2 else "standard"
    seed = f"random-{game_no}".encode()
    table = LocalTable(GAME, HANDLES[:players], {"variant": variant}, seed=seed)
    rng = Sampler(hashlib.sha256(seed).digest())
    for turn in range(RANDOM_CAP):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        moves = _random_turn(table.state, seat, rng, full_check=turn % 10 == 0)
        table.play(moves)
        _check_state(table.state)
        if turn % 15 == 0:
            _check_views(table)
    if table.to_act() is None:
        assert table.finish() is not None


@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_greedy_games_finish(players: int) -> None:
    variant = "trail-boss" if players == 3 else "standard"
    table = LocalTable(GAME, HANDLES[:players], {"variant": variant}, seed=b"greedy")
    turns = 0
    while turns < GREEDY_CAP:
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        table.play(bots.choose_turn(GAME, table.state, seat, "greedy", salt=str(turns)))
        turns += 1
    assert table.to_act() is None, f"greedy game unfinished after {turns} turns"
    _check_state(table.state)
    outcome = table.finish()
    assert outcome is not None and sorted(s for g in outcome.ranking for s in g) == list(
        range(players))
    assert turns >= 8 * players  # a real game, not an instant end


# Quick: every player count (game_no % 5 + 1) once, both variants (trail-boss from 5 on).
@pytest.mark.parametrize("game_no", scale.cases(list(range(10)), [0, 6, 2, 8, 4]))
def test_mixed_games_reach_the_end(game_no: int) -> None:
    """A third of the turns random (checked move by move), the rest greedy: the games
    reach an end trigger through odd states and still conserve everything."""
    players = game_no % 5 + 1
    variant = "trail-boss" if game_no >= 5 else "standard"
    seed = f"mixed-{game_no}".encode()
    table = LocalTable(GAME, HANDLES[:players], {"variant": variant}, seed=seed)
    rng = Sampler(hashlib.sha256(seed).digest())
    for turn in range(GREEDY_CAP):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        if rng.randbelow(3) == 0:
            moves = _random_turn(table.state, seat, rng, full_check=False)
        else:
            moves = bots.choose_turn(GAME, table.state, seat, "greedy", salt=str(turn))
        table.play(moves)
        _check_state(table.state)
    assert table.to_act() is None
    outcome = table.finish()
    assert outcome is not None and outcome.notes
    _check_views(table)


def test_random_bot_turns_through_the_engine_bot() -> None:
    table = LocalTable(GAME, HANDLES[:4], seed=b"engine-random")
    for turn in range(60):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        table.play(bots.choose_turn(GAME, table.state, seat, f"random:{turn}", salt=str(turn)))
        _check_state(table.state)


def test_invariants_catch_broken_states() -> None:
    state = new_game(3)
    assert GAME.invariants(state) == []
    broken = copy.deepcopy(state)
    broken["space"]["scrap"] += 1
    assert any("scrap" in s for s in GAME.invariants(broken))
    broken = copy.deepcopy(state)
    broken["players"][0]["ship"]["ruby"] = -1
    broken["planets"]["ruby"] += 1
    assert any("-1 ruby" in s for s in GAME.invariants(broken))
    broken = copy.deepcopy(state)
    broken["display"].pop()
    assert any("cards not conserved" in s for s in GAME.invariants(broken))
    broken = copy.deepcopy(state)
    broken["deck"].append(broken["display"][0])
    assert any("cards not conserved" in s for s in GAME.invariants(broken))
    broken = copy.deepcopy(state)
    broken["stacks"]["6"].pop()
    assert any("tiles" in s for s in GAME.invariants(broken))
    broken = copy.deepcopy(state)
    broken["players"][0]["at"] = broken["players"][1]["at"] = "gas"
    assert any("share a dock" in s for s in GAME.invariants(broken))
    broken = copy.deepcopy(state)
    broken["dice"]["gold"] = 5
    assert any("gold die" in s for s in GAME.invariants(broken))
    put(state, 0, "ship", gold=2)
    assert GAME.invariants(state) == []


def test_heuristic_prefers_points() -> None:
    state = new_game(2)
    before = GAME.heuristic(state, 0)
    put(state, 0, "storage", gold=2)
    assert GAME.heuristic(state, 0) > before
