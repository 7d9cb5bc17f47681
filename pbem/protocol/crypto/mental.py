"""Mental-poker primitives on edwards25519 (PROTOCOL.md section 6): pure functions, no state.

The group is the prime-order subgroup of edwards25519 (order ``L = 2^252 + 27742...``),
through libsodium (PyNaCl): unlike an x-only curve it can add points, which the
Chaum-Pedersen proofs of pbem.protocol.crypto.dleq need. Commutative encryption is scalar
multiplication, ``E_k(X) = k * X``; since ``a * (b * X) = b * (a * X)`` layers go on and
come off in any order, and ``E_{k^-1 mod L}`` peels the layer of ``k``.

Byte encodings, fixed here so another implementation can interoperate (known-answer
vectors live in tests/test_mental.py). ``field(b)`` is ``len(b)`` as 4 big-endian bytes
followed by ``b`` (strings are UTF-8), so no two fields can run together; ``u32(i)`` is
``i`` as 4 big-endian bytes. A point is its 32-byte compressed Edwards encoding (RFC 8032),
a scalar its 32 bytes little-endian; both travel as 43 characters of unpadded base64url
(pbem.protocol.crypto.b64).

* card point: for ``counter = 0, 1, ...`` let ``h = SHA-512(b"pbem/1/card" || field(game_id)
  || field(deck) || field(uid) || u32(counter))`` and ``P = from_uniform(h[:32]) +
  from_uniform(h[32:])``, where ``from_uniform`` is libsodium's
  ``crypto_core_ed25519_from_uniform`` (Elligator 2, then the cofactor cleared); the first
  ``P`` that is a valid point (not the identity) is the card's. Two maps added, as in
  RFC 9380's hash_to_curve, so nobody knows a discrete log between two card points.
* deck key:  ``g = 1 + int(HKDF(seed, b"deck" || field(deck), 48)) mod (L - 1)``
* slot key:  ``s = 1 + int(HKDF(seed, b"slot" || field(deck) || u32(serial), 48)) mod (L - 1)``
  (big-endian; 48 bytes, so the bias of the reduction is below 2^-128; never 0)
* shuffle:   Fisher-Yates (``Sampler.shuffle``) of ``range(size)`` from a Sampler seeded
  with ``HKDF(seed, b"shuffle" || field(deck) || u32(pass_index), 32)``; a batch re-lock
  of slot-key serial N likewise from ``HKDF(seed, b"batch-shuffle" || field(deck) || u32(N), 32)``.

Every point read from a save goes through ``from_text``, which accepts only the canonical
encoding of a point on the curve, in the prime-order subgroup and not of small order
(libsodium's ``crypto_core_ed25519_is_valid_point``).
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

from pbem.hashing import sha512
from pbem.protocol.crypto import b64, sodium
from pbem.protocol.crypto.derive import (
    BATCH_SHUFFLE,
    CARD_POINT,
    DECK_KEY,
    DECK_SHUFFLE,
    HANDOFF,
    SLOT_KEY,
    derive,
)
from pbem.protocol.crypto.sampler import Sampler

# Order of the prime-order subgroup of edwards25519 (RFC 8032, section 5.1).
L = 2**252 + 27742317777372353535851937790883648493
BASE = sodium.crypto_scalarmult_ed25519_base_noclamp((1).to_bytes(32, "little"))
_KEY_BYTES = 48  # 384 bits reduced mod L-1: negligible bias
POINT_BYTES = 32


def field(data: bytes) -> bytes:
    """A length-prefixed field: 4-byte big-endian length, then the bytes."""
    return len(data).to_bytes(4, "big") + data


def u32(value: int) -> bytes:
    return value.to_bytes(4, "big")


# ---- points ------------------------------------------------------------------------
def is_valid_point(point: bytes) -> bool:
    """Canonical, on the curve, in the prime-order subgroup, not of small order."""
    return len(point) == 32 and bool(sodium.crypto_core_ed25519_is_valid_point(point))


def card_point_input(game_id: str, deck: str, uid: str, counter: int) -> bytes:
    """The bytes hashed for try number ``counter`` of a card's point."""
    return CARD_POINT + field(game_id.encode()) + field(deck.encode()) + field(uid.encode()) + u32(counter)


def hash_to_group(data: bytes) -> bytes:
    """``from_uniform(h[:32]) + from_uniform(h[32:])`` with ``h = SHA-512(data)``."""
    digest = sha512(data)
    first = sodium.crypto_core_ed25519_from_uniform(digest[:32])
    second = sodium.crypto_core_ed25519_from_uniform(digest[32:])
    return bytes(sodium.crypto_core_ed25519_add(first, second))


def card_point_counter(game_id: str, deck: str, uid: str) -> tuple[bytes, int]:
    """The card's point and the counter that produced it."""
    counter = 0
    while True:
        point = hash_to_group(card_point_input(game_id, deck, uid, counter))
        if is_valid_point(point):  # fails only for the identity: never seen, but checked
            return point, counter
        counter += 1


@lru_cache(maxsize=4096)
def card_point(game_id: str, deck: str, uid: str) -> bytes:
    """``X_card``: the card's point (hash to the group)."""
    return card_point_counter(game_id, deck, uid)[0]


def card_points(game_id: str, deck: str, uids: Iterable[str]) -> dict[bytes, str]:
    """Point -> uid for every card of a deck (to recognise a fully peeled slot)."""
    return {card_point(game_id, deck, uid): uid for uid in uids}


# ---- scalars and the group operation -------------------------------------------------
def scalar_bytes(k: int) -> bytes:
    return (k % L).to_bytes(32, "little")


def mul(k: int, point: bytes) -> bytes:
    """``k * point`` for ``1 <= k < L`` and a valid point. libsodium re-checks the point
    as ``is_valid_point`` does (canonical, on the curve, in the prime-order subgroup, not
    of small order) and refuses any other; the mental deck relies on that for a peel's
    new ciphertext (tests/test_mental.py checks it on this libsodium)."""
    if not 1 <= k < L:
        raise ValueError("a key must be a scalar in 1 .. L-1")
    if point == BASE:
        return bytes(sodium.crypto_scalarmult_ed25519_base_noclamp(scalar_bytes(k)))
    return bytes(sodium.crypto_scalarmult_ed25519_noclamp(scalar_bytes(k), point))


def add(first: bytes, second: bytes) -> bytes:
    return bytes(sodium.crypto_core_ed25519_add(first, second))


def sub(first: bytes, second: bytes) -> bytes:
    return bytes(sodium.crypto_core_ed25519_sub(first, second))


def public_point(k: int) -> bytes:
    """``k * B``: the point a seat publishes for a key it uses."""
    return mul(k, BASE)


# ---- commutative encryption ----------------------------------------------------------
def encrypt(k: int, point: bytes) -> bytes:
    """``E_k(X) = k * X``."""
    return mul(k, point)


def decrypt(k: int, point: bytes) -> bytes:
    """Peel the layer of ``k``: ``E_{k^-1 mod L}``."""
    return mul(pow(k, -1, L), point)


def rekey(old: int, new: int, point: bytes) -> bytes:
    """Swap the layer of ``old`` for one of ``new`` in a single multiplication."""
    return mul(new * pow(old, -1, L) % L, point)


# ---- keys and shuffles from the seat's seed ----------------------------------------------
def scalar(okm: bytes) -> int:
    """``1 + int(okm) mod (L - 1)``: a key in 1 .. L-1."""
    return 1 + int.from_bytes(okm, "big") % (L - 1)


def deck_key(seed: bytes, deck: str) -> int:
    """The seat's deck key ``g``: its layer from the shuffle passes."""
    return scalar(derive(seed, DECK_KEY + field(deck.encode()), _KEY_BYTES))


def slot_key(seed: bytes, deck: str, serial: int) -> int:
    """The seat's fresh key for re-lock number ``serial`` of the deck."""
    return scalar(derive(seed, SLOT_KEY + field(deck.encode()) + u32(serial), _KEY_BYTES))


def handoff_scalar(seed: bytes, deck: str, serial: int, index: int) -> int:
    """The giver's ElGamal scalar ``e`` for the ``index``-th slot of its one-step handoff
    of serial ``serial`` (pbem.protocol.crypto.deck_handoff). Serials are never used twice
    in a deck, so no ``e`` is either (two pairs to one receiver under one ``e`` would tell
    anyone which two cards they are)."""
    return scalar(derive(seed, HANDOFF + field(deck.encode()) + u32(serial) + u32(index),
                         _KEY_BYTES))


def shuffle_sampler(seed: bytes, deck: str, pass_index: int) -> Sampler:
    """The stream a seat's shuffle pass number ``pass_index`` of the deck draws from."""
    return Sampler(derive(seed, DECK_SHUFFLE + field(deck.encode()) + u32(pass_index)))


def permutation(seed: bytes, deck: str, pass_index: int, size: int) -> list[int]:
    """Fisher-Yates of ``range(size)``: position i of the new order takes old ``perm[i]``."""
    perm = list(range(size))
    shuffle_sampler(seed, deck, pass_index).shuffle(perm)
    return perm


def batch_permutation(seed: bytes, deck: str, serial: int, size: int) -> list[int]:
    """The permutation of a batch re-lock under slot-key ``serial``: Fisher-Yates of
    ``range(size)`` from ``HKDF(seed, b"batch-shuffle" || field(deck) || u32(serial), 32)``."""
    perm = list(range(size))
    Sampler(derive(seed, BATCH_SHUFFLE + field(deck.encode()) + u32(serial))).shuffle(perm)
    return perm


# ---- text form ----------------------------------------------------------------------------
def to_text(point: bytes) -> str:
    """A point (or scalar) as it travels: 43 characters of unpadded base64url (pbem.protocol.crypto.b64)."""
    return b64.encode(point)


def point_bytes(text: object) -> bytes:
    """The 32 bytes of a point's text (43 characters of canonical unpadded base64url),
    else ValueError: the form of a point, not yet checked to be one (``from_text`` checks
    both)."""
    return b64.decode(text, POINT_BYTES, "point")


def from_text(text: object) -> bytes:
    """Parse a point: its text (``to_text``) encoding a valid group element, else ValueError."""
    point = point_bytes(text)
    if not is_valid_point(point):
        raise ValueError(
            f"{text} is not a valid point of the group (not canonical, not on edwards25519, "
            "outside its prime-order subgroup, or of small order)"
        )
    return point
