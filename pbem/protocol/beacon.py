"""The hash-chain beacon (PROTOCOL.md section 5).

Each seat derives ``b0 = HKDF(seed, "beacon")`` and ``b_{i+1} = SHA-256(b_i)``; its
create/join entry publishes the anchor ``b_L`` and each later entry the next link down.
A random event queued in entry k is resolved by the next entry k' of another seat from
``R = SHA-256("pbem/1/rand" || game_id || k || beacon_k || beacon_k')``.
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable
from typing import Any

from pbem import recent
from pbem.protocol.derive import BEACON, BOT_RAND, RAND, derive
from pbem.protocol.sampler import Sampler

CHAIN_LENGTH = 4096


def _small_input_sha256() -> Callable[[bytes], Any]:
    """SHA-256 for the chain's 32-byte links: Python's own implementation (``_sha2`` from
    3.12, ``_sha256`` before) when the build has it, else hashlib's; the same digests. For
    inputs this short, setting up an OpenSSL context costs more than the hash: a 4,096-link
    walk takes about 1.5x less time on 3.11, 1.0x to 1.3x less on 3.12 and 3.13 (``make
    bench`` prints it)."""
    for name in ("_sha2", "_sha256"):
        try:
            constructor: Callable[[bytes], Any] = importlib.import_module(name).sha256
        except (ImportError, AttributeError):
            continue
        if constructor(b"abc").digest() == hashlib.sha256(b"abc").digest():
            return constructor
    return hashlib.sha256


_link_sha256 = _small_input_sha256()


def link(seed: bytes, index: int) -> bytes:
    """``b_index`` of this seed's chain (0 <= index <= CHAIN_LENGTH)."""
    if not 0 <= index <= CHAIN_LENGTH:
        raise ValueError(f"beacon link {index} is outside the chain")
    return _chain(seed)[index]


def anchor(seed: bytes) -> bytes:
    """``b_L``, the anchor a seat publishes when it joins. The audit needs only this of
    each revealed seed, so the chain is walked without keeping its links, unless this
    process has them already (a game played in process)."""
    walked = _CHAINS.get(seed)
    return walked[CHAIN_LENGTH] if walked is not None else _walk_to_anchor(seed)


def forget_chains() -> None:
    """Drop the chains walked so far (benchmarks time a verify as a new process runs it)."""
    _CHAINS.clear()


# The chains walked lately, by seed: a seat publishes its links from the top down, so
# each would otherwise walk nearly the whole chain again (a bot game in one process signs
# for every seat; a CLI run needs one chain, at the same cost). Oldest dropped first.
_CHAINS: dict[bytes, tuple[bytes, ...]] = {}
_CHAINS_KEPT = 8


def _chain(seed: bytes) -> tuple[bytes, ...]:
    """Every link of a seed's chain, walked once per process (kept in ``_CHAINS``)."""
    walked = _CHAINS.get(seed)
    if walked is None:
        walked = _walk(seed)
        recent.keep(_CHAINS, seed, walked, _CHAINS_KEPT)
    return walked


def _walk(seed: bytes) -> tuple[bytes, ...]:
    value = derive(seed, BEACON, 32)
    links = [value]
    keep = links.append
    sha256 = _link_sha256  # a local name: 4096 links per seat
    for _ in range(CHAIN_LENGTH):
        value = sha256(value).digest()
        keep(value)
    return tuple(links)


def _walk_to_anchor(seed: bytes) -> bytes:
    """``_walk(seed)[CHAIN_LENGTH]`` without the list: 5% to 15% less time, as measured."""
    value = derive(seed, BEACON, 32)
    sha256 = _link_sha256
    for _ in range(CHAIN_LENGTH):
        value = sha256(value).digest()
    return value


def published(seed: bytes, count: int) -> bytes:
    """The value a seat publishes in its ``count``-th entry (0 = the anchor)."""
    if count > CHAIN_LENGTH:
        raise ValueError("this seat has used up its beacon chain (4096 entries)")
    return link(seed, CHAIN_LENGTH - count)


def follows(value: bytes, previous: bytes) -> bool:
    """True if ``value`` is the link just below ``previous``."""
    return hashlib.sha256(value).digest() == previous


def randomness(game_id: str, seq: int, beacon_k: bytes, beacon_next: bytes) -> bytes:
    return hashlib.sha256(
        RAND + game_id.encode("ascii") + seq.to_bytes(8, "big") + beacon_k + beacon_next
    ).digest()


def sampler(game_id: str, seq: int, beacon_k: bytes, beacon_next: bytes) -> Sampler:
    return Sampler(randomness(game_id, seq, beacon_k, beacon_next))


def bot_sampler(game_id: str, seq: int, turn: int, beacon_before: bytes, link: bytes) -> Sampler:
    """Chance of the ``turn``-th bot turn played inside entry ``seq`` (PROTOCOL.md 11):
    ``SHA-256("pbem/1/bot-rand" || game_id || seq || turn || beacon_{seq-1} || link)``,
    where ``link`` is the signer's beacon in entry ``seq``. The signer's link was fixed
    when it joined; the previous entry's value was unknown to it until that entry's
    moves were fixed, as for the chance of a turn X plays itself."""
    return Sampler(hashlib.sha256(
        BOT_RAND + game_id.encode("ascii") + seq.to_bytes(8, "big") + turn.to_bytes(4, "big")
        + beacon_before + link).digest())
