"""pbem.hashing gives the stdlib's digests (RFC test vectors where there are some), and
no command that reads a save loads hashlib or hmac, which would load a second OpenSSL."""

from __future__ import annotations

import hashlib
import hmac
import importlib
import subprocess
import sys

import pytest

from pbem import hashing


def test_digests_are_the_stdlib_ones() -> None:
    for data in (b"", b"abc", bytes(range(256)) * 40):
        assert hashing.sha256(data) == hashlib.sha256(data).digest()
        assert hashing.sha256_hex(data) == hashlib.sha256(data).hexdigest()
        assert hashing.sha512(data) == hashlib.sha512(data).digest()
        for length in (1, 64, 1000):
            assert hashing.shake_256(data, length) == hashlib.shake_256(data).digest(length)
        assert hashing.hmac_sha256(b"key", data) == hmac.digest(b"key", data, "sha256")
        assert hashing.hmac_sha512(b"k" * 200, data) == hmac.digest(b"k" * 200, data, "sha512")


def test_hkdf_is_rfc5869() -> None:
    """RFC 5869, test case 3 (SHA-256, empty salt and info)."""
    ikm = bytes.fromhex("0b" * 22)
    okm = ("8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
           "9d201395faa4b61a96c8")
    assert hashing.hkdf_sha256(ikm, b"", 42).hex() == okm


def test_a_python_without_the_builtin_modules_hashes_with_hashlib(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise ImportError(name)

    monkeypatch.setattr(importlib, "import_module", missing)
    assert hashing.builtin(("_sha2", "_sha256"), "sha256") is hashlib.sha256
    assert hashing.builtin(("_sha3",), "shake_256") is hashlib.shake_256


def test_reading_saves_loads_neither_hashlib_nor_hmac() -> None:
    code = ("import sys, pbem.cli, pbem.session, pbem.cli.show, pbem.cli.verify, "
            "pbem.cli.play, pbem_games.road_master, pbem_games.red_dog_junction, "
            "pbem_games.station_to_station; "
            "print(sorted({'hashlib', 'hmac', '_hashlib'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
