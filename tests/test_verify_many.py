"""``pbem verify SAVE...``: many saves, one line (or JSON line) each in argument order,
``--jobs`` processes that change nothing printed, the worst exit code; and the home's
files (archive, games index) never losing what two processes write at once."""

from __future__ import annotations

import json
import multiprocessing
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from pbem import batch, registry, session
from pbem.cli import main
from pbem.home import gameindex
from pbem.home.archive import Archive
from pbem.home.gameindex import GameIndex
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest

SAVES = Path(__file__).resolve().parent.parent / "saves"
# The Road Master example game (saves/ is regenerated when its rules change): its start
# save, a mid-game save, and what verify says of them.
RM_START, RM = sorted((SAVES / "road-master").glob("*.toml"))[1:3]
RM_ID = savefile.read(RM).game_id
RM_SHORT = RM_ID[:8]
RM_ENTRIES = len(savefile.read(RM).entries)
START_ENTRIES = len(savefile.read(RM_START).entries)
# A mid-game save of the Red Dog Junction example game, likewise.
RDJ = sorted((SAVES / "red-dog-junction").glob("*.toml"))[2]
RDJ_SHORT = savefile.read(RDJ).game_id[:8]
RDJ_ENTRIES = len(savefile.read(RDJ).entries)


def run(home: Path, *args: str) -> Result:
    return CliRunner().invoke(main, ["--home", str(home), "verify", *args])


@pytest.fixture()
def mixed(tmp_path: Path) -> list[str]:
    """Two games' saves (one game twice), a tampered one, a malformed one, a missing one."""
    folder = tmp_path / "saves"
    folder.mkdir()
    good = [RDJ, RM_START, RM]
    for path in good:
        shutil.copy(path, folder)
    tampered = folder / "tampered.toml"
    tampered.write_text(RM.read_text("utf-8").replace('moves = [', 'moves = ["pass", ', 1),
                        "utf-8")
    malformed = folder / "malformed.toml"
    malformed.write_text("[header]\nthis is not toml\n", "utf-8")
    names = [str(folder / p.name) for p in good]
    return [names[0], str(tampered), names[1], str(malformed), str(folder / "missing.toml"),
            names[2]]


def test_many_saves_one_line_each_in_order_and_the_worst_exit(mixed: list[str],
                                                            tmp_path: Path) -> None:
    result = run(tmp_path / "home", *mixed)
    lines = result.output.splitlines()
    assert [line.split(": ", 1)[0] for line in lines] == mixed
    assert lines[0] == f"{mixed[0]}: ok (red-dog-junction {RDJ_SHORT}, {RDJ_ENTRIES} entries)"
    assert lines[1].startswith(f"{mixed[1]}: refused, exit 3 (road-master {RM_SHORT}, "
                               f"{RM_ENTRIES} entries): Entry ")
    assert lines[2] == f"{mixed[2]}: ok (road-master {RM_SHORT}, {START_ENTRIES} entries)"
    assert lines[3].startswith(f"{mixed[3]}: refused, exit 4: ")
    assert lines[4] == f"{mixed[4]}: refused, exit 4: There is no file {mixed[4]}."
    assert lines[5] == f"{mixed[5]}: ok (road-master {RM_SHORT}, {RM_ENTRIES} entries)"
    assert result.exit_code == 4  # the highest of 3 and 4
    assert "Traceback" not in result.output


def test_exit_code_is_that_of_the_only_failure(mixed: list[str], tmp_path: Path) -> None:
    assert run(tmp_path / "home", mixed[0], mixed[1]).exit_code == 3
    assert run(tmp_path / "home2", mixed[0], mixed[2]).exit_code == 0


def test_each_file_is_checked_as_verify_checks_it_alone(mixed: list[str],
                                                        tmp_path: Path) -> None:
    """Same verdict and exit code as one 'pbem verify FILE' per file, in a fresh home."""
    many = [json.loads(line) for line in
            run(tmp_path / "many", "--json", *mixed).output.splitlines()]
    for i, path in enumerate(mixed):
        alone = run(tmp_path / f"alone{i}", "--json", path)
        single = json.loads(alone.output)
        assert (many[i]["exit_code"], many[i]["ok"]) == (alone.exit_code, alone.exit_code == 0)
        assert many[i]["errors"] == single["errors"]
        if single["ok"]:
            for key in ("game", "id", "entries", "to_act", "next", "over", "audit", "scores"):
                assert many[i][key] == single[key], key


def test_json_lines(mixed: list[str], tmp_path: Path) -> None:
    result = run(tmp_path / "home", "--json", *mixed)
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [r["path"] for r in rows] == mixed
    keys = {"path", "ok", "exit_code", "game", "id", "entries", "to_act", "next", "over",
            "audit", "scores", "stale", "notes", "errors", "players"}
    assert all(keys <= set(r) for r in rows)
    assert [r["ok"] for r in rows] == [True, False, True, False, False, True]
    assert [r["exit_code"] for r in rows] == [0, 3, 0, 4, 4, 0]
    assert rows[1]["errors"][0]["seq"] == 0 and rows[1]["game"] == "road-master"
    assert rows[4]["errors"][0]["message"] == f"There is no file {mixed[4]}."
    assert rows[5]["entries"] == RM_ENTRIES and rows[5]["next"] == "turn"
    assert result.exit_code == 4


def test_jobs_2_prints_what_jobs_1_prints(mixed: list[str], tmp_path: Path) -> None:
    # The newest save of a game before an older one: the older is stale, in both runs.
    newer_first = [mixed[5], mixed[2]] + mixed
    for flags in ([], ["--json"]):
        one = run(tmp_path / f"one{len(flags)}", *flags, "--jobs", "1", *newer_first)
        two = run(tmp_path / f"two{len(flags)}", *flags, "--jobs", "2", *newer_first)
        assert one.output == two.output
        assert one.exit_code == two.exit_code == 4
    assert "stale" in one.output.splitlines()[1]


def test_a_bug_in_one_file_stops_no_other(mixed: list[str], tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    real = session.verify

    def broken(save: savefile.Save, home: Home | None, **kw: object) -> session.Verified:
        if save.ruleset == "red-dog-junction":
            raise RuntimeError("boom")
        return real(save, home, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(session, "verify", broken)
    result = run(tmp_path / "home", mixed[0], mixed[2])
    lines = result.output.splitlines()
    assert lines[0].startswith(f"{mixed[0]}: refused, exit 70 (red-dog-junction {RDJ_SHORT}, "
                               f"{RDJ_ENTRIES} entries): internal error (RuntimeError: boom)")
    assert lines[1] == f"{mixed[2]}: ok (road-master {RM_SHORT}, {START_ENTRIES} entries)"
    assert result.exit_code == 70 and "Traceback" not in result.output


def test_one_save_prints_as_before(tmp_path: Path) -> None:
    result = run(tmp_path / "home", str(RM))
    assert result.exit_code == 0
    assert result.output.startswith(f"road-master {RM_SHORT}: {RM_ENTRIES} entries verified")
    folder = tmp_path / "folder"
    folder.mkdir()
    refused = run(tmp_path / "home", str(folder))  # unreadable as a save: exit 4, as show
    assert refused.exit_code == 4 and "is a folder, not a save file" in refused.output


def test_a_file_hiding_its_game_id_runs_alone_and_still_verifies(tmp_path: Path) -> None:
    hidden = tmp_path / "hidden.toml"  # the same save with its id line spelt otherwise
    hidden.write_text(RM.read_text("utf-8").replace('\nid = "', '\nid  =  "', 1), "utf-8")
    assert batch.peek_game_id(str(hidden)) is None
    assert batch.peek_game_id(str(RM)) == RM_ID
    assert batch.groups([str(RM), str(hidden), str(RM)]) == [[0, 2], [1]]
    result = run(tmp_path / "home", "--jobs", "2", str(RM), str(hidden))
    assert result.exit_code == 0, result.output


# ---- two processes writing one home ------------------------------------------------------
def test_two_archives_of_one_game_lose_nothing_of_each_other(tmp_path: Path) -> None:
    """Two processes read the archive, then each records: the second keeps the first's
    change (here: a sent mark) instead of writing its old copy over it."""
    save = savefile.read(RM)
    home = Home(tmp_path / "home")
    session.load(RM_START, home)
    first, second = (Archive(home.archive_dir, save.game_id) for _ in range(2))
    sent = digest(save.entries[4])
    first.mark_sent(sent, 4)
    hashes = [digest(e) for e in save.entries]
    second.record(second.data["header"], save.entries, hashes, {})
    after = Archive(home.archive_dir, save.game_id)
    assert after.was_sent(sent)
    assert all(after.known(h) for h in hashes)


def test_two_game_indexes_lose_nothing_of_each_other(tmp_path: Path) -> None:
    home = Home(tmp_path / "home")
    records = []
    for game in ("red-dog-junction", "road-master"):
        path = sorted((SAVES / game).glob("*.toml"))[1]
        verified = session.verify(savefile.read(path), None)
        records.append(gameindex.summarize(verified.save, verified.report, path, "ann"))
    first, second = GameIndex(home.path), GameIndex(home.path)
    first.remember(records[0])
    second.remember(records[1])
    assert {r.id for r in GameIndex(home.path).games()} == {r.id for r in records}


def _verify_in_process(args: tuple[str, str, float]) -> int:
    home, path, start = args
    registry.load("road-master")  # loaded before the start, so all begin together
    time.sleep(max(0.0, start - time.time()))
    session.load(path, Home(Path(home)), full=True)
    return 0


def test_saves_of_one_game_verified_at_once_corrupt_nothing(tmp_path: Path) -> None:
    """Four processes verify four saves of one game into one home at the same moment:
    the archive holds every entry, its evidence file one whole JSON line per entry, once
    (without the archive's lock each process appends every entry it read as new)."""
    game = sorted((SAVES / "road-master").glob("*.toml"))
    home = tmp_path / "home"
    start = time.time() + 4
    jobs = [(str(home), str(path), start) for path in reversed(game)]
    with multiprocessing.get_context("spawn").Pool(len(jobs)) as pool:
        assert pool.map(_verify_in_process, jobs, chunksize=1) == [0] * len(jobs)
    newest = savefile.read(game[-1])
    archive = Archive(Home(home).archive_dir, newest.game_id)
    hashes = [digest(e) for e in newest.entries]
    assert all(archive.known(h) for h in hashes)
    lines = archive.evidence_path.read_text("utf-8").splitlines()
    assert sorted(json.loads(line)["hash"] for line in lines) == sorted(hashes)
    result = run(home, str(game[-1]))
    assert result.exit_code == 0 and "stale" not in result.output
