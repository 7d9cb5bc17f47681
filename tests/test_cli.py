"""The command line as people use it: three homes, exit codes, messages, nothing lost."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem.cli import main

HANDLES = ("ann", "bob", "cy")


class Players:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.runner = CliRunner()
        self.saves = root / "saves"
        self.saves.mkdir(exist_ok=True)

    def home(self, handle: str) -> str:
        return str(self.root / "homes" / handle)

    def run(self, handle: str | None, *args: str, input: str | None = None) -> Result:
        prefix = ["--home", self.home(handle)] if handle else ["--home", str(self.root / "nobody")]
        result = self.runner.invoke(main, prefix + list(args), input=input)
        assert "Traceback" not in (result.output + (result.stderr or "")), result.output
        return result

    def files(self) -> set[str]:
        return {p.name for p in self.saves.iterdir()}

    def newest(self) -> str:
        return str(max(self.saves.iterdir(), key=lambda p: p.stat().st_mtime_ns))


@pytest.fixture
def players(tmp_path: Path) -> Players:
    p = Players(tmp_path)
    for handle in HANDLES:
        assert p.run(handle, "keygen", "--name", handle).exit_code == 0
    return p


def started(p: Players) -> str:
    first = str(p.saves / "g0.toml")
    r = p.run("ann", "new", "dice-race", "--seat", "ann=ann@example.org", "--seat", "bob",
              "--seat", "cy", "-o", first)
    assert r.exit_code == 0, r.output
    assert "Send it to bob" in r.output
    path = first
    for handle in ("bob", "cy"):
        r = p.run(handle, "join", path)
        assert r.exit_code == 0, r.output
        path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    r = p.run("ann", "play", path)
    assert r.exit_code == 0, r.output
    return r.output.split("Wrote ", 1)[1].split("\n", 1)[0]


def to_act(p: Players, path: str) -> str:
    r = p.run(None, "verify", path, "--json")
    return json.loads(r.output)["to_act"]


def test_play_says_what_the_turn_changed(players: Players) -> None:
    """play and --dry-run print the game's own account of the entry (Game.describe)."""
    path = started(players)
    who = to_act(players, path)
    r = players.run(who, "play", path, "roll", "--dry-run")
    assert r.exit_code == 0, r.output
    assert "a roll waits for the next player's entry" in r.output
    r = players.run(who, "play", path, "roll")
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    assert "a roll waits for the next player's entry" in r.output
    nxt = to_act(players, path)
    r = players.run(nxt, "play", path, "pass")
    assert f"{who} rolled " in r.output


def test_keygen_whoami_and_no_overwrite(players: Players) -> None:
    r = players.run("ann", "whoami")
    assert r.exit_code == 0 and r.output.startswith("ann ")
    r = players.run("ann", "keygen", "--name", "other")
    assert r.exit_code == 2
    assert "never overwritten" in r.stderr


def test_whoami_without_identity(players: Players) -> None:
    r = players.run(None, "whoami")
    assert r.exit_code == 2
    assert "keygen" in r.stderr


def test_bad_handle_is_a_usage_error(players: Players, tmp_path: Path) -> None:
    r = players.runner.invoke(main, ["--home", str(tmp_path / "x"), "keygen", "--name", "Ann!"])
    assert r.exit_code == 2
    assert "not a usable handle" in r.stderr


def test_full_game_by_hand_and_by_bot(players: Players) -> None:
    path = started(players)
    for _ in range(400):
        who = to_act(players, path)
        if not who:
            break
        r = players.run(who, "show", path)
        assert r.exit_code == 0, r.output
        r = players.run(who, "moves", path, "--json")
        data = json.loads(r.output)
        assert data["seat"] == who
        if data["moves"]:
            r = players.run(who, "play", path, data["moves"][0])
        else:
            r = players.run(who, "play", path)
        assert r.exit_code == 0, r.stderr
        path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    r = players.run(None, "verify", path, "--json")
    data = json.loads(r.output)
    assert data["ok"] and data["over"] and data["audit"] == "clean"
    assert set(data["scores"]) == set(HANDLES)
    assert set(data) >= {"ok", "game", "id", "entries", "to_act", "over", "audit", "scores",
                         "errors"}
    r = players.run(None, "verify", path)
    assert "Final scores" in r.output and "Audit: clean" in r.output
    r = players.run(None, "log", path)
    assert r.exit_code == 0 and "create  ann" in r.output


def test_not_your_turn_writes_nothing(players: Players) -> None:
    path = started(players)
    who = to_act(players, path)
    other = next(h for h in HANDLES if h != who)
    before = players.files()
    r = players.run(other, "play", path, "roll")
    assert r.exit_code == 1
    assert f"It is {who}'s turn" in r.stderr
    assert players.files() == before


def test_illegal_and_malformed_moves_write_nothing(players: Players) -> None:
    path = started(players)
    who = to_act(players, path)
    before = players.files()
    r = players.run(who, "play", path, "roll", "roll")
    assert r.exit_code == 1 and "move 2" in r.stderr
    r = players.run(who, "play", path, "fly")
    assert r.exit_code == 1 and "not a move" in r.stderr
    r = players.run(who, "play", path)
    assert r.exit_code == 1 and "cannot end yet" in r.stderr
    assert players.files() == before


def test_move_file_with_comments_and_dry_run(players: Players, tmp_path: Path) -> None:
    path = started(players)
    who = to_act(players, path)
    movefile = tmp_path / "moves.txt"
    movefile.write_text("# my turn\n\nroll   # feeling lucky\n")
    before = players.files()
    r = players.run(who, "play", path, "-f", str(movefile), "--dry-run")
    assert r.exit_code == 0 and "nothing was written" in r.output
    assert players.files() == before
    r = players.run(who, "play", path, "-f", str(movefile))
    assert r.exit_code == 0 and "turn by" in r.output
    assert len(players.files()) == len(before) + 1


def test_a_move_file_as_editors_save_it(players: Players, tmp_path: Path) -> None:
    """A byte-order mark (Notepad's UTF-8) is dropped and Windows line ends are lines; a
    file that is not UTF-8 text is a usage error in plain words (it was an internal
    error), nothing written."""
    path = started(players)
    who = to_act(players, path)
    marked = tmp_path / "bom.txt"
    marked.write_bytes(b"\xef\xbb\xbfroll\r\n")
    r = players.run(who, "play", path, "-f", str(marked), "--dry-run")
    assert r.exit_code == 0 and "nothing was written" in r.output, r.output
    latin = tmp_path / "latin1.txt"
    latin.write_bytes(b"roll # caf\xe9\n")
    before = players.files()
    r = players.run(who, "play", path, "-f", str(latin))
    assert r.exit_code == 2 and "is not UTF-8 text" in r.stderr, r.output
    assert "internal error" not in r.output and players.files() == before


@pytest.mark.parametrize("command", ["show", "verify", "moves", "play", "log", "undo", "join",
                                     "resign", "send", "absent", "vote", "confirm", "away"])
def test_a_folder_as_save_is_an_unreadable_save(players: Players, tmp_path: Path,
                                                command: str) -> None:
    """A folder given as SAVE is a save that cannot be read (exit 4, one sentence), for
    every command that takes one: it was click's usage text (exit 2)."""
    started(players)
    folder = tmp_path / "x.toml"
    folder.mkdir()
    extra = {"absent": ["bob"], "vote": ["accept"], "away": ["--until", "3d"], "resign": ["--yes"],
             "send": ["--eml", str(tmp_path / "m.eml")]}.get(command, [])
    before = players.files()
    r = players.run("ann", command, str(folder), *extra)
    assert r.exit_code == 4 and "is a folder, not a save file" in r.stderr, r.output
    assert "Usage:" not in r.output and players.files() == before


def test_output_never_overwritten(players: Players) -> None:
    path = started(players)
    who = to_act(players, path)
    target = players.saves / "taken.toml"
    target.write_text("precious")
    r = players.run(who, "play", path, "pass", "-o", str(target))
    assert r.exit_code == 2 and "never overwrites" in r.stderr
    assert target.read_text() == "precious"


def test_malformed_saves_exit_4(players: Players, tmp_path: Path) -> None:
    cases = {
        "garbage.toml": "this is = not [valid toml",
        "empty.toml": "",
        "noentries.toml": '[header]\nformat = "pbem/2"\n',
        "wrongformat.toml": '[header]\nformat = "pbem/9"\n',
    }
    for name, text in cases.items():
        f = tmp_path / name
        f.write_text(text)
        r = players.run(None, "verify", str(f))
        assert r.exit_code == 4, (name, r.output)
        assert r.stderr.startswith("pbem: ") and len(r.stderr.strip().splitlines()) <= 2
    r = players.run(None, "verify", str(tmp_path / "missing.toml"))
    assert r.exit_code == 4 and "no file" in r.stderr
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00junk")
    assert players.run(None, "verify", str(binary)).exit_code == 4


def test_a_pbem_1_save_is_refused_in_one_sentence(players: Players, tmp_path: Path) -> None:
    """Format pbem/2 changed what beacon links mean (PROTOCOL.md section 5): a save in
    format pbem/1 is refused, exit 4, in one sentence naming its format; nothing else of
    it is read."""
    text = Path(started(players)).read_text()
    assert 'format = "pbem/2"' in text
    old = tmp_path / "old.toml"
    old.write_text(text.replace('format = "pbem/2"', 'format = "pbem/1"', 1))
    r = players.run(None, "verify", str(old))
    assert r.exit_code == 4, r.output
    assert r.stderr.count(". ") == 0 and "'pbem/1'" in r.stderr, r.stderr
    assert "finish that game with the pbem that made it" in r.stderr


def test_truncated_save_exit_4(players: Players, tmp_path: Path) -> None:
    path = started(players)
    text = Path(path).read_text()
    cut = tmp_path / "cut.toml"
    cut.write_text(text[: len(text) // 2])
    r = players.run(None, "verify", str(cut))
    assert r.exit_code in (3, 4)
    assert "Traceback" not in r.output


def test_tampered_save_exit_3_and_json_errors(players: Players, tmp_path: Path) -> None:
    path = started(players)
    text = Path(path).read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('"dice-race"', '"dice-race"', 1).replace("target = 12",
                                                                          "target = 13"))
    r = players.run(None, "verify", str(bad), "--json")
    assert r.exit_code == 3
    data = json.loads(r.output)
    assert data["ok"] is False and data["errors"][0]["code"] == "header"


def test_unknown_game_and_option_errors(players: Players) -> None:
    r = players.run("ann", "new", "no-such-game", "--seat", "ann", "--seat", "bob")
    assert r.exit_code == 2 and "no game" in r.stderr
    r = players.run("ann", "new", "dice-race", "--seat", "ann", "--option", "speed=3")
    assert r.exit_code == 2 and "no option 'speed'" in r.stderr
    r = players.run("ann", "new", "dice-race", "--seat", "ann", "--option", "target=x")
    assert r.exit_code == 2 and "whole number" in r.stderr
    r = players.run("ann", "new", "dice-race", "--seat", "bob", "--seat", "ann")
    assert r.exit_code == 2 and "host" in r.stderr
    assert players.files() == set()


def test_join_by_the_wrong_player(players: Players) -> None:
    first = str(players.saves / "g0.toml")
    players.run("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob", "--seat", "cy",
                "-o", first)
    # The joins are a round (PROTOCOL.md section 4): cy may join before bob.
    r = players.run("cy", "join", first)
    assert r.exit_code == 0 and "still joins" in r.output and "bob" in r.output
    r = players.run("ann", "join", first)
    assert r.exit_code == 1 and r.stderr == ("pbem: It is the turn of each of bob, cy to join, "
                                             "not yours. Send the save to bob, cy.\n")
    # 'play' signs whatever is owed, so the invited player's play is a join.
    r = players.run("bob", "play", first)
    assert r.exit_code == 0 and "join" in r.output
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    r = players.run("bob", "join", path)
    assert r.exit_code == 1 and "already; it waits for cy, not for you" in r.stderr
    # either partial save, merged with the other, is the whole round
    cys = str(players.saves / [n for n in players.files() if n.endswith("-cy.toml")][0])
    r = players.run("ann", "merge", path, cys)
    assert r.exit_code == 0 and "3 entries" in r.output, r.output
    merged = r.output.split("Wrote ", 1)[1].split(" (", 1)[0]
    r = players.run("ann", "verify", merged, "--json")
    assert json.loads(r.output)["round"] is None and json.loads(r.output)["next"] == "start"
    r = players.run("ann", "verify", path, "--json")
    assert json.loads(r.output)["round"] == {"seats": ["bob", "cy"], "missing": ["cy"],
                                             "proposed": []}
    r = players.run("cy", "show", path)
    assert "this save holds those of bob; missing: cy" in r.output
    r = players.run("cy", "show", path, "--json")
    assert json.loads(r.output)["round"]["missing"] == ["cy"]
    r = players.run("ann", "merge", path)
    assert r.exit_code == 2 and "two saves" in r.stderr


def test_stranger_cannot_play(players: Players, tmp_path: Path) -> None:
    path = started(players)
    CliRunner().invoke(main, ["--home", str(tmp_path / "dan"), "keygen", "--name", "dan"])
    r = players.runner.invoke(main, ["--home", str(tmp_path / "dan"), "play", path, "roll"])
    assert r.exit_code == 1 and "no seat" in r.stderr


def test_rules_lists_games_and_notation(players: Players) -> None:
    r = players.run(None, "rules")
    assert "dice-race" in r.output
    r = players.run(None, "rules", "dice-race")
    assert "roll" in r.output and "target=12" in r.output


def test_show_json_shape(players: Players) -> None:
    path = started(players)
    who = to_act(players, path)
    r = players.run(who, "show", path, "--json")
    data = json.loads(r.output)
    assert {"game", "id", "seat", "to_act", "state", "private"} <= set(data)
    assert data["seat"] == who and data["to_act"] == who


def test_internal_errors_are_not_tracebacks(players: Players, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    from pbem import session

    def boom(*_a: object, **_k: object) -> None:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(session, "new_game", boom)
    monkeypatch.delenv("PBEM_DEBUG", raising=False)
    r = players.run("ann", "new", "dice-race", "--seat", "ann")
    assert r.exit_code == 70 and "internal error" in r.stderr  # not 1, a rules refusal
    assert os.environ.get("PBEM_DEBUG") is None


def test_demo_runs_to_the_end(tmp_path: Path) -> None:
    r = CliRunner().invoke(main, ["demo", "dice-race", "--players", "2", "--dir",
                                  str(tmp_path / "d"), "--bot", "random:5", "--quiet"])
    assert r.exit_code == 0, r.output
    assert "Audit: clean" in r.output and "Final scores" in r.output


def test_component_data_that_differs_from_the_installed_copy_is_said(
        players: Players, monkeypatch: pytest.MonkeyPatch) -> None:
    """A save carries its own component data; join and show say when it differs from
    the data installed here, and play goes on with the save's copy."""
    from tests.support.dice_race import DiceRace

    first = str(players.saves / "g0.toml")
    players.run("ann", "new", "dice-race", "--seat", "ann", "--seat", "bob", "-o", first)
    monkeypatch.setattr(DiceRace, "stock_components", lambda self: {"die": 8})
    r = players.run("bob", "join", first)
    assert r.exit_code == 0
    assert "differs from the data installed here" in r.output
    path = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    r = players.run("bob", "show", path)
    assert "differs from the data installed here" in r.output


# ---- typing moves (issue 11: messages that mislead) -------------------------------------
def fixed_game(tmp_path: Path, game: str, handles: list[str]) -> tuple[Players, str, str]:
    """A game with fixed identities under tmp_path/fixed: (players, save, who acts)."""
    from tests.support.fixed_game import started

    homes, path = started(tmp_path / "fixed", game, handles)
    p = Players(tmp_path / "fixed")
    return p, str(path), to_act(p, str(path))


def test_moves_separated_by_semicolons_in_one_argument(tmp_path: Path) -> None:
    """The form play echoes ('undock; pass') is accepted as it is, by play and moves."""
    p, path, who = fixed_game(tmp_path, "red-dog-junction", ["ann", "bob", "cy"])
    r = p.run(who, "moves", path, "undock; pass")
    assert r.exit_code == 0, r.stderr
    r = p.run(who, "play", path, "undock; pass", "--dry-run")
    assert r.exit_code == 0, r.stderr
    echoed = next(line for line in r.output.splitlines() if line.startswith("turn by "))
    assert echoed == f"turn by {who}: undock; pass"
    r = p.run(who, "play", path, echoed.split(": ", 1)[1])
    assert r.exit_code == 0, r.stderr
    written = r.output.split("Wrote ", 1)[1].split("\n", 1)[0]
    r = p.run(None, "log", written, "--json")
    last = json.loads(r.output)["entries"][-1]
    assert (last["kind"], last["seat"], last["moves"]) == ("turn", who, ["undock", "pass"])
    r = p.run(None, "log", written)
    assert any(line.startswith(f"turn    {who:12} ", 6) and line.endswith("UTC  undock; pass")
               for line in r.output.splitlines())


def test_unquoted_words_are_refused_with_the_quoted_form(tmp_path: Path) -> None:
    p, path, who = fixed_game(tmp_path, "station-to-station", ["ann", "bob", "cy"])
    before = p.files()
    # A city one word long that the train can reach after keeping its first route.
    r = p.run(who, "moves", path, "route keep 1", "--json")
    city = next(m.split()[1] for m in json.loads(r.output)["moves"]
                if m.startswith("travel ") and "-" not in m.split()[1])
    r = p.run(who, "play", path, "route", "keep", "1", "travel", city)
    assert r.exit_code == 1
    assert f'did you mean: pbem play {path} "route keep 1" "travel {city}"?' in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    r = p.run(who, "moves", path, "route", "keep", "1")
    assert r.exit_code == 1 and f'pbem moves {path} "route keep 1"?' in r.stderr
    r = p.run(who, "moves", path, "route keep 1")  # as the hint says: it works
    assert r.exit_code == 0 and f"travel {city}" in r.output
    # Words that make no move however grouped: the general form, with a real move.
    r = p.run(who, "play", path, "route", "keep")
    assert r.exit_code == 1
    assert 'quote a move of several words' in r.stderr and '"route keep 1"' in r.stderr
    assert 'separated by ";"' in r.stderr
    # A single unparsable word, or moves already quoted: no hint about quoting.
    r = p.run(who, "play", path, "fly")
    assert r.exit_code == 1 and "quote" not in r.stderr
    r = p.run(who, "play", path, "route keep 1", "fly away")
    assert r.exit_code == 1 and "quote" not in r.stderr
    r = p.run(who, "play", path, "route keep 1", "fly")  # one one-word move: quoted right
    assert r.exit_code == 1 and "quote" not in r.stderr
    listed = tmp_path / "moves.txt"  # a move file: one move a line, nothing to quote
    listed.write_text("route\nkeep\n")
    r = p.run(who, "play", path, "-f", str(listed))
    assert r.exit_code == 1 and "quote" not in r.stderr and "argument" not in r.stderr
    assert p.files() == before


def test_play_with_no_moves_away_from_a_terminal_points_to_moves_and_the_prompt(
        players: Players) -> None:
    path = started(players)
    who = to_act(players, path)
    before = players.files()
    r = players.run(who, "play", path)  # CliRunner's stdin is no terminal
    assert r.exit_code == 1
    assert "cannot end yet: roll or pass first." in r.stderr
    assert f"'pbem moves {path}' lists them" in r.stderr
    assert f"'pbem play {path}' in a terminal to type them at a prompt" in r.stderr
    assert players.files() == before


def test_a_unique_start_of_a_game_name_names_the_game(players: Players, tmp_path: Path
                                                      ) -> None:
    r = players.run("ann", "new", "dice", "--seat", "ann", "--seat", "bob", "-o",
                    str(players.saves / "g.toml"))
    assert r.exit_code == 0, r.stderr
    assert json.loads(players.run(None, "verify", str(players.saves / "g.toml"),
                                  "--json").output)["game"] == "dice-race"
    r = players.run(None, "rules", "Dice Race")
    assert r.exit_code == 0 and r.output.startswith("Dice Race (dice-race)")
    r = players.run(None, "rules", "station")
    assert r.exit_code == 0 and "(station-to-station)" in r.output
    r = players.run("ann", "new", "s", "--seat", "ann", "--seat", "bob")
    assert r.exit_code == 2
    assert "'s' could be any of " in r.stderr and "station-to-station" in r.stderr
    assert "secret-draw" in r.stderr
    r = players.run(None, "rules", "r")
    assert r.exit_code == 2 and "red-dog-junction, road-master" in r.stderr
    r = players.run(None, "demo", "dice", "--players", "2", "--quiet", "--bot", "random:3",
                    "--dir", str(tmp_path / "demo"))
    assert r.exit_code == 0 and "Audit: clean" in r.output
    assert players.files() == {"g.toml"}
