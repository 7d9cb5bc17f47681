"""pbem.atomic: a home's small bookkeeping files, written whole and read back bounded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pbem import atomic


def test_read_json_reads_what_replace_wrote(tmp_path: Path) -> None:
    path = tmp_path / "index.json"
    atomic.replace(path, b'{"version": 1, "games": {}}', sync=False)
    assert atomic.read_json(path, 1000) == {"version": 1, "games": {}}


def test_a_missing_damaged_or_oversized_file_reads_as_none(tmp_path: Path) -> None:
    """What a crash, a full disk or a hostile file leaves: never an exception."""
    assert atomic.read_json(tmp_path / "absent.json", 1000) is None
    assert atomic.read_json(tmp_path, 1000) is None  # a folder where a file should be
    cases = {"cut.json": b'{"games": {"a', "latin1.json": b'{"x": "\xff"}',
             "deep.json": b"[" * 100_000 + b"]" * 100_000,
             "big.json": b'{"pad": "' + b"x" * 2000 + b'"}'}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        limit = 1000 if name == "big.json" else 300_000
        assert atomic.read_json(tmp_path / name, limit) is None, name


class FakeMsvcrt:
    """Windows' msvcrt.locking as the standard library documents it: LK_LOCK gives up
    (OSError) after ten tries while another process holds the byte."""

    LK_LOCK, LK_UNLCK = 1, 0

    def __init__(self, busy: int) -> None:
        self.busy = busy  # how many LK_LOCK calls still find the byte held
        self.calls: list[tuple[str, int, int]] = []

    def locking(self, fd: int, mode: int, nbytes: int) -> None:
        import os

        at = os.lseek(fd, 0, os.SEEK_CUR)
        self.calls.append(("lock" if mode == self.LK_LOCK else "unlock", at, nbytes))
        if mode == self.LK_LOCK and self.busy:
            self.busy -= 1
            raise OSError(36, "Resource deadlock avoided")


def test_on_windows_the_lock_is_msvcrt_locking_waited_for_and_released(
        tmp_path: Path, monkeypatch: Any) -> None:
    """Without fcntl (Windows), locked() takes msvcrt's lock on the file's first byte,
    asks again while another process holds it, and unlocks before closing."""
    fake = FakeMsvcrt(busy=2)
    monkeypatch.setattr(atomic, "fcntl", None)
    monkeypatch.setattr(atomic, "_msvcrt", fake)
    inside: list[list[tuple[str, int, int]]] = []
    with atomic.locked(tmp_path / "sub" / "x.lock"):
        inside.append(list(fake.calls))
    assert inside == [[("lock", 0, 1)] * 3]
    assert fake.calls == [("lock", 0, 1)] * 3 + [("unlock", 0, 1)]
    assert (tmp_path / "sub" / "x.lock").exists()
    fake.calls.clear()
    try:
        with atomic.locked(tmp_path / "sub" / "x.lock"):
            raise KeyError("the block fails")
    except KeyError:
        pass
    assert fake.calls == [("lock", 0, 1), ("unlock", 0, 1)]  # released all the same
