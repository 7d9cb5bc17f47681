"""pbem.protocol.crypto.shuffle_proof: the verifiable shuffle of a common exponent.

Known answers (tests/vectors/shuffle_proof.json, checked also by an independent verifier
written from docs/protocol-shuffle-proof.md on the pure-integer edwards25519 of
tests/support/edref.py), completeness over many sizes, one tamper test per part of the
proof and per way to misuse it, and malformed proofs (False, never an exception).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from pbem.protocol.crypto import b64, mental
from pbem.protocol.crypto import shuffle_proof as sp
from pbem.protocol.crypto.mental import BASE, L, field, u32
from tests.support import edref

VECTORS = Path(__file__).parent / "vectors" / "shuffle_proof.json"
GAME_ID = "00112233445566778899aabbccddeeff"
SECRET = bytes(range(32))
CTX = sp.context(GAME_ID, "bonus", 7, 2, "shuffle")


def card(i: int) -> bytes:
    """The vectors' inputs: ``hash_to_group(b"pbem/1/test/shuffle-input" || u32(i))``."""
    return mental.hash_to_group(b"pbem/1/test/shuffle-input" + u32(i))


def perm_of(n: int, salt: int = 0) -> list[int]:
    """A fixed, scrambled permutation of range(n)."""
    return sorted(range(n), key=lambda i: hashlib.sha256(b"%d/%d" % (salt, i)).digest())


def key(i: int) -> int:
    return mental.scalar(hashlib.sha512(b"shuffle test key %d" % i).digest())


X = key(1)
H = mental.mul(X, BASE)


def shuffled(n: int, g: bytes = BASE, x: int = X, ctx: bytes = CTX,
             perm: list[int] | None = None) -> tuple[list[bytes], list[bytes], str]:
    inputs = [card(i) for i in range(n)]
    outputs, proof = sp.prove(g, mental.mul(x, g), x, inputs, perm or perm_of(n), ctx, SECRET)
    return inputs, outputs, proof


# ---- known answers -----------------------------------------------------------------------
def _cases() -> list[dict[str, Any]]:
    return json.loads(VECTORS.read_text())["cases"]


def test_generators_match_the_vectors() -> None:
    stored = json.loads(VECTORS.read_text())["generators"]
    assert [sp.generator(i).hex() for i in range(len(stored))] == stored
    for i, text in enumerate(stored):
        assert mental.is_valid_point(bytes.fromhex(text))
        counter0 = mental.hash_to_group(b"pbem/1/shuffle-generator" + u32(i) + u32(0))
        assert counter0.hex() == text  # first try valid for these


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["name"])
def test_known_answer_vectors(case: dict[str, Any]) -> None:
    g, h = bytes.fromhex(case["g"]), bytes.fromhex(case["h"])
    x = int.from_bytes(bytes.fromhex(case["x"]), "little")
    inputs = [card(i) for i in range(len(case["inputs"]))]
    assert [p.hex() for p in inputs] == case["inputs"]
    c = case["context"]
    ctx = sp.context(c["game_id"], c["deck"], c["seq"], c["seat"], c["op"])
    assert ctx.hex() == case["ctx"]
    assert ctx == (field(c["game_id"].encode()) + field(c["deck"].encode()) + u32(c["seq"])
                   + u32(c["seat"]) + field(c["op"].encode()))
    outputs, proof = sp.prove(g, h, x, inputs, case["perm"], ctx, bytes.fromhex(case["secret"]))
    assert [p.hex() for p in outputs] == case["outputs"]
    assert proof == case["proof"]
    assert len(b64.decode(proof)) == 128 * len(inputs) + 160
    assert sp.verify(g, h, inputs, outputs, proof, ctx)
    assert _reference_verify(g, h, inputs, outputs, proof, ctx)


def _reference_verify(g: bytes, h: bytes, inputs: list[bytes], outputs: list[bytes], proof: str,
                      ctx: bytes) -> bool:
    """docs/protocol-shuffle-proof.md, section "Verification", on the slow independent
    arithmetic of tests/support/edref.py (hashes by hashlib; only hash_to_group, for the
    generators, is pbem's, and the vectors pin it)."""
    n = len(inputs)
    raw = base64.urlsafe_b64decode(proof + "=" * (-len(proof) % 4))  # its text: base64url
    pts = [raw[32 * k:32 * k + 32] for k in range(2 * n)]
    sc = [int.from_bytes(raw[32 * k:32 * k + 32], "little") for k in range(2 * n, 4 * n + 5)]
    if len(raw) != 128 * n + 160 or any(k >= L for k in sc):
        return False
    com, chain = pts[:n], pts[n:]
    e, s1, s2, s3, s4 = sc[:5]
    s_hat, s_prime = sc[5:5 + n], sc[5 + n:]
    dec = edref.decode

    def lin(pairs: list[tuple[int, bytes]]) -> edref.Point:
        total = edref.IDENTITY
        for k, p in pairs:
            point = dec(p)
            assert point is not None
            total = edref.add(total, edref.mul(k % L, point))
        return total

    gens = [mental.hash_to_group(b"pbem/1/shuffle-generator" + u32(i) + u32(0)) for i in range(n + 1)]
    stmt = field(ctx) + u32(n) + g + h + b"".join(inputs) + b"".join(outputs)
    stream = hashlib.shake_256(b"pbem/1/shuffle-u" + stmt + b"".join(com)).digest(64 * n)
    u = [int.from_bytes(stream[64 * i:64 * i + 64], "little") % L for i in range(n)]
    u_prod = 1
    for ui in u:
        u_prod = u_prod * ui % L
    minus = L - 1
    t1 = lin([(e, c) for c in com] + [(-e, gh) for gh in gens[1:]] + [(s1, BASE)])
    t2 = lin([(e, chain[-1]), (-e * u_prod, gens[0]), (s2, BASE)])
    t3 = lin([(e * uj, c) for uj, c in zip(u, com, strict=True)] + [(s3, BASE)]
             + list(zip(s_prime, gens[1:], strict=True)))
    t4 = lin([(s4 * uj, xj) for uj, xj in zip(u, inputs, strict=True)]
             + [(minus * si, yi) for si, yi in zip(s_prime, outputs, strict=True)])
    t5 = lin([(e, h), (s4, g)])
    links = [gens[0]] + chain[:-1]
    t_hat = [lin([(e, chain[i]), (s_hat[i], BASE), (s_prime[i], links[i])]) for i in range(n)]
    data = (b"pbem/1/shuffle-c" + stmt + b"".join(com) + b"".join(chain)
            + b"".join(edref.encode(t) for t in [t1, t2, t3, t4, t5] + t_hat))
    return int.from_bytes(hashlib.shake_256(data).digest(64), "little") % L == e


def test_reference_verifier_refuses_a_wrong_proof() -> None:
    """The independent verifier is no rubber stamp."""
    case = _cases()[1]
    g, h = bytes.fromhex(case["g"]), bytes.fromhex(case["h"])
    inputs = [bytes.fromhex(p) for p in case["inputs"]]
    outputs = [bytes.fromhex(p) for p in case["outputs"]]
    ctx = bytes.fromhex(case["ctx"])
    assert not _reference_verify(g, h, inputs, outputs[::-1], case["proof"], ctx)


# ---- completeness ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 18, 68])
def test_honest_shuffles_verify(n: int) -> None:
    inputs, outputs, proof = shuffled(n)
    assert outputs == [mental.mul(X, inputs[j]) for j in perm_of(n)]
    assert len(b64.decode(proof)) == sp.proof_size(n)
    assert sp.verify(BASE, H, inputs, outputs, proof, CTX)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_every_permutation_shape_verifies(n: int) -> None:
    """The identity, a reversal and scrambled orders, with g the base point or another."""
    g = mental.mul(key(7), BASE)
    for perm in (list(range(n)), list(range(n))[::-1], perm_of(n, 1), perm_of(n, 2)):
        inputs, outputs, proof = shuffled(n, g=g, perm=perm)
        assert sp.verify(g, mental.mul(X, g), inputs, outputs, proof, CTX)


def test_a_rekey_verifies() -> None:
    """A batch moved from layer k (point K) to fresh s (point S): g = K, h = S, x = s / k."""
    k, s = key(3), key(4)
    big_k, big_s = mental.mul(k, BASE), mental.mul(s, BASE)
    inputs = [mental.mul(k, card(i)) for i in range(6)]
    outputs, proof = sp.prove(big_k, big_s, s * pow(k, -1, L) % L, inputs, perm_of(6), CTX, SECRET)
    assert sorted(outputs) == sorted(mental.mul(s, card(i)) for i in range(6))
    assert sp.verify(big_k, big_s, inputs, outputs, proof, CTX)


def test_the_proof_is_deterministic_and_its_nonces_depend_on_the_secret() -> None:
    inputs, outputs, proof = shuffled(4)
    again = sp.prove(BASE, H, X, inputs, perm_of(4), CTX, SECRET)
    assert again == (outputs, proof)
    other = sp.prove(BASE, H, X, inputs, perm_of(4), CTX, bytes(range(1, 33)))
    assert other[0] == outputs and other[1] != proof
    assert sp.verify(BASE, H, inputs, outputs, other[1], CTX)


def test_an_empty_shuffle() -> None:
    """n = 0: the outputs are empty and the only proof is the empty string."""
    assert sp.prove(BASE, H, X, [], [], CTX, SECRET) == ([], "")
    assert sp.verify(BASE, H, [], [], "", CTX)
    assert not sp.verify(BASE, H, [], [], "00", CTX)
    assert not sp.verify(BASE, H, [], [card(0)], "", CTX)
    assert not sp.verify(BASE, b"\x00" * 32, [], [], "", CTX)


def test_prove_refuses_bad_arguments() -> None:
    inputs = [card(i) for i in range(3)]
    for perm in ([0, 1], [0, 1, 1], [1, 2, 3], [0, 1, 2, 3]):
        with pytest.raises(ValueError, match="permutation"):
            sp.prove(BASE, H, X, inputs, perm, CTX, SECRET)
    with pytest.raises(ValueError, match="x \\* g"):
        sp.prove(BASE, mental.mul(key(2), BASE), X, inputs, [0, 1, 2], CTX, SECRET)
    for x in (0, L, -1):
        with pytest.raises(ValueError, match="scalar"):
            sp.prove(BASE, H, x, inputs, [0, 1, 2], CTX, SECRET)
    with pytest.raises(ValueError, match="secret"):
        sp.prove(BASE, H, X, inputs, [0, 1, 2], CTX, b"short")
    with pytest.raises(ValueError, match="input"):
        sp.prove(BASE, H, X, inputs[:2] + [b"\x00" * 32], [0, 1, 2], CTX, SECRET)


def test_the_proof_shows_neither_the_key_nor_the_permutation() -> None:
    n = 18
    inputs, outputs, proof = shuffled(n)
    perm = perm_of(n)
    raw = b64.decode(proof)
    assert mental.scalar_bytes(X) not in raw
    assert mental.scalar_bytes(-X) not in raw
    assert b"".join(u32(j) for j in perm) not in raw
    assert bytes(perm) not in raw
    # The commitment to the permutation is not the generators in the permuted order.
    assert not any(sp.generator(i + 1) in raw for i in range(n))
    # Two proofs of the same inputs with different permutations have nothing in common
    # but their length.
    _, _, other = shuffled(n, perm=perm_of(n, 5))
    raw_other = b64.decode(other)
    chunks = {raw[k:k + 32] for k in range(0, len(raw), 32)}
    assert not chunks & {raw_other[k:k + 32] for k in range(0, len(raw_other), 32)}


# ---- tamper tests: each part of the proof ------------------------------------------------------
N = 3
INPUTS, OUTPUTS, PROOF = shuffled(N)
PARTS = ([f"C_{j + 1}" for j in range(N)] + [f"Chat_{i + 1}" for i in range(N)]
         + ["e", "s_1", "s_2", "s_3", "s_4"] + [f"shat_{i + 1}" for i in range(N)]
         + [f"s'_{i + 1}" for i in range(N)])


def _with(index: int, element: bytes) -> str:
    raw = bytearray(b64.decode(PROOF))
    raw[32 * index:32 * index + 32] = element
    return b64.encode(bytes(raw))


def test_the_layout_has_every_part() -> None:
    assert len(PARTS) * 32 == sp.proof_size(N) == len(b64.decode(PROOF))
    assert sp.verify(BASE, H, INPUTS, OUTPUTS, PROOF, CTX)


@pytest.mark.parametrize("index", range(len(PARTS)), ids=PARTS)
def test_each_element_of_the_proof_altered(index: int) -> None:
    raw = b64.decode(PROOF)[32 * index:32 * index + 32]
    if index < 2 * N:  # a point: another valid point, its negation, the base point
        alternatives = [card(100 + index), mental.sub(mental.mul(L - 1, raw), mental.BASE),
                        BASE, mental.mul(2, raw)]
    else:  # a scalar: plus one, zero, minus one
        k = int.from_bytes(raw, "little")
        alternatives = [mental.scalar_bytes(k + 1), bytes(32), mental.scalar_bytes(k - 1)]
    for element in alternatives:
        assert not sp.verify(BASE, H, INPUTS, OUTPUTS, _with(index, element), CTX), element.hex()


def test_two_elements_swapped() -> None:
    for a, b in ((0, 1), (N, N + 1), (2 * N + 1, 2 * N + 2), (2 * N + 5, 3 * N + 5)):
        raw = b64.decode(PROOF)
        parts = [raw[32 * k:32 * k + 32] for k in range(len(PARTS))]
        parts[a], parts[b] = parts[b], parts[a]
        assert not sp.verify(BASE, H, INPUTS, OUTPUTS, b64.encode(b"".join(parts)), CTX)


def test_a_substituted_output_card() -> None:
    for i in range(N):
        outputs = list(OUTPUTS)
        outputs[i] = mental.mul(X, card(50))  # a card that was not in the deck, with the key
        assert not sp.verify(BASE, H, INPUTS, outputs, PROOF, CTX)


def test_a_substituted_output_card_with_its_own_proof_attempt() -> None:
    """A cheater cannot make a proof either: prove refuses outputs it did not compute, so the
    honest prover's proof of a substituted deck is a proof of other inputs."""
    inputs = list(INPUTS)
    inputs[0] = card(50)
    outputs, proof = sp.prove(BASE, H, X, inputs, perm_of(N), CTX, SECRET)
    assert not sp.verify(BASE, H, INPUTS, outputs, proof, CTX)


def test_a_duplicated_output_card() -> None:
    for i in range(1, N):
        outputs = list(OUTPUTS)
        outputs[i] = outputs[0]
        assert not sp.verify(BASE, H, INPUTS, outputs, PROOF, CTX)


def test_a_dropped_card_and_an_extra_card() -> None:
    assert not sp.verify(BASE, H, INPUTS, OUTPUTS[:-1], PROOF, CTX)
    assert not sp.verify(BASE, H, INPUTS[:-1], OUTPUTS[:-1], PROOF, CTX)
    extra = mental.mul(X, card(60))
    assert not sp.verify(BASE, H, INPUTS, OUTPUTS + [extra], PROOF, CTX)
    assert not sp.verify(BASE, H, INPUTS + [card(60)], OUTPUTS + [extra], PROOF, CTX)
    # the honest proof of the larger deck does not cover the smaller one, nor its own prefix
    inputs, outputs, proof = shuffled(N + 1)
    assert not sp.verify(BASE, H, inputs[:N], outputs[:N], proof[:2 * sp.proof_size(N)], CTX)


def test_outputs_under_another_key() -> None:
    other = key(2)
    h_other = mental.mul(other, BASE)
    _, outputs, proof = shuffled(N, x=other)
    assert sp.verify(BASE, h_other, INPUTS, outputs, proof, CTX)
    assert not sp.verify(BASE, H, INPUTS, outputs, proof, CTX)  # claimed under the seat's key
    assert not sp.verify(BASE, H, INPUTS, outputs, PROOF, CTX)
    assert not sp.verify(BASE, h_other, INPUTS, OUTPUTS, PROOF, CTX)
    # nor with another base point for the same key point
    assert not sp.verify(mental.mul(2, BASE), H, INPUTS, OUTPUTS, PROOF, CTX)


@pytest.mark.parametrize("changed", [
    ("ffeeddccbbaa99887766554433221100", "bonus", 7, 2, "shuffle"),
    (GAME_ID, "posse", 7, 2, "shuffle"),
    (GAME_ID, "bonus", 8, 2, "shuffle"),
    (GAME_ID, "bonus", 7, 1, "shuffle"),
    (GAME_ID, "bonus", 7, 2, "relock"),
], ids=["game", "deck", "seq", "seat", "op"])
def test_the_proof_moved_to_another_context(changed: tuple[str, str, int, int, str]) -> None:
    assert not sp.verify(BASE, H, INPUTS, OUTPUTS, PROOF, sp.context(*changed))


def test_a_proof_of_another_permutation() -> None:
    for salt in (1, 2, 3):
        perm = perm_of(N, salt)
        if perm == perm_of(N):
            continue
        outputs, proof = sp.prove(BASE, H, X, INPUTS, perm, CTX, SECRET)
        assert sp.verify(BASE, H, INPUTS, outputs, proof, CTX)
        assert not sp.verify(BASE, H, INPUTS, OUTPUTS, proof, CTX)
        assert not sp.verify(BASE, H, INPUTS, outputs, PROOF, CTX)


def test_swapped_inputs() -> None:
    """Each input is bound in its place: the same multiset in another order fails."""
    assert not sp.verify(BASE, H, INPUTS[::-1], OUTPUTS, PROOF, CTX)
    assert not sp.verify(BASE, H, [INPUTS[1], INPUTS[0], *INPUTS[2:]], OUTPUTS, PROOF, CTX)
    assert not sp.verify(BASE, H, INPUTS, OUTPUTS[::-1], PROOF, CTX)


# ---- a cheating prover: the honest algorithm run on a false witness ------------------------
def _cheat_prove(matrix: list[list[int]], x: int, outputs: list[bytes], h: bytes = H,
                 seed: int = 0) -> str:
    """The prover's steps for an arbitrary matrix ``M`` (``u' = M u``, ``C_j = r_j B +
    sum_i M_ij H_i``), a key ``x`` and outputs of the cheater's choice; nonces from ``seed``."""
    n = len(outputs)
    stream = hashlib.shake_256(b"cheat %d" % seed).digest(64 * (4 * n + 4))
    nonces = [1 + int.from_bytes(stream[64 * m:64 * m + 64], "little") % (L - 1) for m in range(4 * n + 4)]
    r, r_hat = nonces[:n], nonces[n:2 * n]
    w1, w2, w3, w4 = nonces[2 * n:2 * n + 4]
    w_hat, w_prime = nonces[2 * n + 4:3 * n + 4], nonces[3 * n + 4:]
    gens = [sp.generator(i) for i in range(1, n + 1)]
    statement = sp._statement(CTX, BASE, h, INPUTS[:n], outputs)
    commitment = [sp._add(sp._mul(r[j], BASE), sp._combination([row[j] for row in matrix], gens))
                  for j in range(n)]
    u = sp._u(statement, commitment)
    u_prime = [sum(m * uj for m, uj in zip(row, u, strict=True)) % L for row in matrix]
    chain, previous = [], sp.generator(0)
    for i in range(n):
        previous = sp._add(sp._mul(r_hat[i], BASE), sp._mul(u_prime[i], previous))
        chain.append(previous)
    t = [sp._mul(w1, BASE), sp._mul(w2, BASE),
         sp._add(sp._mul(w3, BASE), sp._combination(w_prime, gens)),
         sp._sub(sp._mul(w4, sp._combination(u, INPUTS[:n])), sp._combination(w_prime, outputs)),
         sp._mul(w4, BASE)]
    links = [sp.generator(0)] + chain[:-1]
    t_hat = [sp._add(sp._mul(w_hat[i], BASE), sp._mul(w_prime[i], links[i])) for i in range(n)]
    e = sp._e(statement, commitment, chain, t, t_hat)
    v = [1] * n
    for i in range(n - 2, -1, -1):
        v[i] = v[i + 1] * u_prime[i + 1] % L
    scalars = [e, (w1 - e * sum(r)) % L, (w2 - e * sum(a * b for a, b in zip(r_hat, v, strict=True))) % L,
               (w3 - e * sum(a * b for a, b in zip(r, u, strict=True))) % L, (w4 - e * x) % L]
    scalars += [(w_hat[i] - e * r_hat[i]) % L for i in range(n)]
    scalars += [(w_prime[i] - e * u_prime[i]) % L for i in range(n)]
    elements = commitment + chain + [k.to_bytes(32, "little") for k in scalars]
    return b64.encode(b"".join(elements))


def _matrix(columns: list[int]) -> list[list[int]]:
    """Row i has its one in column ``columns[i]``."""
    return [[int(j == c) for j in range(len(columns))] for c in columns]


def test_the_cheating_prover_is_the_honest_one_on_a_true_witness() -> None:
    """Run on a true statement, the test's prover makes a proof that verifies: the attacks
    below fail for what they claim, not for a bug of the attacker."""
    perm = perm_of(N)
    outputs = [mental.mul(X, INPUTS[j]) for j in perm]
    assert sp.verify(BASE, H, INPUTS, outputs, _cheat_prove(_matrix(perm), X, outputs), CTX)


def test_a_cheater_cannot_prove_a_substituted_card() -> None:
    perm = perm_of(N)
    outputs = [mental.mul(X, INPUTS[j]) for j in perm]
    outputs[1] = mental.mul(X, card(77))
    assert not sp.verify(BASE, H, INPUTS, outputs, _cheat_prove(_matrix(perm), X, outputs), CTX)


def test_a_cheater_cannot_prove_a_duplicated_card() -> None:
    """Rows sum to one but two rows take the same input: the product check fails."""
    columns = [0, 0, 2]
    outputs = [mental.mul(X, INPUTS[j]) for j in columns]
    assert not sp.verify(BASE, H, INPUTS, outputs, _cheat_prove(_matrix(columns), X, outputs), CTX)


def test_a_cheater_cannot_prove_a_matrix_that_is_not_a_permutation() -> None:
    """A row with two ones and one with none (row sums wrong), and a row sum of one made of
    1 + 1 - 1 (the products differ)."""
    outputs = [mental.mul(X, p) for p in (mental.add(INPUTS[0], INPUTS[1]), INPUTS[2], INPUTS[1])]
    for matrix in ([[1, 1, 0], [0, 0, 1], [0, 0, 0]], [[1, 1, L - 1], [0, 0, 1], [0, 1, 0]]):
        assert not sp.verify(BASE, H, INPUTS, outputs, _cheat_prove(matrix, X, outputs), CTX)


def test_a_cheater_cannot_prove_another_key() -> None:
    """Outputs under another key x' with the seat's point h = x B: T_4 or T_5 fails."""
    perm = perm_of(N)
    outputs = [mental.mul(key(9), INPUTS[j]) for j in perm]
    for claimed in (X, key(9)):
        assert not sp.verify(BASE, H, INPUTS, outputs, _cheat_prove(_matrix(perm), claimed, outputs), CTX)


# ---- malformed proofs and statements ---------------------------------------------------------
def _torsion_point() -> bytes:
    """A point of small order (not the identity)."""
    for y in range(2, 200):
        x = edref.recover_x(y, 0)
        if x is None:
            continue
        small = edref.mul(L, (x, y, 1, x * y % edref.P))
        if not edref.equal(small, edref.IDENTITY):
            return edref.encode(small)
    raise AssertionError("no torsion point found")


def _off_subgroup() -> bytes:
    point = edref.decode(card(0))
    torsion = edref.decode(_torsion_point())
    assert point is not None and torsion is not None
    return edref.encode(edref.add(point, torsion))


def _bad_points() -> list[bytes]:
    off_curve = next(y for y in range(2, 100) if edref.recover_x(y, 0) is None)
    y = int.from_bytes(card(1), "little") & ((1 << 255) - 1)
    points = [sp.IDENTITY, _torsion_point(), _off_subgroup(), off_curve.to_bytes(32, "little"),
              (edref.P + 1).to_bytes(32, "little"), b"\xff" * 31 + b"\x7f", b"\xff" * 32,
              b"\x01" + bytes(30) + b"\x80"]  # the identity with the sign bit set
    if y + edref.P < (1 << 255):  # the same y written non-canonically
        sign = int.from_bytes(card(1), "little") >> 255 << 255
        points.append((y + edref.P | sign).to_bytes(32, "little"))
    for point in points:
        assert not mental.is_valid_point(point)
    return points


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
# The same bytes in another text: the last character's unused low bits set (544 bytes: 4 unused).
LOOSE_TAIL = PROOF[:-1] + B64[B64.index(PROOF[-1]) | 1]


@pytest.mark.parametrize("bad", [None, 7, 1.5, b"00", b64.decode(PROOF), [PROOF], {"proof": PROOF},
                                 "", PROOF[:-2], PROOF[:-1], PROOF + "AA", PROOF + "A", PROOF.upper(),
                                 PROOF[:-1] + "=", PROOF + "=", PROOF + "==", LOOSE_TAIL,
                                 "+/" + PROOF[2:], PROOF[:-1] + "!", " " + PROOF[1:],
                                 PROOF[:10] + "\n" + PROOF[11:], PROOF + PROOF], ids=repr)
def test_malformed_proof_text(bad: object) -> None:
    assert sp.verify(BASE, H, INPUTS, OUTPUTS, bad, CTX) is False


def test_a_proof_with_loose_last_bits_is_the_same_bytes_and_still_refused() -> None:
    """Exactly one text per proof: base64 decoders that ignore the unused bits read
    LOOSE_TAIL as the honest proof's bytes, and pbem refuses it all the same."""
    import base64

    assert base64.urlsafe_b64decode(LOOSE_TAIL + "==") == b64.decode(PROOF) and LOOSE_TAIL != PROOF
    assert sp.verify(BASE, H, INPUTS, OUTPUTS, PROOF, CTX)
    assert not sp.verify(BASE, H, INPUTS, OUTPUTS, LOOSE_TAIL, CTX)


@pytest.mark.parametrize("index", range(2 * N, len(PARTS)), ids=PARTS[2 * N:])
def test_non_canonical_scalars(index: int) -> None:
    k = int.from_bytes(b64.decode(PROOF)[32 * index:32 * index + 32], "little")
    for big in (k + L, L, 2**256 - 1):
        assert not sp.verify(BASE, H, INPUTS, OUTPUTS, _with(index, big.to_bytes(32, "little")), CTX)


@pytest.mark.parametrize("index", range(2 * N), ids=PARTS[:2 * N])
def test_invalid_point_encodings_in_the_proof(index: int) -> None:
    for point in _bad_points():
        assert sp.verify(BASE, H, INPUTS, OUTPUTS, _with(index, point), CTX) is False


def test_invalid_points_in_the_statement() -> None:
    for point in _bad_points():
        assert sp.verify(point, H, INPUTS, OUTPUTS, PROOF, CTX) is False
        assert sp.verify(BASE, point, INPUTS, OUTPUTS, PROOF, CTX) is False
        assert sp.verify(BASE, H, [point, *INPUTS[1:]], OUTPUTS, PROOF, CTX) is False
        assert sp.verify(BASE, H, INPUTS, [*OUTPUTS[:-1], point], PROOF, CTX) is False


def test_wrong_types_in_the_statement() -> None:
    bad_inputs: list[Any] = [[p.hex() for p in INPUTS], [None] * N, [b"\x01" * 31] * N]
    for inputs in bad_inputs:
        assert sp.verify(BASE, H, inputs, OUTPUTS, PROOF, CTX) is False
        assert sp.verify(BASE, H, INPUTS, inputs, PROOF, CTX) is False
    for wrong in (None, 5, BASE.hex()):
        assert sp.verify(wrong, H, INPUTS, OUTPUTS, PROOF, CTX) is False  # type: ignore[arg-type]
        assert sp.verify(BASE, H, INPUTS, OUTPUTS, PROOF, wrong) is False  # type: ignore[arg-type]
        assert sp.verify(BASE, H, wrong, OUTPUTS, PROOF, CTX) is False  # type: ignore[arg-type]


def test_too_many_cards_is_refused_before_any_work() -> None:
    n = sp.MAX_CARDS + 1
    many = [card(0)] * n
    assert sp.verify(BASE, H, many, many, "00" * (128 * n + 160), CTX) is False
    with pytest.raises(ValueError, match="at most"):
        sp.prove(BASE, H, X, many, list(range(n)), CTX, SECRET)


# ---- the vectors file --------------------------------------------------------------------------
def make_vectors() -> dict[str, Any]:
    """What tests/vectors/shuffle_proof.json holds (``python -m tests.test_shuffle_proof``
    writes it; run only when the scheme changes on purpose)."""
    def case(name: str, g: bytes, x: int, n: int, perm: list[int],
             fields: tuple[str, str, int, int, str], secret: bytes) -> dict[str, Any]:
        inputs = [card(i) for i in range(n)]
        ctx = sp.context(*fields)
        h = mental.mul(x, g)
        outputs, proof = sp.prove(g, h, x, inputs, perm, ctx, secret)
        return {"name": name, "g": g.hex(), "h": h.hex(), "x": mental.scalar_bytes(x).hex(),
                "inputs_from": "hash_to_group(b'pbem/1/test/shuffle-input' || u32(i))",
                "inputs": [p.hex() for p in inputs], "perm": perm,
                "context": dict(zip(("game_id", "deck", "seq", "seat", "op"), fields, strict=True)),
                "ctx": ctx.hex(), "secret": secret.hex(),
                "outputs": [p.hex() for p in outputs], "proof": proof}

    deck_key = mental.deck_key(SECRET, "bonus")
    old, new = mental.slot_key(SECRET, "bonus", 4), mental.slot_key(bytes(range(32, 64)), "bonus", 9)
    return {
        "about": "Known answers of pbem.protocol.crypto.shuffle_proof (docs/protocol-shuffle-proof.md). "
                 "Points and scalars are hex of their 32-byte encodings (scalars little-endian); "
                 "the proof is its text in a save, unpadded base64url.",
        "generators": [sp.generator(i).hex() for i in range(6)],
        "cases": [
            case("shuffle pass, g = B", BASE, deck_key, 5, [3, 0, 4, 1, 2],
                 (GAME_ID, "bonus", 7, 2, "shuffle"), SECRET),
            case("re-key of a batch, g = K_old", mental.mul(old, BASE), new * pow(old, -1, L) % L, 3,
                 [2, 0, 1], (GAME_ID, "bonus", 12, 1, "relock"), bytes(range(32, 64))),
            case("one card", BASE, deck_key, 1, [0], (GAME_ID, "posse", 3, 0, "shuffle"), SECRET),
        ],
    }


def test_the_specification_shows_the_vector_it_says() -> None:
    """docs/protocol-shuffle-proof.md's test vector is the file's second case, element by element."""
    doc = (Path(__file__).parent.parent / "docs" / "protocol-shuffle-proof.md").read_text()
    section = doc[doc.index("## Test vector"):doc.index("## The interface")]
    rows = dict(re.findall(r"^    (\S+) +([0-9a-f]{64})$", section, re.MULTILINE))
    case = _cases()[1]
    for name in ("g", "h", "x"):
        assert rows[name] == case[name]
    n = len(case["inputs"])
    assert [rows[f"X_{j + 1}"] for j in range(n)] == case["inputs"]
    assert [rows[f"Y_{i + 1}"] for i in range(n)] == case["outputs"]
    assert [rows[f"H_{i}"] for i in range(n + 1)] == [sp.generator(i).hex() for i in range(n + 1)]
    order = ([f"C_{j + 1}" for j in range(n)] + [f"Chat_{i + 1}" for i in range(n)]
             + ["e", "s_1", "s_2", "s_3", "s_4"] + [f"shat_{i + 1}" for i in range(n)]
             + [f"s'_{i + 1}" for i in range(n)])
    joined = bytes.fromhex("".join(rows[name] for name in order))
    assert base64.urlsafe_b64encode(joined).rstrip(b"=").decode() == case["proof"]
    assert rows["secret"] == case["secret"]


def test_the_vectors_file_is_what_make_vectors_writes() -> None:
    assert json.loads(VECTORS.read_text()) == make_vectors()


if __name__ == "__main__":
    VECTORS.write_text(json.dumps(make_vectors(), indent=1) + "\n")
    sys.exit(0)
