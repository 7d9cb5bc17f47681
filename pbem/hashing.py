"""SHA-256, SHA-512 and SHAKE256 of the protocol, and its HMAC and HKDF.

The digests come from Python's own implementations (the built-in modules ``_sha2`` and
``_sha3``; ``_sha256`` and ``_sha512`` before 3.12), HMAC and HKDF from cryptography.
The stdlib's ``hashlib`` and ``hmac`` would load the system's OpenSSL, about 3 ms of
every command's start-up (``make bench``), when cryptography carries an OpenSSL of its
own: a command that checks or makes a signature loads it anyway, and one that does not
(``show`` of a save the home has verified) loads neither. On the inputs the protocol
hashes (entries of a few kilobytes) Python's own are within a few microseconds of
OpenSSL's. A Python built without them hashes with hashlib's, the same digests.

Bulk hashing (a whole mail message) uses hashlib, which is quicker on large inputs.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

Constructor = Callable[[bytes], Any]


def builtin(names: tuple[str, ...], attr: str) -> Constructor:
    """``attr`` of the first of the built-in modules ``names`` this Python has, else
    hashlib's (a module that is not there costs a search of every folder on the path,
    so this Python's own name goes first)."""
    for name in names:
        try:
            return getattr(importlib.import_module(name), attr)
        except (ImportError, AttributeError):
            continue
    import hashlib

    return getattr(hashlib, attr)


_NEW = sys.version_info >= (3, 12)
SHA256: Constructor = builtin(("_sha2", "_sha256") if _NEW else ("_sha256", "_sha2"), "sha256")
_SHA512: Constructor = builtin(("_sha2", "_sha512") if _NEW else ("_sha512", "_sha2"), "sha512")
_SHAKE256: Constructor = builtin(("_sha3",), "shake_256")


def sha256(data: bytes) -> bytes:
    return SHA256(data).digest()


def sha256_hex(data: bytes) -> str:
    return SHA256(data).hexdigest()


def sha512(data: bytes) -> bytes:
    return _SHA512(data).digest()


def shake_256(data: bytes, length: int) -> bytes:
    """The first ``length`` bytes of SHAKE256(data)."""
    return _SHAKE256(data).digest(length)


def hmac_sha256(key: bytes, data: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes, hmac

    mac = hmac.HMAC(key, hashes.SHA256())
    mac.update(data)
    return mac.finalize()


def hmac_sha512(key: bytes, data: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes, hmac

    mac = hmac.HMAC(key, hashes.SHA512())
    mac.update(data)
    return mac.finalize()


def hkdf_sha256(ikm: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 (RFC 5869) of ``ikm`` with an empty salt."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=length, salt=None, info=info).derive(ikm)
