"""A player's home: the Ed25519 identity and where the archive lives (PROTOCOL.md 2).

The home is ``--home``, else ``$PBEM_HOME``, else a per-user data directory. The private
key is PKCS#8 PEM, mode 0600, optionally encrypted with a passphrase (read from
``$PBEM_PASSPHRASE`` or asked for at the terminal). Per-game seeds are re-derived from
it, so nothing per game needs backing up.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

from pbem import tomltext
from pbem.errors import IdentityError, UsageError
from pbem.hashing import sha256_hex
from pbem.protocol.crypto import entropy
from pbem.protocol.crypto.derive import deck_seed, game_seed
from pbem.record import Record

HANDLE_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
# One mail address, nothing else: no display name, no second address after a comma, no
# spaces, quotes, brackets or control characters (they would add recipients or headers).
# Deliberately loose beyond that: the mail server is the judge of an address.
ADDRESS_RE = re.compile(
    r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+$")
MAX_ADDRESS = 254
MAX_INFO_BYTES = 64 * 1024
KEY_FILE = "identity.pem"
INFO_FILE = "identity.toml"


def default_home() -> Path:
    env = os.environ.get("PBEM_HOME")
    if env:
        return Path(env)
    if sys.platform == "win32":  # pragma: no cover - not on CI
        base = Path(os.environ.get("APPDATA", Path.home()))
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "pbem"


def check_handle(handle: str) -> str:
    """The one rule for handles everywhere: lower-case letters, digits, '-' and '_'."""
    if not is_handle(handle):
        shown = handle.encode("unicode_escape").decode("ascii")[:80]
        raise UsageError(
            f"'{shown}' is not a usable handle: use 1 to 32 lower-case letters, digits, "
            "'-' or '_', starting with a letter or digit."
        )
    return handle


def is_handle(text: object) -> bool:
    return isinstance(text, str) and HANDLE_RE.match(text) is not None


def is_address(text: object) -> bool:
    return isinstance(text, str) and len(text) <= MAX_ADDRESS and ADDRESS_RE.match(text) is not None


def check_address(address: str) -> str:
    """``address`` stripped, or UsageError (exit 2) if it is not exactly one mail address.

    The one rule for addresses everywhere: ``new --seat``, ``profile --email``, the
    header of a save (where a bad one is a malformed save) and mail recipients."""
    address = address.strip()
    if not is_address(address):
        shown = address.encode("unicode_escape").decode("ascii")[:80]
        raise UsageError(f"'{shown}' is not a mail address; give one address as "
                         "name@example.org (no names, commas or spaces).")
    return address


def fingerprint(public_raw: bytes) -> str:
    """Short hex digest of the raw public key, grouped for reading aloud."""
    h = sha256_hex(public_raw)[:16]
    return ":".join(h[i : i + 4] for i in range(0, 16, 4))


class Identity(Record):
    def __init__(self, handle: str, public_raw: bytes, private: Any) -> None:
        self.handle = handle
        self.public_raw = public_raw
        self._private = private  # Ed25519PrivateKey, imported lazily; not shown by repr

    @property
    def public_hex(self) -> str:
        return self.public_raw.hex()

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_raw)

    def sign(self, data: bytes) -> bytes:
        return bytes(self._private.sign(data))

    def seed(self, game_id: str, nonce: bytes) -> bytes:
        """This identity's seed in game ``game_id`` for the seat whose create/join entry
        published ``nonce`` (PROTOCOL.md section 2)."""
        raw = self._private.private_bytes_raw()
        return game_seed(raw, game_id, nonce)

    def deck_seed(self, game_id: str, nonce: bytes) -> bytes:
        """This identity's deck seed for the same seat (PROTOCOL.md section 3): the root of
        its mental-deck secrets where the rules open its cards at its reveal."""
        return deck_seed(self._private.private_bytes_raw(), game_id, nonce)


class Home:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    @property
    def archive_dir(self) -> Path:
        return self.path / "archive"

    def has_identity(self) -> bool:
        return (self.path / KEY_FILE).exists()

    def info(self) -> dict[str, Any]:
        """identity.toml: ``handle``, ``public_key`` (hex) and ``encrypted``, checked."""
        try:
            with open(self.path / INFO_FILE, "rb") as fh:
                if len(fh.read(MAX_INFO_BYTES + 1)) > MAX_INFO_BYTES:
                    raise IdentityError(f"The identity file {self.path / INFO_FILE} is far too "
                                        "large to be one; restore it from a backup.")
                fh.seek(0)
                info = tomltext.load(fh)
        except FileNotFoundError:
            raise IdentityError(
                f"There is no identity in {self.path}. Make one with "
                "'pbem keygen --name HANDLE' (or pass --home DIR)."
            ) from None
        except IsADirectoryError:
            raise IdentityError(f"{self.path / INFO_FILE} is a folder, not an identity file.") from None
        except (OSError, ValueError, RecursionError) as exc:  # TOMLDecodeError is a ValueError
            raise IdentityError(f"The identity file in {self.path} is unreadable ({exc}); "
                                "restore it from a backup.") from None
        handle, key = info.get("handle"), info.get("public_key")
        if not is_handle(handle) or not isinstance(key, str) or not re.fullmatch(r"[0-9a-f]{64}", key) \
                or not isinstance(info.get("encrypted", False), bool):
            raise IdentityError(
                f"The identity file {self.path / INFO_FILE} is damaged (it needs a handle, the "
                "public key in hex and whether the key is encrypted). Restore it from a backup; "
                "'pbem keygen' never overwrites an identity.")
        return info

    def handle(self) -> str:
        return str(self.info()["handle"])

    def keygen(self, handle: str, passphrase: str | None = None) -> Identity:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        check_handle(handle)
        if self.has_identity():
            raise IdentityError(
                f"{self.path} already holds an identity ({self.handle()}); it is never "
                "overwritten. Use another --home for another player."
            )
        in_the_way = [p for p in (self.path / KEY_FILE, self.path / INFO_FILE)
                      if os.path.lexists(p)]
        if in_the_way:  # a broken link, or half an identity: never written over
            raise IdentityError(
                f"{in_the_way[0]} is in the way (a link to nothing, or part of an identity): "
                "keygen never writes over a file. Move it away, or use another --home.")
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise IdentityError(f"The home {self.path} cannot be made ({exc.strerror}).") \
                from None
        key = Ed25519PrivateKey.from_private_bytes(entropy.fresh_bytes(32))
        encryption: serialization.KeySerializationEncryption = (
            serialization.BestAvailableEncryption(passphrase.encode())
            if passphrase
            else serialization.NoEncryption()
        )
        pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
        )
        public_raw = key.public_key().public_bytes_raw()
        fd = os.open(self.path / KEY_FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as fh:
            fh.write(pem)
        info = {"handle": handle, "public_key": public_raw.hex(), "encrypted": bool(passphrase)}
        with open(self.path / INFO_FILE, "wb") as fh:
            fh.write(tomltext.dumps(info).encode("utf-8"))
        return Identity(handle, public_raw, key)

    def load(self, passphrase: str | None = None) -> Identity:
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        info = self.info()
        try:
            pem = (self.path / KEY_FILE).read_bytes()
        except OSError as exc:
            raise IdentityError(f"The private key in {self.path} is unreadable ({exc}).") from None
        if info.get("encrypted") and passphrase is None:
            passphrase = os.environ.get("PBEM_PASSPHRASE")
            if passphrase is None:
                raise IdentityError(
                    "This identity is passphrase-protected. Set PBEM_PASSPHRASE or run "
                    "the command at a terminal."
                )
        try:
            raw = None if info.get("encrypted") else plain_ed25519_seed(pem)
            # Encrypted, or laid out otherwise: cryptography's full PEM reader.
            key = (Ed25519PrivateKey.from_private_bytes(raw) if raw is not None
                   else _read_pem(pem, passphrase))
        except (ValueError, TypeError):
            raise IdentityError(
                "The passphrase is wrong or the private key file is damaged."
            ) from None
        if not isinstance(key, Ed25519PrivateKey):
            raise IdentityError(f"The key in {self.path} is not an Ed25519 key.")
        public_raw = key.public_key().public_bytes_raw()
        if public_raw.hex() != info.get("public_key"):
            raise IdentityError(
                f"The key and identity.toml in {self.path} do not match; restore them from a backup."
            )
        return Identity(str(info["handle"]), public_raw, key)


def _read_pem(pem: bytes, passphrase: str | None) -> Any:
    """cryptography's PEM reader; an unknown key type is a damaged file (ValueError)."""
    from cryptography.exceptions import UnsupportedAlgorithm
    from cryptography.hazmat.primitives import serialization

    try:
        return serialization.load_pem_private_key(
            pem, passphrase.encode() if passphrase else None)
    except UnsupportedAlgorithm:
        raise ValueError("unknown key type") from None


# An unencrypted Ed25519 key in PKCS#8 (RFC 8410, section 7): SEQUENCE { INTEGER 0,
# SEQUENCE { OID 1.3.101.112 }, OCTET STRING { OCTET STRING (32 bytes) } }, always these
# 16 bytes and then the 32-byte private key.
PKCS8_ED25519_PREFIX = bytes.fromhex("302e020100300506032b657004220420")
_PEM_BEGIN, _PEM_END = b"-----BEGIN PRIVATE KEY-----", b"-----END PRIVATE KEY-----"


def plain_ed25519_seed(pem: bytes) -> bytes | None:
    """The 32 private bytes of an unencrypted PKCS#8 PEM Ed25519 key in exactly the layout
    keygen writes, or None for anything else (which cryptography's PEM reader then
    judges). Reading them here spares importing cryptography's serialization package,
    a tenth of a command's start-up."""
    import binascii

    lines = pem.strip().split(b"\n")
    if len(lines) != 3 or lines[0].rstrip(b"\r") != _PEM_BEGIN \
            or lines[2].rstrip(b"\r") != _PEM_END:
        return None
    try:
        der = binascii.a2b_base64(lines[1].rstrip(b"\r"), strict_mode=True)
    except binascii.Error:
        return None
    if len(der) != 48 or not der.startswith(PKCS8_ED25519_PREFIX):
        return None
    return der[16:]


def verify_signature(public_raw: bytes, signature: bytes, data: bytes) -> bool:
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(public_raw).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True
