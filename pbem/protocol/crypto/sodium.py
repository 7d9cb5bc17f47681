"""The six edwards25519 functions of libsodium the secret deck uses, called straight
through PyNaCl's compiled module (``nacl._sodium``), with the names, checks and errors of
``nacl.bindings``: a bad length or type is a TypeError, libsodium's refusal (a point not
canonical, not on the curve or not in the prime-order subgroup) a RuntimeError.

Importing ``nacl.bindings`` loads every binding PyNaCl has (boxes, password hashing,
streams...), a few milliseconds of every command's start-up for six functions. That
compiled module is not part of PyNaCl's documented interface, so when it is missing or
lacks a function, ``nacl.bindings`` itself is used instead.
"""

from __future__ import annotations

from typing import Any

POINT_BYTES = SCALAR_BYTES = 32


def _load() -> tuple[Any, Any] | None:
    try:
        from nacl._sodium import ffi, lib  # type: ignore[import-not-found,unused-ignore]

        for name in ("crypto_core_ed25519_is_valid_point", "crypto_core_ed25519_from_uniform",
                     "crypto_core_ed25519_add", "crypto_core_ed25519_sub",
                     "crypto_scalarmult_ed25519_noclamp",
                     "crypto_scalarmult_ed25519_base_noclamp"):
            getattr(lib, name)
        if lib.sodium_init() < 0:  # 0: started now, 1: already started
            return None
    except (ImportError, AttributeError):
        return None
    return ffi, lib


_compiled = _load()


def _bytes(value: object, size: int, what: str) -> None:
    if not isinstance(value, bytes) or len(value) != size:
        raise TypeError(f"{what} must be a {size} long bytes sequence")


def _out(call: Any, *args: bytes) -> bytes:
    ffi, _ = _compiled  # type: ignore[misc]
    result = ffi.new("unsigned char[]", POINT_BYTES)
    if call(result, *args) != 0:
        raise RuntimeError("Unexpected library error")
    return bytes(ffi.buffer(result, POINT_BYTES))


if _compiled is None:  # pragma: no cover - every PyNaCl from 1.4 to 1.5 has the module
    from nacl.bindings import (  # noqa: F401
        crypto_core_ed25519_add,
        crypto_core_ed25519_from_uniform,
        crypto_core_ed25519_is_valid_point,
        crypto_core_ed25519_sub,
        crypto_scalarmult_ed25519_base_noclamp,
        crypto_scalarmult_ed25519_noclamp,
    )
else:
    _lib = _compiled[1]

    def crypto_core_ed25519_is_valid_point(p: bytes) -> bool:
        _bytes(p, POINT_BYTES, "Point")
        return bool(_lib.crypto_core_ed25519_is_valid_point(p) == 1)

    def crypto_core_ed25519_from_uniform(r: bytes) -> bytes:
        _bytes(r, POINT_BYTES, "Integer")
        return _out(_lib.crypto_core_ed25519_from_uniform, r)

    def crypto_core_ed25519_add(p: bytes, q: bytes) -> bytes:
        _bytes(p, POINT_BYTES, "Each point")
        _bytes(q, POINT_BYTES, "Each point")
        return _out(_lib.crypto_core_ed25519_add, p, q)

    def crypto_core_ed25519_sub(p: bytes, q: bytes) -> bytes:
        _bytes(p, POINT_BYTES, "Each point")
        _bytes(q, POINT_BYTES, "Each point")
        return _out(_lib.crypto_core_ed25519_sub, p, q)

    def crypto_scalarmult_ed25519_noclamp(n: bytes, p: bytes) -> bytes:
        _bytes(n, SCALAR_BYTES, "Input")
        _bytes(p, POINT_BYTES, "Input")
        return _out(_lib.crypto_scalarmult_ed25519_noclamp, n, p)

    def crypto_scalarmult_ed25519_base_noclamp(n: bytes) -> bytes:
        _bytes(n, SCALAR_BYTES, "Input")
        return _out(_lib.crypto_scalarmult_ed25519_base_noclamp, n)
