"""pbem.protocol.crypto.linproof: proofs of knowledge for linear relations, and the handoff
and adopt proofs of a one-step pass of a card.

Known answers (tests/vectors/linproof.json), reproduced also by a prover and a verifier
written from docs/protocol-linproof.md on the pure-integer edwards25519 of
tests/support/edref.py; completeness; one tamper test per public value, per scalar of
the proof, per reordering and per context; malformed proofs and statements (False, never
an exception); and the attacks a cheating giver or receiver would try. Every scalar is
fixed (derived from a hash): no randomness.
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

from pbem.protocol.crypto import b64, dleq, mental
from pbem.protocol.crypto import linproof as lp
from pbem.protocol.crypto.linproof import Equation, Statement
from pbem.protocol.crypto.mental import BASE, L, field, u32
from tests.support import edref
from tests.test_mental import _off_subgroup, _torsion

VECTORS = Path(__file__).parent / "vectors" / "linproof.json"
DOC = Path(__file__).parent.parent / "docs" / "protocol-linproof.md"
GAME_ID = "00112233445566778899aabbccddeeff"


def scalar(name: str) -> int:
    """A fixed scalar in 1 .. L-1: ``mental.scalar(SHA-512(b"linproof test " || name))``."""
    return mental.scalar(hashlib.sha512(b"linproof test " + name.encode()).digest())


def card(uid: str) -> bytes:
    return mental.card_point(GAME_ID, "bonus", uid)


def ctx_of(op: str, slot: str = "s3", seq: int = 7, seat: int = 1) -> bytes:
    return dleq.context(GAME_ID, "bonus", seq, seat, op, slot)


# The giver's layer k on slot s3 holding card M; the receiver's deck key y; the handoff's e
# and the receiver's fresh z.
K_GIVER, Y_KEY, E, Z = scalar("k"), scalar("y"), scalar("e"), scalar("z")
M = card("bonus-01")
SLOT = mental.mul(K_GIVER, M)
KEY = mental.mul(K_GIVER, BASE)
RECEIVER = mental.mul(Y_KEY, BASE)
HANDOFF_CTX, ADOPT_CTX = ctx_of("handoff"), ctx_of("adopt", seat=2)
HANDOFF = lp.handoff_prove(K_GIVER, SLOT, RECEIVER, E, HANDOFF_CTX)
ADOPTION = lp.adopt_prove(Y_KEY, Z, HANDOFF.r, HANDOFF.c, ADOPT_CTX)


def handoff_ok(proof: object = HANDOFF.proof, key: bytes = KEY, slot: bytes = SLOT,
               receiver: bytes = RECEIVER, r: bytes = HANDOFF.r, c: bytes = HANDOFF.c,
               ctx: bytes = HANDOFF_CTX) -> bool:
    return lp.handoff_verify(proof, key, slot, receiver, r, c, ctx)


def adopt_ok(proof: object = ADOPTION.proof, receiver: bytes = RECEIVER, r: bytes = HANDOFF.r,
             c: bytes = HANDOFF.c, key: bytes = ADOPTION.key, shared: bytes = ADOPTION.shared,
             point: bytes = ADOPTION.point, ctx: bytes = ADOPT_CTX) -> bool:
    return lp.adopt_verify(proof, receiver, r, c, key, shared, point, ctx)


# ---- completeness and what the pass does -----------------------------------------------------
def test_an_honest_handoff_and_adoption_verify() -> None:
    assert handoff_ok()
    assert adopt_ok()
    assert len(b64.decode(HANDOFF.proof)) == len(b64.decode(ADOPTION.proof)) == lp.proof_size(2) == 96


def test_the_handoff_decrypts_with_the_receivers_key_to_the_card() -> None:
    assert HANDOFF.r == mental.mul(E, BASE)
    assert mental.sub(HANDOFF.c, mental.mul(Y_KEY, HANDOFF.r)) == M
    assert HANDOFF.c != M and HANDOFF.c != SLOT


def test_the_adoption_is_the_card_under_the_fresh_layer() -> None:
    assert ADOPTION.point == mental.mul(Z, M)
    assert ADOPTION.key == mental.mul(Z, BASE)
    assert ADOPTION.shared == mental.mul(Z, RECEIVER)
    assert mental.decrypt(Z, ADOPTION.point) == M  # the receiver's read: peel z


def test_proving_twice_gives_the_same_bytes() -> None:
    assert lp.handoff_prove(K_GIVER, SLOT, RECEIVER, E, HANDOFF_CTX) == HANDOFF
    assert lp.adopt_prove(Y_KEY, Z, HANDOFF.r, HANDOFF.c, ADOPT_CTX) == ADOPTION


def test_generic_statements_verify() -> None:
    """A Schnorr proof, a Chaum-Pedersen proof and three scalars over three equations."""
    a, b, x = scalar("a"), scalar("b"), scalar("x")
    h = card("bonus-02")
    cases = [
        ([a], Statement(1, (Equation(((0, BASE),), mental.mul(a, BASE)),))),
        ([a], Statement(1, (Equation(((0, BASE),), mental.mul(a, BASE)),
                            Equation(((0, h),), mental.mul(a, h))))),
        ([a, b, x], Statement(3, (
            Equation(((0, BASE), (1, h)), mental.add(mental.mul(a, BASE), mental.mul(b, h))),
            Equation(((2, h),), mental.mul(x, h)),
            Equation(((0, M), (1, BASE), (2, RECEIVER)),
                     mental.add(mental.add(mental.mul(a, M), mental.mul(b, BASE)),
                                mental.mul(x, RECEIVER)))))),
    ]
    for scalars, statement in cases:
        proof = lp.prove(scalars, statement, HANDOFF_CTX)
        assert len(b64.decode(proof)) == lp.proof_size(len(scalars))
        assert lp.verify(proof, statement, HANDOFF_CTX)
        assert not lp.verify(proof, statement, ADOPT_CTX)


def test_the_proof_shows_no_secret() -> None:
    for secret in (K_GIVER, pow(K_GIVER, -1, L), E, Y_KEY, Z, Z * Y_KEY % L):
        for raw in (b64.decode(HANDOFF.proof), b64.decode(ADOPTION.proof)):
            assert mental.scalar_bytes(secret) not in raw
            assert mental.scalar_bytes(-secret) not in raw
    assert M not in b64.decode(HANDOFF.proof) + HANDOFF.r + HANDOFF.c


# ---- soundness: every public value, every scalar, the order, the context ------------------------
OTHER = card("bonus-09")

HANDOFF_VALUES = ["key", "slot", "receiver", "r", "c"]


@pytest.mark.parametrize("name", HANDOFF_VALUES)
def test_a_handoff_with_any_public_value_changed_fails(name: str) -> None:
    for replacement in (OTHER, BASE, mental.add(getattr_handoff(name), BASE)):
        assert not handoff_ok(**{name: replacement})


def getattr_handoff(name: str) -> bytes:
    return {"key": KEY, "slot": SLOT, "receiver": RECEIVER, "r": HANDOFF.r, "c": HANDOFF.c}[name]


ADOPT_VALUES = ["receiver", "r", "c", "key", "shared", "point"]


@pytest.mark.parametrize("name", ADOPT_VALUES)
def test_an_adoption_with_any_public_value_changed_fails(name: str) -> None:
    current = {"receiver": RECEIVER, "r": HANDOFF.r, "c": HANDOFF.c, "key": ADOPTION.key,
               "shared": ADOPTION.shared, "point": ADOPTION.point}[name]
    for replacement in (OTHER, BASE, mental.add(current, BASE)):
        assert not adopt_ok(**{name: replacement})


def _with_scalar(proof: str, index: int, value: int) -> str:
    raw = bytearray(b64.decode(proof))
    raw[32 * index:32 * index + 32] = value.to_bytes(32, "little")
    return b64.encode(bytes(raw))


@pytest.mark.parametrize("index", range(3), ids=["c", "s_1", "s_2"])
def test_each_scalar_of_the_proof_altered_fails(index: int) -> None:
    for proof, ok in ((HANDOFF.proof, handoff_ok), (ADOPTION.proof, adopt_ok)):
        old = int.from_bytes(b64.decode(proof)[32 * index:32 * index + 32], "little")
        for value in ((old + 1) % L, (old - 1) % L, L - old, scalar("other")):
            assert not ok(_with_scalar(proof, index, value))
        for value in (0, L, L + old, 2**256 - 1):  # out of range: refused before any work
            assert not ok(_with_scalar(proof, index, value))


def test_the_two_responses_swapped_fail() -> None:
    raw = b64.decode(HANDOFF.proof)
    assert not handoff_ok(b64.encode(raw[:32] + raw[64:] + raw[32:64]))


def test_equations_or_terms_reordered_fail() -> None:
    statement = lp.handoff_statement(KEY, SLOT, RECEIVER, HANDOFF.r, HANDOFF.c)
    eqs = statement.equations
    for order in ((1, 0, 2), (0, 2, 1), (2, 1, 0)):
        moved = Statement(2, tuple(eqs[j] for j in order))
        assert not lp.verify(HANDOFF.proof, moved, HANDOFF_CTX)
    # The scalars' roles swapped: w * X + e * Y read as e * X + w * Y.
    third = eqs[2]
    swapped = Equation(((0, third.terms[1][1]), (1, third.terms[0][1])), third.public)
    assert not lp.verify(HANDOFF.proof, Statement(2, (eqs[0], eqs[1], swapped)), HANDOFF_CTX)
    # One equation left out, or said twice.
    assert not lp.verify(HANDOFF.proof, Statement(2, eqs[:2] + (eqs[1],)), HANDOFF_CTX)
    assert lp.shape_error(Statement(2, eqs[:1] + eqs[2:])) is None
    assert not lp.verify(HANDOFF.proof, Statement(2, eqs[:1] + eqs[2:]), HANDOFF_CTX)


@pytest.mark.parametrize("changed", [
    ctx_of("handoff", slot="s4"), ctx_of("handoff", seq=8), ctx_of("handoff", seat=2),
    ctx_of("adopt"), dleq.context("ff" * 16, "bonus", 7, 1, "handoff", "s3"),
    dleq.context(GAME_ID, "posse", 7, 1, "handoff", "s3"), b""],
    ids=["slot", "seq", "seat", "op", "game", "deck", "empty"])
def test_another_context_fails(changed: bytes) -> None:
    assert not handoff_ok(ctx=changed)
    assert not adopt_ok(ctx=changed)


def test_a_proof_for_one_slot_does_not_verify_for_another() -> None:
    """The handoff of slot s3 copied to slot s4 (another card under the same layer, its
    own context): the pair of s3 does not verify there, nor does s3's proof with s4's pair."""
    slot4, ctx4 = mental.mul(K_GIVER, OTHER), ctx_of("handoff", slot="s4")
    fresh = lp.handoff_prove(K_GIVER, slot4, RECEIVER, scalar("e4"), ctx4)
    assert handoff_ok(fresh.proof, slot=slot4, r=fresh.r, c=fresh.c, ctx=ctx4)
    assert not handoff_ok(slot=slot4, ctx=ctx4)
    assert not handoff_ok(fresh.proof, slot=slot4, ctx=ctx4)
    assert not handoff_ok(fresh.proof, r=fresh.r, c=fresh.c)
    assert not handoff_ok(HANDOFF.proof, slot=slot4, r=HANDOFF.r, c=HANDOFF.c, ctx=ctx4)
    other = lp.adopt_prove(Y_KEY, Z, fresh.r, fresh.c, ctx_of("adopt", slot="s4", seat=2))
    assert not adopt_ok(other.proof)
    assert not adopt_ok(ADOPTION.proof, r=fresh.r, c=fresh.c, point=other.point,
                        ctx=ctx_of("adopt", slot="s4", seat=2))


def test_a_chaum_pedersen_proof_and_a_linear_one_do_not_stand_in_for_each_other() -> None:
    """The same statement (log_B(K) = log_M(X)), the same 64 bytes of layout, the same
    context: each scheme's domain label keeps the other's proof out."""
    statement = Statement(1, (Equation(((0, BASE),), KEY), Equation(((0, M),), SLOT)))
    linear = lp.prove([K_GIVER], statement, HANDOFF_CTX)
    chaum = dleq.prove(K_GIVER, BASE, KEY, M, SLOT, HANDOFF_CTX)
    assert lp.verify(linear, statement, HANDOFF_CTX) and dleq.verify(chaum, BASE, KEY, M, SLOT, HANDOFF_CTX)
    assert len(linear) == len(chaum) and linear != chaum
    assert not lp.verify(chaum, statement, HANDOFF_CTX)
    assert not dleq.verify(linear, BASE, KEY, M, SLOT, HANDOFF_CTX)


# ---- a cheating giver or receiver ----------------------------------------------------------------
def test_a_giver_cannot_hand_over_another_card() -> None:
    """C = M' + e * Y for a card M' not under the slot: no witness, no proof."""
    forged_c = mental.add(OTHER, mental.mul(E, RECEIVER))
    assert not handoff_ok(r=HANDOFF.r, c=forged_c)
    statement = lp.handoff_statement(KEY, SLOT, RECEIVER, HANDOFF.r, forged_c)
    with pytest.raises(ValueError, match="do not satisfy"):
        lp.prove([pow(K_GIVER, -1, L), E], statement, HANDOFF_CTX)
    # Nor peel with a key that is not the slot's layer.
    wrong = lp.handoff_prove(K_GIVER + 1, SLOT, RECEIVER, E, HANDOFF_CTX)
    assert not handoff_ok(wrong.proof, r=wrong.r, c=wrong.c)


def test_a_giver_cannot_encrypt_to_another_key_than_the_receivers() -> None:
    """Encrypted to the giver's own key: the pair does not verify as one to the receiver."""
    own = lp.handoff_prove(K_GIVER, SLOT, KEY, E, HANDOFF_CTX)
    assert lp.handoff_verify(own.proof, KEY, SLOT, KEY, own.r, own.c, HANDOFF_CTX)
    assert not handoff_ok(own.proof, r=own.r, c=own.c)


def test_a_receiver_cannot_adopt_another_card_or_with_another_key() -> None:
    forged = mental.mul(Z, OTHER)
    assert not adopt_ok(point=forged)
    # Decrypting with a key that is not the published one gives a wrong card: refused.
    wrong = lp.adopt_prove(Y_KEY + 1, Z, HANDOFF.r, HANDOFF.c, ADOPT_CTX)
    assert not adopt_ok(wrong.proof, key=wrong.key, shared=wrong.shared, point=wrong.point)
    # A shared value that is not z * Y (u unrelated to y) cannot make a proof either.
    u = scalar("u")
    statement = lp.adopt_statement(RECEIVER, HANDOFF.r, HANDOFF.c, ADOPTION.key,
                                   mental.mul(u, BASE), ADOPTION.point)
    with pytest.raises(ValueError, match="do not satisfy"):
        lp.prove([Z, u], statement, ADOPT_CTX)


def test_the_negation_of_r_is_its_sign_bit_flipped() -> None:
    """-R by bytes is libsodium's negation on valid points, and keeps any other bytes invalid
    (so the adopt's check refuses a bad R as it refuses any bad base)."""
    for point in (HANDOFF.r, M, BASE, OTHER):
        flipped = bytearray(point)
        flipped[31] ^= 0x80
        assert lp.negate(point) == bytes(flipped) == mental.sub((1).to_bytes(32, "little"), point)
        assert mental.is_valid_point(lp.negate(point))
    for bad in [*_torsion(), _off_subgroup(), b"\xff" * 32, bytes(32), (2**255 - 18).to_bytes(32, "little")]:
        assert not mental.is_valid_point(bad) and not mental.is_valid_point(lp.negate(bad))
    for bad in (b"\x01" * 31, None, BASE.hex()):
        with pytest.raises(ValueError):
            lp.negate(bad)  # type: ignore[arg-type]


# ---- malformed proofs and statements: False, never an exception ----------------------------------
def test_malformed_proofs_are_false() -> None:
    p = HANDOFF.proof
    raw = b64.decode(p)
    assert len(p) == 128  # 96 bytes: no padding, no unused bits
    for bad in (p[:-1], p + "A", p[:-2], p[:-4], "", p + "=", p + "====", "+" + p[1:], " " + p,
                p + "\n", p.swapcase(), raw.hex(), b64.encode(raw[:64]), b64.encode(raw + bytes(32)),
                raw, None, 7, [p],
                p[:-1] + ("B" if p[-1] == "A" else "A")):
        assert not handoff_ok(bad)
    assert not handoff_ok(_with_scalar(p, 0, 0))  # zero challenge


@pytest.mark.parametrize("name", HANDOFF_VALUES)
def test_bad_points_are_false(name: str) -> None:
    for bad in [*_torsion(), _off_subgroup(), b"\xff" * 32, b"\x00" * 31, BASE.hex(), None, 5]:
        assert not handoff_ok(**{name: bad})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ADOPT_VALUES)
def test_bad_points_in_an_adoption_are_false(name: str) -> None:
    for bad in [*_torsion(), _off_subgroup(), b"\xff" * 32, b"\x00" * 31, None]:
        assert not adopt_ok(**{name: bad})  # type: ignore[arg-type]


def test_malformed_statements_are_refused() -> None:
    a = scalar("a")
    pub = mental.mul(a, BASE)
    one = Equation(((0, BASE),), pub)
    proof = lp.prove([a], Statement(1, (one,)), HANDOFF_CTX)
    bad: list[Any] = [
        Statement(0, (one,)), Statement(2, (one,)),  # no scalars; a scalar in no equation
        Statement(1, ()), Statement(1, (one,) * (lp.MAX_EQUATIONS + 1)),
        Statement(lp.MAX_SCALARS + 1, (one,)), Statement(1, [one]),  # type: ignore[arg-type]
        Statement(1, (Equation((), pub),)),  # an equation with no term
        Statement(1, (Equation(((1, BASE),), pub),)), Statement(1, (Equation(((-1, BASE),), pub),)),
        Statement(1, (Equation(((0, BASE), (0, BASE)), pub),)),
        Statement(1, (Equation(((0, BASE[:31]),), pub),)),
        Statement(1, (Equation(((0, BASE),), pub.hex()),)),  # type: ignore[arg-type]
        Statement(1, ("equation",)),  # type: ignore[arg-type]
        Statement("1", (one,)),  # type: ignore[arg-type]
        None, (1, (one,)),
    ]
    for statement in bad:
        assert not lp.verify(proof, statement, HANDOFF_CTX)
        if isinstance(statement, Statement):
            with pytest.raises((ValueError, TypeError)):
                lp.prove([a], statement, HANDOFF_CTX)
    assert not lp.verify(proof, Statement(1, (one,)), "ctx")  # type: ignore[arg-type]
    two = Equation(((0, BASE), (1, M)), mental.add(pub, mental.mul(a, M)))
    with pytest.raises(ValueError, match="increasing"):
        lp.prove([a, a], Statement(2, (Equation(((1, M), (0, BASE)), two.public),)), HANDOFF_CTX)


def test_a_scalar_in_no_equation_is_refused() -> None:
    """x_2 in no equation: its response would prove nothing, so no proof is made or accepted."""
    a, b = scalar("a"), scalar("b")
    statement = Statement(2, (Equation(((0, BASE),), mental.mul(a, BASE)),))
    assert lp.shape_error(statement) == "every scalar must appear in some equation"
    with pytest.raises(ValueError, match="every scalar"):
        lp.prove([a, b], statement, HANDOFF_CTX)
    made_anyway = lp._prove([a, b], statement, HANDOFF_CTX)  # the check skipped
    assert not lp.verify(made_anyway, statement, HANDOFF_CTX)


def test_a_zero_challenge_makes_the_prover_try_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Never seen (probability about 2^-250), so forced: attempt 0 gives c = 0, attempt 1 is
    published and verifies."""
    real = lp._challenge
    calls: list[int] = []

    def first_zero(s: bytes, commitments: Any) -> int:
        calls.append(1)
        return 0 if len(calls) == 1 else real(s, commitments)

    monkeypatch.setattr(lp, "_challenge", first_zero)
    retried = lp.handoff_prove(K_GIVER, SLOT, RECEIVER, E, HANDOFF_CTX)
    monkeypatch.undo()
    assert len(calls) == 2 and retried.proof != HANDOFF.proof
    assert handoff_ok(retried.proof)


def test_prove_refuses_bad_witnesses() -> None:
    statement = Statement(1, (Equation(((0, BASE),), mental.mul(scalar("a"), BASE)),))
    for witness in ([0], [L], [-1], [scalar("a"), 1], []):
        with pytest.raises(ValueError, match="witness"):
            lp.prove(witness, statement, HANDOFF_CTX)
    for bad in [*_torsion(), _off_subgroup(), b"\xff" * 32]:
        with pytest.raises(ValueError, match="valid point"):
            lp.prove([1], Statement(1, (Equation(((0, bad),), BASE),)), HANDOFF_CTX)
    with pytest.raises(ValueError, match="identity"):
        lp.prove([1, L - 1], Statement(2, (Equation(((0, BASE), (1, BASE)),
                                                    (1).to_bytes(32, "little")),)), HANDOFF_CTX)
    for k, e in ((0, E), (K_GIVER, 0), (L, E)):
        with pytest.raises(ValueError, match="scalars"):
            lp.handoff_prove(k, SLOT, RECEIVER, e, HANDOFF_CTX)
    for y, z in ((0, Z), (Y_KEY, L)):
        with pytest.raises(ValueError, match="scalars"):
            lp.adopt_prove(y, z, HANDOFF.r, HANDOFF.c, ADOPT_CTX)
    for bad in [*_torsion(), _off_subgroup(), b"\xff" * 32, b"\x00" * 31]:
        with pytest.raises(ValueError, match="valid points"):
            lp.handoff_prove(K_GIVER, bad, RECEIVER, E, HANDOFF_CTX)
        with pytest.raises(ValueError, match="valid points"):
            lp.handoff_prove(K_GIVER, SLOT, bad, E, HANDOFF_CTX)
        with pytest.raises(ValueError, match="valid points"):
            lp.adopt_prove(Y_KEY, Z, bad, HANDOFF.c, ADOPT_CTX)
        with pytest.raises(ValueError, match="valid points"):
            lp.adopt_prove(Y_KEY, Z, HANDOFF.r, bad, ADOPT_CTX)
    with pytest.raises(ValueError, match="valid points"):  # C - y * R is the identity
        lp.adopt_prove(Y_KEY, Z, HANDOFF.r, mental.mul(Y_KEY, HANDOFF.r), ADOPT_CTX)


# ---- the specification, independently ------------------------------------------------------------
def _statement_from(case: dict[str, Any]) -> Statement:
    return Statement(len(case["scalars"]), tuple(
        Equation(tuple((i, bytes.fromhex(base)) for i, base in eq["terms"]), bytes.fromhex(eq["public"]))
        for eq in case["equations"]))


def _reference_s(case: dict[str, Any]) -> bytes:
    """``S`` as docs/protocol-linproof.md "Statement bytes" builds it, from the JSON alone."""
    out = field(bytes.fromhex(case["ctx"])) + u32(len(case["scalars"])) + u32(len(case["equations"]))
    for eq in case["equations"]:
        out += u32(len(eq["terms"]))
        out += b"".join(u32(i) + bytes.fromhex(base) for i, base in eq["terms"])
        out += bytes.fromhex(eq["public"])
    return out


def _lin(pairs: list[tuple[int, bytes]]) -> edref.Point:
    total = edref.IDENTITY
    for k, p in pairs:
        point = edref.decode(p)
        assert point is not None
        total = edref.add(total, edref.mul(k % L, point))
    return total


def _reference_prove(case: dict[str, Any]) -> str:
    """docs/protocol-linproof.md "Prover" with hashlib and edref (attempt 0)."""
    xs = [int.from_bytes(bytes.fromhex(x), "little") for x in case["scalars"]]
    s = _reference_s(case)
    secret = b"".join(x.to_bytes(32, "little") for x in xs)
    ws = [1 + int.from_bytes(hashlib.sha512(b"pbem/2/linproof-nonce" + secret + s + u32(0) + u32(i))
                             .digest(), "big") % (L - 1) for i in range(len(xs))]
    ts = [_lin([(ws[i], bytes.fromhex(b)) for i, b in eq["terms"]]) for eq in case["equations"]]
    assert [edref.encode(t).hex() for t in ts] == case["commitments"]
    c = int.from_bytes(hashlib.sha512(b"pbem/2/linproof" + s + b"".join(edref.encode(t) for t in ts))
                       .digest(), "little") % L
    out = c.to_bytes(32, "little") + b"".join(((w + c * x) % L).to_bytes(32, "little")
                                              for w, x in zip(ws, xs, strict=True))
    return base64.urlsafe_b64encode(out).rstrip(b"=").decode()


def _reference_verify(case: dict[str, Any], proof: str) -> bool:
    """docs/protocol-linproof.md "Verification" with hashlib and edref."""
    raw = base64.urlsafe_b64decode(proof + "=" * (-len(proof) % 4))
    n = len(case["scalars"])
    if len(raw) != 32 * (n + 1):
        return False
    c, *ss = (int.from_bytes(raw[k:k + 32], "little") for k in range(0, len(raw), 32))
    if not all(0 < k < L for k in [c, *ss]):
        return False
    ts = [_lin([(ss[i], bytes.fromhex(b)) for i, b in eq["terms"]] + [(L - c, bytes.fromhex(eq["public"]))])
          for eq in case["equations"]]
    data = b"pbem/2/linproof" + _reference_s(case) + b"".join(edref.encode(t) for t in ts)
    return int.from_bytes(hashlib.sha512(data).digest(), "little") % L == c


def _cases() -> list[dict[str, Any]]:
    return json.loads(VECTORS.read_text())["cases"]


@pytest.mark.parametrize("case", _cases(), ids=lambda c: c["name"])
def test_known_answer_vectors(case: dict[str, Any]) -> None:
    statement = _statement_from(case)
    ctx = bytes.fromhex(case["ctx"])
    xs = [int.from_bytes(bytes.fromhex(x), "little") for x in case["scalars"]]
    assert lp.statement_bytes(statement, ctx) == _reference_s(case) == bytes.fromhex(case["statement_bytes"])
    assert lp.prove(xs, statement, ctx) == case["proof"]
    assert lp.verify(case["proof"], statement, ctx)
    assert _reference_prove(case) == case["proof"]
    assert _reference_verify(case, case["proof"])
    assert not _reference_verify(case, _with_scalar(case["proof"], 1, 1))  # no rubber stamp


def test_the_vector_cases_are_the_handoff_and_the_adoption() -> None:
    handoff, adoption = _cases()[:2]
    given = handoff["inputs"]
    hand = lp.handoff_prove(int.from_bytes(bytes.fromhex(given["k"]), "little"),
                            bytes.fromhex(given["slot"]), bytes.fromhex(given["receiver"]),
                            int.from_bytes(bytes.fromhex(given["e"]), "little"),
                            bytes.fromhex(handoff["ctx"]))
    assert (hand.r.hex(), hand.c.hex(), hand.proof) == (handoff["outputs"]["r"], handoff["outputs"]["c"],
                                                        handoff["proof"])
    assert adoption["inputs"]["r"] == hand.r.hex() and adoption["inputs"]["c"] == hand.c.hex()


def make_vectors() -> dict[str, Any]:
    """What tests/vectors/linproof.json holds (``python -m tests.test_linproof`` writes it;
    run only when the scheme changes on purpose)."""
    def case(name: str, scalars: list[int], statement: Statement, ctx_fields: tuple[Any, ...],
             inputs: dict[str, Any], outputs: dict[str, str]) -> dict[str, Any]:
        ctx = dleq.context(*ctx_fields)
        proof = lp.prove(scalars, statement, ctx)
        s = lp.statement_bytes(statement, ctx)
        secret = b"".join(mental.scalar_bytes(x) for x in scalars)
        nonces = [1 + int.from_bytes(hashlib.sha512(b"pbem/2/linproof-nonce" + secret + s + u32(0)
                                                    + u32(i)).digest(), "big") % (L - 1)
                  for i in range(len(scalars))]
        commitments = [_combination_hex(eq, nonces) for eq in statement.equations]
        return {"name": name, "inputs": inputs, "outputs": outputs,
                "context": dict(zip(("game_id", "deck", "seq", "seat", "op", "slot"), ctx_fields,
                                    strict=True)),
                "ctx": ctx.hex(), "scalars": [mental.scalar_bytes(x).hex() for x in scalars],
                "equations": [{"terms": [[i, base.hex()] for i, base in eq.terms],
                               "public": eq.public.hex()} for eq in statement.equations],
                "statement_bytes": s.hex(), "nonces": [mental.scalar_bytes(w).hex() for w in nonces],
                "commitments": commitments, "proof": proof, "proof_hex": b64.decode(proof).hex()}

    k, y, e, z = scalar("k"), scalar("y"), scalar("e"), scalar("z")
    slot, receiver = mental.mul(k, M), mental.mul(y, BASE)
    hand_ctx = (GAME_ID, "bonus", 7, 1, "handoff", "s3")
    hand = lp.handoff_prove(k, slot, receiver, e, dleq.context(*hand_ctx))
    adopt_ctx = (GAME_ID, "bonus", 8, 2, "adopt", "s3")
    adoption = lp.adopt_prove(y, z, hand.r, hand.c, dleq.context(*adopt_ctx))
    a = scalar("a")
    return {
        "about": "Known answers of pbem.protocol.crypto.linproof (docs/protocol-linproof.md). "
                 "Points and scalars are hex of their 32-byte encodings (scalars little-endian); "
                 "the proof is its text, unpadded base64url (proof_hex: its bytes). Scalars are "
                 "mental.scalar(SHA-512(b'linproof test ' || name)) for names k, y, e, z, a; "
                 "the card is mental.card_point(game_id, 'bonus', 'bonus-01').",
        "cases": [
            case("handoff", [pow(k, -1, L), e],
                 lp.handoff_statement(mental.mul(k, BASE), slot, receiver, hand.r, hand.c), hand_ctx,
                 {"k": mental.scalar_bytes(k).hex(), "slot": slot.hex(), "receiver": receiver.hex(),
                  "e": mental.scalar_bytes(e).hex(), "card": M.hex()},
                 {"r": hand.r.hex(), "c": hand.c.hex()}),
            case("adopt", [z, z * y % L],
                 lp.adopt_statement(receiver, hand.r, hand.c, adoption.key, adoption.shared,
                                    adoption.point), adopt_ctx,
                 {"y": mental.scalar_bytes(y).hex(), "z": mental.scalar_bytes(z).hex(),
                  "r": hand.r.hex(), "c": hand.c.hex()},
                 {"key": adoption.key.hex(), "shared": adoption.shared.hex(),
                  "point": adoption.point.hex(), "minus_r": lp.negate(hand.r).hex()}),
            case("schnorr", [a], Statement(1, (Equation(((0, BASE),), mental.mul(a, BASE)),)),
                 (GAME_ID, "bonus", 9, 0, "schnorr", "s0"), {}, {}),
        ],
    }


def _combination_hex(eq: Equation, scalars: list[int]) -> str:
    total = edref.IDENTITY
    for i, base in eq.terms:
        point = edref.decode(base)
        assert point is not None
        total = edref.add(total, edref.mul(scalars[i], point))
    return edref.encode(total).hex()


def test_the_vectors_file_is_what_make_vectors_writes() -> None:
    assert json.loads(VECTORS.read_text()) == make_vectors()


def test_the_specification_shows_the_vector_it_says() -> None:
    """docs/protocol-linproof.md's test vector is the file's handoff case, value by value."""
    doc = DOC.read_text()
    section = doc[doc.index("## Test vector"):doc.index("## The interface")]
    rows = dict(re.findall(r"^    (\S+) +([0-9a-f]{64}|[A-Za-z0-9_-]{128})$", section, re.MULTILINE))
    case = _cases()[0]
    assert rows["ctx"] == case["ctx"][:64] and case["ctx"] in re.sub(r"\s", "", section)
    for name in ("k", "slot", "receiver", "e", "card"):
        assert rows[name] == case["inputs"][name], name
    assert rows["R"] == case["outputs"]["r"] and rows["C"] == case["outputs"]["c"]
    assert [rows["w"], rows["e"]] == case["scalars"]
    assert [rows["a_1"], rows["a_2"]] == case["nonces"]
    assert [rows[f"T_{j}"] for j in (1, 2, 3)] == case["commitments"]
    raw = bytes.fromhex(case["proof_hex"])
    assert [rows["c"], rows["s_1"], rows["s_2"]] == [raw[k:k + 32].hex() for k in (0, 32, 64)]
    assert rows["proof"] == case["proof"]


if __name__ == "__main__":
    VECTORS.write_text(json.dumps(make_vectors(), indent=1) + "\n")
    sys.exit(0)
