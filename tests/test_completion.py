"""Shell completion (click's): SAVE completes this home's short ids and file names, MOVE
the legal next moves of this home's seat."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.shell_completion import ShellComplete
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.cli.completion import bash_word
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.enginekit import play_game
from tests.support.duty import sign_duty
from tests.support.shells import drive


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


def _route_choice(root: Path) -> tuple[Home, Path]:
    """A Station to Station game at its first turn, whose moves are of several words
    ('route keep 1', 'route keep 2'): the home to act and the save."""
    homes = {h: Home(root / h) for h in ("ann", "bob")}
    for handle, home in homes.items():
        home.keygen(handle)
    written = session.new_game(homes["ann"], "station-to-station", list(homes), [], None,
                               folder=root)
    while (duty := written.table.duty()) is not None and duty.kind != "turn":
        written = sign_duty(homes, written)
    assert duty is not None
    home = homes[written.table.seats[duty.seat].handle]
    assert session.legal_moves(home, written.path, [])[1] == ["route keep 1", "route keep 2"]
    return home, written.path


def test_a_move_of_several_words_completes_quoted_for_bash(tmp_path: Path) -> None:
    """bash inserts a reply as it is: 'route keep 1' unquoted would be three arguments."""
    home, path = _route_choice(tmp_path)
    words = ["pbem", "--home", str(home.path), "moves", str(path), "rou"]
    result = CliRunner().invoke(main, [], prog_name="pbem", env={
        "_PBEM_COMPLETE": "bash_complete", "COMP_WORDS": " ".join(words),
        "COMP_CWORD": str(len(words) - 1)})
    assert result.output.splitlines() == ["plain,'route keep 1'", "plain,'route keep 2'"]
    assert bash_word("pass") == "pass" and bash_word("it's") == "'it'\"'\"'s'"


SHELLS = {
    "bash": (["bash", "--norc", "--noprofile", "-i"],
             "source {script}; nargs() {{ printf 'N=%s LAST=[%s]\\n' \"$#\" \"${{@: -1}}\"; }}"),
    "zsh": (["zsh", "-f", "-i"],
            "autoload -Uz compinit; compinit -u; source {script}; "
            "nargs() {{ print -r -- \"N=$# LAST=[${{@[-1]}}]\" }}"),
    "fish": (["fish", "--no-config", "-i"],
             "source {script}; function nargs; echo N=(count $argv) LAST=[$argv[-1]]; end"),
}


@pytest.mark.parametrize("shell", sorted(SHELLS))
def test_a_move_of_several_words_completes_as_one_argument_in_the_real_shell(
        tmp_path: Path, shell: str) -> None:
    """In the shell itself: 'pbem moves SAVE rou<Tab>', then '1<Tab>', gives one argument
    'route keep 1' (bash inserted 'route keep ' unquoted: three arguments)."""
    pbem = Path(sys.executable).parent / "pbem"
    if shutil.which(shell) is None or not pbem.is_file():
        pytest.skip(f"{shell} or the pbem script is not installed")
    home, path = _route_choice(tmp_path / "game")
    script = tmp_path / f"complete.{shell}"
    env = {"PATH": f"{pbem.parent}:/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "dumb"}
    made = subprocess.run([str(pbem)], env={**env, "_PBEM_COMPLETE": f"{shell}_source"},
                          capture_output=True, check=True)
    script.write_bytes(made.stdout)
    argv, setup = SHELLS[shell]
    line = f"pbem --home {home.path} moves {path} rou"
    out = drive(argv, env, [(setup.format(script=script) + "\r", 10.0), (line + "\t", 20.0),
                            ("1\t", 20.0), ("\x01nargs \r", 10.0)], until=b"LAST=[")
    assert "N=6 LAST=[route keep 1]" in out, out[-2000:]
