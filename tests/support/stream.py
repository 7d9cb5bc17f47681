"""A fixed stream of "fresh" bytes for tests: what pbem.protocol.entropy.fresh_bytes
gives, made the same on every run from a label."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable


def fixed_bytes(base: bytes) -> Callable[[int], bytes]:
    """``fresh_bytes`` drawing SHA-256(base || counter) blocks in order."""
    counter = itertools.count()

    def fresh_bytes(n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(base + next(counter).to_bytes(8, "big")).digest()
        return out[:n]

    return fresh_bytes
