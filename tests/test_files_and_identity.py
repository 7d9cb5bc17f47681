"""Save files on disk and identities in homes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pbem.errors import IdentityError, SaveFileError, UsageError
from pbem.protocol.crypto.identity import Home, fingerprint
from pbem.protocol.saveformat import savefile
from tests.enginekit import play_game


def test_write_new_is_atomic_and_never_overwrites(tmp_path: Path) -> None:
    target = tmp_path / "a.toml"
    savefile.write_new(target, "x = 1\n")
    assert target.read_text() == "x = 1\n"
    with pytest.raises(UsageError, match="never overwrites"):
        savefile.write_new(target, "x = 2\n")
    assert target.read_text() == "x = 1\n"
    assert [p.name for p in tmp_path.iterdir()] == ["a.toml"], "a temporary file was left"


def test_write_new_into_a_missing_folder(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="does not exist"):
        savefile.write_new(tmp_path / "nope" / "a.toml", "x = 1\n")


def test_save_survives_crlf_and_bom(homes: dict[str, Home], tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", stop_after=5)
    raw = paths[-1].read_bytes()
    mangled = b"\xef\xbb\xbf" + raw.replace(b"\n", b"\r\n")
    save = savefile.parse_bytes(mangled)
    assert save.entries == savefile.parse_bytes(raw).entries


@pytest.mark.parametrize(("edit", "message"), [
    (lambda t: t.replace('kind = "join"', 'kind = "dance"', 1), "not one of"),
    (lambda t: t.replace("seq = 1\n", "seq = 1.5\n", 1), "should be an integer"),
    (lambda t: t.replace('sig = "', 'sig = "zz', 1), "hex"),
    (lambda t: t.replace("[header", "[headr"), r"no \[header\]"),
    (lambda t: t + "\n[extra]\nx = 1\n", "unexpected tables"),
])
def test_malformed_fields_are_named(edit, message: str, homes: dict[str, Home],
                                    tmp_path: Path) -> None:
    paths = play_game(homes, tmp_path / "s", stop_after=3)
    text = edit(paths[-1].read_text())
    with pytest.raises(SaveFileError, match=message):
        savefile.parse(text)


def test_huge_file_is_refused_without_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                              ) -> None:
    monkeypatch.setattr(savefile, "MAX_SAVE_BYTES", 10)
    big = tmp_path / "big.toml"
    big.write_text("x" * 100)
    with pytest.raises(SaveFileError, match="larger than any pbem save"):
        savefile.read(big)


def test_key_file_is_private_and_fingerprint_short(tmp_path: Path) -> None:
    home = Home(tmp_path / "h")
    identity = home.keygen("ann")
    mode = stat.S_IMODE(os.stat(tmp_path / "h" / "identity.pem").st_mode)
    assert mode == 0o600
    assert identity.fingerprint == fingerprint(identity.public_raw)
    assert len(identity.fingerprint) == 19 and identity.fingerprint.count(":") == 3
    assert home.load().public_raw == identity.public_raw


def test_seed_is_per_game_and_nonce_and_reproducible(tmp_path: Path) -> None:
    home = Home(tmp_path / "h")
    home.keygen("ann")
    nonce = bytes(range(32))
    a = home.load().seed("00" * 16, nonce)
    assert a == home.load().seed("00" * 16, nonce)
    assert a != home.load().seed("11" * 16, nonce)
    assert a != home.load().seed("00" * 16, bytes(32)), "the nonce is mixed into the seed"


def test_passphrase_protected_identity(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Home(tmp_path / "h")
    made = home.keygen("ann", passphrase="correct horse")
    assert b"ENCRYPTED" in (tmp_path / "h" / "identity.pem").read_bytes()
    monkeypatch.delenv("PBEM_PASSPHRASE", raising=False)
    with pytest.raises(IdentityError, match="passphrase-protected"):
        home.load()
    monkeypatch.setenv("PBEM_PASSPHRASE", "wrong")
    with pytest.raises(IdentityError, match="passphrase is wrong"):
        home.load()
    monkeypatch.setenv("PBEM_PASSPHRASE", "correct horse")
    assert home.load().public_raw == made.public_raw


def test_mismatched_identity_files_are_caught(tmp_path: Path) -> None:
    a, b = Home(tmp_path / "a"), Home(tmp_path / "b")
    a.keygen("ann")
    b.keygen("bob")
    (tmp_path / "a" / "identity.pem").unlink()
    (tmp_path / "a" / "identity.pem").write_bytes((tmp_path / "b" / "identity.pem").read_bytes())
    with pytest.raises(IdentityError, match="do not match"):
        a.load()


def test_someone_elses_home_cannot_play_a_seat(homes: dict[str, Home], tmp_path: Path) -> None:
    """A second 'bob' identity (another key) is refused for bob's seat."""
    from pbem import session

    paths = play_game(homes, tmp_path / "s", stop_after=4)
    impostor = Home(tmp_path / "impostor")
    impostor.keygen("bob")
    table = session.load(paths[-1], impostor).table
    from pbem.protocol.replay import signing

    with pytest.raises(IdentityError, match="not the one that took the seat"):
        signing.seat_for(table, impostor.load())


def test_unencrypted_key_is_read_as_cryptography_reads_it(tmp_path: Path) -> None:
    """The fast reader of identity.pem gives the same 32 private bytes as cryptography's
    PEM reader, for keygen's own files and for every fixed key below."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from pbem.protocol.crypto.identity import plain_ed25519_seed

    home = Home(tmp_path / "h")
    made = home.keygen("ann")
    assert home.load().seed("g", bytes(32)) == made.seed("g", bytes(32))
    for fill in (0, 1, 0x7F, 0xFF):
        key = Ed25519PrivateKey.from_private_bytes(bytes([fill]) * 31 + b"\x42")
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                serialization.NoEncryption())
        assert plain_ed25519_seed(pem) == key.private_bytes_raw()
        assert plain_ed25519_seed(pem.replace(b"\n", b"\r\n")) == key.private_bytes_raw()


def test_a_tampered_key_file_is_refused(tmp_path: Path) -> None:
    """A key file changed in its prefix (another algorithm's OID), its private bytes, its
    base64 or its PEM markers is refused, never read as some other key."""
    import base64

    from pbem.protocol.crypto.identity import plain_ed25519_seed

    home = Home(tmp_path / "h")
    home.keygen("ann")
    pem_path = tmp_path / "h" / "identity.pem"
    good = pem_path.read_bytes()
    der = base64.b64decode(good.split(b"\n")[1])

    def with_der(changed: bytes) -> bytes:
        return good.replace(good.split(b"\n")[1], base64.b64encode(changed))

    x25519 = der[:11] + b"\x6e" + der[12:]  # OID 1.3.101.110: an X25519 key, same layout
    unknown = der[:11] + b"\x7f" + der[12:]  # OID 1.3.101.127: no key type at all
    flipped = der[:-1] + bytes([der[-1] ^ 1])
    cases = {
        "not an Ed25519 key": with_der(x25519),
        "do not match": with_der(flipped),
        "damaged  ": with_der(unknown),
        "damaged": good.replace(good.split(b"\n")[1][:4], b"!!!!"),
        "damaged ": good.replace(b"PRIVATE KEY-----\n", b"PRIVATE KEX-----\n", 1),
    }
    for message, text in cases.items():
        assert plain_ed25519_seed(text) is None or message == "do not match"
        pem_path.write_bytes(text)
        with pytest.raises(IdentityError, match=message.strip()):
            home.load()
    pem_path.write_bytes(good)
    assert home.load().handle == "ann"


def test_loading_an_unencrypted_key_skips_the_serialization_package(tmp_path: Path) -> None:
    """Start-up: cryptography's PEM reader costs a tenth of a command; an unencrypted key
    in keygen's layout is read without it (an encrypted one still goes through it)."""
    import subprocess
    import sys

    Home(tmp_path / "plain").keygen("ann")
    Home(tmp_path / "locked").keygen("bob", passphrase="pw")
    code = ("import sys\nfrom pathlib import Path\nfrom pbem.protocol.crypto.identity import Home\n"
            "Home(Path(sys.argv[1])).load()\n"
            "print('cryptography.hazmat.primitives.serialization' in sys.modules)\n")
    for name, expected in (("plain", "False"), ("locked", "True")):
        out = subprocess.run([sys.executable, "-c", code, str(tmp_path / name)], text=True,
                             capture_output=True, check=True,
                             env={**os.environ, "PBEM_PASSPHRASE": "pw"})
        assert out.stdout.strip() == expected, (name, out.stderr)
