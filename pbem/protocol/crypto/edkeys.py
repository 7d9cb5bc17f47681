"""Is a published Ed25519 public key sound? (PROTOCOL.md section 3, "Seats are bound").

An Ed25519 public key is a point A of edwards25519. Verification (RFC 8032, as OpenSSL
does it) checks ``[S]B == R + [k]A``. If A is the identity point, ``R = identity, S = 0``
verifies *every* message; if A has small order, a forger needs only a few tries per
message. Such a key binds a seat to nobody, so a create/join entry must not publish one.

A sound key is the canonical encoding of a point of prime order L (the subgroup every
honestly made key ``[a]B`` lies in): that refuses the 8 small-order points, the
mixed-order points (a sound key plus a torsion point) and every non-canonical encoding.
This is what libsodium's ``crypto_core_ed25519_is_valid_point`` checks, and that is what
runs: PyNaCl's compiled module, loaded on its own (about 0.5 ms, against 5 ms for
``nacl.bindings`` whole, which a game without a secret deck never needs), checks a key in
under 0.1 ms. The check is also written out here, in Python (public data only, no secret
goes through it): it runs if that module cannot be loaded, and tests hold the two to the
same answers. It takes about a millisecond a key, and a verify in a new process checks
every seat's key, so it is the fallback only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from functools import lru_cache

P = 2**255 - 19
D = (-121665 * pow(121666, P - 2, P)) % P
L = 2**252 + 27742317777372353535851937790883648493  # the prime order of the base point
SQRT_M1 = pow(2, (P - 1) // 4, P)

Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T), x = X/Z, y = Y/Z
IDENTITY: Point = (0, 1, 1, 0)


def decode(raw: bytes) -> Point | None:
    """The point a 32-byte encoding names, or None if it is not the canonical encoding
    of a curve point (RFC 8032 section 5.1.3, strict)."""
    if len(raw) != 32:
        return None
    n = int.from_bytes(raw, "little")
    sign, y = n >> 255, n & ((1 << 255) - 1)
    if y >= P:
        return None  # y not reduced: a second encoding of some point
    u = (y * y - 1) % P
    v = (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    vx2 = v * x * x % P
    if vx2 == (-u) % P:
        x = x * SQRT_M1 % P
    elif vx2 != u:
        return None  # no x for this y: not on the curve
    if x == 0 and sign:
        return None  # "-0": a second encoding of a point with x = 0
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


def _add(p: Point, q: Point) -> Point:
    """Complete twisted-Edwards addition (a = -1), valid for doubling too."""
    x1, y1, z1, t1 = p
    x2, y2, z2, t2 = q
    a = (y1 - x1) * (y2 - x2) % P
    b = (y1 + x1) * (y2 + x2) % P
    c = 2 * D * t1 * t2 % P
    d = 2 * z1 * z2 % P
    e, f, g, h = b - a, d - c, d + c, b + a
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _double(p: Point) -> Point:
    """Doubling (a = -1, "dbl-2008-hwcd"), cheaper than adding a point to itself."""
    x1, y1, z1, _ = p
    a = x1 * x1 % P
    b = y1 * y1 % P
    c = 2 * z1 * z1 % P
    h = -a - b
    e = ((x1 + y1) * (x1 + y1) + h) % P
    g = b - a
    f = g - c
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def _times(point: Point, scalar: int) -> Point:
    """[scalar]point, with a 4-bit window."""
    table = [IDENTITY, point]
    for _ in range(14):
        table.append(_add(table[-1], point))
    result = IDENTITY
    digits = f"{scalar:x}"
    for i, digit in enumerate(digits):
        if i:
            for _ in range(4):
                result = _double(result)
        value = int(digit, 16)
        if value:
            result = _add(result, table[value])
    return result


def _is_identity(point: Point) -> bool:
    x, y, z, _ = point
    return x % P == 0 and (y - z) % P == 0


@lru_cache(maxsize=256)
def is_sound_key(raw: bytes) -> bool:
    """True for the canonical encoding of a point of prime order L; False for the
    identity, small-order and mixed-order points and for any other encoding."""
    if len(raw) != 32:  # libsodium reads 32 bytes, whatever it is given
        return False
    check = _compiled_check()
    return check(raw) if check is not None else is_sound_key_in_python(raw)


def is_sound_key_in_python(raw: bytes) -> bool:
    """is_sound_key worked out in Python: decode, then [L]A must be the identity."""
    point = decode(raw)
    if point is None or _is_identity(point):
        return False
    return _is_identity(_times(point, L))


@lru_cache(maxsize=1)
def _compiled_check() -> Callable[[bytes], bool] | None:
    """libsodium's ``crypto_core_ed25519_is_valid_point`` from PyNaCl's compiled module,
    or None if this PyNaCl does not have it where we look (its cffi module is not part
    of its documented interface, so it is looked up, never assumed)."""
    try:
        sodium = importlib.import_module("nacl._sodium").lib
        valid = sodium.crypto_core_ed25519_is_valid_point
        if sodium.sodium_init() < 0:  # 0: started now, 1: already started
            return None
    except (ImportError, AttributeError):
        return None

    def check(raw: bytes) -> bool:
        return bool(valid(raw) == 1)

    return check
