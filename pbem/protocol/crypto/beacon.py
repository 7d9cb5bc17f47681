"""The hash-chain beacon (PROTOCOL.md section 5; docs/protocol-beacon.md).

Each seat derives ``b0 = HKDF(seed, "beacon")`` and ``b_{i+1} = SHA-256(b_i)``; its
create/join entry publishes the anchor ``b_L``, and each later entry of the seat in the
order of play (``savefile.LINK_KINDS``: start, turn, reveal, resign) exactly the next link
down; entries signed out of the order of play carry none (format pbem/2). A random event
queued in entry k is resolved by the next entry k' in the order of play by another seat,
from ``R = SHA-256("pbem/1/rand" || game_id || k || beacon_k || beacon_k')``.

No skips: a verifier accepts exactly the next link (:class:`Tip`), except where the entry
carries as ``evidence`` the entries of a branch an answer to a proposal voided, on which
its seat published the places it skips (pbem.protocol.state.evidence). A chain never runs out:
from depth ``ANCHOR_ZONE`` on, a seat's entry publishes the anchor of a fresh chain (field
``anchor``, chain k >= 1 starting at ``HKDF(seed, "pbem/1/beacon-renewed" || k)``), and
its next entry continues with that chain's first link. A position is (chain, depth),
depth counting the links below the chain's anchor (1 is the first link after it).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pbem import recent
from pbem.hashing import SHA256, sha256
from pbem.protocol.crypto.derive import BEACON, BEACON_RENEWED, BOT_RAND, RAND, derive
from pbem.protocol.crypto.sampler import Sampler
from pbem.record import Record

CHAIN_LENGTH = 4096
# From this depth on, a seat's entry publishes a fresh anchor: the entry at this depth
# does, and the seat's next entry takes the fresh chain's first link, so the last 127
# links of a chain are never used (a margin, kept from format pbem/1).
ANCHOR_ZONE = CHAIN_LENGTH - 127


# The chain's 32-byte links: for inputs this short, Python's own SHA-256 is quicker than
# setting up an OpenSSL context (a 4,096-link walk about 1.5x on 3.11; `make bench`).
_link_sha256 = SHA256


def link(seed: bytes, index: int, chain: int = 0) -> bytes:
    """``b_index`` of this seed's chain number ``chain`` (0 <= index <= CHAIN_LENGTH)."""
    if not 0 <= index <= CHAIN_LENGTH:
        raise ValueError(f"beacon link {index} is outside the chain")
    return _chain(seed, chain)[index]


def anchor(seed: bytes, chain: int = 0) -> bytes:
    """``b_L`` of chain ``chain``: the anchor a seat publishes when it joins (chain 0) or
    in its entry's ``anchor`` field (the fresh chains). The audit needs only this of each
    revealed seed, so the chain is walked without keeping its links, unless this process
    has them already (a game played in process)."""
    walked = _CHAINS.get(_key(seed, chain))
    return walked[CHAIN_LENGTH] if walked is not None else _walk_to_anchor(seed, chain)


def _start(seed: bytes, chain: int) -> bytes:
    """``b_0`` of chain number ``chain`` of this seed."""
    if chain == 0:
        return derive(seed, BEACON, 32)
    return derive(seed, BEACON_RENEWED + chain.to_bytes(4, "big"), 32)


def _key(seed: bytes, chain: int) -> bytes:
    return seed if chain == 0 else seed + chain.to_bytes(4, "big")


def forget_chains() -> None:
    """Drop the chains walked so far (benchmarks time a verify as a new process runs it)."""
    _CHAINS.clear()


# The chains walked lately, by seed: a seat publishes its links from the top down, so
# each would otherwise walk nearly the whole chain again (a bot game in one process signs
# for every seat; a CLI run needs one chain, at the same cost). Oldest dropped first.
_CHAINS: dict[bytes, tuple[bytes, ...]] = {}
_CHAINS_KEPT = 8


def _chain(seed: bytes, chain: int = 0) -> tuple[bytes, ...]:
    """Every link of a seed's chain, walked once per process (kept in ``_CHAINS``)."""
    key = _key(seed, chain)
    walked = _CHAINS.get(key)
    if walked is None:
        walked = _walk(seed, chain)
        recent.keep(_CHAINS, key, walked, _CHAINS_KEPT)
    return walked


def _walk(seed: bytes, chain: int = 0) -> tuple[bytes, ...]:
    value = _start(seed, chain)
    links = [value]
    keep = links.append
    sha256 = _link_sha256  # a local name: 4096 links per seat
    for _ in range(CHAIN_LENGTH):
        value = sha256(value).digest()
        keep(value)
    return tuple(links)


def _walk_to_anchor(seed: bytes, chain: int = 0) -> bytes:
    """``_walk(seed)[CHAIN_LENGTH]`` without the list: 5% to 15% less time, as measured."""
    value = _start(seed, chain)
    sha256 = _link_sha256
    for _ in range(CHAIN_LENGTH):
        value = sha256(value).digest()
    return value


def published(seed: bytes, depth: int, chain: int = 0) -> bytes:
    """The link at ``depth`` below the anchor of chain ``chain`` (depth 0 = the anchor)."""
    return link(seed, CHAIN_LENGTH - depth, chain)


def follows(value: bytes, previous: bytes) -> bool:
    """Whether ``value`` is the link right below ``previous``: one hash takes it there."""
    return _link_sha256(value).digest() == previous


class Position(NamedTuple):
    """A place in a seat's chains: chain number and depth below its anchor. ``renew``:
    the entry at this place also publishes the anchor of chain ``chain + 1``."""

    chain: int
    depth: int
    renew: bool = False

    @property
    def number(self) -> int:
        """One integer per place, for the home's record of the places it published."""
        return self.chain * CHAIN_LENGTH + self.depth


class Tip(Record):
    """What a verifier knows of one seat's chain after its newest entry: the newest link,
    its place, and the fresh anchor that entry published (``fresh``, b"" if none): the
    seat's next link must then descend from it. ``seq``: the entry that published
    ``last`` (chain.authenticate's; -1 where nobody asks)."""

    def __init__(self, last: bytes, chain: int = 0, depth: int = 0, fresh: bytes = b"",
                 seq: int = -1) -> None:
        self.last = last
        self.chain = chain
        self.depth = depth
        self.fresh = fresh
        self.seq = seq

    def follow(self, value: bytes, renewal: bytes | None) -> str:
        """Move on to the seat's next entry, with beacon ``value`` and ``anchor`` field
        ``renewal`` (None: no such field); '' if that is exactly the next link, else why
        not (and the tip is unchanged). Whether ``renewal`` was published before is the
        caller's check (:func:`anchor_reused`)."""
        if self.fresh:
            if not follows(value, self.fresh):
                return ("its beacon value is not the first link of the fresh chain whose "
                        "anchor the seat published in its previous entry")
            chain, depth = self.chain + 1, 1
        else:
            if not follows(value, self.last):
                return ("its beacon value is not the next link of the seat's chain (one hash "
                        "below its previous one; no link may be skipped)")
            chain, depth = self.chain, self.depth + 1
        if renewal is None and depth >= ANCHOR_ZONE:
            return (f"it reaches link {depth} of the seat's chain without publishing a fresh "
                    f"anchor (due from link {ANCHOR_ZONE} on)")
        if renewal is not None and depth < ANCHOR_ZONE:
            return (f"it publishes a fresh beacon anchor at link {depth} of the seat's chain, "
                    f"too early (only from link {ANCHOR_ZONE} on, once per chain)")
        self.last, self.chain, self.depth = value, chain, depth
        self.fresh = renewal or b""
        return ""

    def next_place(self) -> Position:
        """The place of the seat's next link: right below this tip, or the first link of
        the fresh chain this tip's entry published."""
        chain, depth = (self.chain + 1, 1) if self.fresh else (self.chain, self.depth + 1)
        return Position(chain, depth, renew=depth >= ANCHOR_ZONE)


def renewal(entry: dict[str, Any]) -> bytes | None:
    """The fresh beacon anchor an entry publishes (field ``anchor``), if any."""
    fresh = entry.get("anchor")
    return None if fresh is None else bytes.fromhex(fresh)


def anchor_reused(renewal: bytes | None, earlier: list[bytes]) -> str:
    """Why a fresh anchor ``renewal`` is refused at once, '' if it is not: it equals an
    anchor the seat published before (``earlier``), so the links after it would be links
    already seen (PROTOCOL.md section 5)."""
    if renewal is not None and renewal in earlier:
        return ("it publishes as a fresh beacon anchor one the seat published before, so its "
                "links would repeat links already seen")
    return ""


def follow_links(tip: Tip, linked: list[dict[str, Any]], published: list[bytes]
                 ) -> tuple[str, dict[str, Any] | None]:
    """Move ``tip`` through the seat's entries ``linked`` (its link-carrying evidence
    entries, then the entry itself), one link each; every fresh anchor among them is
    added to ``published`` (the anchors the seat published before). ('', None) if all
    hold, else why not and the entry that does not."""
    for entry in linked:
        fresh = renewal(entry)
        why = anchor_reused(fresh, published) or tip.follow(bytes.fromhex(entry["beacon"]),
                                                             fresh)
        if why:
            return why, entry
        if fresh is not None:
            published.append(fresh)
    return "", None


def randomness(game_id: str, seq: int, beacon_k: bytes, beacon_next: bytes) -> bytes:
    return sha256(
        RAND + game_id.encode("ascii") + seq.to_bytes(8, "big") + beacon_k + beacon_next
    )


def sampler(game_id: str, seq: int, beacon_k: bytes, beacon_next: bytes) -> Sampler:
    return Sampler(randomness(game_id, seq, beacon_k, beacon_next))


def bot_sampler(game_id: str, seq: int, turn: int, beacon_before: bytes, link: bytes) -> Sampler:
    """Chance of the ``turn``-th bot turn played inside an entry (PROTOCOL.md 11):
    ``SHA-256("pbem/1/bot-rand" || game_id || seq || turn || beacon_seq || link)``, where
    ``beacon_seq`` is the newest link published before that entry by another seat than its
    signer, by entry ``seq`` (entries signed out of the order of play publish none, and do
    not move ``seq``; the signer's own it knows in advance), and ``link`` the signer's
    beacon in the entry. Both were fixed before anyone could choose: the signer's link
    when it joined, the other by an entry in the order of play whose moves were fixed with
    it."""
    return Sampler(sha256(
        BOT_RAND + game_id.encode("ascii") + seq.to_bytes(8, "big", signed=True)
        + turn.to_bytes(4, "big") + beacon_before + link))
