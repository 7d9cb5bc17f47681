"""Chaum-Pedersen proofs of equal discrete logarithms, non-interactive (Fiat-Shamir).

A proof that the prover knows ``x`` with ``A = x * G`` and ``Y = x * H`` (``log_G(A) =
log_H(Y)``) in the prime-order group of pbem.protocol.crypto.mental, without telling ``x``. The
mental deck proves with it that a peel or a re-lock used the key whose point the seat
published (PROTOCOL.md section 6).

Encoding, fixed so another implementation can interoperate (a vector is in
tests/test_mental.py)::

    ctx   = field(game_id) || field(deck) || u32(seq) || u32(seat) || field(op) || field(slot)
    w     = 1 + int_be(SHA-512(b"pbem/1/dleq-nonce" || x_le || ctx || G || A || H || Y
                               || u32(attempt))) mod (L - 1)
    T1    = w * G,   T2 = w * H
    c     = int_le(SHA-512(b"pbem/1/dleq" || field(ctx) || G || A || H || Y || T1 || T2)) mod L
    z     = w + c * x mod L
    proof = c_le || z_le          (64 bytes, 86 characters of unpadded base64url)

The verifier recomputes ``T1 = z * G - c * A`` and ``T2 = z * H - c * Y`` and accepts when
hashing gives ``c`` back. The nonce is derived, not random (as in EdDSA), so signing the
same entry twice gives the same bytes; ``attempt`` moves on in the (never seen) case
``c = 0`` or ``z = 0``, which libsodium cannot multiply by. The context binds a proof to
its game, deck, entry, seat, operation and slot: a proof copied to another slot or entry
fails.
"""

from __future__ import annotations

from pbem.hashing import sha512
from pbem.protocol.crypto import b64, mental
from pbem.protocol.crypto.derive import DLEQ_CHALLENGE, DLEQ_NONCE
from pbem.protocol.crypto.mental import L, field, u32

PROOF_BYTES = 64


def context(game_id: str, deck: str, seq: int, seat: int, op: str, slot: str) -> bytes:
    """The bytes every challenge of one chore item is bound to."""
    return (field(game_id.encode()) + field(deck.encode()) + u32(seq) + u32(seat)
            + field(op.encode()) + field(slot.encode()))


def _challenge(ctx: bytes, points: tuple[bytes, ...]) -> int:
    data = DLEQ_CHALLENGE + field(ctx) + b"".join(points)
    return int.from_bytes(sha512(data), "little") % L


def prove(x: int, g: bytes, a: bytes, h: bytes, y: bytes, ctx: bytes) -> str:
    """A proof that ``a = x * g`` and ``y = x * h``, as its text (86 characters, pbem.protocol.crypto.b64)."""
    statement = (g, a, h, y)
    attempt = 0
    while True:
        seed = DLEQ_NONCE + mental.scalar_bytes(x) + ctx + b"".join(statement) + u32(attempt)
        w = 1 + int.from_bytes(sha512(seed), "big") % (L - 1)
        c = _challenge(ctx, statement + (mental.mul(w, g), mental.mul(w, h)))
        z = (w + c * x) % L
        if c and z:
            return b64.encode(mental.scalar_bytes(c) + mental.scalar_bytes(z))
        attempt += 1


def verify(proof: object, g: bytes, a: bytes, h: bytes, y: bytes, ctx: bytes) -> bool:
    """True when ``proof`` shows ``log_g(a) = log_h(y)`` for this context.

    The points must already be valid (``mental.from_text``); a malformed proof is False."""
    try:
        raw = b64.decode(proof, PROOF_BYTES)
    except ValueError:  # not the one text of 64 bytes
        return False
    c = int.from_bytes(raw[:32], "little")
    z = int.from_bytes(raw[32:], "little")
    if not (0 < c < L and 0 < z < L):
        return False
    try:
        t1 = mental.sub(mental.mul(z, g), mental.mul(c, a))
        t2 = mental.sub(mental.mul(z, h), mental.mul(c, y))
    except (RuntimeError, ValueError):  # libsodium refuses an invalid point
        return False
    return _challenge(ctx, (g, a, h, y, t1, t2)) == c
