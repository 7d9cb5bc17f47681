"""A pbem killed (kill -9, a power loss) between claiming its beacon link and writing the
save must not lock the seat out of its game: the next command of that home frees the
link when the save was never written whole, and keeps it when it was (the entry may
have been mailed: a link is published once). docs/protocol-beacon.md, pbem.home.claims.

Each crash is a real pbem process killed with SIGKILL at one point of its write."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import session
from pbem.cli import main
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.conftest import FIXED_CLOCK, ROOT
from tests.enginekit import actor, play_game

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")

# A pbem process that kills itself (SIGKILL: no clean-up runs) at ``stage``.
CHILD = """
import os, signal, sys
sys.path.insert(0, sys.argv[1])
from pbem import registry
from tests.support.dice_race import GAME
registry.register("dice-race", GAME)
stage = sys.argv[2]
def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)
from pbem.protocol.saveformat import savefile
if stage == "claimed":  # the link claimed, the entry signed, nothing written
    savefile.dumps = die
elif stage == "temporary":  # the whole save in its temporary file, not yet in place
    os.link = die
elif stage == "written":  # the save in place, pbem killed before it said so
    write_new = savefile.write_new
    savefile.write_new = lambda *args: (write_new(*args), die())
from pbem.cli import main
main(sys.argv[3:])
"""


# A minute after the clock of the test process: an entry signed again there differs.
CHILD_CLOCK = FIXED_CLOCK.replace(":00:00Z", ":01:00Z")


def crash(home: Home, stage: str, *args: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(ROOT), stage, "--home", str(home.path), *args],
        capture_output=True, text=True, env={**os.environ, "PBEM_CLOCK": CHILD_CLOCK},
        timeout=120)
    assert done.returncode == -signal.SIGKILL, (done.returncode, done.stderr)


def run(home: Home, *args: str) -> Any:
    return CliRunner().invoke(main, ["--home", str(home.path), *args])


def journal(home: Home, save: Path) -> dict[str, Any]:
    game_id = savefile.read(save).game_id
    data = json.loads((home.archive_dir / f"{game_id}.json").read_text("utf-8"))
    return dict(data.get("claims", {}))


def temporaries(folder: Path) -> list[Path]:
    return sorted(folder.glob(".pbem-*.tmp"))


def links_once(folder: Path) -> dict[str, str]:
    """Every beacon link of every save in ``folder`` -> the one entry that carries it;
    fails if one link is on two different entries."""
    seen: dict[str, str] = {}
    for path in sorted(folder.glob("*.toml")):
        for entry in savefile.read(path).entries:
            if "beacon" in entry:
                h = session.digest(entry)
                assert seen.setdefault(entry["beacon"], h) == h, f"link twice: {path}"
    return seen


@pytest.fixture
def game(homes: dict[str, Home], tmp_path: Path) -> tuple[Home, Path]:
    save = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    return homes[actor(save)], save


@pytest.mark.parametrize("stage", ["claimed", "temporary"])
def test_a_play_killed_before_its_save_was_written_frees_the_link(
        game: tuple[Home, Path], stage: str) -> None:
    """Before: every later play of the seat was refused ('already signed your next entry
    ... on another branch'), with no way back but editing the home by hand."""
    me, save = game
    folder = save.parent
    target = folder / "next.toml"
    crash(me, stage, "play", str(save), "roll", "-o", str(target))
    assert not target.exists()
    left = temporaries(folder)
    assert len(left) == (1 if stage == "temporary" else 0)
    if left:  # the signed entry, whole, in the atomic write's temporary file
        lost = savefile.parse(left[0].read_text("utf-8")).entries[-1]
    handle = me.load().handle
    again = run(me, "play", str(save), "roll", "-o", str(target))
    assert again.exit_code == 0, again.output
    game_id = savefile.read(save).game_id
    assert (f"pbem: An earlier play by {handle} on game {game_id[:8]} was interrupted before "
            "its save was written; its beacon link is free again.\n") in again.output
    assert temporaries(folder) == []  # the only other copy of that entry is gone
    assert journal(me, save) == {}
    new = savefile.read(target).entries[-1]
    if left:  # the same place, so the same link: published once, on this entry only
        assert new["beacon"] == lost["beacon"] and new != lost
    verified = run(me, "verify", str(target))
    assert verified.exit_code == 0, verified.output
    links_once(folder)


def test_a_play_killed_after_its_save_was_written_keeps_the_link(
        game: tuple[Home, Path]) -> None:
    """The save reached its file: it may have been mailed, so its link stays published
    and the seat cannot sign that place again on the save before it."""
    me, save = game
    target = save.parent / "next.toml"
    crash(me, "written", "play", str(save), "roll", "-o", str(target))
    written = savefile.read(target).entries[-1]

    again = run(me, "play", str(save), "roll", "-o", str(save.parent / "other.toml"))
    assert again.exit_code == 1, again.output
    handle = me.load().handle
    assert (f"pbem: An earlier play by {handle} on game {written['game'][:8]} was "
            f"interrupted after its save was written ({target}); that entry stands, and the "
            "game goes on from that save.\n") in again.output
    assert "already signed your next entry" in again.output
    assert not (save.parent / "other.toml").exists()
    assert journal(me, save) == {}  # settled for good: moving the file changes nothing
    target.rename(save.parent / "moved.toml")
    still = run(me, "play", str(save), "roll", "-o", str(save.parent / "other.toml"))
    assert still.exit_code == 1 and "interrupted" not in still.output
    assert run(me, "verify", str(save.parent / "moved.toml")).exit_code == 0
    links_once(save.parent)


def test_a_journal_pointing_at_a_file_with_another_entry(game: tuple[Home, Path]) -> None:
    """The record names a file that holds another save (not this entry's signature): the
    entry never reached it, and the link is freed. A file that holds the signature, in
    whatever form, keeps it: pbem frees a link only when it can tell."""
    me, save = game
    folder = save.parent
    crash(me, "temporary", "play", str(save), "roll", "-o", str(folder / "next.toml"))
    (folder / "next.toml").write_bytes(save.read_bytes())  # another save at that name
    again = run(me, "play", str(save), "roll", "-o", str(folder / "mine.toml"))
    assert again.exit_code == 0, again.output
    assert "before its save was written; its beacon link is free again." in again.output
    assert temporaries(folder) == []
    assert run(me, "verify", str(folder / "mine.toml")).exit_code == 0
    links_once(folder)


def test_a_journal_pointing_at_a_file_with_its_signature_keeps_the_claim(
        game: tuple[Home, Path]) -> None:
    me, save = game
    folder = save.parent
    crash(me, "temporary", "play", str(save), "roll", "-o", str(folder / "next.toml"))
    (tmp,) = temporaries(folder)
    sig = savefile.parse(tmp.read_text("utf-8")).entries[-1]["sig"]
    (folder / "next.toml").write_text(f"damaged, but it holds {sig}\n", "utf-8")
    again = run(me, "play", str(save), "roll", "-o", str(folder / "mine.toml"))
    assert again.exit_code == 1, again.output
    assert "after its save was written" in again.output
    assert not (folder / "mine.toml").exists()


@pytest.mark.parametrize("record", [{"path": 7}, {"path": "x", "link": "no", "sig": "ab"},
                                    None, [], "claimed"])
def test_a_damaged_journal_record_keeps_the_claim_and_says_so(
        game: tuple[Home, Path], record: Any) -> None:
    me, save = game
    crash(me, "claimed", "play", str(save), "roll", "-o", str(save.parent / "next.toml"))
    game_id = savefile.read(save).game_id
    path = me.archive_dir / f"{game_id}.json"
    data = json.loads(path.read_text("utf-8"))
    handle = me.load().handle
    (place,) = data["claims"][handle]
    data["claims"][handle][place] = record
    path.write_text(json.dumps(data), "utf-8")
    again = run(me, "play", str(save), "roll", "-o", str(save.parent / "mine.toml"))
    assert again.exit_code == 1, again.output
    assert "record of it is damaged: its beacon link stays published" in again.output
    assert "Traceback" not in again.output


def test_an_old_claim_without_a_journal_keeps_todays_behaviour(
        game: tuple[Home, Path]) -> None:
    """An archive written before the journal (no ``claims``) still opens; its claims stay
    published, as they always did."""
    me, save = game
    crash(me, "claimed", "play", str(save), "roll", "-o", str(save.parent / "next.toml"))
    game_id = savefile.read(save).game_id
    path = me.archive_dir / f"{game_id}.json"
    data = json.loads(path.read_text("utf-8"))
    del data["claims"]
    path.write_text(json.dumps(data), "utf-8")
    again = run(me, "play", str(save), "roll", "-o", str(save.parent / "mine.toml"))
    assert again.exit_code == 1 and "already signed your next entry" in again.output
    assert "interrupted" not in again.output
    assert run(me, "show", str(save)).exit_code == 0


def test_show_frees_the_link_too_and_previews_what_play_signs(
        game: tuple[Home, Path]) -> None:
    """'show' settles the claim as well (its preview of the chance is then resolved with
    the link the next play signs, not the one after)."""
    me, save = game
    crash(me, "claimed", "play", str(save), "roll", "-o", str(save.parent / "next.toml"))
    shown = run(me, "show", str(save))
    assert shown.exit_code == 0, shown.output
    assert "its beacon link is free again" in shown.output
    assert journal(me, save) == {}


def test_a_live_claim_is_left_alone(game: tuple[Home, Path]) -> None:
    """While a pbem of this home holds the game's lock (it may be between its claim and
    its write), another command settles nothing."""
    me, save = game
    crash(me, "claimed", "play", str(save), "roll", "-o", str(save.parent / "next.toml"))
    game_id = savefile.read(save).game_id
    from pbem import atomic
    from pbem.session.branches import lock_path

    with atomic.locked(lock_path(me, game_id)):
        shown = run(me, "show", str(save))
    assert shown.exit_code == 0 and "interrupted" not in shown.output
    assert list(journal(me, save)) == [me.load().handle]


def test_a_play_that_completes_leaves_no_journal(game: tuple[Home, Path]) -> None:
    me, save = game
    assert run(me, "play", str(save), "roll", "-o", str(save.parent / "n.toml")).exit_code == 0
    assert journal(me, save) == {}
    assert re.search(r"interrupted", run(me, "show", str(save.parent / "n.toml")).output) is None


def test_a_target_folder_gone_leaves_the_claim_pending_until_it_is_back(
        game: tuple[Home, Path]) -> None:
    """The folder the save went to is not there (a drive taken out): pbem cannot tell
    whether the save was written in it, so nothing is freed until it can."""
    me, save = game
    stick = save.parent / "stick"
    stick.mkdir()
    crash(me, "temporary", "play", str(save), "roll", "-o", str(stick / "next.toml"))
    stick.rename(save.parent / "away")
    shown = run(me, "show", str(save))
    assert shown.exit_code == 0, shown.output
    assert "to tell whether its save was written, so its beacon link stays published for now" \
        in shown.output
    assert list(journal(me, save)) == [me.load().handle]
    (save.parent / "away").rename(stick)
    again = run(me, "play", str(save), "roll", "-o", str(stick / "next.toml"))
    assert again.exit_code == 0, again.output
    assert "its beacon link is free again" in again.output
    assert temporaries(stick) == [] and journal(me, save) == {}
