"""SHA-256, SHA-512, SHAKE256, HMAC and HKDF, from cryptography.

Every command loads cryptography to check Ed25519 signatures, and cryptography carries
its own OpenSSL. The stdlib's ``hashlib`` and ``hmac`` would load the system's OpenSSL
a second time, about 3 ms of every command's start-up (``make bench``), for the same
digests. The one hash this module does not serve is the beacon chain's 32-byte link
(:mod:`pbem.protocol.beacon`), for which Python's built-in SHA-256 is quicker still.
"""

from __future__ import annotations

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import hmac as _hmac
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

_SHA256 = hashes.SHA256()
_SHA512 = hashes.SHA512()


def sha256(data: bytes) -> bytes:
    digest = hashes.Hash(_SHA256)
    digest.update(data)
    return digest.finalize()


def sha256_hex(data: bytes) -> str:
    return sha256(data).hex()


def sha512(data: bytes) -> bytes:
    digest = hashes.Hash(_SHA512)
    digest.update(data)
    return digest.finalize()


def shake_256(data: bytes, length: int) -> bytes:
    """The first ``length`` bytes of SHAKE256(data)."""
    digest = hashes.Hash(hashes.SHAKE256(digest_size=length))
    digest.update(data)
    return digest.finalize()


def hmac_sha256(key: bytes, data: bytes) -> bytes:
    mac = _hmac.HMAC(key, _SHA256)
    mac.update(data)
    return mac.finalize()


def hmac_sha512(key: bytes, data: bytes) -> bytes:
    mac = _hmac.HMAC(key, _SHA512)
    mac.update(data)
    return mac.finalize()


def hkdf_sha256(ikm: bytes, info: bytes, length: int) -> bytes:
    """HKDF-SHA256 (RFC 5869) of ``ikm`` with an empty salt."""
    return HKDF(algorithm=_SHA256, length=length, salt=None, info=info).derive(ikm)
