"""A verifiable shuffle of a common exponent, non-interactive (PROTOCOL.md section 6).

Statement: public points ``g``, ``h``, inputs ``X_1 .. X_n`` and outputs ``Y_1 .. Y_n``; the
prover knows ``x`` with ``h = x * g`` and a permutation ``psi`` with ``Y_i = x * X_psi(i)``
(``outputs[i] = x * inputs[perm[i]]``). A shuffle pass of the mental deck is ``g = B``,
``h = K`` (the seat's deck key point); a first lock of a batch ``g = B``, ``h = S``; a re-key
of a batch from layer ``k`` to fresh ``s`` is ``g = K``, ``h = S`` with ``x = s / k``.

Scheme: the proof of a shuffle of Terelius and Wikstrom ("Proofs of restricted shuffles",
AFRICACRYPT 2010, LNCS 6055, after Wikstrom, "A commitment-consistent proof of a shuffle",
ACISP 2009), in the optimised form written out as pseudo-code (GenShuffleProof and
CheckShuffleProof) by Haenni, Locher, Koenig and Dubuis ("Pseudo-code algorithms for
verifiable re-encryption mix-nets", FC 2017 workshops, LNCS 10323; Haines, arXiv 1901.08371,
proves that form secure), with its re-encryption part replaced by the common exponent:
``sum u'_i Y_i = x * sum u_j X_j`` and ``h = x * g``, proved with the same responses ``s'_i``
that open the commitment to ``u'``. It commits to the permutation matrix with Pedersen
commitments, proves that the committed matrix is a permutation matrix (each row sums to
one, and a chain of commitments shows ``prod u'_i = prod u_i`` for challenges ``u``), then
that the outputs are the inputs raised to ``x`` in that order. Neff's general k-shuffle
(CCS 2001) proves the same statement with about ten elements a card; this one takes four
(128 bytes).

Encodings (as in pbem.protocol.crypto.mental): a point is 32 bytes (RFC 8032), a scalar 32 bytes
little-endian below ``L``, ``field(b)`` a 4-byte big-endian length then ``b``, ``u32`` 4 bytes
big-endian, ``B`` the base point. Generators ``H_0, H_1, ...``: ``H_i`` is the first valid
point ``hash_to_group(b"pbem/1/shuffle-generator" || u32(i) || u32(counter))`` for
``counter = 0, 1, ...``. Proof bytes, ``128 n + 160`` of them, as unpadded base64url
(pbem.protocol.crypto.b64)::

    C_1..C_n || Chat_1..Chat_n || e || s_1 || s_2 || s_3 || s_4 || shat_1..shat_n || s'_1..s'_n

(``C`` the permutation commitment and ``Chat`` the chain, points; ``e`` the challenge and
the rest responses, scalars). The verifier, with ``psi`` unknown::

    u_i   = int_le(SHAKE-256(b"pbem/1/shuffle-u" || S || C_1..C_n)[64(i-1) : 64 i]) mod L
    Cbar  = sum C_j - sum H_i          Uprod = prod u_i mod L      Chat_0 = H_0
    Cc    = Chat_n - Uprod * H_0       Ctil = sum u_j C_j          A = sum u_j X_j
    T_1   = e Cbar + s_1 B             T_2 = e Cc + s_2 B
    T_3   = e Ctil + s_3 B + sum s'_i H_i
    T_4   = s_4 A - sum s'_i Y_i       T_5 = e h + s_4 g
    That_i = e Chat_i + shat_i B + s'_i Chat_(i-1)
    accept iff e = int_le(SHAKE-256(b"pbem/1/shuffle-c" || S || C_1..C_n || Chat_1..Chat_n
                          || T_1 || .. || T_5 || That_1..That_n, 64 bytes)) mod L

with ``S = field(ctx) || u32(n) || g || h || X_1..X_n || Y_1..Y_n``. docs/protocol-shuffle-proof.md
gives the prover's side and a test vector. The prover's nonces come from the seat's secret,
not from a random source (as in EdDSA): the same call gives the same bytes everywhere.

``n = 0``: ``prove`` gives ``([], "")`` and ``verify`` accepts only the empty proof for empty
lists (an empty shuffle says nothing about ``h``). At most ``MAX_CARDS`` cards, so the work
a verify does is bounded.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from pbem.hashing import hmac_sha512, shake_256
from pbem.protocol.crypto import b64, mental, sodium
from pbem.protocol.crypto.derive import SHUFFLE_C, SHUFFLE_GENERATOR, SHUFFLE_NONCE, SHUFFLE_U, derive
from pbem.protocol.crypto.mental import BASE, L, field, u32

MAX_CARDS = 4096
IDENTITY = (1).to_bytes(32, "little")  # the neutral element's encoding (y = 1, x = 0)


def proof_size(n: int) -> int:
    """Bytes of the proof of a shuffle of ``n`` cards (0 for ``n = 0``)."""
    return 128 * n + 160 if n else 0


def context(game_id: str, deck: str, seq: int, seat: int, op: str) -> bytes:
    """The bytes a shuffle proof is bound to: game, deck, entry seq, seat and operation."""
    return (field(game_id.encode()) + field(deck.encode()) + u32(seq) + u32(seat)
            + field(op.encode()))


# ---- the group, total over the values a verify can meet -------------------------------
def _mul(k: int, point: bytes) -> bytes:
    """``k * point`` for any scalar, with the identity allowed as a computed point. libsodium
    refuses (ValueError / RuntimeError) a point that is not canonical, not in the prime-order
    subgroup or of small order; with ``k = 0`` the point is still checked."""
    k %= L
    if point == IDENTITY:
        return IDENTITY
    if k == 0:
        if not mental.is_valid_point(point):
            raise ValueError("not a point of the group")
        return IDENTITY
    if point == BASE:
        return bytes(sodium.crypto_scalarmult_ed25519_base_noclamp(k.to_bytes(32, "little")))
    return bytes(sodium.crypto_scalarmult_ed25519_noclamp(k.to_bytes(32, "little"), point))


def _add(first: bytes, second: bytes) -> bytes:
    return bytes(sodium.crypto_core_ed25519_add(first, second))


def _sub(first: bytes, second: bytes) -> bytes:
    return bytes(sodium.crypto_core_ed25519_sub(first, second))


def _sum(points: Sequence[bytes]) -> bytes:
    total = IDENTITY
    for point in points:
        total = _add(total, point)
    return total


def _combination(scalars: Sequence[int], points: Sequence[bytes]) -> bytes:
    """``sum scalars[i] * points[i]``."""
    return _sum([_mul(k, p) for k, p in zip(scalars, points, strict=True)])


@lru_cache(maxsize=MAX_CARDS + 1)
def generator(i: int) -> bytes:
    """``H_i``: a point nobody knows a discrete logarithm of (to ``B`` or another ``H_j``)."""
    counter = 0
    while True:
        point = mental.hash_to_group(SHUFFLE_GENERATOR + u32(i) + u32(counter))
        if mental.is_valid_point(point):
            return point
        counter += 1


@lru_cache(maxsize=64)
def _generator_sum(n: int) -> bytes:
    """``H_1 + .. + H_n``."""
    return _sum([generator(i) for i in range(1, n + 1)])


# ---- challenges ----------------------------------------------------------------------------
def _statement(ctx: bytes, g: bytes, h: bytes, inputs: Sequence[bytes],
               outputs: Sequence[bytes]) -> bytes:
    return field(ctx) + u32(len(inputs)) + g + h + b"".join(inputs) + b"".join(outputs)


def _scalars(data: bytes, count: int) -> list[int]:
    """``count`` scalars from SHAKE-256(data), 64 bytes each (bias below 2^-259)."""
    stream = shake_256(data, 64 * count)
    return [int.from_bytes(stream[64 * i:64 * i + 64], "little") % L for i in range(count)]


def _u(statement: bytes, commitment: Sequence[bytes]) -> list[int]:
    return _scalars(SHUFFLE_U + statement + b"".join(commitment), len(commitment))


def _e(statement: bytes, commitment: Sequence[bytes], chain: Sequence[bytes],
       t: Sequence[bytes], t_hat: Sequence[bytes]) -> int:
    data = SHUFFLE_C + statement + b"".join(commitment) + b"".join(chain) + b"".join(t) + b"".join(t_hat)
    return _scalars(data, 1)[0]


# ---- prover ---------------------------------------------------------------------------------
def _nonces(secret: bytes, seeded: bytes, count: int) -> list[int]:
    """``count`` nonces in 1 .. L-1: ``1 + int_be(HMAC-SHA512(key, u32(j))) mod (L - 1)``."""
    key = derive(secret, SHUFFLE_NONCE + seeded, 32)
    return [1 + int.from_bytes(hmac_sha512(key, u32(j)), "big") % (L - 1)
            for j in range(count)]


def _check_prove_args(g: bytes, h: bytes, x: int, inputs: Sequence[bytes], perm: Sequence[int],
                      secret: bytes) -> None:
    n = len(inputs)
    if n > MAX_CARDS:
        raise ValueError(f"a shuffle proof covers at most {MAX_CARDS} cards, not {n}")
    if sorted(perm) != list(range(n)):
        raise ValueError("perm must be a permutation of range(len(inputs))")
    if not 1 <= x < L:
        raise ValueError("x must be a scalar in 1 .. L-1")
    if len(secret) < 32:
        raise ValueError("the secret must be at least 32 bytes")
    if _mul(x, g) != h:
        raise ValueError("h is not x * g")
    for point in inputs:
        if not mental.is_valid_point(point):
            raise ValueError("every input must be a valid point of the group")


def prove(g: bytes, h: bytes, x: int, inputs: Sequence[bytes], perm: Sequence[int],
          ctx: bytes, secret: bytes) -> tuple[list[bytes], str]:
    """The outputs ``x * inputs[perm[i]]`` and the proof (its text, pbem.protocol.crypto.b64) that they are a
    permutation of the inputs under the key of ``h = x * g``. ValueError on bad arguments."""
    _check_prove_args(g, h, x, inputs, perm, secret)
    n = len(inputs)
    outputs = [_mul(x, inputs[j]) for j in perm]
    if n == 0:
        return outputs, ""
    statement = _statement(ctx, g, h, inputs, outputs)
    witness = mental.scalar_bytes(x) + b"".join(u32(j) for j in perm)
    attempt = 0
    while True:
        proof = _prove_once(g, h, x, inputs, outputs, perm, statement,
                            _nonces(secret, statement + witness + u32(attempt), 4 * n + 4))
        if proof is not None:
            return outputs, b64.encode(proof)
        attempt += 1  # a commitment came out as the identity: never seen, but handled


def _prove_once(g: bytes, h: bytes, x: int, inputs: Sequence[bytes], outputs: Sequence[bytes],
                perm: Sequence[int], statement: bytes, nonces: list[int]) -> bytes | None:
    n = len(inputs)
    r = nonces[0:n]                      # commitment randomness, by commitment index j
    r_hat = nonces[n:2 * n]              # chain randomness, by output index i
    w1, w2, w3, w4 = nonces[2 * n:2 * n + 4]
    w_hat = nonces[2 * n + 4:3 * n + 4]
    w_prime = nonces[3 * n + 4:4 * n + 4]
    gens = [generator(i) for i in range(1, n + 1)]
    # C_j commits to the column of the permutation matrix: C_psi(i) = r_psi(i) B + H_i.
    commitment = [IDENTITY] * n
    for i, j in enumerate(perm):
        commitment[j] = _add(_mul(r[j], BASE), gens[i])
    u = _u(statement, commitment)
    u_prime = [u[j] for j in perm]
    chain = []
    previous = generator(0)
    for i in range(n):
        previous = _add(_mul(r_hat[i], BASE), _mul(u_prime[i], previous))
        chain.append(previous)
    if IDENTITY in commitment or IDENTITY in chain:
        return None
    a = _combination(u, inputs)
    t = [_mul(w1, BASE), _mul(w2, BASE),
         _add(_mul(w3, BASE), _combination(w_prime, gens)),
         _sub(_mul(w4, a), _combination(w_prime, outputs)),
         _mul(w4, g)]
    links = [generator(0)] + chain[:-1]
    t_hat = [_add(_mul(w_hat[i], BASE), _mul(w_prime[i], links[i])) for i in range(n)]
    e = _e(statement, commitment, chain, t, t_hat)
    # v_i = u'_(i+1) .. u'_n: how far r_hat_i is carried up the chain.
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = v[i + 1] * u_prime[i + 1] % L
    s1 = (w1 - e * sum(r)) % L
    s2 = (w2 - e * sum(rh * vi for rh, vi in zip(r_hat, v, strict=True))) % L
    s3 = (w3 - e * sum(rj * uj for rj, uj in zip(r, u, strict=True))) % L
    s4 = (w4 - e * x) % L
    s_hat = [(w_hat[i] - e * r_hat[i]) % L for i in range(n)]
    s_prime = [(w_prime[i] - e * u_prime[i]) % L for i in range(n)]
    scalars = [e, s1, s2, s3, s4] + s_hat + s_prime
    return b"".join(commitment) + b"".join(chain) + b"".join(k.to_bytes(32, "little") for k in scalars)


# ---- verifier --------------------------------------------------------------------------------
def _points(values: Sequence[object]) -> list[bytes] | None:
    """The points as 32-byte strings, or None if one is not 32 bytes or is the identity
    (validity is checked by the multiplications each point goes through)."""
    out = []
    for value in values:
        if not isinstance(value, bytes) or len(value) != 32 or value == IDENTITY:
            return None
        out.append(value)
    return out


def verify(g: bytes, h: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
           proof: object, ctx: bytes) -> bool:
    """True when ``proof`` shows that ``outputs`` are ``inputs`` permuted with the key of
    ``h = x * g`` applied, for this context; False for anything else, never an exception."""
    try:
        return _verify(g, h, inputs, outputs, proof, ctx)
    except (ValueError, RuntimeError, TypeError):  # libsodium refuses an invalid point
        return False


def _verify(g: bytes, h: bytes, inputs: Sequence[bytes], outputs: Sequence[bytes],
            proof: object, ctx: bytes) -> bool:
    n = len(inputs)
    if not isinstance(proof, str) or not isinstance(ctx, bytes) or len(outputs) != n or n > MAX_CARDS:
        return False
    try:
        raw = b64.decode(proof, proof_size(n))
    except ValueError:  # not the one text of a proof of n cards
        return False
    base = _points([g, h])
    xs, ys = _points(list(inputs)), _points(list(outputs))
    if base is None or xs is None or ys is None or not all(map(mental.is_valid_point, base)):
        return False
    if n == 0:
        return True
    commitment = _points([raw[32 * j:32 * j + 32] for j in range(n)])
    chain = _points([raw[32 * (n + i):32 * (n + i) + 32] for i in range(n)])
    scalars = [int.from_bytes(raw[32 * k:32 * k + 32], "little") for k in range(2 * n, 4 * n + 5)]
    if commitment is None or chain is None or any(k >= L for k in scalars):
        return False
    e, s1, s2, s3, s4 = scalars[:5]
    s_hat, s_prime = scalars[5:5 + n], scalars[5 + n:]
    statement = _statement(ctx, g, h, xs, ys)
    u = _u(statement, commitment)
    gens = [generator(i) for i in range(1, n + 1)]
    u_prod = 1
    for ui in u:
        u_prod = u_prod * ui % L
    c_bar = _sub(_sum(commitment), _generator_sum(n))
    c_c = _sub(chain[-1], _mul(u_prod, generator(0)))
    t = [_add(_mul(e, c_bar), _mul(s1, BASE)),
         _add(_mul(e, c_c), _mul(s2, BASE)),
         _add(_add(_combination([e * uj for uj in u], commitment), _mul(s3, BASE)),
              _combination(s_prime, gens)),
         _sub(_combination([s4 * uj for uj in u], xs), _combination(s_prime, ys)),
         _add(_mul(e, h), _mul(s4, g))]
    links = [generator(0)] + chain[:-1]
    t_hat = [_add(_add(_mul(e, chain[i]), _mul(s_hat[i], BASE)), _mul(s_prime[i], links[i]))
             for i in range(n)]
    return _e(statement, commitment, chain, t, t_hat) == e
