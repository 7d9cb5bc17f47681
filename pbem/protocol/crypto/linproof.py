"""Proofs of knowledge of scalars satisfying linear equations over the group, non-interactive.

Statement: public points ``P_1 .. P_m`` and bases ``B_ji``; the prover knows scalars ``x_1 ..
x_n`` with ``P_j = sum_i x_i * B_ji`` for every equation ``j`` (a term left out of an
equation is a zero coefficient). The proof is Maurer's unified Schnorr proof ("Unifying
zero-knowledge proofs of knowledge", AFRICACRYPT 2009): commitments ``T_j = sum_i a_i * B_ji``
for nonces ``a_i``, a challenge ``c`` by Fiat-Shamir, responses ``s_i = a_i + c * x_i``.
A Schnorr signature and the Chaum-Pedersen proof of pbem.protocol.crypto.dleq are cases of it.

Encoding (docs/protocol-linproof.md, with a vector in tests/vectors/linproof.json); points
and scalars as in pbem.protocol.crypto.mental, ``B`` the base point::

    S     = field(ctx) || u32(n) || u32(m) || E_1 || .. || E_m
    E_j   = u32(t_j) || u32(i_1) || B_j,i_1 || .. || u32(i_t) || B_j,i_t || P_j
            (the equation's t_j terms, scalar indices 0-based and increasing)
    a_i   = 1 + int_be(SHA-512(b"pbem/2/linproof-nonce" || x_1_le || .. || x_n_le || S
                               || u32(attempt) || u32(i - 1))) mod (L - 1)
    T_j   = sum_i a_i * B_ji
    c     = int_le(SHA-512(b"pbem/2/linproof" || S || T_1 || .. || T_m)) mod L
    s_i   = a_i + c * x_i mod L
    proof = c_le || s_1_le || .. || s_n_le     (32 (n + 1) bytes, unpadded base64url)

The verifier recomputes ``T_j = sum_i s_i * B_ji - c * P_j`` (the identity is hashed as its
encoding if it comes out) and accepts when hashing gives ``c`` back. The nonces are derived
from the witness and the statement, not drawn (as in EdDSA and dleq): proving twice gives the
same bytes. ``attempt`` moves on in the never-seen case that ``c`` or an ``s_i`` is 0, which
libsodium cannot multiply by.

Two instances, the proofs of a one-step pass of a card from giver to receiver:

* handoff: the giver, whose layer ``k`` (public ``K = k * B``) is the only one on a slot
  ``X = k * M``, sends it to the receiver's deck key point ``Y = y * B`` as the ElGamal pair
  ``R = e * B``, ``C = k^-1 * X + e * Y = M + e * Y``, and proves knowledge of ``(w, e)``
  with ``w * K = B``, ``e * B = R``, ``w * X + e * Y = C``.
* adopt: the receiver puts a fresh layer ``z`` on the card, ``D = z * (C - y * R) = z * M``,
  publishes ``Z = z * B`` and ``U = z * Y``, and proves knowledge of ``(z, u)`` (``u = z y``)
  with ``z * B = Z``, ``z * Y = U``, ``u * B = U``, ``z * C + u * (-R) = D``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from pbem.hashing import sha512
from pbem.protocol.crypto import b64, mental
from pbem.protocol.crypto.derive import LINPROOF_CHALLENGE, LINPROOF_NONCE
from pbem.protocol.crypto.mental import BASE, POINT_BYTES, L, field, u32
from pbem.protocol.crypto.shuffle_proof import IDENTITY

MAX_SCALARS = 16
MAX_EQUATIONS = 16


class Equation(NamedTuple):
    """``public = sum x_i * base`` over ``terms``, pairs ``(i, base)`` with 0-based ``i`` increasing."""

    terms: tuple[tuple[int, bytes], ...]
    public: bytes


class Statement(NamedTuple):
    """``scalars`` unknowns ``x_0 .. x_(n-1)`` and the equations they satisfy."""

    scalars: int
    equations: tuple[Equation, ...]


def proof_size(n: int) -> int:
    """Bytes of a proof for ``n`` scalars: the challenge and one response each."""
    return 32 * (n + 1)


# ---- the statement ---------------------------------------------------------------------------
def shape_error(statement: Statement) -> str | None:
    """Why ``statement`` is not one this module proves or checks, else None. The points'
    validity is left to the multiplications each goes through (libsodium refuses others)."""
    n, equations = statement.scalars, statement.equations
    if not isinstance(n, int) or not 1 <= n <= MAX_SCALARS:
        return f"a statement has 1 to {MAX_SCALARS} scalars"
    if not isinstance(equations, tuple) or not 1 <= len(equations) <= MAX_EQUATIONS:
        return f"a statement has 1 to {MAX_EQUATIONS} equations"
    used: set[int] = set()
    for eq in equations:
        if not isinstance(eq, Equation) or not _is_point_bytes(eq.public):
            return "an equation's public value must be 32 bytes"
        indices = [i for i, _ in eq.terms]
        if not indices or indices != sorted(set(indices)) or not all(0 <= i < n for i in indices):
            return "an equation's terms name scalars 0 .. n-1, once each, in increasing order"
        if not all(_is_point_bytes(base) for _, base in eq.terms):
            return "a base must be 32 bytes"
        used.update(indices)
    if len(used) != n:
        return "every scalar must appear in some equation"  # else nothing is proved of it
    return None


def _is_point_bytes(value: object) -> bool:
    return isinstance(value, bytes) and len(value) == POINT_BYTES


def statement_bytes(statement: Statement, ctx: bytes) -> bytes:
    """``S``: the context, the shape, every base and every public point, in order."""
    out = [field(ctx), u32(statement.scalars), u32(len(statement.equations))]
    for eq in statement.equations:
        out.append(u32(len(eq.terms)))
        out.extend(u32(i) + base for i, base in eq.terms)
        out.append(eq.public)
    return b"".join(out)


def _combination(terms: Sequence[tuple[int, bytes]], scalars: Sequence[int]) -> bytes:
    """``sum scalars[i] * base`` over the terms (every scalar in 1 .. L-1)."""
    total = IDENTITY
    for i, base in terms:
        total = mental.add(total, mental.mul(scalars[i], base))
    return total


def _challenge(s: bytes, commitments: Sequence[bytes]) -> int:
    return int.from_bytes(sha512(LINPROOF_CHALLENGE + s + b"".join(commitments)), "little") % L


# ---- prover and verifier ----------------------------------------------------------------------
def prove(scalars: Sequence[int], statement: Statement, ctx: bytes) -> str:
    """A proof of knowledge of ``scalars`` satisfying ``statement`` for this context, as its
    text (pbem.protocol.crypto.b64). ValueError when they do not satisfy it."""
    error = shape_error(statement)
    if error is not None:
        raise ValueError(error)
    if len(scalars) != statement.scalars or not all(1 <= x < L for x in scalars):
        raise ValueError(f"the witness is {statement.scalars} scalars in 1 .. L-1")
    try:
        satisfied = all(_combination(eq.terms, scalars) == eq.public for eq in statement.equations)
    except RuntimeError as err:  # libsodium refuses a base
        raise ValueError("every base must be a valid point") from err
    if not satisfied:
        raise ValueError("the scalars do not satisfy the equations")
    return _prove(scalars, statement, ctx)


def _prove(scalars: Sequence[int], statement: Statement, ctx: bytes) -> str:
    """``prove`` for a witness known to satisfy the statement (its public points computed
    from it), without checking it again."""
    if any(eq.public == IDENTITY for eq in statement.equations):
        raise ValueError("a public value is the identity, which no check accepts")
    s = statement_bytes(statement, ctx)
    secret = b"".join(mental.scalar_bytes(x) for x in scalars)
    attempt = 0
    while True:
        nonces = [1 + int.from_bytes(sha512(LINPROOF_NONCE + secret + s + u32(attempt) + u32(i)),
                                     "big") % (L - 1) for i in range(len(scalars))]
        c = _challenge(s, [_combination(eq.terms, nonces) for eq in statement.equations])
        responses = [(w + c * x) % L for w, x in zip(nonces, scalars, strict=True)]
        if c and all(responses):
            return b64.encode(b"".join(mental.scalar_bytes(k) for k in [c, *responses]))
        attempt += 1


def verify(proof: object, statement: Statement, ctx: bytes) -> bool:
    """True when ``proof`` shows knowledge of scalars satisfying ``statement`` for this
    context; False for anything else (a malformed proof or statement, a bad point), never
    an exception."""
    try:
        return _verify(proof, statement, ctx)
    except (ValueError, RuntimeError, TypeError, AttributeError):  # libsodium refuses a point
        return False


def _verify(proof: object, statement: Statement, ctx: bytes) -> bool:
    if not isinstance(statement, Statement) or shape_error(statement) is not None \
            or not isinstance(ctx, bytes):
        return False
    try:
        raw = b64.decode(proof, proof_size(statement.scalars))
    except ValueError:  # not the one text of a proof of this many scalars
        return False
    c, *responses = (int.from_bytes(raw[k:k + 32], "little") for k in range(0, len(raw), 32))
    if not all(0 < k < L for k in [c, *responses]):
        return False
    publics = dict.fromkeys(eq.public for eq in statement.equations)  # each one once, in order
    scaled = {public: mental.mul(c, public) for public in publics}
    commitments = [mental.sub(_combination(eq.terms, responses), scaled[eq.public])
                   for eq in statement.equations]
    return _challenge(statement_bytes(statement, ctx), commitments) == c


# ---- the one-step pass -----------------------------------------------------------------------
class Handoff(NamedTuple):
    """The giver's ElGamal pair to the receiver (``r = e * B``, ``c = M + e * Y``) and its proof."""

    r: bytes
    c: bytes
    proof: str


class Adoption(NamedTuple):
    """The receiver's fresh layer point ``z * B``, ``u = z * Y``, the card under it, the proof."""

    key: bytes
    shared: bytes
    point: bytes
    proof: str


def negate(point: bytes) -> bytes:
    """``-P``: the encoding with its sign bit (the top bit of byte 31) flipped, ``x`` for
    ``-x``. Bytes only, so a valid point gives a valid point and any other bytes give bytes
    the verifier's multiplications refuse (off the curve, outside the subgroup, ``x = 0``
    with the sign bit set, ``y`` not below ``p``)."""
    if not isinstance(point, bytes) or len(point) != POINT_BYTES:
        raise ValueError("a point is 32 bytes")
    return point[:31] + bytes([point[31] ^ 0x80])


def handoff_statement(key: bytes, slot: bytes, receiver: bytes, r: bytes, c: bytes) -> Statement:
    """``w * K = B``, ``e * B = R``, ``w * X + e * Y = C`` in ``(w, e)``."""
    return Statement(2, (Equation(((0, key),), BASE),
                         Equation(((1, BASE),), r),
                         Equation(((0, slot), (1, receiver)), c)))


def handoff_prove(k: int, slot: bytes, receiver: bytes, e: int, ctx: bytes) -> Handoff:
    """Peel layer ``k`` off ``slot`` (``k * M``) and encrypt ``M`` to ``receiver`` (``y * B``)
    with ``e``, which must be secret and never used twice (two pairs with one ``e`` and one
    receiver tell anyone ``M_1 - M_2``). ValueError on bad arguments."""
    if not 1 <= k < L or not 1 <= e < L:
        raise ValueError("k and e must be scalars in 1 .. L-1")
    w = pow(k, -1, L)
    r = mental.mul(e, BASE)
    try:
        c = mental.add(mental.mul(w, slot), mental.mul(e, receiver))
    except (RuntimeError, TypeError) as err:  # libsodium refuses a point
        raise ValueError("the slot and the receiver's key must be valid points") from err
    statement = handoff_statement(mental.mul(k, BASE), slot, receiver, r, c)
    return Handoff(r, c, _prove([w, e], statement, ctx))


def handoff_verify(proof: object, key: bytes, slot: bytes, receiver: bytes, r: bytes, c: bytes,
                   ctx: bytes) -> bool:
    """True when ``(r, c)`` is ``slot`` with the layer of ``key`` peeled, encrypted to ``receiver``."""
    return verify(proof, handoff_statement(key, slot, receiver, r, c), ctx)


def adopt_statement(receiver: bytes, r: bytes, c: bytes, key: bytes, shared: bytes,
                    point: bytes) -> Statement:
    """``z * B = Z``, ``z * Y = U``, ``u * B = U``, ``z * C + u * (-R) = D`` in ``(z, u)``."""
    return Statement(2, (Equation(((0, BASE),), key),
                         Equation(((0, receiver),), shared),
                         Equation(((1, BASE),), shared),
                         Equation(((0, c), (1, negate(r))), point)))


def adopt_prove(y: int, z: int, r: bytes, c: bytes, ctx: bytes) -> Adoption:
    """Decrypt the pair ``(r, c)`` with the deck key ``y`` and lock the card under the fresh
    key ``z``: what it publishes never shows the card bare. Check the handoff first: its
    proof is what shows ``r`` is ``e * B`` for an ``e`` the giver knows. ValueError on bad
    arguments."""
    if not 1 <= y < L or not 1 <= z < L:
        raise ValueError("y and z must be scalars in 1 .. L-1")
    u = z * y % L
    key, shared = mental.mul(z, BASE), mental.mul(u, BASE)
    try:
        point = mental.mul(z, mental.sub(c, mental.mul(y, r)))
        statement = adopt_statement(mental.mul(y, BASE), r, c, key, shared, point)
        return Adoption(key, shared, point, _prove([z, u], statement, ctx))
    except (RuntimeError, TypeError) as err:  # libsodium refuses a point (r, c or the card)
        raise ValueError("r and c must be valid points that decrypt to a valid point") from err


def adopt_verify(proof: object, receiver: bytes, r: bytes, c: bytes, key: bytes, shared: bytes,
                 point: bytes, ctx: bytes) -> bool:
    """True when ``point`` is the card of ``(r, c)`` (decrypted with ``receiver``'s key) under
    the layer of ``key``."""
    try:
        statement = adopt_statement(receiver, r, c, key, shared, point)
    except ValueError:  # r is not 32 bytes
        return False
    return verify(proof, statement, ctx)
