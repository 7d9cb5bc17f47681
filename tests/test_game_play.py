"""Game.play (normalize and apply one move, parsing it once where a game overrides it)
does exactly what ``apply(normalize(text))`` does, for a move as the file holds it and as
a player types it (verify replays every move, so it parses each once)."""

from __future__ import annotations

import pytest

from pbem import registry
from pbem.errors import MoveError
from pbem.game import Game, State, copy_state
from pbem.play import bots
from pbem.play.local import LocalTable
from pbem.protocol.saveformat.canonical import canonical

GAMES = ["red-dog-junction", "road-master", "station-to-station"]


def typed_forms(move: str) -> list[str]:
    """The move as written, and as a player may type it (capitals, extra spaces)."""
    return [move, move.upper(), "  " + move.replace(" ", "  ") + " "]


def both_ways(game: Game, state: State, seat: int, text: str) -> None:
    by_play, by_steps = copy_state(state), copy_state(state)
    try:
        expected = game.normalize(by_steps, seat, text)
        game.apply(by_steps, seat, expected)
    except MoveError as exc:
        with pytest.raises(MoveError) as info:
            game.play(by_play, seat, text)
        assert info.value.message == exc.message
        return
    assert game.play(by_play, seat, text) == expected
    assert canonical(by_play) == canonical(by_steps)


@pytest.mark.parametrize("ruleset", GAMES)
def test_play_applies_what_normalize_then_apply_would(ruleset: str) -> None:
    game = registry.load(ruleset)
    table = LocalTable(game, ["ann", "bob", "cy"], seed=b"play-once")
    checked = 0
    for turn in range(60):
        table.prepare()
        seat = table.to_act()
        if seat is None:
            break
        moves = bots.choose_turn(game, table.state, seat, f"random:{turn}")
        state = copy_state(table.state)
        for move in moves:
            for text in typed_forms(move):
                both_ways(game, state, seat, text)
                checked += 1
            game.play(state, seat, move)
        table.play(moves)
    assert checked > 100
