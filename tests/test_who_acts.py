"""Who is to act, as every view tells it: nobody once the game is over (a resignation
included), the voter while an absence vote is due, and a Road Master end that stays
triggered once the game has ended."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.enginekit import tick
from tests.support.boards import parse, text_of
from tests.test_absent_cli import HANDLES, Table3


def test_STS_M1_a_game_ended_by_a_resignation_names_nobody_to_act(tmp_path: Path) -> None:
    """STS-M1: the first player starts, and turns go round, while the game is played;
    once bob resigns, `show` and the mail of the save name him first player only, not
    "(first player, to act)"."""
    t = Table3(tmp_path)
    path = t.start("station-to-station")
    who = t.status(path)["to_act"]
    path = t.wrote(who, "resign", path, "--yes")
    text = t.run("ann", "show", path).output
    assert f"{who} (first player)" in text and "to act)" not in text
    mail = t.run(who, "send", path, "--stdout", "--to", "x@example.org").output
    assert f"{who} (first player)" in mail and "to act)" not in mail
    shown = t.run("ann", "show", path, "--svg", str(tmp_path / "s.svg"))
    assert shown.exit_code == 0
    assert "to act" not in text_of(parse((tmp_path / "s.svg").read_text()))


@pytest.mark.parametrize("game", ["red-dog-junction", "road-master", "station-to-station"])
def test_an_absence_vote_names_the_voter_in_place_of_to_act(tmp_path: Path, game: str) -> None:
    """While a vote on an absence proposal is due, the picture and the text view say who
    votes, not "To act:" the seat proposed absent (which may still answer by playing)."""
    t = Table3(tmp_path)
    path = t.start(game)
    absent = t.status(path)["to_act"]
    proposer = HANDLES[(HANDLES.index(absent) + 1) % 3]
    tick(days=8)  # past the patience of the seat the game waits for
    path = t.wrote(proposer, "absent", path, absent, "--remedy", "end")
    voter = t.status(path)["to_act"]
    assert t.status(path)["next"] == "vote"
    for handle in HANDLES:
        picture = tmp_path / f"{handle}.svg"
        shown = t.run(handle, "show", path, "--svg", str(picture))
        assert shown.exit_code == 0, shown.output
        drawn = " ".join(text_of(parse(picture.read_text())).split())
        assert f"To act: {absent}" not in drawn and f"{absent} to act" not in drawn
        assert f"Vote: {voter} votes next on {proposer}'s proposal that {absent} is absent" \
            in drawn
        state = json.loads(t.run(handle, "show", path, "--json").output)["state"]
        assert state["vote"]["text"].startswith(f"Vote: {voter} votes next on")
        assert f"{absent} to act" not in shown.output


@pytest.mark.parametrize("game", ["red-dog-junction", "road-master", "station-to-station"])
def test_a_resignation_leaves_nobody_to_act_in_any_view(tmp_path: Path, game: str) -> None:
    """Once the seat to act resigns, no view marks anyone to act: not the text of `show`
    (Red Dog Junction's '*' before a name included), not the picture, its title
    included."""
    t = Table3(tmp_path)
    path = t.start(game)
    who = t.status(path)["to_act"]
    path = t.wrote(who, "resign", path, "--yes")
    for handle in HANDLES:
        picture = tmp_path / f"{handle}.svg"
        shown = t.run(handle, "show", path, "--svg", str(picture))
        assert shown.exit_code == 0, shown.output
        lines = shown.output.splitlines()
        # The clock's line names who owes the final reveal (all of a reveal round's seats
        # at once): that is no turn.
        assert [line for line in lines if "to act" in line.lower()] == \
            [line for line in lines if line.startswith("To act: ")
             and ("(reveal)" in line or "(a reveal each, in parallel)" in line)]
        assert not [line for line in lines if line.startswith(" *")]
        assert "to act" not in picture.read_text().lower()
