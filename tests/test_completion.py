"""Shell completion (click's): SAVE completes this home's short ids and file names, MOVE
the legal next moves of this home's seat."""

from __future__ import annotations

from pathlib import Path

from click.shell_completion import ShellComplete

from pbem import session
from pbem.cli import main
from pbem.protocol import savefile
from pbem.protocol.identity import Home
from tests.enginekit import play_game


def complete(home: Home, args: list[str], incomplete: str) -> list[tuple[str, str]]:
    shell = ShellComplete(main, {}, "pbem", "_PBEM_COMPLETE")
    return [(c.value, c.type) for c in
            shell.get_completions(["--home", str(home.path), *args], incomplete)]


def test_save_completes_short_ids_and_files(homes: dict[str, Home], tmp_path: Path) -> None:
    path = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    game_id = savefile.read(path).game_id
    session.load(path, homes["ann"])  # seen by ann's home: listed in 'pbem games'
    for command in ("show", "play", "undo", "vote", "verify"):
        got = complete(homes["ann"], [command], game_id[:2])
        assert (game_id[:8], "plain") in got and (game_id[:2], "file") in got, command
    assert (game_id[:8], "plain") not in complete(homes["ann"], ["show"], "zz")


def test_move_completes_the_legal_moves(homes: dict[str, Home], tmp_path: Path) -> None:
    path = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    table = session.load(path, None).table
    duty = table.duty()
    assert duty is not None and duty.kind == "turn"
    me = homes[table.seats[duty.seat].handle]
    assert complete(me, ["play", str(path)], "") == [("roll", "plain"), ("pass", "plain")]
    assert complete(me, ["moves", str(path)], "r") == [("roll", "plain")]
    assert complete(me, ["play", str(path), "roll"], "") == []  # nothing after a roll
    other = homes[next(h for h in homes if homes[h] is not me)]
    assert complete(other, ["play", str(path)], "") == []  # not this seat's turn
