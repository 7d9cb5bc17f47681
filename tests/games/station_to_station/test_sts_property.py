"""Whole games: random players and the greedy evaluation, checked at every step.

Random games choose uniformly among the legal moves (a seeded Sampler) and end the turn
at random once it may end; every legal move must normalize to itself and apply, the
conservation invariants must hold after every move and every turn, views hold no
secrets, and every game must reach its end.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from pbem.game import copy_state
from pbem.play.local import LocalTable
from pbem.protocol.crypto.sampler import Sampler
from pbem_games.station_to_station import GAME
from tests.support import scale

SEATS = ["ann", "bob", "cy", "dee"]
TURN_CAP = 400
LEGAL_CAP = 300


def _json_like(value: Any) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and _json_like(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_like(v) for v in value)
    return isinstance(value, (str, int, bool)) and not isinstance(value, float)


def _random_turn(state: dict, seat: int, rng: Sampler, stats: dict[str, int]) -> list[str]:
    trial = copy_state(state)
    moves: list[str] = []
    for _ in range(80):
        legal = GAME.legal_moves(trial, seat)
        assert len(legal) < LEGAL_CAP, len(legal)
        stats["most legal"] = max(stats["most legal"], len(legal))
        assert len(set(legal)) == len(legal), "duplicate legal moves"
        for move in legal:
            assert GAME.normalize(trial, seat, move) == move
        if GAME.can_end_turn(trial, seat) and (not legal or rng.randbelow(3) == 0):
            return moves
        assert legal, "a turn that cannot end must offer a move"
        move = rng.choice(legal)
        GAME.apply(trial, seat, move)  # every listed move applies
        moves.append(move)
        kind = move.split()[0]
        stats[kind] = stats.get(kind, 0) + 1
        broken = GAME.invariants(trial)
        assert not broken, (move, broken)
    raise AssertionError("a turn ran past 80 moves")


def _check_views(table: LocalTable, players: int) -> None:
    """Nothing is secret: every seat sees the public view (plus who is looking)."""
    public = table.view(None)
    assert _json_like(public) and _json_like(table.state)
    for viewer in range(players):
        mine = table.view(viewer)
        assert mine["viewer"] == viewer
        assert {k: v for k, v in mine.items() if k != "viewer"} == \
            {k: v for k, v in public.items() if k != "viewer"}


def _play_random(players: int, seed: bytes, stats: dict[str, int]) -> Any:
    table = LocalTable(GAME, SEATS[:players], seed=seed)
    rng = Sampler(hashlib.sha256(b"chooser" + seed).digest())
    for turn in range(TURN_CAP):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        if turn % 8 == 0:  # views copy the whole state: look every few turns
            _check_views(table, players)
        table.play(_random_turn(table.state, seat, rng, stats))
        broken = GAME.invariants(table.state)
        assert not broken, broken
    else:
        raise AssertionError("the game did not end")
    result = table.finish()
    assert result is not None
    assert not GAME.invariants(table.state)
    assert sorted(s for group in result.ranking for s in group) == list(range(players))
    return result


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_reach_the_end_with_every_invariant_kept(players: int) -> None:
    stats: dict[str, int] = {"most legal": 0}
    for game in range(5):
        _play_random(players, f"random-{players}-{game}".encode(), stats)
    # The random games exercise the whole turn.
    for kind in ("buy", "travel", "route", "work", "order", "supply", "railcar"):
        assert stats.get(kind, 0) > 0, (kind, stats)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_many_random_games(players: int) -> None:
    stats: dict[str, int] = {"most legal": 0}
    for game in range(scale.games(3, 30)):
        _play_random(players, f"many-{players}-{game}".encode(), stats)
    for kind in ("hire", "crew", "discard"):
        assert stats.get(kind, 0) > 0, (kind, stats)


def _greedy_turn(state: dict, seat: int) -> list[str]:
    trial = copy_state(state)
    moves: list[str] = []
    while True:
        best, best_value = "", None
        for move in GAME.legal_moves(trial, seat):
            after = copy_state(trial)
            GAME.apply(after, seat, move)
            value = GAME.heuristic(after, seat)
            if best_value is None or value > best_value:
                best, best_value = move, value
        no_better = best_value is None or best_value <= GAME.heuristic(trial, seat)
        if GAME.can_end_turn(trial, seat) and no_better:
            return moves
        assert best, "a turn that cannot end must offer a move"
        GAME.apply(trial, seat, best)
        moves.append(best)


@pytest.mark.parametrize("players", [2, 4])
def test_greedy_games_finish_and_score_more_than_random_ones(players: int) -> None:
    table = LocalTable(GAME, SEATS[:players], seed=b"greedy")
    turns = 0
    while True:
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        table.play(_greedy_turn(table.state, seat))
        turns += 1
        assert turns < TURN_CAP
    greedy = table.finish()
    assert greedy is not None
    random = _play_random(players, b"greedy", {"most legal": 0})
    assert max(greedy.scores.values()) > max(random.scores.values())
