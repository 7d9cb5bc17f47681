"""What this process worked out lately, kept in a small store: a dict in insertion order,
bounded, its oldest items dropped first (beacon chains, the entries signed here, the bot's
steady turns)."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def keep(store: dict[K, V], key: K, value: V, most: int) -> None:
    """Put ``key -> value`` in ``store`` as its newest item (replacing any older value of
    ``key``), first dropping its oldest items so that it holds at most ``most``."""
    store.pop(key, None)
    while len(store) >= most:
        del store[next(iter(store))]
    store[key] = value
