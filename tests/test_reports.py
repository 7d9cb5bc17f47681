"""The reports of show, verify and games are built in pbem.session (reports, gamelist):
the commands print exactly those lines and that JSON, nothing of their own."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import timing
from pbem.session import gamelist, reports
from tests.support.fixed_game import fixed_home

SAVES = Path(__file__).resolve().parent.parent / "saves"
# saves/ keeps, per game, the invitation, the start, a middle save and the final one.
MIDGAME = sorted((SAVES / "road-master").glob("*.toml"))[-2]
FINAL = sorted((SAVES / "station-to-station").glob("*.toml"))[-1]


def run(home: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["--home", str(home), *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_verify_prints_the_session_report_of_a_finished_game(tmp_path: Path) -> None:
    home = tmp_path / "h"
    text, data = run(home, "verify", str(FINAL)), run(home, "verify", "--json", str(FINAL))
    verified = session.load(FINAL, Home(home))
    assert text == "\n".join(reports.verify_lines(verified)) + "\n"
    assert "Final scores:" in text
    assert json.loads(data) == reports.verify_json(verified, [])


def test_show_prints_the_session_report_now_and_at_an_entry(tmp_path: Path) -> None:
    home = tmp_path / "h"
    for at in (None, 3):
        extra = [] if at is None else ["--at", str(at)]
        text = run(home, "show", str(MIDGAME), *extra)
        data = run(home, "show", "--json", str(MIDGAME), *extra)
        view = reports.shown(Home(home), MIDGAME, at)
        assert text == "\n".join(reports.show_lines(view, [])) + "\n"
        assert json.loads(data) == json.loads(json.dumps(reports.show_json(view, [])))


def test_games_prints_the_session_listing(tmp_path: Path) -> None:
    home = fixed_home(tmp_path / "ann", "ann")
    assert run(home.path, "games") == gamelist.NO_GAMES + "\n"
    run(home.path, "verify", str(MIDGAME))
    listed = gamelist.listing(home, timing.now())
    assert run(home.path, "games") == "\n".join(gamelist.games_lines(listed)) + "\n"
    data = json.loads(run(home.path, "games", "--json"))
    assert [g["id"] for g in data["games"]] == [g["id"] for g in listed]
