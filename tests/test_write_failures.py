"""A save that cannot be written: the disk full, or Ctrl-C in the middle of the write. One
plain sentence, the documented exit code, no file, and the seat free to play again once
the disk has room: the beacon link claimed for the entry is given back, since the entry
never reached a file (docs/protocol-beacon.md)."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner

from pbem import atomic
from pbem.cli import main
from pbem.home import archive
from pbem.protocol.crypto.identity import Home
from pbem.protocol.saveformat import savefile
from tests.enginekit import actor, play_game


def run(home: Home, *args: str) -> Any:
    return CliRunner().invoke(main, ["--home", str(home.path), *args])


def files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def no_room(*args: Any, **kwargs: Any) -> Any:
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


class FullDisk:
    """The os module as savefile sees it when the disk fills while the save is written."""

    fsync = staticmethod(no_room)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def interrupted(folder: Path | str, prefix: str, suffix: str = "") -> tuple[int, str]:
    """atomic.temporary, then Ctrl-C: the save's bytes are on their way."""
    fd, name = atomic.temporary(folder, prefix, suffix)
    os.close(fd)
    os.unlink(name)
    raise KeyboardInterrupt


@pytest.mark.parametrize("failure", ["ctrl-c", "full disk"])
def test_a_save_not_written_leaves_nothing_and_the_seat_free_to_play(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        failure: str) -> None:
    """Before: Ctrl-C left the link claimed, and every later play of the seat was refused
    as if it had signed on another branch; a full disk was called a bug in pbem (exit 70)."""
    save = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    me = homes[actor(save)]
    before = files(save.parent)
    with monkeypatch.context() as patched:
        if failure == "ctrl-c":
            patched.setattr(savefile, "atomic", SimpleNamespace(temporary=interrupted))
        else:
            patched.setattr(savefile, "os", FullDisk())
        result = run(me, "play", str(save), "roll", "-o", str(tmp_path / "saves" / "next.toml"))
    said = {"ctrl-c": (130, "pbem: interrupted; nothing was written.\n"),
            "full disk": (2, f"pbem: Could not write {tmp_path / 'saves' / 'next.toml'} (No "
                             "space left on device); nothing was written.\n")}[failure]
    assert (result.exit_code, result.output) == said
    assert files(save.parent) == before
    again = run(me, "play", str(save), "roll", "-o", str(tmp_path / "saves" / "next.toml"))
    assert again.exit_code == 0, again.output


def test_no_room_to_claim_the_link_is_a_plain_sentence(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: 'internal error (OSError ...)', exit 70, as for a bug."""
    save = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    me = homes[actor(save)]
    before = files(save.parent)
    with monkeypatch.context() as patched:
        patched.setattr(archive.atomic, "replace", no_room)
        result = run(me, "play", str(save), "roll")
    assert result.exit_code == 2
    assert result.output == (f"pbem: Could not record the entry about to be signed in "
                             f"{me.archive_dir} (No space left on device). Nothing was "
                             "signed or written.\n")
    assert files(save.parent) == before


class NoLinksFullDisk:
    """The os module as savefile sees it on a filesystem without hard links whose disk
    fills as the save is written in place: the temporary file is synced, the save not."""

    def __init__(self) -> None:
        self.synced = 0

    def link(self, *args: Any) -> None:
        raise OSError(errno.EPERM, os.strerror(errno.EPERM))

    def fsync(self, fd: int) -> None:
        self.synced += 1
        if self.synced > 1:
            no_room()
        os.fsync(fd)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


def test_a_save_written_in_place_that_cannot_be_finished_is_removed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: without hard links the save was written in place, and a full disk left it
    there, whole or in part, while pbem said nothing was written."""
    target = tmp_path / "next.toml"
    monkeypatch.setattr(savefile, "os", NoLinksFullDisk())
    with pytest.raises(OSError):
        savefile.write_new(target, "# a save\n" * 1000)
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_never_stops_show_or_verify(
        homes: dict[str, Home], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Reading a save records its players (contacts.toml): a record that cannot be
    written is learnt next time. Before: 'internal error', exit 70, nothing shown."""
    from pbem.home import contacts

    save = play_game(homes, tmp_path / "saves", stop_after=4)[-1]
    monkeypatch.setattr(contacts.atomic, "replace", no_room)
    for command in ("show", "verify"):
        stranger = Home(tmp_path / "homes" / f"dee-{command}")  # meets every player
        stranger.keygen("dee")
        result = run(stranger, command, str(save))
        assert result.exit_code == 0 and "internal error" not in result.output, result.output


def test_a_home_file_that_cannot_be_written_is_a_plain_sentence(
        homes: dict[str, Home], monkeypatch: pytest.MonkeyPatch) -> None:
    """Before: 'internal error (OSError ...)', exit 70, as for a bug in pbem."""
    monkeypatch.setattr(atomic, "replace", no_room)
    result = run(homes["ann"], "contacts", "email", "bob", "bob@example.org")
    assert (result.exit_code, result.output) == (2, (
        "pbem: A file of this command could not be read or written (No space left on "
        "device). Make room or fix the permissions, then run it again.\n"))


def test_a_network_error_is_never_called_a_file_that_could_not_be_written(
        homes: dict[str, Home], monkeypatch: pytest.MonkeyPatch) -> None:
    def reset(*args: Any, **kwargs: Any) -> None:
        raise ConnectionResetError(errno.ECONNRESET, os.strerror(errno.ECONNRESET))

    monkeypatch.setattr(atomic, "replace", reset)
    result = run(homes["ann"], "contacts", "email", "bob", "bob@example.org")
    assert result.exit_code == 70 and "could not be read or written" not in result.output
