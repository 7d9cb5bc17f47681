"""A fixed stream of "fresh" bytes for tests and benchmarks: what
pbem.protocol.crypto.entropy.fresh_bytes gives, made the same on every run from a label."""

from __future__ import annotations

import contextlib
import hashlib
import itertools
from collections.abc import Callable, Iterator


def fixed_bytes(base: bytes) -> Callable[[int], bytes]:
    """``fresh_bytes`` drawing SHA-256(base || counter) blocks in order."""
    counter = itertools.count()

    def fresh_bytes(n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(base + next(counter).to_bytes(8, "big")).digest()
        return out[:n]

    return fresh_bytes


@contextlib.contextmanager
def fixed_entropy(base: bytes, clock: str = "2025-01-01T00:00:00Z") -> Iterator[None]:
    """Inside the block every fresh value pbem draws comes from ``fixed_bytes(base)`` and
    the clock stands at ``clock`` (pbem.protocol.crypto.entropy); both are put back after."""
    from pbem.protocol.crypto import entropy

    saved = entropy.fresh_bytes, entropy.utc_now
    entropy.fresh_bytes = fixed_bytes(base)  # type: ignore[assignment]
    entropy.utc_now = lambda: clock
    try:
        yield
    finally:
        entropy.fresh_bytes, entropy.utc_now = saved
