"""The one-step pass of a mental deck: its two items, made with a seat's keys and checked
with none (docs/protocol-deck.md, "The one-step pass"; the proofs in
docs/protocol-linproof.md).

* ``handoff``, by the giver, whose layer is the only one on each slot of the batch: the
  layer is peeled and the card encrypted to the receiver's deck key point (ElGamal), with
  a proof a slot. The card is never bare: only the receiver can read the pair.
* ``adopt``, by the receiver: each pair becomes the card under a fresh layer of its own
  (serial ``n``, a proof a slot), then the batch is re-locked to a second fresh key
  (serial ``n + 1``) in a secret order, with a shuffle proof. The giver, who knew which
  card it put in which slot, cannot tell which slot holds which card afterwards.

This module only makes and checks the published values; pbem.protocol.crypto.mental_deck
matches them to the owed items and keeps the deck's state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pbem.errors import IntegrityError
from pbem.protocol.crypto import linproof, mental, shuffle_proof

# The layer of a handed-off slot: the receiver's deck key opens it as an ElGamal pair
# (``C - y * R``), not as a multiplication.
PAIR_LAYER = "pair"

Context = Callable[[str], bytes]  # slot id -> the proof context of the item on that slot


# ---- making the items (the seat's own keys) --------------------------------------------
def make_handoff(seed: bytes, deck: str, serial: int, layer_key: int, cts: list[bytes],
                 receiver: bytes, context: Context, slot_ids: list[str]) -> dict[str, Any]:
    """The published fields of a handoff of the slots ``slot_ids`` (ciphertexts ``cts``,
    each under the giver's single layer ``layer_key``) to the receiver's deck key point."""
    rs, cs, proofs = [], [], []
    for index, (sid, x) in enumerate(zip(slot_ids, cts, strict=True)):
        e = mental.handoff_scalar(seed, deck, serial, index)
        hand = linproof.handoff_prove(layer_key, x, receiver, e, context(sid))
        rs.append(mental.to_text(hand.r))
        cs.append(mental.to_text(hand.c))
        proofs.append(hand.proof)
    return {"rs": rs, "cs": cs, "proofs": proofs}


def make_adopt(seed: bytes, deck: str, serial: int, receiver_key: int,
               pairs: list[tuple[bytes, bytes]], context: Context, slot_ids: list[str],
               shuffle_ctx: bytes, proof_secret: bytes) -> dict[str, Any]:
    """The published fields of an adopt of serial ``serial``: each pair ``(R, C)`` under
    the fresh key of ``serial``, then the batch re-locked to that of ``serial + 1`` in the
    order of ``mental.batch_permutation(seed, deck, serial + 1, len)``."""
    z = mental.slot_key(seed, deck, serial)
    fresh = mental.slot_key(seed, deck, serial + 1)
    mids, proofs = [], []
    key = shared = b""
    for sid, (r, c) in zip(slot_ids, pairs, strict=True):
        taken = linproof.adopt_prove(receiver_key, z, r, c, context(sid))
        key, shared = taken.key, taken.shared
        mids.append(taken.point)
        proofs.append(taken.proof)
    perm = mental.batch_permutation(seed, deck, serial + 1, len(slot_ids))
    relock = mental.public_point(fresh)
    outputs, proof = shuffle_proof.prove(key, relock, fresh * pow(z, -1, mental.L) % mental.L,
                                         mids, perm, shuffle_ctx, proof_secret)
    return {"key": mental.to_text(key), "shared": mental.to_text(shared),
            "mids": [mental.to_text(p) for p in mids], "proofs": proofs,
            "relock": mental.to_text(relock), "cts": [mental.to_text(y) for y in outputs],
            "proof": proof}


def open_pair(receiver_key: int, r: bytes, c: bytes) -> bytes:
    """The card point of a pair to the receiver whose deck key is ``receiver_key``."""
    return mental.sub(c, mental.mul(receiver_key, r))


def adopted_order(seed: bytes, deck: str, serial: int, points: list[bytes]) -> list[bytes]:
    """The card points an adopt of serial ``serial`` leaves in its slots, in slot order,
    given the points its pairs open to in slot order: what the receiver reads once it has
    adopted, known to it before (its own permutation)."""
    perm = mental.batch_permutation(seed, deck, serial + 1, len(points))
    return [points[perm[i]] for i in range(len(points))]


# ---- checking the items (no secret) ------------------------------------------------------
def _points(item: dict[str, Any], field: str, count: int, where: str,
            check: bool) -> list[bytes]:
    values = item.get(field)
    if not isinstance(values, list) or len(values) != count:
        raise IntegrityError(f"{where} must list {count} values in {field!r}, one per slot.")
    read = mental.from_text if check else mental.point_bytes
    out = []
    for i, value in enumerate(values):
        try:
            out.append(read(value))
        except ValueError as exc:
            raise IntegrityError(f"{where}, {field!r} at position {i + 1}: {exc}.") from None
    return out


def _proofs(item: dict[str, Any], field: str, count: int, where: str) -> list[Any]:
    values = item.get(field)
    if not isinstance(values, list) or len(values) != count:
        raise IntegrityError(f"{where} must carry {count} proofs, one per slot.")
    return values


def check_handoff(item: dict[str, Any], keys: list[bytes], cts: list[bytes],
                  receiver: bytes, context: Context, slot_ids: list[str], where: str,
                  check: bool) -> tuple[list[bytes], list[bytes]]:
    """The handoff's pairs ``(rs, cs)``, each proved to be its slot with the giver's layer (point
    ``keys[i]``) peeled, encrypted to ``receiver``; else IntegrityError."""
    count = len(slot_ids)
    rs = _points(item, "rs", count, where, check)
    cs = _points(item, "cs", count, where, check)
    proofs = _proofs(item, "proofs", count, where)
    if len(set(rs)) != count:
        raise IntegrityError(f"{where} uses one random point for two pairs: the two cards "
                             "could be told apart by anyone.")
    if check:
        for i, sid in enumerate(slot_ids):
            if not linproof.handoff_verify(proofs[i], keys[i], cts[i], receiver, rs[i], cs[i],
                                           context(sid)):
                raise IntegrityError(
                    f"{where} fails its proof at slot {sid}: the pair is not the slot with "
                    "the seat's layer removed, encrypted to the receiver's deck key.")
    return rs, cs


def check_adopt(item: dict[str, Any], receiver: bytes, pairs: list[tuple[bytes, bytes]],
                context: Context, slot_ids: list[str], shuffle_ctx: bytes,
                proof_text: object, where: str, check: bool) -> list[bytes]:
    """The adopt's new ciphertexts: each pair proved opened by the receiver's deck key and
    put under the key point ``key``, then the batch proved re-locked to ``relock`` in some
    order; else IntegrityError. (``key`` and ``relock`` are checked to be new by the
    caller.)"""
    count = len(slot_ids)
    key, shared, relock = (_one_point(item, name, where, check)
                           for name in ("key", "shared", "relock"))
    mids = _points(item, "mids", count, where, check)
    cts = _points(item, "cts", count, where, check)
    proofs = _proofs(item, "proofs", count, where)
    if check:
        for i, sid in enumerate(slot_ids):
            r, c = pairs[i]
            if not linproof.adopt_verify(proofs[i], receiver, r, c, key, shared, mids[i],
                                         context(sid)):
                raise IntegrityError(
                    f"{where} fails its proof at slot {sid}: the value is not the card of "
                    "the pair, opened with the seat's deck key, under the key it published.")
        if not shuffle_proof.verify(key, relock, mids, cts, proof_text, shuffle_ctx):
            raise IntegrityError(
                f"{where} fails its shuffle proof: its ciphertexts are not the adopted cards "
                "with the key it published replaced by its second key, in some order.")
    return cts


def _one_point(item: dict[str, Any], field: str, where: str, check: bool) -> bytes:
    value = item.get(field)
    try:
        return mental.from_text(value) if check else mental.point_bytes(value)
    except ValueError as exc:
        raise IntegrityError(f"{where}, its {field!r}: {exc}.") from None
