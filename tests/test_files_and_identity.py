"""Save files on disk and identities in homes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from pbem.errors import IdentityError, SaveFileError, UsageError
from pbem.protocol import savefile
from pbem.protocol.identity import Home, fingerprint
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
    from pbem.protocol import engine

    with pytest.raises(IdentityError, match="not the one that took the seat"):
        engine.seat_for(table, impostor.load())
