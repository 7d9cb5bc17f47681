"""pbem.mental: commutative encryption, hash-to-curve, keys, shuffles, with known answers.

The vectors pin the byte encodings of PROTOCOL.md section 6 so that another
implementation can interoperate; the pure-integer curve arithmetic below checks the
``cryptography`` ECDH path independently.
"""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from pbem.protocol import mental
from pbem.protocol.mental import B, N, P
from pbem.protocol.sampler import Sampler

GAME_ID = "00112233445566778899aabbccddeeff"
SEED = bytes(range(32))

# P-256 base point (FIPS 186-4, D.1.2.3).
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296
GY = 0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5

Point = tuple[int, int] | None


# ---- an independent, slow, pure-integer P-256 (affine) ----------------------------------
def _add(p1: Point, p2: Point) -> Point:
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if p1 == p2:  # doubling: the tangent's slope
        num, den = 3 * x1 * x1 - 3, 2 * y1
    else:  # the chord's slope
        num, den = y2 - y1, x2 - x1
    lam = num * pow(den, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return x3, (lam * (x1 - x3) - y1) % P


def _mul(k: int, point: Point) -> Point:
    out: Point = None
    while k:
        if k & 1:
            out = _add(out, point)
        point = _add(point, point)
        k >>= 1
    return out


def _lift(x: int, odd: bool) -> tuple[int, int]:
    y = pow(mental.curve_rhs(x), (P + 1) // 4, P)
    return (x, y if (y & 1) == odd else P - y)


def _x(point: Point) -> int:
    assert point is not None
    return point[0]


# ---- curve and encoding ------------------------------------------------------------------
def test_base_point_is_on_curve_and_constants_agree() -> None:
    assert (GY * GY - mental.curve_rhs(GX)) % P == 0
    assert mental.is_valid_x(GX)
    assert _mul(N, (GX, GY)) is None  # N is the order of G
    assert B == 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
    assert P % 4 == 3


def test_invalid_x_is_rejected() -> None:
    # Find a non-residue candidate the honest way: the first rejected try of a card.
    rejected = []
    for uid in ("a", "b", "c", "d", "e", "f", "g", "h"):
        x, counter = mental.card_point_counter(GAME_ID, "bonus", uid)
        for c in range(counter):
            digest = hashlib.sha256(mental.card_point_input(GAME_ID, "bonus", uid, c)).digest()
            rejected.append(int.from_bytes(digest, "big"))
    assert rejected, "some card needs more than one try among eight"
    for x in rejected:
        assert not mental.is_valid_x(x)
        with pytest.raises(ValueError):
            mental.encrypt(5, x)
        with pytest.raises(ValueError):
            mental.from_hex(mental.to_hex(x))
    assert not mental.is_valid_x(P)
    assert not mental.is_valid_x(-1)


def test_card_point_vectors() -> None:
    """Known answers: (game id, deck, uid) -> hashed bytes of try 0, x, counter used."""
    vectors = [
        (
            GAME_ID,
            "bonus",
            "bonus-01",
            "7062656d2f312f63617264"  # b"pbem/1/card"
            "00000020"
            + GAME_ID.encode().hex()
            + "00000005"
            + b"bonus".hex()
            + "00000008"
            + b"bonus-01".hex()
            + "00000000",
            "82050e19df02c6e2604736e0c3f43e5513359d75d1e9c878edd61596124a3793",
            0,
        ),
        (
            GAME_ID,
            "bonus",
            "bonus-02",
            None,
            "b935383203a3bf8cdcfc58c17a3ffef7e73b442a7d1f8ea580098803269ed699",
            2,
        ),
        (
            "g",
            "d",
            "u1",
            "7062656d2f312f636172640000000167000000016400000002753100000000",
            "f1b1b93050fece46a3fb678b5cbcb8d19d7805b3fcb756b308d761e731b32f7e",
            3,
        ),
        (
            "",
            "",
            "",
            "7062656d2f312f6361726400000000000000000000000000000000",
            "d30587215af252097dfb6b84dcee301a6bee1151d29c10ce7e222be897e0b3c2",
            0,
        ),
    ]
    for game_id, deck, uid, input_hex, x_hex, counter in vectors:
        if input_hex is not None:
            assert mental.card_point_input(game_id, deck, uid, 0).hex() == input_hex
        x, used = mental.card_point_counter(game_id, deck, uid)
        assert (mental.to_hex(x), used) == (x_hex, counter)
        assert mental.card_point(game_id, deck, uid) == x
        # Try-and-increment: x is SHA-256 of try `counter`, every earlier try is off-curve.
        digest = hashlib.sha256(mental.card_point_input(game_id, deck, uid, counter)).digest()
        assert digest.hex() == x_hex
        for earlier in range(counter):
            raw = hashlib.sha256(mental.card_point_input(game_id, deck, uid, earlier)).digest()
            assert not mental.is_valid_x(int.from_bytes(raw, "big"))


def test_fields_cannot_run_together() -> None:
    assert mental.card_point_input("ab", "c", "d", 0) != mental.card_point_input("a", "bc", "d", 0)
    assert mental.card_point("g", "ab", "c") != mental.card_point("g", "a", "bc")
    assert mental.slot_key(SEED, "a1", 2) != mental.slot_key(SEED, "a", 12)


def test_card_points_are_distinct_per_card_deck_and_game() -> None:
    uids = [f"card-{i}" for i in range(40)]
    points = mental.card_points(GAME_ID, "bonus", uids)
    assert len(points) == 40
    assert not set(points) & set(mental.card_points(GAME_ID, "other", uids))
    assert not set(points) & set(mental.card_points("ffff", "bonus", uids))


# ---- commutative encryption -------------------------------------------------------------
def test_encrypt_is_x_of_scalar_multiple_for_either_lift() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    for k in (1, 2, 3, 0xDEADBEEF, N - 1, mental.deck_key(SEED, "bonus")):
        expected = _x(_mul(k, _lift(x, odd=False)))
        assert _x(_mul(k, _lift(x, odd=True))) == expected  # the lift does not matter
        assert mental.encrypt(k, x) == expected


def test_encrypt_vectors() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    assert mental.to_hex(mental.encrypt(2, x)) == (
        "ca28234423e565ecb165e83c6a241acf4d99a3d32145891fad8e6301d6d1d5a1"
    )
    assert mental.to_hex(mental.encrypt(mental.deck_key(SEED, "bonus"), x)) == (
        "edd69ac1f09bba22bcda4dc5b5a11c1455a2e67482c4bc56f357082fd70ffa26"
    )
    assert mental.encrypt(1, GX) == GX


def test_layers_commute_and_peel_in_any_order() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-07")
    a = mental.deck_key(b"seat a" * 4, "bonus")
    b = mental.deck_key(b"seat b" * 4, "bonus")
    c = mental.slot_key(b"seat c" * 4, "bonus", 3)
    ab = mental.encrypt(a, mental.encrypt(b, x))
    assert ab == mental.encrypt(b, mental.encrypt(a, x))  # x(a(bX)) == x(b(aX))
    abc = mental.encrypt(c, ab)
    assert mental.decrypt(a, mental.decrypt(c, mental.decrypt(b, abc))) == x
    assert mental.decrypt(b, mental.decrypt(a, ab)) == x
    assert mental.decrypt(a, ab) == mental.encrypt(b, x)
    # k^-1 mod n peels k exactly.
    assert mental.encrypt(pow(a, -1, N), mental.encrypt(a, x)) == x


def test_rekey_swaps_one_layer() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-03")
    g = mental.deck_key(SEED, "bonus")
    s = mental.slot_key(SEED, "bonus", 0)
    other = mental.deck_key(b"other" * 7, "bonus")
    locked = mental.encrypt(other, mental.encrypt(g, x))
    assert mental.rekey(g, s, locked) == mental.encrypt(s, mental.encrypt(other, x))


def test_encrypt_rejects_out_of_range_keys() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    for k in (0, N, N + 1, -1):
        with pytest.raises(ValueError):
            mental.encrypt(k, x)


# ---- keys and shuffles ----------------------------------------------------------------------
def _hkdf(info: bytes, length: int) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=info).derive(SEED)


def test_key_derivation_vectors_and_encoding() -> None:
    g = mental.deck_key(SEED, "bonus")
    assert g == 0x7140118B30C6EE30D22C3650697F86A3BFDC12C9A9EEF9989051141B7A1AC247
    # Checked against an independent HKDF: 48 bytes of HKDF(seed, "deck" || field(deck)).
    okm = _hkdf(b"deck" + b"\x00\x00\x00\x05bonus", 48)
    assert g == 1 + int.from_bytes(okm, "big") % (N - 1)
    s0 = mental.slot_key(SEED, "bonus", 0)
    s7 = mental.slot_key(SEED, "bonus", 7)
    assert s0 == 0xDFF6FDE6203DE85A0FC3A536F251D4E279C6D13D77679E3697751BD8B6AC49C8
    assert s7 == 0x184EE4E48311345B5AB4413693AA61E77D0C2814B8AC7CA912ECEDCD1AC20EB3
    okm7 = _hkdf(b"slot" + b"\x00\x00\x00\x05bonus" + b"\x00\x00\x00\x07", 48)
    assert s7 == 1 + int.from_bytes(okm7, "big") % (N - 1)
    keys = {g} | {mental.slot_key(SEED, "bonus", i) for i in range(50)}
    assert len(keys) == 51
    assert all(1 <= k < N for k in keys)


def test_scalar_stays_in_range() -> None:
    assert mental.scalar(b"\x00" * 48) == 1
    assert mental.scalar((N - 1).to_bytes(48, "big")) == 1
    assert mental.scalar((N - 2).to_bytes(48, "big")) == N - 1
    assert mental.scalar(b"\xff" * 48) < N


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


# ---- text form -------------------------------------------------------------------------------
def test_hex_round_trip_and_rejections() -> None:
    x = mental.card_point(GAME_ID, "bonus", "bonus-01")
    text = mental.to_hex(x)
    assert len(text) == 64 and mental.from_hex(text) == x
    for bad in (text.upper(), text[:-1], text + "0", "0x" + text[2:], 7, "g" * 64):
        with pytest.raises(ValueError):
            mental.from_hex(bad)  # type: ignore[arg-type]
    small = mental.to_hex(mental.encrypt(1, GX))
    assert mental.from_hex(small) == GX
