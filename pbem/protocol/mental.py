"""Mental-poker primitives on P-256 (PROTOCOL.md section 6): pure functions, no state.

Commutative encryption keeps the x-coordinate only: ``E_k(X) = x(k * X)``. It is computed
with ``cryptography``'s ECDH: a private key made from the scalar ``k`` and a peer public
key made from the compressed point ``02 || x``; the shared secret ECDH returns is exactly
``x(k * X)``. Keeping x alone loses the sign of y, which is harmless: ``x(k * -X) =
x(-(k * X)) = x(k * X)``, so whichever lift is used the result is the same, and the code
always lifts with ``02`` (even y). Since ``x(a * (b * X)) = x(b * (a * X))``, layers go on
and come off in any order; ``E_{k^-1 mod n}`` peels the layer of ``k``.

Byte encodings, fixed here so another implementation can interoperate (known-answer
vectors live in tests/test_mental.py). ``field(b)`` is ``len(b)`` as 4 big-endian bytes
followed by ``b`` (strings are UTF-8), so no two fields can run together; ``u32(i)`` is
``i`` as 4 big-endian bytes.

* card point: the first ``counter = 0, 1, ...`` for which
  ``x = SHA-256(b"pbem/1/card" || field(game_id) || field(deck) || field(uid) || u32(counter))``
  read big-endian is below p and has a y on the curve (try-and-increment).
* deck key:  ``g = 1 + int(HKDF(seed, b"deck" || field(deck), 48)) mod (n - 1)``
* slot key:  ``s = 1 + int(HKDF(seed, b"slot" || field(deck) || u32(serial), 48)) mod (n - 1)``
  (48 bytes, so the bias of the reduction is below 2^-128)
* shuffle:   Fisher-Yates (``Sampler.shuffle``) of ``range(size)`` from a Sampler seeded
  with ``HKDF(seed, b"shuffle" || field(deck) || u32(pass_index), 32)``.

Ciphertexts travel as 64 lowercase hex digits (``to_hex``/``from_hex``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from functools import lru_cache

from cryptography.hazmat.primitives.asymmetric import ec

from pbem.protocol.derive import CARD_POINT, DECK_KEY, DECK_SHUFFLE, SLOT_KEY, derive
from pbem.protocol.sampler import Sampler

# NIST P-256 (FIPS 186-4, D.1.2.3): y^2 = x^3 - 3x + B over GF(P), prime order N.
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B

_CURVE = ec.SECP256R1()
_SQRT_EXP = (P + 1) // 4  # P = 3 mod 4, so a square a has the root a^((P+1)/4)
_KEY_BYTES = 48  # 384 bits reduced mod n-1: negligible bias


def field(data: bytes) -> bytes:
    """A length-prefixed field: 4-byte big-endian length, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def u32(value: int) -> bytes:
    return value.to_bytes(4, "big")


# ---- points ------------------------------------------------------------------------
def curve_rhs(x: int) -> int:
    """``x^3 - 3x + B mod P``: the y^2 a point with this x must have."""
    return (pow(x, 3, P) - 3 * x + B) % P


def is_valid_x(x: int) -> bool:
    """True when ``x`` is the x-coordinate of a point of P-256."""
    if not 0 <= x < P:
        return False
    rhs = curve_rhs(x)
    return pow(rhs, _SQRT_EXP, P) ** 2 % P == rhs


def card_point_input(game_id: str, deck: str, uid: str, counter: int) -> bytes:
    """The bytes hashed for try number ``counter`` of a card's point."""
    return CARD_POINT + field(game_id.encode()) + field(deck.encode()) + field(uid.encode()) + u32(counter)


def card_point_counter(game_id: str, deck: str, uid: str) -> tuple[int, int]:
    """The card's point x and the counter that produced it (try-and-increment)."""
    counter = 0
    while True:
        digest = hashlib.sha256(card_point_input(game_id, deck, uid, counter)).digest()
        x = int.from_bytes(digest, "big")
        if is_valid_x(x):
            return x, counter
        counter += 1


@lru_cache(maxsize=4096)
def card_point(game_id: str, deck: str, uid: str) -> int:
    """``X_card``: the x-coordinate of the card's point (hash-to-curve)."""
    return card_point_counter(game_id, deck, uid)[0]


def card_points(game_id: str, deck: str, uids: Iterable[str]) -> dict[int, str]:
    """Point x -> uid for every card of a deck (to recognise a fully peeled slot)."""
    return {card_point(game_id, deck, uid): uid for uid in uids}


# ---- commutative encryption ----------------------------------------------------------
@lru_cache(maxsize=512)
def _private(k: int) -> ec.EllipticCurvePrivateKey:
    # Building a key also computes k*G; a shuffle pass reuses one key on every slot.
    return ec.derive_private_key(k, _CURVE)


def encrypt(k: int, x: int) -> int:
    """``E_k(X) = x(k * X)`` for a scalar ``1 <= k < N`` and a valid x."""
    if not 1 <= k < N:
        raise ValueError("a key must be a scalar in 1 .. n-1")
    peer = ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, b"\x02" + x.to_bytes(32, "big"))
    return int.from_bytes(_private(k).exchange(ec.ECDH(), peer), "big")


def decrypt(k: int, x: int) -> int:
    """Peel the layer of ``k``: ``E_{k^-1 mod n}``."""
    return encrypt(pow(k, -1, N), x)


def rekey(old: int, new: int, x: int) -> int:
    """Swap the layer of ``old`` for one of ``new`` in a single multiplication."""
    return encrypt(new * pow(old, -1, N) % N, x)


# ---- keys and shuffles from the seat's seed ----------------------------------------------
def scalar(okm: bytes) -> int:
    """``1 + int(okm) mod (n - 1)``: a key in 1 .. n-1."""
    return 1 + int.from_bytes(okm, "big") % (N - 1)


def deck_key(seed: bytes, deck: str) -> int:
    """The seat's deck key ``g``: its layer from the shuffle passes."""
    return scalar(derive(seed, DECK_KEY + field(deck.encode()), _KEY_BYTES))


def slot_key(seed: bytes, deck: str, serial: int) -> int:
    """The seat's fresh key for re-lock number ``serial`` of the deck."""
    return scalar(derive(seed, SLOT_KEY + field(deck.encode()) + u32(serial), _KEY_BYTES))


def shuffle_sampler(seed: bytes, deck: str, pass_index: int) -> Sampler:
    """The stream a seat's shuffle pass number ``pass_index`` of the deck draws from."""
    return Sampler(derive(seed, DECK_SHUFFLE + field(deck.encode()) + u32(pass_index)))


def permutation(seed: bytes, deck: str, pass_index: int, size: int) -> list[int]:
    """Fisher-Yates of ``range(size)``: position i of the new order takes old ``perm[i]``."""
    perm = list(range(size))
    shuffle_sampler(seed, deck, pass_index).shuffle(perm)
    return perm


# ---- text form ----------------------------------------------------------------------------
def to_hex(x: int) -> str:
    return f"{x:064x}"


def from_hex(text: str) -> int:
    """Parse a ciphertext: exactly 64 lowercase hex digits naming a valid x, else ValueError."""
    if not isinstance(text, str) or len(text) != 64 or any(c not in "0123456789abcdef" for c in text):
        raise ValueError(f"{text!r} is not 64 lowercase hex digits")
    x = int(text, 16)
    if not is_valid_x(x):
        raise ValueError(f"{text} is not the x-coordinate of a point of P-256")
    return x
