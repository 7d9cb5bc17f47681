"""pbem.mental and pbem.dleq: the group, hash to the group, keys, shuffles, proofs, with
known answers.

The vectors pin the byte encodings of PROTOCOL.md section 6 so that another
implementation can interoperate; tests/support/edref.py, a slow pure-integer
edwards25519, checks libsodium's arithmetic and the proof encoding independently.
"""

from __future__ import annotations

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from nacl import bindings as sodium

from pbem.protocol.crypto import dleq, mental
from pbem.protocol.crypto.mental import L
from pbem.protocol.crypto.sampler import Sampler
from tests.support import edref

GAME_ID = "00112233445566778899aabbccddeeff"
SEED = bytes(range(32))

def _torsion() -> list[bytes]:
    """Every point of order dividing 8: the x = 0 and the 4-torsion and 8-torsion points."""
    # A point of order 8: y solves the 8-torsion equation; take it from a multiple of a
    # curve point that is not in the prime-order subgroup.
    outside = None
    for y in range(2, 200):
        x = edref.recover_x(y, 0)
        if x is None:
            continue
        point = (x, y, 1, x * y % edref.P)
        small = edref.mul(L, point)
        if not edref.equal(edref.mul(4, small), edref.IDENTITY):
            outside = small
            break
    assert outside is not None
    return [edref.encode(edref.mul(i, outside)) for i in range(8)]


def _off_subgroup() -> bytes:
    """A valid curve point whose order is 8 * L: a card point plus a point of order 8."""
    card = edref.decode(mental.card_point(GAME_ID, "bonus", "bonus-01"))
    torsion = edref.decode(_torsion()[1])
    assert card is not None and torsion is not None
    return edref.encode(edref.add(card, torsion))


# ---- group and encoding ------------------------------------------------------------------
def test_base_point_and_order_agree_with_an_independent_implementation() -> None:
    assert edref.encode(edref.BASE) == mental.BASE
    assert mental.BASE.hex() == "58" + "66" * 31
    assert edref.equal(edref.mul(L, edref.BASE), edref.IDENTITY)
    assert L == 2**252 + 27742317777372353535851937790883648493


def test_invalid_points_are_refused() -> None:
    """Identity, every small-order point, off-subgroup, off-curve, non-canonical: refused."""
    for point in _torsion():
        assert not mental.is_valid_point(point)
        with pytest.raises(ValueError, match="not a valid point"):
            mental.from_text(mental.to_text(point))
    assert len(set(_torsion())) == 8
    outside = _off_subgroup()
    assert edref.decode(outside) is not None  # on the curve ...
    assert not mental.is_valid_point(outside)  # ... but not in the prime-order subgroup
    with pytest.raises(ValueError):
        mental.from_text(mental.to_text(outside))
    off_curve = next(y for y in range(2, 100) if edref.recover_x(y, 0) is None)
    assert not mental.is_valid_point(off_curve.to_bytes(32, "little"))
    # Non-canonical: y + p encodes the same y, and must not be accepted.
    card = mental.card_point(GAME_ID, "bonus", "bonus-01")
    y = int.from_bytes(card, "little") & ((1 << 255) - 1)
    if y + edref.P < (1 << 255):
        alias = (y + edref.P | (int.from_bytes(card, "little") >> 255 << 255)).to_bytes(32, "little")
        assert not mental.is_valid_point(alias)
    big_y = (edref.P + 1).to_bytes(32, "little")  # y = 1 (the identity) written as p + 1
    assert not mental.is_valid_point(big_y)
    text = mental.to_text(card)
    assert len(text) == 43
    for bad in (card.hex(), text.upper(), text[:-1], text + "A", text + "AA", 7, "!" * 43, "",
                text + "=", " " + text[1:], text[:20] + "\n" + text[21:]):
        with pytest.raises(ValueError):
            mental.from_text(bad)
    assert mental.from_text(text) == card


def test_multiplication_refuses_every_point_from_text_refuses() -> None:
    """The mental deck checks a peel's new ciphertext as a point only through the proof's
    multiplication of it: libsodium must refuse there exactly what
    ``is_valid_point`` refuses: small order, off the subgroup, off the curve, non-canonical."""
    card = mental.card_point(GAME_ID, "bonus", "bonus-01")
    off_curve = next(y for y in range(2, 100) if edref.recover_x(y, 0) is None)
    invalid = [*_torsion(), _off_subgroup(), off_curve.to_bytes(32, "little"),
               (edref.P + 1).to_bytes(32, "little"), b"\xff" * 31 + b"\x7f"]
    for point in invalid:
        assert not mental.is_valid_point(point)
        for k in (1, 5, L - 1):
            with pytest.raises((RuntimeError, ValueError)):
                mental.mul(k, point)
    assert mental.mul(5, card) == mental.mul(5, mental.from_text(mental.to_text(card)))


def test_card_point_vectors() -> None:
    """Known answers: (game id, deck, uid) -> hashed bytes of try 0, point, counter used."""
    vectors = [
        (GAME_ID, "bonus", "bonus-01",
         "7062656d2f312f63617264"  # b"pbem/1/card"
         "00000020" + GAME_ID.encode().hex() + "00000005" + b"bonus".hex()
         + "00000008" + b"bonus-01".hex() + "00000000",
         "bd100f1032c0f4aa36b9f92b6d548faaf3645b5be3dfbfe19c9e9cb41cf63dca"),
        (GAME_ID, "bonus", "bonus-02", None,
         "9db4b3ef3e7bb38a6495df557d439d3919161bb915d30ad7f6a41c23f57e247d"),
        ("g", "d", "u1", "7062656d2f312f636172640000000167000000016400000002753100000000",
         "3761e088e9c44b43767d1f7fd8e4d20adfaa2e270776bce2221f71ae34d968f8"),
        ("", "", "", "7062656d2f312f6361726400000000000000000000000000000000",
         "6617c4668367b01a36e4cb466df5c0e93c58e56e0e08afe9504bd53e5429aea3"),
    ]
    for game_id, deck, uid, input_hex, point_hex in vectors:
        if input_hex is not None:
            assert mental.card_point_input(game_id, deck, uid, 0).hex() == input_hex
        point, used = mental.card_point_counter(game_id, deck, uid)
        assert (point.hex(), used) == (point_hex, 0)
        assert mental.card_point(game_id, deck, uid) == point
        # The construction: two Elligator maps of the SHA-512 halves, added.
        digest = hashlib.sha512(mental.card_point_input(game_id, deck, uid, 0)).digest()
        halves = [sodium.crypto_core_ed25519_from_uniform(digest[i:i + 32]) for i in (0, 32)]
        assert sodium.crypto_core_ed25519_add(*halves) == point
        # In the prime-order subgroup, checked by the independent arithmetic.
        decoded = edref.decode(point)
        assert decoded is not None and edref.equal(edref.mul(L, decoded), edref.IDENTITY)


def test_fields_cannot_run_together() -> None:
    assert mental.card_point_input("ab", "c", "d", 0) != mental.card_point_input("a", "bc", "d", 0)
    assert mental.card_point("g", "ab", "c") != mental.card_point("g", "a", "bc")
    assert mental.slot_key(SEED, "a1", 2) != mental.slot_key(SEED, "a", 12)
    assert dleq.context("ab", "c", 1, 2, "peel", "s1") != dleq.context("a", "bc", 1, 2, "peel", "s1")


def test_card_points_are_distinct_per_card_deck_and_game() -> None:
    uids = [f"card-{i}" for i in range(40)]
    points = mental.card_points(GAME_ID, "bonus", uids)
    assert len(points) == 40
    assert all(mental.is_valid_point(p) for p in points)
    assert not set(points) & set(mental.card_points(GAME_ID, "other", uids))
    assert not set(points) & set(mental.card_points("ffff", "bonus", uids))


# ---- commutative encryption -------------------------------------------------------------
def test_encrypt_is_the_scalar_multiple() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    point = edref.decode(x)
    assert point is not None
    for k in (1, 2, 3, 0xDEADBEEF, L - 1, mental.deck_key(SEED, "bonus")):
        assert mental.encrypt(k, x) == edref.encode(edref.mul(k, point))
    assert mental.public_point(5) == edref.encode(edref.mul(5, edref.BASE))


def test_encrypt_vectors() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    assert mental.encrypt(2, x).hex() == "e6d45ed64e569258a11b4d2c5f3ea9780d80bfdb40e17ea109055980306d48c9"
    g = mental.deck_key(SEED, "bonus")
    assert mental.encrypt(g, x).hex() == "b7facbf6240f22f34f3888cc628c9fdfeebbe077b100e7241c401f6e11d4d4a6"
    assert mental.public_point(g).hex() == "31e4c90851018b9afce7d70ec1f76ac6d2d83be2e6e3194f06cfad4dd95a26a0"
    assert mental.encrypt(1, mental.BASE) == mental.BASE


def test_layers_commute_and_peel_in_any_order() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-07")
    a = mental.deck_key(b"seat a" * 4, "bonus")
    b = mental.deck_key(b"seat b" * 4, "bonus")
    c = mental.slot_key(b"seat c" * 4, "bonus", 3)
    ab = mental.encrypt(a, mental.encrypt(b, x))
    assert ab == mental.encrypt(b, mental.encrypt(a, x))
    abc = mental.encrypt(c, ab)
    assert mental.decrypt(a, mental.decrypt(c, mental.decrypt(b, abc))) == x
    assert mental.decrypt(a, ab) == mental.encrypt(b, x)
    assert mental.encrypt(pow(a, -1, L), mental.encrypt(a, x)) == x


def test_rekey_swaps_one_layer() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-03")
    g = mental.deck_key(SEED, "bonus")
    s = mental.slot_key(SEED, "bonus", 0)
    other = mental.deck_key(b"other" * 7, "bonus")
    locked = mental.encrypt(other, mental.encrypt(g, x))
    assert mental.rekey(g, s, locked) == mental.encrypt(s, mental.encrypt(other, x))


def test_encrypt_rejects_out_of_range_keys_and_bad_points() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    for k in (0, L, L + 1, -1):
        with pytest.raises(ValueError):
            mental.encrypt(k, x)
    with pytest.raises(RuntimeError):  # libsodium refuses a point outside the subgroup
        mental.encrypt(3, _off_subgroup())


# ---- keys and shuffles ----------------------------------------------------------------------
def _hkdf(info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=info).derive(SEED)


def test_key_derivation_vectors_and_encoding() -> None:
    g = mental.deck_key(SEED, "bonus")
    assert g == 0xA0215DE213084DB89E1DD652A9DE925F1F30F5E5F83F1C55A18D4AAEDCF50AF
    okm = _hkdf(b"deck" + b"\x00\x00\x00\x05bonus", 48)
    assert g == 1 + int.from_bytes(okm, "big") % (L - 1)
    s0 = mental.slot_key(SEED, "bonus", 0)
    s7 = mental.slot_key(SEED, "bonus", 7)
    assert s0 == 0x3C8D96FD787F6DFD3567C0211E7FD279199D3D127C4DA78F6ABBC53F4B4872C
    assert s7 == 0x2CC77024136B6965A7A3B1AC8BA5D1FEF2551CBFFA1D43720DCFD93D49F395F
    okm7 = _hkdf(b"slot" + b"\x00\x00\x00\x05bonus" + b"\x00\x00\x00\x07", 48)
    assert s7 == 1 + int.from_bytes(okm7, "big") % (L - 1)
    # A giver's ElGamal scalar of a one-step pass (mental.handoff_scalar)
    e = mental.handoff_scalar(SEED, "bonus", 3, 1)
    assert e == 0xAB706FA36E8A91CCB2D02FD21FC5D775083B22619676F51489CED186F095E85
    okm_e = _hkdf(b"pbem/2/handoff" + b"\x00\x00\x00\x05bonus" + b"\x00\x00\x00\x03"
                  + b"\x00\x00\x00\x01", 48)
    assert e == 1 + int.from_bytes(okm_e, "big") % (L - 1)
    keys = {g} | {mental.slot_key(SEED, "bonus", i) for i in range(50)}
    assert len(keys) == 51
    assert all(1 <= k < L for k in keys)


def test_scalar_stays_in_range() -> None:
    assert mental.scalar(b"\x00" * 48) == 1
    assert mental.scalar((L - 1).to_bytes(48, "big")) == 1
    assert mental.scalar((L - 2).to_bytes(48, "big")) == L - 1
    assert mental.scalar(b"\xff" * 48) < L


def test_permutation_vector_is_fisher_yates_from_the_seed_stream() -> None:
    perm = mental.permutation(SEED, "bonus", 0, 18)
    assert perm == [2, 4, 5, 9, 10, 11, 7, 12, 15, 17, 14, 3, 16, 0, 8, 13, 6, 1]
    second = [10, 5, 2, 11, 17, 16, 8, 4, 0, 1, 13, 3, 7, 14, 6, 15, 12, 9]
    assert mental.permutation(SEED, "bonus", 1, 18) == second
    stream = Sampler(_hkdf(b"shuffle" + b"\x00\x00\x00\x05bonus" + b"\x00\x00\x00\x00", 32))
    expected = list(range(18))
    stream.shuffle(expected)
    assert perm == expected
    assert sorted(mental.permutation(b"x" * 32, "d", 4, 60)) == list(range(60))


# ---- Chaum-Pedersen proofs -----------------------------------------------------------------
PROOF_VECTOR = ("0c30a8b141e83bf73760bcc49523e33270ccb85dd285c45277a3ab5f5e322904"
                "d724858aa2a1fe34c5657cec5a2b1a38d2128deb6bc9f5cc55ef9b9a96f52003")


def _statement() -> tuple[int, bytes, bytes, bytes, bytes, bytes]:
    """log_B(K) = log_x(X) with witness g: K = g*B, X = g*x."""
    g = mental.deck_key(SEED, "bonus")
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    ctx = dleq.context(GAME_ID, "bonus", 7, 1, "peel", "s3")
    return g, mental.BASE, mental.public_point(g), x, mental.encrypt(g, x), ctx


def test_dleq_vector_and_independent_check() -> None:
    g, base, key, x, y, ctx = _statement()
    assert ctx.hex() == (
        "00000020" + GAME_ID.encode().hex() + "00000005" + b"bonus".hex() + "00000007"
        + "00000001" + "00000004" + b"peel".hex() + "00000002" + b"s3".hex()
    )
    proof = dleq.prove(g, base, key, x, y, ctx)
    raw = base64.urlsafe_b64decode(proof + "==")  # its text: unpadded base64url
    assert raw.hex() == PROOF_VECTOR and len(proof) == 86
    assert dleq.verify(proof, base, key, x, y, ctx)
    # Recompute the verifier's side with the slow arithmetic and plain SHA-512.
    c = int.from_bytes(raw[:32], "little")
    z = int.from_bytes(raw[32:], "little")
    points = [edref.decode(p) for p in (base, key, x, y)]
    assert all(p is not None for p in points)
    g_, a_, h_, y_ = points  # type: ignore[misc]
    neg = L - c
    t1 = edref.add(edref.mul(z, g_), edref.mul(neg, a_))
    t2 = edref.add(edref.mul(z, h_), edref.mul(neg, y_))
    data = b"pbem/1/dleq" + len(ctx).to_bytes(4, "big") + ctx + base + key + x + y
    data += edref.encode(t1) + edref.encode(t2)
    assert int.from_bytes(hashlib.sha512(data).digest(), "little") % L == c


def test_dleq_refuses_wrong_statements_contexts_and_malformed_proofs() -> None:
    g, base, key, x, y, ctx = _statement()
    proof = dleq.prove(g, base, key, x, y, ctx)
    other = mental.card_point(GAME_ID, "bonus", "bonus-02")
    wrong_y = mental.encrypt(g + 1, x)
    assert not dleq.verify(proof, base, key, x, wrong_y, ctx)  # a different result
    assert not dleq.verify(proof, base, key, other, mental.encrypt(g, other), ctx)  # another slot's
    for changed in (dleq.context(GAME_ID, "bonus", 8, 1, "peel", "s3"),  # another entry
                    dleq.context(GAME_ID, "bonus", 7, 1, "peel", "s4"),  # another slot
                    dleq.context(GAME_ID, "bonus", 7, 2, "peel", "s3"),  # another seat
                    dleq.context(GAME_ID, "bonus", 7, 1, "lock", "s3"),  # another op
                    dleq.context("ff" * 16, "bonus", 7, 1, "peel", "s3")):  # another game
        assert not dleq.verify(proof, base, key, x, y, changed)
    # A false statement has no proof, whatever the prover does with the real key.
    assert not dleq.verify(dleq.prove(g, base, key, x, wrong_y, ctx), base, key, x, wrong_y, ctx)
    c, z = proof[:64], proof[64:]
    for bad in (proof.upper(), proof[:-2], proof + "00", "00" * 64, c + "00" * 32, "00" * 32 + z,
                (L.to_bytes(32, "little")).hex() + z, 7, None,
                proof[:-1] + ("0" if proof[-1] != "0" else "1")):
        assert not dleq.verify(bad, base, key, x, y, ctx)
    # Small-order or off-subgroup points make libsodium refuse: a False, not a crash.
    for small in _torsion()[1:3] + [_off_subgroup()]:
        assert not dleq.verify(proof, base, key, small, y, ctx)
        assert not dleq.verify(proof, base, small, x, y, ctx)


def test_pbem_sodium_agrees_with_nacl_bindings() -> None:
    """pbem.protocol.crypto.sodium (libsodium through PyNaCl's compiled module) gives what
    nacl.bindings gives, results and refusals alike: a bad length is a TypeError, an
    invalid point (small order, off the curve, not canonical) a RuntimeError."""
    from pbem.protocol.crypto import sodium as ours

    assert ours._compiled is not None  # this PyNaCl has the compiled module
    points = [mental.hash_to_group(bytes([i])) for i in range(4)]
    scalars = [(i * 7919 + 1).to_bytes(32, "little") for i in range(4)]
    small = bytes.fromhex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f")
    bad = [bytes(32), (1).to_bytes(32, "little"), small, b"\xff" * 32]
    for p in points + bad:
        assert ours.crypto_core_ed25519_is_valid_point(p) == bool(
            sodium.crypto_core_ed25519_is_valid_point(p))
        assert ours.crypto_core_ed25519_from_uniform(p) == \
            sodium.crypto_core_ed25519_from_uniform(p)
        for n in scalars:
            assert ours.crypto_scalarmult_ed25519_base_noclamp(n) == \
                sodium.crypto_scalarmult_ed25519_base_noclamp(n)
            try:
                expected: bytes | type = sodium.crypto_scalarmult_ed25519_noclamp(n, p)
            except RuntimeError:
                expected = RuntimeError
            if expected is RuntimeError:
                with pytest.raises(RuntimeError):
                    ours.crypto_scalarmult_ed25519_noclamp(n, p)
            else:
                assert ours.crypto_scalarmult_ed25519_noclamp(n, p) == expected
        for q in points + bad:
            for name in ("crypto_core_ed25519_add", "crypto_core_ed25519_sub"):
                try:
                    want: bytes | type = getattr(sodium, name)(p, q)
                except RuntimeError:
                    want = RuntimeError
                if want is RuntimeError:
                    with pytest.raises(RuntimeError):
                        getattr(ours, name)(p, q)
                else:
                    assert getattr(ours, name)(p, q) == want
    for call in (lambda: ours.crypto_core_ed25519_add(points[0], b"short"),
                 lambda: ours.crypto_scalarmult_ed25519_noclamp(b"short", points[0]),
                 lambda: ours.crypto_core_ed25519_is_valid_point("text")):  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            call()
