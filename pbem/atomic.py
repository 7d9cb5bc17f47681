"""Replacing a small file of the home atomically: a reader sees the old file or the new
one, never half of either."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def replace(path: Path, data: bytes, *, sync: bool = True) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``.

    ``sync`` flushes it to the disk first (a record the home relies on); a cache whose
    loss costs only time may skip that."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", dir=path.parent)
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
