"""Replacing a small file of the home atomically: a reader sees the old file or the new
one, never half of either; and a lock for a read-change-write of such a file, so two
pbem processes (``verify --jobs``, a command run while ``inbox`` files saves) never lose
each other's changes. Reading such a file back, bounded, as JSON."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # Windows: msvcrt's byte-range locks instead
    fcntl = None  # type: ignore[assignment]

_msvcrt: Any = None
if sys.platform == "win32":
    import msvcrt as _msvcrt


def read_json(path: Path | str, max_bytes: int) -> Any:
    """The JSON value of the file at ``path``; None when it is missing, unreadable, over
    ``max_bytes`` or not JSON. A home's bookkeeping file may be damaged or cut short: it
    then reads as none, and the caller checks the shape of what it gets."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read(max_bytes + 1)
        return json.loads(raw) if len(raw) <= max_bytes else None
    except (OSError, ValueError, RecursionError):
        return None


def temporary(folder: Path | str, prefix: str, suffix: str = "") -> tuple[int, str]:
    """A new file in ``folder`` that nobody else has opened, as ``tempfile.mkstemp`` makes
    one (an unused random name, mode 0600): (its descriptor, its path). Without
    importing tempfile, which pulls in shutil, random and the compression modules: a
    tenth of a command's start-up."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_BINARY", 0)
    for _ in range(100):
        name = os.path.join(folder, f"{prefix}{os.urandom(8).hex()}{suffix}")
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary name in {folder}")


def replace(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``.

    ``sync`` flushes it to the disk first (a record the home relies on); a cache whose
    loss costs only time may skip that."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = temporary(path.parent, f".{path.stem}-")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if sync:
                fh.flush()
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (a file beside the data it guards, created if
    missing) while the block runs; another process taking it waits. The lock goes with
    the process, so a crash never leaves it held."""
    if fcntl is None and _msvcrt is None:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        else:
            _lock_windows(fd)
            try:
                yield
            finally:
                os.lseek(fd, 0, os.SEEK_SET)
                _msvcrt.locking(fd, _msvcrt.LK_UNLCK, 1)  # Windows asks for it before close
    finally:
        os.close(fd)  # closing releases an flock


def _lock_windows(fd: int) -> None:
    """Lock the file's first byte (past its end is allowed), waiting as flock does:
    LK_LOCK itself gives up after ten tries a second apart, so it is asked again."""
    while True:
        os.lseek(fd, 0, os.SEEK_SET)  # locking() starts at the file position
        try:
            _msvcrt.locking(fd, _msvcrt.LK_LOCK, 1)
            return
        except OSError:  # still held by another process after ten seconds
            continue


@contextlib.contextmanager
def try_locked(path: Path) -> Iterator[bool]:
    """As :func:`locked`, without waiting: the block runs holding the lock (True), or,
    when another process holds it, holding nothing (False)."""
    if fcntl is None and _msvcrt is None:
        yield True
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0), 0o600)
    try:
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                yield False
                return
            yield True
            return
        try:
            _msvcrt.locking(fd, _msvcrt.LK_NBLCK, 1)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            os.lseek(fd, 0, os.SEEK_SET)
            _msvcrt.locking(fd, _msvcrt.LK_UNLCK, 1)
    finally:
        os.close(fd)  # closing releases an flock
