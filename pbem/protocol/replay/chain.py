"""Step 2 of verify (PROTOCOL.md section 9) on the file in hand, before any game code.

:func:`authenticate` checks the header hash (entry 0's ``prev``), every entry's game id,
sequence number and ``prev``, every seat's key (sound, not on two seats, the pinned one
if the header pins it), every signature and every beacon link. It reads only the header's
seat list and the entries: no game code has seen the header's options or component data
when it returns, and the rules replay (engine.replay) runs only on what it accepted.

The one shortcut, and why it is safe: an entry whose canonical hash equals the hash of an
entry this home verified at the same position, reached through an intact ``prev`` chain
from this file's header, needs no second signature check (nor a second key check if it
is a create/join). The canonical hash covers the signature and the ``prev``, which covers
every earlier entry and the header; so, SHA-256 being collision resistant, that entry and
everything before it are byte for byte what this home verified, signatures included.
For the same reason the rules replay (engine.replay) does not check that entry's
secret-deck proofs, nor that its points are points of the group, again: they are checks
on its bytes and the state the entries before it built, and they passed here before the
archive recorded its hash.
Every ``prev`` and every hash of the file in hand is still computed and compared, every
time: an edited, dropped, swapped or re-ordered earlier entry breaks the chain whatever
the archive holds.
"""

from __future__ import annotations

from collections.abc import Callable

from pbem.errors import IntegrityError, TurnError
from pbem.protocol.crypto import beacon
from pbem.protocol.crypto.edkeys import is_sound_key
from pbem.protocol.crypto.identity import fingerprint, verify_signature
from pbem.protocol.saveformat.canonical import canonical, digest
from pbem.protocol.saveformat.savefile import LINK_KINDS, Entry, Save
from pbem.protocol.state import evidence
from pbem.protocol.state.rounds import OpenRound
from pbem.terminal import shown

# (position, entry hash) -> True if this home verified exactly that entry at that position.
Vouch = Callable[[int, str], bool]
# Sees each entry not vouched for, once its signature is checked (the archive's fork check).
Witness = Callable[[Entry, str], None]

KEY_KINDS = ("create", "join")  # savefile.ANCHOR_KINDS


def unsigned(entry: Entry) -> Entry:
    return {k: v for k, v in entry.items() if k != "sig"}


def authenticate(save: Save, *, vouched: Vouch | None = None,
                 witness: Witness | None = None, header_hash: str | None = None) -> list[str]:
    """Check header hash, chain, keys, signatures and beacon links; the entry hashes.

    Raises IntegrityError (exit 3), or TurnError (exit 1) for an entry by a seat that has
    not joined, or that joins twice. See the module docstring for ``vouched``.
    ``header_hash`` is ``digest(save.header)`` if the caller worked it out already."""
    game_id = save.game_id
    handles = [seat["handle"] for seat in save.header["seats"]]
    pins = {seat["handle"]: seat.get("key", "") for seat in save.header["seats"]}
    keys: dict[str, str] = {}  # handle -> hex public key, from its create/join entry
    tips: dict[str, beacon.Tip] = {}  # handle -> where its beacon chain stands
    anchors: dict[str, list[bytes]] = {}  # handle -> every anchor it published
    head = digest(save.header) if header_hash is None else header_hash
    hashes: list[str] = []
    current: OpenRound | None = None  # the round being read (PROTOCOL.md section 4)
    for index, entry in enumerate(save.entries):
        current, head = _enter_round(entry, index, current, head, len(handles))
        _check_place(entry, index, game_id, head, current)
        handle = entry["seat"]
        if handle not in handles:
            raise IntegrityError(
                f"Entry {index} is signed by {shown(handle)}, who has no seat in this game.",
                seq=index, code="unknown-seat")
        entry_digest = digest(entry)
        # Vouched for by seq: a save ending in an incomplete round may hold an entry at
        # another index than its seq; its seq is its place in the game.
        known = vouched is not None and vouched(entry["seq"], entry_digest)
        if entry["kind"] in KEY_KINDS:
            if handle in keys:
                raise TurnError(f"Entry {index}: {handle} has already joined this game and "
                                f"cannot {entry['kind']} it again.", seq=index)
            if not known:
                check_new_key(entry, index, pins.get(handle, ""), keys)
            keys[handle] = entry["pubkey"]
        elif handle not in keys:
            raise TurnError(f"Entry {index} is by {handle}, who has not joined the game yet.",
                            seq=index)
        if not known:
            _check_signature(entry, index, keys)
        _check_link(save, index, keys, tips, anchors, hashes)
        if witness is not None and not known:
            witness(entry, entry_digest)
        if current is None:
            head = entry_digest
        else:  # every entry of a round follows the entry before the round
            current.seqs.append(entry["seq"])
            current.digests.append(entry_digest)
        hashes.append(entry_digest)
    return hashes


def _enter_round(entry: Entry, index: int, current: OpenRound | None,
                 head: str, slots: int) -> tuple[OpenRound | None, str]:
    """The round ``entry`` stands in (None if none) and the ``prev`` it must carry: a
    round ends at the first entry that is not signed in it, which follows the round's
    digest; a round starts at the index its first entry's seq has, after a complete
    history. ``slots``: the seats of the game, the most entries a round can hold."""
    first = entry.get("round")
    if current is not None and first != current.first:
        head, current = current.close(entry["seq"]), None
    if first is not None and current is None:
        if first != index:
            raise IntegrityError(
                f"Entry {entry['seq']} says it is signed in a round that starts at entry "
                f"{first}, but it stands at place {index} of this save, after no such round "
                "start.", seq=entry["seq"], code="round")
        current = OpenRound(first, head, slots)
    return current, head


def _check_link(save: Save, index: int, keys: dict[str, str], tips: dict[str, beacon.Tip],
                anchors: dict[str, list[bytes]], hashes: list[str]) -> None:
    """The entry's beacon (PROTOCOL.md section 5): a create/join publishes the anchor; an
    entry in the order of play exactly the next link, or, with ``evidence``, the link
    after the places its seat published on a branch an answer voided; other kinds none
    (savefile refused a ``beacon`` on them)."""
    entry = save.entries[index]
    handle, kind = entry["seat"], entry["kind"]
    if kind in KEY_KINDS:
        value = bytes.fromhex(entry["beacon"])
        tips[handle] = beacon.Tip(value, seq=index)
        anchors[handle] = [value]
        return
    if kind not in LINK_KINDS:
        return
    tip = tips[handle]
    carried = []
    if "evidence" in entry:
        carried = evidence.check(save, index, keys, hashes, tip.seq)
    why, wrong = beacon.follow_links(tip, [*carried, entry], anchors[handle])
    if why:
        where = "" if wrong is entry or wrong is None else f" in its evidence, entry {wrong['seq']}"
        raise IntegrityError(f"Entry {index} ({handle}){where}: {why}, so its randomness "
                             "cannot be trusted.", seq=index, code="beacon")
    tip.seq = index


def _check_place(entry: Entry, index: int, game_id: str, head: str,
                 current: OpenRound | None = None) -> None:
    """Game id, sequence number and ``prev`` of the entry at ``index`` (in ``current``, a
    round: its seq comes after the round's entries before it; the engine checks it is
    the one its seat's place fixes)."""
    seq = entry["seq"]
    if entry["game"] != game_id:
        raise IntegrityError(
            f"Entry {seq} belongs to another game (id {shown(entry['game'][:8])}), not this one "
            f"({game_id[:8]}): it was copied in from elsewhere.", seq=seq, code="foreign-entry")
    if current is not None:
        current.expect_seq(entry)
        if entry["prev"] != head:
            raise IntegrityError(
                f"Entry {seq} is signed in the round that starts at entry {current.first}, "
                "but does not follow the entry before that round (its prev hash differs).",
                seq=seq, code="chain")
        return
    if seq != index:
        raise IntegrityError(
            f"Entries are missing or out of order: expected entry {index}, found {seq}. "
            "Ask the sender for the complete save.", seq=seq, code="sequence")
    if entry["prev"] != head:
        if index == 0:
            raise IntegrityError(
                "The header was altered after the game was created (its hash no longer "
                "matches entry 0). Ask the sender for an untouched save.", seq=0, code="header")
        raise IntegrityError(
            f"Entry {index} does not follow entry {index - 1} (its prev hash differs, or, "
            "after a round, is not that round's digest): an entry "
            "was dropped, altered or taken from another save.", seq=index, code="chain")


def check_new_key(entry: Entry, index: int, pinned: str, keys: dict[str, str]) -> None:
    """The key a create/join entry publishes: sound, the pinned one (if ``pinned``), on
    no other seat (``keys``: handle -> key of the seats that joined before)."""
    handle, pubkey = entry["seat"], entry["pubkey"]
    if not is_sound_key(bytes.fromhex(pubkey)):
        raise IntegrityError(
            f"Entry {index}: {handle} joined with a weak key (a small-order or identity point "
            "of Ed25519, or a non-canonical encoding). With such a key one signature can pass "
            f"for any message, so anyone could sign for {handle}. The save is refused.",
            seq=index, code="weak-key")
    if pinned and pinned != pubkey:
        raise IntegrityError(
            f"Entry {index}: {handle} joined with the key {fingerprint(bytes.fromhex(pubkey))}, "
            f"but the host pinned {handle}'s seat to the key {_fp(pinned)}. Someone else took "
            f"{handle}'s seat; the save is refused.", seq=index, code="key-pinned")
    for other, key in keys.items():
        if key == pubkey:
            raise IntegrityError(
                f"Entry {index}: {handle} joined with the key that already holds {other}'s "
                "seat. One key may sit only once in a game; the save is refused.",
                seq=index, code="key-reused")


def _check_signature(entry: Entry, index: int, keys: dict[str, str]) -> None:
    handle = entry["seat"]
    pubkey = keys[handle]
    data = canonical(unsigned(entry))
    sig = bytes.fromhex(entry["sig"])
    if verify_signature(bytes.fromhex(pubkey), sig, data):
        return
    other = [h for h, key in keys.items() if key != pubkey
             and verify_signature(bytes.fromhex(key), sig, data)]
    if other:
        raise IntegrityError(
            f"Entry {index} claims to be by {handle} but is signed with {other[0]}'s key. "
            "Nobody may sign for another seat.", seq=index, code="wrong-key")
    raise IntegrityError(
        f"Entry {index} ({handle}) does not match its signature: it was altered after it was "
        "signed. Ask the sender for the save as pbem wrote it.", seq=index, code="signature")


def _fp(key_hex: str) -> str:
    return fingerprint(bytes.fromhex(key_hex))
