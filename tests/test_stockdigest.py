"""The home keeps the digest of each installed game's component data under the hash of
its file (pbem.home.stockdigest), so a command need not read and check that data to
tell whether a save's components differ from it (issue 12: start-up)."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path

import pytest

from pbem import __version__, registry, session
from pbem.home import stockdigest
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from pbem.protocol.saveformat.canonical import digest

SAVES = Path(__file__).resolve().parent.parent / "saves"
GAMES = ["red-dog-junction", "road-master", "station-to-station"]


@pytest.fixture(autouse=True)
def clock_after_the_examples(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example saves were signed by a real clock, after the suite's fixed one: a
    clock before them would note their entries as dated ahead (PROTOCOL.md 11)."""
    monkeypatch.setenv("PBEM_CLOCK", "2100-01-01T00:00:00Z")


def example(ruleset: str) -> savefile.Save:
    return savefile.read(sorted((SAVES / ruleset).glob("*.toml"))[-1])


def mid_game(ruleset: str) -> savefile.Save:
    """An example game's save from the middle of play: a home re-verifying it resumes the
    rules replay from its archive (a finished game is audited from its first entry)."""
    return savefile.read(sorted((SAVES / ruleset).glob("*.toml"))[2])


def counted(monkeypatch: pytest.MonkeyPatch, ruleset: str) -> list[int]:
    """Count the readings of the installed data for ``ruleset``."""
    game = registry.load(ruleset)
    reads: list[int] = []
    honest = type(game).stock_components

    def reading(self: object) -> dict:
        reads.append(1)
        return honest(game)

    monkeypatch.setattr(type(game), "stock_components", reading)
    return reads


@pytest.mark.parametrize("ruleset", GAMES)
def test_the_home_reads_the_installed_data_once_then_only_hashes_its_file(
        ruleset: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save, home = example(ruleset), Home(tmp_path / "home")
    reads = counted(monkeypatch, ruleset)
    assert session.component_notes(save, home) == []  # the example games use stock data
    assert len(reads) == 1
    kept = json.loads((home.path / stockdigest.FILE).read_text())
    game = registry.load(ruleset)
    assert kept["games"][ruleset]["digest"] == digest(game.stock_components())
    reads.clear()
    stockdigest._worked_out.cache_clear()  # as in a new process
    assert session.component_notes(save, home) == []
    assert session.verify(save, home).notes == []
    assert reads == []


def test_a_save_with_other_component_data_is_named_with_or_without_the_kept_digest(
        tmp_path: Path) -> None:
    save, home = example("red-dog-junction"), Home(tmp_path / "home")
    other = copy.deepcopy(save)
    other.header["components"]["goods"]["gold"] += 1
    for _ in range(2):  # the digest worked out, then the one the home kept
        notes = session.component_notes(other, home)
        assert len(notes) == 1 and "differs from the data installed here" in notes[0]
        assert session.component_notes(save, home) == []


def test_an_edited_installed_file_is_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save, home = example("red-dog-junction"), Home(tmp_path / "home")
    game = registry.load("red-dog-junction")
    session.component_notes(save, home)
    edited = tmp_path / "components.toml"
    edited.write_bytes(game.stock_file().read_bytes() + b"\n# an owner's comment\n")
    monkeypatch.setattr(type(game), "stock_file", lambda self: edited)
    reads = counted(monkeypatch, "red-dog-junction")
    stockdigest._worked_out.cache_clear()  # as in a new process
    assert session.component_notes(save, home) == []
    assert len(reads) == 1, "another file hash: the data is read and checked again"


@pytest.mark.parametrize("damage", [
    b"", b"{", b"[]", b'{"pbem": "0.0.0", "games": {}}', b"x" * (stockdigest.MAX_FILE_BYTES + 2),
    b'{"pbem": "VERSION", "games": {"red-dog-junction": {"file": "FILE", "digest": "nothex"}}}',
], ids=["empty", "broken", "list", "other-version", "too-big", "bad-entry"])
def test_a_damaged_or_foreign_file_is_read_as_empty(
        damage: bytes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    save, home = example("red-dog-junction"), Home(tmp_path / "home")
    game = registry.load("red-dog-junction")
    file_hash = hashlib.sha256(game.stock_file().read_bytes()).hexdigest()
    home.path.mkdir(parents=True)
    (home.path / stockdigest.FILE).write_bytes(
        damage.replace(b"VERSION", __version__.encode()).replace(b"FILE", file_hash.encode()))
    reads = counted(monkeypatch, "red-dog-junction")
    assert session.component_notes(save, home) == []
    assert len(reads) == 1
    kept = json.loads((home.path / stockdigest.FILE).read_text())
    assert kept["games"]["red-dog-junction"]["file"] == file_hash


def test_a_wrong_digest_kept_in_the_home_only_changes_the_note(
        tmp_path: Path) -> None:
    """The kept digest is this home's own record, never a save's: it can make the note
    wrong (a hand-edited home), nothing else; verify checks the save as always."""
    save, home = example("red-dog-junction"), Home(tmp_path / "home")
    session.component_notes(save, home)
    path = home.path / stockdigest.FILE
    kept = json.loads(path.read_text())
    kept["games"]["red-dog-junction"]["digest"] = "0" * 64
    path.write_text(json.dumps(kept))
    assert kept["pbem"] == __version__
    verified = session.verify(save, home)
    assert verified.report.audit == "clean"
    assert len(verified.notes) == 1 and "differs from the data installed here" in verified.notes[0]


@pytest.mark.parametrize("ruleset", GAMES)
def test_the_replay_gives_the_digest_of_the_components_it_read(ruleset: str) -> None:
    """The note compares the installed digest with the one the replay worked out from the
    components' canonical text, instead of hashing the components a second time."""
    save = example(ruleset)
    report = session.verify(save, None, full=True).report
    assert report.components_digest == digest(save.header["components"])


def test_the_components_text_is_canonical_so_its_hash_is_their_digest() -> None:
    from pbem.protocol.state import headers

    header = {"options": {"b": 1, "a": True},
              "components": {"z": [{"name": "Café ☕", "n": -3}], "a": {"y": "\u00e9", "x": []}}}
    text = headers.game_data_text(header)
    assert headers.components_digest(text) == digest(header["components"])
    options, components = headers.game_data(header, text)
    assert options == header["options"] and list(options) == ["a", "b"]
    assert components == header["components"] and list(components) == ["a", "z"]


@pytest.mark.parametrize(("ruleset", "reads"), [("station-to-station", 2), ("road-master", 3)])
def test_set_up_reads_the_components_once_more_only_for_a_game_that_may_have_secret_decks(
        monkeypatch: pytest.MonkeyPatch, ruleset: str, reads: int) -> None:
    """The header check and the set-up each take a copy of the components; a third copy,
    for the game's secret decks, is made only if the game says which decks it has (the
    default has none, whatever it is given)."""
    from pbem.protocol.state import headers

    header = example(ruleset).header
    copies: list[int] = []
    honest = headers.game_data

    def counting(*args: object) -> tuple[dict, dict]:
        copies.append(1)
        return honest(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(headers, "game_data", counting)
    table = headers.empty_table(header)
    assert len(copies) == reads
    assert ("secret" in table.gstate) == (ruleset == "road-master")


def test_the_archive_keeps_the_components_digest_with_the_header_it_belongs_to(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A home re-verifying a save resumes the replay from its archive, so nothing works out
    the components' digest from their text: the archive kept it beside the header hash."""
    from pbem.home.archive import Archive

    save, home = mid_game("station-to-station"), Home(tmp_path / "home")
    first = session.verify(save, home)
    assert first.report.checked_from == 0 and first.notes == []
    archive = Archive(home.archive_dir, save.game_id)
    header_hash = digest(save.header)
    assert archive.components_digest(header_hash) == digest(save.header["components"])
    assert archive.components_digest("0" * 64) is None  # another header: not its digest

    hashed: list[object] = []
    honest = session.digest
    monkeypatch.setattr(session, "digest",
                        lambda value: hashed.append(value) or honest(value))
    again = session.verify(save, home)
    assert again.report.checked_from > 0 and again.report.components_digest is None
    assert again.notes == []
    assert save.header["components"] not in hashed, "the components were hashed again"


def test_a_wrong_components_digest_kept_in_the_archive_only_changes_the_note(
        tmp_path: Path) -> None:
    save, home = mid_game("red-dog-junction"), Home(tmp_path / "home")
    session.verify(save, home)
    path = home.archive_dir / f"{save.game_id}.json"
    kept = json.loads(path.read_text())
    kept["components"] = "0" * 64
    path.write_text(json.dumps(kept))
    verified = session.verify(save, home)
    assert verified.report.audit == "pending" and verified.report.checked_from > 0
    assert len(verified.notes) == 1 and "differs from the data installed here" in verified.notes[0]
    kept["components"] = ["not", "a digest"]
    path.write_text(json.dumps(kept))
    damaged = session.verify(save, home)  # read as no archive: a full check, the right note
    assert damaged.report.checked_from == 0 and damaged.notes == []
