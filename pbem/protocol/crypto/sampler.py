"""Uniform integers from a 32-byte random value, identical on every machine.

The stream is SHAKE-256 of the value; integers come by rejection sampling (never
modulo bias, never ``random``). Known-answer vectors live in tests/test_sampler.py so
another implementation can interoperate.
"""

from __future__ import annotations

from collections.abc import MutableSequence, Sequence
from typing import TypeVar

from pbem.hashing import shake_256

T = TypeVar("T")


class Sampler:
    """A deterministic stream of uniform choices derived from ``seed`` bytes."""

    def __init__(self, seed: bytes) -> None:
        self._seed = bytes(seed)
        self._buffer = b""
        self._offset = 0

    def read(self, count: int) -> bytes:
        """The next ``count`` bytes of SHAKE-256(seed)."""
        end = self._offset + count
        if end > len(self._buffer):
            # SHAKE is an XOF: a longer digest extends the shorter one, so regrowing
            # the buffer keeps every byte already handed out.
            self._buffer = shake_256(self._seed, max(256, 2 * end))
        chunk = self._buffer[self._offset : end]
        self._offset = end
        return chunk

    def randbelow(self, n: int) -> int:
        """Uniform integer in ``0 .. n-1``; ``n == 1`` consumes nothing."""
        if n < 1:
            raise ValueError("randbelow needs n >= 1")
        if n == 1:
            return 0
        bits = (n - 1).bit_length()
        nbytes = (bits + 7) // 8
        mask = (1 << bits) - 1
        while True:
            value = int.from_bytes(self.read(nbytes), "big") & mask
            if value < n:
                return value

    def randint(self, low: int, high: int) -> int:
        """Uniform integer in ``low .. high`` inclusive (a die is ``randint(1, 6)``)."""
        return low + self.randbelow(high - low + 1)

    def choice(self, items: Sequence[T]) -> T:
        if not items:
            raise ValueError("choice from an empty sequence")
        return items[self.randbelow(len(items))]

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Fisher-Yates in place, from the last position down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        """``k`` distinct positions' items, in draw order."""
        pool = list(items)
        return [pool.pop(self.randbelow(len(pool))) for _ in range(min(k, len(pool)))]
