"""Posse (RDJ-V2) by the command line, as players by email run it: each player in their own
home creates, joins and starts the game, drafts with `show`, `moves` and `play`, and the
game is played to its end and verified with a clean audit.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli import main

HANDLES = ("ann", "bob")
MAX_ENTRIES = 400


class Homes:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.runner = CliRunner()

    def run(self, handle: str | None, *args: str) -> Result:
        home = self.root / "homes" / (handle or "auditor")
        result = self.runner.invoke(main, ["--home", str(home), *args])
        assert "Traceback" not in result.output + (result.stderr or ""), result.output
        return result

    def play(self, handle: str, *args: str) -> str:
        result = self.run(handle, "play", *args)
        assert result.exit_code == 0, result.output + (result.stderr or "")
        return result.output.split("Wrote ", 1)[1].split("\n", 1)[0]

    def verify(self, path: str) -> dict[str, object]:
        result = self.run(None, "verify", path, "--json")
        assert result.exit_code == 0, result.output + (result.stderr or "")
        data: dict[str, object] = json.loads(result.output)
        return data


@pytest.mark.heavy
def test_RDJ_V2_a_posse_game_by_the_cli_from_new_to_a_clean_audit(tmp_path: Path) -> None:
    p = Homes(tmp_path)
    for handle in HANDLES:
        assert p.run(handle, "keygen", "--name", handle).exit_code == 0
    first = str(tmp_path / "g0.toml")
    r = p.run("ann", "new", "red-dog-junction", "--seat", "ann", "--seat", "bob",
              "--option", "variant=posse", "-o", first)
    assert r.exit_code == 0, r.output
    r = p.run("bob", "join", first)
    assert r.exit_code == 0, r.output
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    path = p.play("ann", path)  # the start entry: the deal
    picks = 0
    for _ in range(MAX_ENTRIES):
        # in a round, to_act names the first seat still to sign in it: it signs on the
        # save that holds the round's entries so far, and the next seat on its save
        who = str(p.verify(path)["to_act"])
        r = p.run(who, "moves", path, "--json")
        assert r.exit_code == 0, r.output
        listed = json.loads(r.output)
        moves = listed["moves"]
        if not moves and listed["can_end_turn"] and "Posse draft" in p.run(who, "show",
                                                                          path).output:
            path = p.play(who, path)  # deck work only, the engine's (done for it)
            continue
        if not moves or not moves[0].startswith("pick"):
            break  # the draft is over
        if picks % 5 == 0:  # show lists the same picks, by slot, with the cards
            shown = p.run(who, "show", path).output
            assert f"Your hand ({len(moves)} cards" in shown
            assert all(f"{m:<10} " in shown for m in moves)
        assert not listed["can_end_turn"]  # a pick is owed
        path = p.play(who, path, moves[-1])
        picks += 1
    assert picks == 8 * len(HANDLES)
    shown = p.run(who, "show", path).output
    assert "Posse draft" not in shown
    for _ in range(MAX_ENTRIES):
        data = p.verify(path)
        if not data["to_act"]:
            break  # over, and every seat has signed its final reveal
        path = p.play(str(data["to_act"]), path, "--bot", "greedy")
    data = p.verify(path)
    assert data["over"] and data["audit"] == "clean", data
    r = p.run(None, "verify", path)
    assert "Audit: clean" in r.output and "Final scores" in r.output
