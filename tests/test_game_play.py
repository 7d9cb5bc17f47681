"""A move read once (Game.read, a ReadMove with the game's parsed form) and applied from
that form (Game.apply_move) does exactly what ``apply(normalize(text))`` does, for a move
as the file holds it and as a player types it (verify replays every move, so it parses
each once); reading changes nothing."""

from __future__ import annotations

import pytest

from pbem import registry
from pbem.errors import MoveError
from pbem.game import Game, State, copy_state, play_move
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
            play_move(game, by_play, seat, text)
        assert info.value.message == exc.message
        return
    before = canonical(by_play)
    read = game.read(by_play, seat, text)
    assert canonical(by_play) == before  # reading changes nothing
    assert read.text == expected and read.parsed is not None  # each game keeps its parse
    game.apply_move(by_play, seat, read)
    assert canonical(by_play) == canonical(by_steps)


@pytest.mark.parametrize("ruleset", GAMES)
def test_a_read_move_applies_what_normalize_then_apply_would(ruleset: str) -> None:
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
            play_move(game, state, seat, move)
        table.play(moves)
    assert checked > 100
